"""The host change script: only the values that differ, in one batch per host (issue 14).

The push reads a host once (``observe.SNAPSHOT_SCRIPT``: the backup), compares in Python, and sends
this script: one ``bash`` over one exec channel, ``set -euo pipefail``, that writes what differs and
nothing else. So a host already right costs one read and no write, and a first push costs about one
tool call per NIC and knob group rather than one per value:

- iproute2: every link, address, route and rule change in one ``ip -batch -`` (it stops at the first
  error);
- ``mlnx_qos``: one call per NIC for cable length, PFC and trust (the tool applies them in that order),
  and the DSCP map in one call with every ``--dscp2prio set,D,P`` that differs (the tool refuses
  ``--trust`` and ``--dscp2prio`` together, and ``--trust dscp`` installs the firmware map first, so
  after a trust change every entry of the rendered map is set);
- ``cma_roce_mode`` / ``cma_roce_tos`` only where the RDMA-CM default differs;
- ``mlxreg --reg_name ROCE_ACCL --set`` with the register fields that differ, one call per RDMA device;
- sysfs knobs (ECN, CNP, traffic class) and the NCCL file with shell builtins.

Order: the ``ip`` batch, then the NIC tool calls (different NICs' side by side, each NIC's in order),
then the files. A failure stops the script with exit 3 and one ``xoff-host-apply: failed: ...`` line,
after the calls already running have ended. Missing tools stop it before any change (exit 2).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from shlex import quote
from typing import Any

from xoff.contracts.apply import ApplyError
from xoff.platforms.linux.observe import NCCL_PATH

MARK = "# --- what differs"  # the header ends here
HEADER = r"""set -euo pipefail
R=${XOFF_HOST_ROOT:-}
# a failure stops the script once the NIC calls already running have ended (so a rollback never races them)
xoff_fail() {
	printf 'xoff-host-apply: failed: %s\n' "$1" >&2
	wait
	exit 3
}
trap 'xoff_fail "line $LINENO: $BASH_COMMAND"' ERR
xoff_need() { command -v "$1" >/dev/null 2>&1 || { printf 'xoff-host-apply: %s not found in PATH, nothing changed\n' "$1" >&2; exit 2; }; }
xoff_sysfs() {
	[[ -e $R$1 ]] || xoff_fail "$1 missing (MLNX_OFED driver sysfs)"
	printf '%s\n' "$2" >"$R$1" || xoff_fail "could not write $1"
}
# xoff_put PATH BASE64: replace a file atomically (mode 0644)
xoff_put() {
	local target=$R$1
	{ mkdir -p "${target%/*}" && printf '%s' "$2" | base64 -d >"$target.xoff-new" &&
		chmod 0644 "$target.xoff-new" && mv -f "$target.xoff-new" "$target"; } || xoff_fail "could not change $1"
}
XOFF_T=$(mktemp -d "${TMPDIR:-/tmp}/xoff-apply.XXXXXX")
trap 'rm -rf "$XOFF_T"' EXIT
xoff_pids=()
xoff_names=()
# xoff_bg NAME FUNCTION: run one NIC's tool calls beside the others (output kept for the error line)
xoff_bg() {
	("$2") >"$XOFF_T/$1" 2>&1 &
	xoff_pids+=("$!")
	xoff_names+=("$1")
}
xoff_wait() {
	local i bad=0
	for i in "${!xoff_pids[@]}"; do
		if ! wait "${xoff_pids[$i]}"; then
			printf 'xoff-host-apply: failed: %s: %s\n' "${xoff_names[$i]}" "$(tail -n 1 "$XOFF_T/${xoff_names[$i]}")" >&2
			bad=1
		fi
	done
	if ((bad)); then exit 3; fi
}
"""


@dataclass
class _Script:
    """The parts of the change script, filled per area, then joined in a fixed order."""

    tools: set[str] = field(default_factory=set)
    ip: list[str] = field(default_factory=list)  # ``ip -batch`` lines
    groups: dict[str, list[str]] = field(default_factory=dict)  # group name -> tool calls, in order
    files: list[str] = field(default_factory=list)  # builtins: sysfs writes, the NCCL file

    def call(self, group: str, tool: str, *args: str) -> None:
        self.tools.add(tool)
        self.groups.setdefault(group, []).append(" ".join([tool, *(quote(a) for a in args)]) + " >/dev/null")

    def text(self) -> str:
        out = [HEADER.rstrip("\n"), MARK]
        out += [f"xoff_need {quote(t)}" for t in sorted(self.tools | ({"ip"} if self.ip else set()))]
        if self.ip:
            out += ["ip -batch - <<'XOFF_IP'", *self.ip, "XOFF_IP"]
        names = {group: f"xoff_g{i}" for i, group in enumerate(self.groups)}
        for group, calls in self.groups.items():
            out += [f"{names[group]}() {{", *(f"\t{c}" for c in calls), "}", f"xoff_bg {quote(group)} {names[group]}"]
        if self.groups:
            out.append("xoff_wait")
        out += self.files
        out.append("echo 'xoff-host-apply: done'")
        return "\n".join(out) + "\n"

    @property
    def empty(self) -> bool:
        return not (self.ip or self.groups or self.files)


def _links(s: _Script, observed: dict[str, Any], desired: dict[str, Any]) -> None:
    for want in desired.get("links", []):
        dev = want["netdev"]
        have = observed["links"][dev]
        if have.get("mtu") != want["mtu"]:
            s.ip.append(f"link set dev {dev} mtu {int(want['mtu'])}")
        if have.get("admin") != want["admin"]:
            s.ip.append(f"link set dev {dev} {'up' if want['admin'] == 'up' else 'down'}")
        have_addrs = set(have.get("addresses", []))
        s.ip += [f"addr replace {a} dev {dev}" for a in want["addresses"] if a not in have_addrs]
        s.ip += [f"addr del {a} dev {dev}" for a in sorted(have_addrs - set(want["addresses"]))]


_ROUTE_TYPES = {"unicast", "local", "broadcast", "multicast", "throw", "unreachable", "prohibit", "blackhole", "nat"}


def _route_key(route: str) -> str:
    """A route's destination as ``ip route del`` takes it (a type word before it kept)."""
    words = route.split()
    return " ".join(words[:2]) if words and words[0] in _ROUTE_TYPES and len(words) > 1 else words[0]


