"""Linux GPU hosts with NVIDIA ConnectX NICs: an idempotent apply/check script, its state file and the
NCCL environment (reference/lossless.md §4)."""
