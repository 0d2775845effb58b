"""A Linux GPU host's current state, read the way ``xoff-host-apply.sh`` reads it, as normalised JSON;
and the pure comparison of that state with the rendered ``xoff-host-state.json``.

``SNAPSHOT_SCRIPT`` only reads (iproute2, ``mlnx_qos -i``, ``cma_roce_mode``/``cma_roce_tos``, ``mlxreg``'s
ROCE_ACCL where the host has mlxreg (a ``roce_accl`` part only then), the
MLNX_OFED sysfs files under ``$XOFF_HOST_ROOT``, the NCCL file); ``parse_snapshot`` turns its output
into a structure with no volatile fields (no carrier state, no counters), so two snapshots of an
unchanged host are equal and the rollback can be checked by equality.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from xoff.platforms.linux.roce_accl import parse_fields

NCCL_PATH = "/etc/xoff/nccl.env"
SYSTEM_RULES = {"0", "32766", "32767"}  # local, main, default: the kernel's own

# sections: "### <kind> <name>" then the command's output. The NIC tools (one process per call, the
# slow part of a read) run side by side, one background job per NIC and per RDMA device (that device's
# two RDMA-CM calls in order: both use its configfs directory); their output is printed in the fixed
# order below once all have ended. sysfs values are read with the shell's own ``read``.
SNAPSHOT_SCRIPT = r"""
R=${XOFF_HOST_ROOT:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/xoff-read.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
nics=()
for d in /sys/class/net/*; do
  n=${d##*/}
  [ "$n" = lo ] && continue
  [ -d "$R/sys/class/net/$n/ecn" ] || continue
  nics+=("$n")
  mlnx_qos -i "$n" >"$T/qos.$n" 2>/dev/null &
done
rdmas=()
accl=$(command -v mlxreg 2>/dev/null || true)
for d in "$R"/sys/class/infiniband/*; do
  [ -d "$d" ] || continue
  r=${d##*/}
  rdmas+=("$r")
  { cma_roce_mode -d "$r" -p 1 2>/dev/null | tail -n 1 >"$T/mode.$r"; cma_roce_tos -d "$r" -p 1 2>/dev/null | tail -n 1 >"$T/tos.$r"
    if [ -n "$accl" ]; then mlxreg -d "$r" --reg_name ROCE_ACCL --get >"$T/accl.$r" 2>/dev/null || : >"$T/accl.$r"; fi; } &