def _routes(s: _Script, observed: dict[str, Any], desired: dict[str, Any]) -> None:
    for table in desired.get("routing", {}).get("tables", []):
        t = int(table["table"])
        have = [r.split(" proto ")[0].strip() for r in observed["routes"].get(str(t), [])]
        wanted = {r["destination"]: f"{r['destination']} via {r['via']} dev {r['device']}" for r in table["routes"]}
        s.ip += [f"route replace {line} table {t}" for line in wanted.values() if line not in have]
        s.ip += [f"route del {_route_key(r)} table {t}" for r in have if r and _route_key(r) not in wanted]


def _rules(s: _Script, observed: dict[str, Any], desired: dict[str, Any]) -> None:
    routing = desired.get("routing", {})
    by_prio: dict[str, list[str]] = {}
    for rule in observed["rules"]:
        prio, _, rest = rule.partition(":")
        by_prio.setdefault(prio.strip(), []).append(" ".join(rest.split()))
    tables = {str(t["table"]) for t in routing.get("tables", [])}
    prios = {str(r["priority"]) for r in routing.get("rules", [])}
    for prio, rests in sorted(by_prio.items(), key=lambda kv: int(kv[0])):
        for rest in rests:
            table = rest.rsplit(" lookup ", 1)[-1].split()[0] if " lookup " in rest else ""
            if table in tables and prio not in prios:
                s.ip.append(f"rule del priority {int(prio)} table {table}")
    for rule in routing.get("rules", []):
        prio, src = str(rule["priority"]), rule["source"]
        want = f"from {src.removesuffix('/32')} lookup {rule['table']}"
        if by_prio.get(prio) != [want]:
            s.ip += [f"rule del priority {int(prio)}"] * len(by_prio.get(prio, []))
            s.ip.append(f"rule add from {src} table {int(rule['table'])} priority {int(prio)}")


def _qos(s: _Script, observed: dict[str, Any], desired: dict[str, Any]) -> None:
    for want in desired.get("qos", []):
        dev = want["netdev"]
        have = observed["qos"].get(dev, {})
        first: list[str] = []
        if want.get("cable_m") and have.get("cable") != str(want["cable_m"]):
            first += ["--cable_len", str(int(want["cable_m"]))]
        pfc = ",".join(str(int(p)) for p in want["pfc"])
        if have.get("pfc") != pfc:
            first += ["--pfc", pfc]
        trust_changes = have.get("trust") != want["trust"]
        dscp = {int(e["dscp"]): int(e["priority"]) for e in want["dscp_to_priority"]}
        have_map = have.get("dscp", {})
        # after a trust change the map is the firmware's: set every rendered entry
        sets = [f"set,{d},{p}" for d, p in sorted(dscp.items()) if trust_changes or have_map.get(str(d)) != p]
        dscp_args = [a for v in sets for a in ("--dscp2prio", v)]
        if trust_changes:
            s.call(f"mlnx_qos {dev}", "mlnx_qos", "-i", dev, *first, "--trust", want["trust"])
            first = []
        if first or dscp_args:
            s.call(f"mlnx_qos {dev}", "mlnx_qos", "-i", dev, *first, *dscp_args)


