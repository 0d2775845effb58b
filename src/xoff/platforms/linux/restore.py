"""The restore script: bash that puts a host back to a snapshot taken by ``observe`` (the backup).

It sets every value the apply script may change (links, addresses, policy-routing tables and rules,
``mlnx_qos`` trust/PFC/DSCP map, RoCE mode/ToS/traffic class, ECN files, the NCCL file) to the
snapshot's; values already equal are set again, which changes nothing. Every value is quoted: the
snapshot came from the device and is not trusted.
"""

from __future__ import annotations

import base64
from shlex import quote
from typing import Any

from xoff.platforms.linux.observe import NCCL_PATH, SYSTEM_RULES
from xoff.platforms.linux.roce_accl import FIELDS

ROCE_MODE_FLAG = {"IB/RoCE v1": "1", "RoCE v2": "2"}
UNSET_TCLASS = "-1"  # MLNX_OFED: writing -1 clears the global traffic class

HEADER = """set -u
R=${XOFF_HOST_ROOT:-}
failed=0
run() { "$@" >/dev/null || { echo "restore: failed: $*" >&2; failed=1; }; }
"""


def _links(state: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for dev, link in sorted(state["links"].items()):
        d = quote(dev)
        out.append(f"run ip link set dev {d} mtu {int(link['mtu'])}")
        out.append(f"run ip link set dev {d} {'up' if link['admin'] == 'up' else 'down'}")
        want = " ".join(quote(a) for a in link["addresses"])
        out.append(f"for a in $(ip -o -4 addr show dev {d} scope global | awk '{{print $4}}'); do")
        out.append(f'  case " {" ".join(link["addresses"])} " in *" $a "*) ;; *) run ip addr del "$a" dev {d} ;; esac')
        out.append("done")
        if want:
            out.append(f"for a in {want}; do")
            out.append(f'  ip -o -4 addr show dev {d} scope global | grep -qF " $a " || run ip addr add "$a" dev {d}')
            out.append("done")
    return out


def _routing(state: dict[str, Any]) -> list[str]:
    tables = " ".join(quote(t) for t in sorted(state["routes"]))
    out = [
        "for t in $(ip -4 route show table all | sed -n 's/.* table \\([0-9][0-9]*\\).*/\\1/p' | sort -u); do",
        f'  case " {tables} " in *" $t "*) ;; *) run ip -4 route flush table "$t" ;; esac',
        "done",
    ]
    for table, routes in sorted(state["routes"].items()):
        out.append(f"ip -4 route flush table {quote(table)} 2>/dev/null || true")
        out.extend(f"run ip -4 route add {route} table {quote(table)}" for route in map(_words, routes))
    system = "|".join(sorted(SYSTEM_RULES))
    out.append(f"for p in $(ip -4 rule show | awk -F: '$1 !~ /^({system})$/ {{print $1}}'); do")
    out.append('  run ip -4 rule del priority "$p"')
    out.append("done")
    for rule in state["rules"]:
        prio, _, rest = rule.partition(":")
        out.append(f"run ip -4 rule add {_words(rest)} priority {int(prio)}")
    return out


def _words(text: str) -> str:
    return " ".join(quote(w) for w in text.split())


def _qos(state: dict[str, Any]) -> list[str]:
    """Two ``mlnx_qos`` calls per NIC: cable length, PFC and trust (the tool applies them in that
    order), then the DSCP map (flushed, then every entry of the backup's; the tool refuses ``--trust``
    and ``--dscp2prio`` in one call)."""
    out: list[str] = []
    for dev, qos in sorted(state["qos"].items()):
        d = quote(dev)
        first = f" --cable_len {quote(qos['cable'])}" if qos.get("cable") else ""
        first += f" --pfc {quote(qos['pfc'])}" if qos["pfc"] else ""
        first += f" --trust {quote(qos['trust'])}" if qos["trust"] else ""
        if first:
            out.append(f"run mlnx_qos -i {d}{first}")
        if qos["trust"] == "dscp":
            sets = "".join(f" --dscp2prio set,{int(k)},{int(v)}" for k, v in qos["dscp"].items())
            out.append(f"run mlnx_qos -i {d} --dscp2prio flush{sets}")
    return out


def _nic_files(state: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for dev, files in sorted(state["ecn"].items()):
        for path, value in sorted(files.items()):
            target = quote(f"/sys/class/net/{dev}/ecn/{path}")
            out.append(f'printf "%s\\n" {quote(value)} > "$R"{target} || failed=1')
    for rdma, roce in sorted(state["roce"].items()):
        r = quote(rdma)
        if roce.get("roce_mode") in ROCE_MODE_FLAG:
            out.append(f"run cma_roce_mode -d {r} -p 1 -m {ROCE_MODE_FLAG[roce['roce_mode']]}")
        if roce.get("roce_tos", "").isdigit():
            out.append(f"run cma_roce_tos -d {r} -p 1 -t {int(roce['roce_tos'])}")
        tclass = roce.get("tclass") or UNSET_TCLASS
        target = quote(f"/sys/class/infiniband/{rdma}/tc/1/traffic_class")
        out.append(f'[ -e "$R"{target} ] && {{ printf "%s\\n" {quote(tclass)} > "$R"{target} || failed=1; }}')
    for rdma, fields in sorted(state.get("roce_accl", {}).items()):  # the fields xoff sets, as the backup read them
        data = ",".join(f"{name}=0x{int(fields[name])}" for name in FIELDS if name in fields)
        if data:
            out.append(f"run mlxreg -d {quote(rdma)} --reg_name ROCE_ACCL --set {quote(data)} --yes")
    return out


def _nccl(state: dict[str, Any]) -> list[str]:
    path = quote(NCCL_PATH)
    if state["nccl"] is None:
        return [f'rm -f "$R"{path}']
    blob = base64.b64encode(state["nccl"].encode()).decode()
    return [f'mkdir -p "$(dirname "$R"{path})" && printf "%s" {quote(blob)} | base64 -d > "$R"{path} || failed=1']


def restore_script(state: dict[str, Any]) -> str:
    body = [*_links(state), *_routing(state), *_qos(state), *_nic_files(state), *_nccl(state)]
    return HEADER + "\n".join(body) + '\nexit "$failed"\n'