done
echo '### links'; ip -o link show
echo '### addrs'; ip -o -4 addr show scope global
echo '### rules'; ip -4 rule show
echo '### routes'; ip -4 route show table all
wait
for n in "${nics[@]}"; do
  echo "### qos $n"; cat "$T/qos.$n"
  for p in roce_np roce_rp; do
    for f in "$R/sys/class/net/$n/ecn/$p"/enable/* "$R/sys/class/net/$n/ecn/$p"/cnp_dscp "$R/sys/class/net/$n/ecn/$p"/cnp_802p_prio; do
      [ -f "$f" ] || continue
      v=; IFS= read -r v <"$f" || true
      echo "### ecn $n ${f#$R/sys/class/net/$n/ecn/} $v"
    done
  done
done
for r in "${rdmas[@]}"; do
  echo "### roce_mode $r"; cat "$T/mode.$r"
  echo "### roce_tos $r"; cat "$T/tos.$r"
  echo "### tclass $r"
  f="$R/sys/class/infiniband/$r/tc/1/traffic_class"
  if [ -f "$f" ]; then v=; IFS= read -r v <"$f" || true; [ -n "$v" ] && echo "$v"; fi
  if [ -s "$T/accl.$r" ]; then echo "### roce_accl $r"; cat "$T/accl.$r"; fi
done
if [ -f "$R/etc/xoff/nccl.env" ]; then echo '### nccl'; base64 -w0 < "$R/etc/xoff/nccl.env"; echo; fi
echo '### end'
"""

_LINK = re.compile(r"^\d+: ([^:@]+)(?:@\S+)?: <([^>]*)> .*?\bmtu (\d+)\b")
_ADDR = re.compile(r"^\d+: (\S+)\s+inet (\S+)")
_TCLASS = re.compile(r"^Global tclass=(\d+)$")
_DSCP = re.compile(r"^\s*prio:(\d) dscp:([\d,]*)")


def _sections(text: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("### "):
            out.append((line[4:].strip(), []))
        elif out:
            out[-1][1].append(line.rstrip("\r"))
    if not out or out[-1][0] != "end":
        raise ValueError("host snapshot incomplete (no '### end': the session ended early)")
    return out


def _qos(lines: list[str]) -> dict[str, Any]:
    trust, pfc, cable = "", "", ""
    dscp: dict[str, int] = {}
    for i, line in enumerate(lines):
        if line.startswith("Priority trust state:"):
            trust = line.split(":", 1)[1].strip()
        elif line.startswith("Cable len:"):
            cable = line.split(":", 1)[1].strip()
        elif line.strip().startswith("enabled") and i > 0 and "priority" in lines[i - 1]:
            pfc = ",".join(line.split()[1:9])
        elif m := _DSCP.match(line):
            for d in filter(None, m.group(2).split(",")):
                dscp[str(int(d))] = int(m.group(1))
    out: dict[str, Any] = {"trust": trust, "pfc": pfc, "dscp": dict(sorted(dscp.items(), key=lambda kv: int(kv[0])))}
    if cable:  # every mlnx_qos release prints "Cable len: N"; absent, it was not read
        out["cable"] = cable
    return out


def _links(state: dict[str, Any], _rest: str, lines: list[str]) -> None:
    for line in lines:
        if (m := _LINK.match(line)) and m.group(1) != "lo":
            flags = m.group(2).split(",")
            state["links"][m.group(1)] = {
                "mtu": int(m.group(3)),
                "admin": "up" if "UP" in flags else "down",
                "addresses": [],
            }


def _addrs(state: dict[str, Any], _rest: str, lines: list[str]) -> None:
    for line in lines:
        if (m := _ADDR.match(line)) and m.group(1) in state["links"]:
            state["links"][m.group(1)]["addresses"].append(m.group(2))


def _rules(state: dict[str, Any], _rest: str, lines: list[str]) -> None:
    state["rules"] = sorted(ln.strip() for ln in lines if ln.strip() and ln.split(":")[0] not in SYSTEM_RULES)


def _routes(state: dict[str, Any], _rest: str, lines: list[str]) -> None:
    for line in lines:
        m = re.search(r"\btable (\d+)\b", line)
        if m:
            route = re.sub(r"\s*\btable \d+\b", "", line).strip()
            state["routes"].setdefault(m.group(1), []).append(route)


def _qos_section(state: dict[str, Any], rest: str, lines: list[str]) -> None:
    state["qos"][rest] = _qos(lines)


def _ecn(state: dict[str, Any], rest: str, _lines: list[str]) -> None:
    dev, path, value = rest.split(" ", 2) if rest.count(" ") >= 2 else (*rest.split(" ", 1), "")
    state["ecn"].setdefault(dev, {})[path] = value.strip()


def _roce(kind: str) -> Callable[[dict[str, Any], str, list[str]], None]:
    def parse(state: dict[str, Any], rest: str, lines: list[str]) -> None:
        value = lines[0].strip() if lines else ""
        if kind == "tclass":
            m = _TCLASS.match(value)
            value = m.group(1) if m else ""
        state["roce"].setdefault(rest, {})[kind] = value

    return parse


def _roce_accl(state: dict[str, Any], rest: str, lines: list[str]) -> None:
    """The register's rows (an unreadable GET: nothing recorded for that device)."""
    try:
        fields = parse_fields("\n".join(lines))
    except ValueError:
        return
    state.setdefault("roce_accl", {})[rest] = fields


def _nccl(state: dict[str, Any], _rest: str, lines: list[str]) -> None:
    state["nccl"] = base64.b64decode("".join(lines).strip()).decode()


# one parser per snapshot section (``### <kind> <rest>``), each filling its part of the state
_SECTIONS: dict[str, Callable[[dict[str, Any], str, list[str]], None]] = {
    "links": _links,
    "addrs": _addrs,
    "rules": _rules,
    "routes": _routes,
    "qos": _qos_section,
    "ecn": _ecn,
    "roce_mode": _roce("roce_mode"),
    "roce_tos": _roce("roce_tos"),
    "tclass": _roce("tclass"),
    "roce_accl": _roce_accl,
    "nccl": _nccl,
}


def parse_snapshot(text: str) -> dict[str, Any]:
    """The snapshot's output -> normalised state (sorted, no volatile fields)."""
    state: dict[str, Any] = {"links": {}, "rules": [], "routes": {}, "qos": {}, "ecn": {}, "roce": {}, "nccl": None}
    for head, lines in _sections(text):
        kind, _, rest = head.partition(" ")
        if section := _SECTIONS.get(kind):
            section(state, rest, lines)
    for link in state["links"].values():
        link["addresses"].sort()
    for routes in state["routes"].values():
        routes.sort()
    return state


def dumps(state: dict[str, Any]) -> str:
    return json.dumps(state, indent=1, sort_keys=True) + "\n"


def _links_diff(observed: dict[str, Any], desired: dict[str, Any]) -> Iterator[str]:
    links = observed["links"]
    for want in desired.get("links", []):
        have = links.get(want["netdev"], {})
        for key in ("mtu", "admin"):
            if have.get(key) != want[key]:
                yield f"~ {want['netdev']} {key} {have.get(key)} -> {want[key]}"
        if sorted(have.get("addresses", [])) != sorted(want["addresses"]):
            yield f"~ {want['netdev']} addresses {have.get('addresses', [])} -> {sorted(want['addresses'])}"


def _routes_diff(observed: dict[str, Any], desired: dict[str, Any]) -> Iterator[str]:
    for table in desired.get("routing", {}).get("tables", []):
        want_routes = sorted(f"{r['destination']} via {r['via']} dev {r['device']}" for r in table["routes"])
        have_routes = sorted(r.split(" proto ")[0].strip() for r in observed["routes"].get(str(table["table"]), []))
        if have_routes != want_routes:
            yield f"~ route table {table['table']}: {have_routes} -> {want_routes}"


def _rules_diff(observed: dict[str, Any], desired: dict[str, Any]) -> Iterator[str]:
    have_rules = set(observed["rules"])
    for rule in desired.get("routing", {}).get("rules", []):
        src = rule["source"].removesuffix("/32")
        line = f"{rule['priority']}:\tfrom {src} lookup {rule['table']}"
        if line not in have_rules:
            yield f"+ rule {rule['priority']} from {rule['source']} lookup {rule['table']}"


def _qos_diff(observed: dict[str, Any], desired: dict[str, Any]) -> Iterator[str]:
    for want in desired.get("qos", []):
        have = observed["qos"].get(want["netdev"], {})
        if have.get("trust") != want["trust"]:
            yield f"~ {want['netdev']} trust {have.get('trust')} -> {want['trust']}"
        pfc = ",".join(str(p) for p in want["pfc"])
        if have.get("pfc") != pfc:
            yield f"~ {want['netdev']} pfc {have.get('pfc')} -> {pfc}"
        if want.get("cable_m") and have.get("cable") != str(want["cable_m"]):
            yield f"~ {want['netdev']} cable_len {have.get('cable') or 'unknown'} -> {want['cable_m']}"
        dscp = {str(e["dscp"]): e["priority"] for e in want["dscp_to_priority"]}
        changed = sorted((k for k in dscp if have.get("dscp", {}).get(k) != dscp[k]), key=int)
        if changed:
            now = {int(k): dscp[k] for k in changed}
            was = {int(k): have.get("dscp", {}).get(k) for k in changed}
            yield f"~ {want['netdev']} dscp->priority: {dscp_map_text(now)} (was {dscp_map_text(was, collapse=True)})"


def _ranges(values: list[int]) -> str:
    """Sorted integers as ranges: ``0-23,25,27-63``."""
    out: list[str] = []
    start = prev = values[0]
    for v in [*values[1:], None]:
        if v is not None and v == prev + 1:
            prev = v
            continue
        out.append(f"{start}-{prev}" if prev > start else str(start))
        if v is not None:
            start = prev = v
    return ",".join(out)


def dscp_map_text(mapping: dict[int, Any], *, collapse: bool = False) -> str:
    """A DSCP -> priority map, compact for 64 values: ``0-25,27-63 -> 0; 26 -> 3``, ordered by the
    lowest DSCP of each priority; with ``collapse``, ``all 0`` when one priority holds them all and
    ``unset`` when none is set."""
    by_value: dict[Any, list[int]] = {}
    for d in sorted(mapping):
        by_value.setdefault(mapping[d], []).append(d)
    if collapse and list(by_value) == [None]:
        return "unset"
    if collapse and len(by_value) == 1:
        return f"all {next(iter(by_value))}"
    groups = sorted(by_value.items(), key=lambda kv: kv[1][0])
    return "; ".join(f"{_ranges(ds)} -> {'unset' if v is None else v}" for v, ds in groups)


def _roce_diff(observed: dict[str, Any], desired: dict[str, Any]) -> Iterator[str]:
    for want in desired.get("roce", []):
        have = observed["roce"].get(want["rdma"], {})
        for key, value in (
            ("roce_mode", want["mode"]),
            ("roce_tos", str(want["tos"])),
            ("tclass", str(want["traffic_class"])),
        ):
            if have.get(key) != value:
                yield f"~ {want['rdma']} {key} {have.get(key) or 'unset'} -> {value}"


def _roce_accl_diff(observed: dict[str, Any], desired: dict[str, Any]) -> Iterator[str]:
    for want in desired.get("roce_accl", []):
        have = observed.get("roce_accl", {}).get(want["rdma"], {})
        for name, value in want["fields"].items():
            if have.get(name) != value:
                yield f"~ {want['rdma']} ROCE_ACCL {name} {have.get(name, 'unread')} -> {value}"


def _ecn_diff(observed: dict[str, Any], desired: dict[str, Any]) -> Iterator[str]:
    for want in desired.get("ecn", []):
        have = observed["ecn"].get(want["netdev"], {})
        for point, prios in (("roce_np", want["np_priorities"]), ("roce_rp", want["rp_priorities"])):
            yield from (
                f"~ {want['netdev']} ecn {point} priority {p} -> 1"
                for p in prios
                if have.get(f"{point}/enable/{p}") != "1"
            )
            yield from (
                f"~ {want['netdev']} ecn {point} priority {p} -> 0"
                for p in want.get("off_priorities", [])
                if have.get(f"{point}/enable/{p}", "0") != "0"
            )
        for name, value in (("cnp_dscp", want["cnp_dscp"]), ("cnp_802p_prio", want["cnp_priority"])):
            key = f"roce_np/{name}"
            if value is not None and key in have and have[key] != str(value):  # None: no CNP class, left alone
                yield f"~ {want['netdev']} ecn {name} {have[key]} -> {value}"


def state_diff(observed: dict[str, Any], desired: dict[str, Any], nccl_text: str | None) -> list[str]:
    """What differs from the rendered ``xoff-host-state.json``, one line each (pure)."""
    out: list[str] = []
    for part in (_links_diff, _routes_diff, _rules_diff, _qos_diff, _roce_diff, _roce_accl_diff, _ecn_diff):
        out.extend(part(observed, desired))
    if nccl_text is not None and observed["nccl"] != nccl_text:
        out.append(f"~ {NCCL_PATH} content" if observed["nccl"] is not None else f"+ {NCCL_PATH}")
    return out


_ABSENT = object()
MAX_SHOWN = 3  # differing values named per key; the rest are counted
MAX_VALUE_CHARS = 60


def _show(value: Any) -> str:
    text = "absent" if value is _ABSENT else json.dumps(value, sort_keys=True)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 3] + "..."


def _differences(now: Any, before: Any, path: str) -> list[str]:
    if isinstance(now, dict) and isinstance(before, dict):
        out: list[str] = []
        for key in sorted(set(now) | set(before)):
            have, want = now.get(key, _ABSENT), before.get(key, _ABSENT)
            if have != want:
                out.extend(_differences(have, want, f"{path}.{key}"))
        return out
    return [f"{path} is {_show(now)}, backup {_show(before)}"]


def rollback_mismatches(now: dict[str, Any], before: dict[str, Any]) -> list[str]:
    """After a rollback: one line per part of the state (links, routes, qos, ...) not equal to the
    backup's, naming the values that differ (pure; empty: the rollback is verified)."""
    out: list[str] = []
    for key in sorted(before):
        have = now.get(key, _ABSENT)
        if have != before[key]:
            found = _differences(have, before[key], key)
            more = f" (and {len(found) - MAX_SHOWN} more)" if len(found) > MAX_SHOWN else ""
            out.append(f"{key} differs from the backup: {'; '.join(found[:MAX_SHOWN])}{more}")
    return out