def _roce(s: _Script, observed: dict[str, Any], desired: dict[str, Any]) -> None:
    for want in desired.get("roce", []):
        rdma, port = want["rdma"], str(int(want.get("port", 1)))
        have = observed["roce"].get(rdma, {})
        group = f"rdma {rdma}"
        if have.get("roce_mode") != want["mode"]:
            s.call(group, "cma_roce_mode", "-d", rdma, "-p", port, "-m", str(int(want["mode_flag"])))
        if want.get("tos") is None:
            continue
        if have.get("roce_tos") != str(want["tos"]):
            s.call(group, "cma_roce_tos", "-d", rdma, "-p", port, "-t", str(int(want["tos"])))
        if have.get("tclass") != str(want["traffic_class"]):
            path = f"/sys/class/infiniband/{rdma}/tc/{port}/traffic_class"
            s.files.append(f"xoff_sysfs {quote(path)} {int(want['traffic_class'])}")


def _roce_accl(s: _Script, observed: dict[str, Any], desired: dict[str, Any]) -> None:
    """One ``mlxreg --set`` per RDMA device with the ROCE_ACCL fields that differ (the others kept)."""
    for want in desired.get("roce_accl", []):
        have = observed.get("roce_accl", {}).get(want["rdma"], {})
        data = ",".join(f"{name}=0x{int(v)}" for name, v in want["fields"].items() if have.get(name) != v)
        if data:
            rdma = want["rdma"]
            s.call(f"rdma {rdma}", "mlxreg", "-d", rdma, "--reg_name", "ROCE_ACCL", "--set", data, "--yes")


def _ecn(s: _Script, observed: dict[str, Any], desired: dict[str, Any]) -> None:
    for want in desired.get("ecn", []):
        dev = want["netdev"]
        have = observed["ecn"].get(dev, {})
        for point, prios in (("roce_np", want["np_priorities"]), ("roce_rp", want["rp_priorities"])):
            for p in prios:
                if have.get(f"{point}/enable/{p}") != "1":
                    s.files.append(f"xoff_sysfs {quote(f'/sys/class/net/{dev}/ecn/{point}/enable/{int(p)}')} 1")
            for p in want.get("off_priorities", []):  # DCQCN off (profile pfc-only); a file not there is not on
                if have.get(f"{point}/enable/{p}", "0") != "0":
                    s.files.append(f"xoff_sysfs {quote(f'/sys/class/net/{dev}/ecn/{point}/enable/{int(p)}')} 0")
        for name, value in (("cnp_dscp", want["cnp_dscp"]), ("cnp_802p_prio", want["cnp_priority"])):
            key = f"roce_np/{name}"
            if value is not None and key in have and have[key] != str(value):
                s.files.append(f"xoff_sysfs {quote(f'/sys/class/net/{dev}/ecn/{key}')} {int(value)}")


def _nccl(s: _Script, observed: dict[str, Any], text: str | None) -> None:
    if text is None or observed["nccl"] == text:
        return
    s.tools.add("base64")
    blob = base64.b64encode(text.encode()).decode()
    s.files.append(f"xoff_put {quote(NCCL_PATH)} {quote(blob)}")


def _preflight(observed: dict[str, Any], desired: dict[str, Any]) -> None:
    """What the change needs and the read did not find: refused before anything is sent."""
    pre = desired.get("preflight", {})
    missing = [f"no network device {n}" for n in pre.get("netdevs", []) if n not in observed["links"]]
    missing += [f"no RDMA device {r}" for r in pre.get("rdma", []) if r not in observed["roce"]]
    if missing:
        raise ApplyError(f"xoff-host-apply: {'; '.join(missing)} (nothing changed)")


def write_script(observed: dict[str, Any], desired: dict[str, Any], nccl_text: str | None) -> str:
    """The bash that takes a host from ``observed`` (a snapshot's state) to the rendered
    ``xoff-host-state.json`` (``desired``) and ``nccl.env``, writing only what differs (pure).
    An empty string when nothing differs. ApplyError when a rendered device is missing."""
    _preflight(observed, desired)
    s = _Script()
    _links(s, observed, desired)
    _routes(s, observed, desired)
    _rules(s, observed, desired)
    _qos(s, observed, desired)
    _roce(s, observed, desired)
    _roce_accl(s, observed, desired)
    _ecn(s, observed, desired)
    _nccl(s, observed, nccl_text)
    return "" if s.empty else s.text()
