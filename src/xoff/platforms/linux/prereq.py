"""The verified-only prerequisites of a host (reference/lossless.md §4.5), read in the push's verify
batch and judged in Python: RDMA link layers, and on GPU hosts nvidia-peermem, ACS on PCIe bridges and
the IOMMU mode. xoff never changes them; a push whose host misses one fails its verify (and is rolled
back), with the same one-line findings ``xoff-host-apply.sh`` prints for them.

``prereq_script(desired)`` is bash appended to the snapshot script: ``### <fact> ...`` lines, then
``### end`` again (the snapshot parser needs the read to end there); ``prereq_problems(out, desired)``
reads those lines back.
"""

from __future__ import annotations

from shlex import quote
from typing import Any

PEERMEM = "gpudirect: nvidia-peermem not loaded (no /sys/module/nvidia_peermem; modprobe nvidia-peermem)"
ACS_AWK = r"""awk '/^[0-9a-fA-F]/ {dev = $1} /ACSCtl:/ && /SrcValid\+/ {print "### acs_on " dev}'"""


def prereq_script(desired: dict[str, Any]) -> str:
    lines = ["echo '### prereq'"]
    for p in desired.get("rdma", []):
        rdma, port = quote(p["rdma"]), int(p["port"])
        f = f'"$R"/sys/class/infiniband/{rdma}/ports/{port}/link_layer'
        lines.append(f'v=; [ -r {f} ] && IFS= read -r v <{f}; echo "### link_layer {rdma} {port} $v"')
    gpu = desired.get("gpudirect")
    if gpu:
        if gpu.get("nvidia_peermem"):
            lines.append(
                "if [ -d \"$R/sys/module/nvidia_peermem\" ]; then echo '### peermem yes'; else echo '### peermem no'; fi"
            )
        if gpu.get("acs_disabled"):
            lines += [
                "if command -v lspci >/dev/null 2>&1; then",
                "  out=$(lspci -vvv 2>/dev/null || true)",
                "  if grep -q 'Capabilities: <access denied>' <<<\"$out\"; then echo '### acs denied'; "
                f"else echo '### acs read'; {ACS_AWK} <<<\"$out\"; fi",
                "else echo '### acs no_lspci'; fi",
            ]
        lines += [
            "if compgen -G \"$R/sys/class/iommu/*\" >/dev/null; then echo '### iommu on'; else echo '### iommu off'; fi",
            'v=; [ -r "$R/proc/cmdline" ] && IFS= read -r v <"$R/proc/cmdline"; echo "### cmdline $v"',
        ]
    lines.append("echo '### end'")
    return "\n".join(lines) + "\n"


def _facts(out: str) -> list[list[str]]:
    text = out.split("### prereq\n", 1)[1] if "### prereq\n" in out else ""
    return [ln[4:].split(" ") for ln in text.splitlines() if ln.startswith("### ")]


def _iommu(facts: list[list[str]], want: str) -> list[str]:
    if ["iommu", "on"] not in facts:
        return []
    if want == "off":
        return ["gpudirect: IOMMU is on, want it off (/sys/class/iommu is not empty)"]
    cmdline = next((f[1:] for f in facts if f[0] == "cmdline"), [])
    if want == "passthrough" and "iommu=pt" not in cmdline and "iommu.passthrough=1" not in cmdline:
        return ["gpudirect: IOMMU translates DMA: no iommu=pt in /proc/cmdline"]
    return []


def _acs(facts: list[list[str]]) -> list[str]:
    if ["acs", "no_lspci"] in facts:
        return ["gpudirect: cannot check ACS: lspci not found"]
    if ["acs", "denied"] in facts:
        return ["gpudirect: cannot check ACS: lspci -vvv shows no capabilities without root"]
    return [f"gpudirect: ACS enabled on PCI bridge {f[1]} (ACSCtl SrcValid+)" for f in facts if f[0] == "acs_on"]


def prereq_problems(out: str, desired: dict[str, Any]) -> list[str]:
    """The prerequisites that do not hold, one line each (pure)."""
    facts = _facts(out)
    problems: list[str] = []
    layers = {(f[1], f[2]): " ".join(f[3:]).strip() for f in facts if f[0] == "link_layer" and len(f) >= 3}
    for p in desired.get("rdma", []):
        have = layers.get((p["rdma"], str(int(p["port"]))), "")
        if have != p["link_layer"]:
            problems.append(
                f"rdma: {p['rdma']} port {p['port']} link_layer {have or 'missing'}, want {p['link_layer']}"
            )
    gpu = desired.get("gpudirect")
    if gpu:
        if gpu.get("nvidia_peermem") and ["peermem", "yes"] not in facts:
            problems.append(PEERMEM)
        if gpu.get("acs_disabled"):
            problems += _acs(facts)
        problems += _iommu(facts, str(gpu.get("iommu")))
    return problems
