"""OpenSM, the InfiniBand subnet manager: opensm.conf, partitions.conf, qos-policy.conf and the
ftree/updn GUID files, rendered for the host that runs it (reference/lossless.md §5)."""
