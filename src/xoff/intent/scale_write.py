"""The reduced intent as YAML: the written intent with only what :mod:`xoff.intent.scale` keeps.

Device entries keep their settings; a brace pattern becomes the runs of kept names (``leaf{1..2}``, ``leaf9``), each
with the addresses its first device had, so nothing is renumbered. Generators name the kept devices; a profile keeps
the NICs of the kept rails and as many GPUs as they need. Everything else (networks, policies, roles, defaults) is
copied as written.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from xoff.intent.patterns import expand, expand_names
from xoff.intent.resolved import Intent
from xoff.intent.scale import Reduction, Scale

_NUMBERED = re.compile(r"^(.*?)(\d+)(\D*)$")


def compact(names: list[str]) -> list[str]:
    """Names as brace patterns of consecutive numbers (``leaf1, leaf2, leaf9`` -> ``leaf{1..2}, leaf9``)."""
    out: list[str] = []
    run: list[str] = []

    def close() -> None:
        if len(run) > 1:
            m0, m1 = _NUMBERED.match(run[0]), _NUMBERED.match(run[-1])
            assert m0 is not None and m1 is not None
            pattern = f"{m0.group(1)}{{{m0.group(2)}..{m1.group(2)}}}{m0.group(3)}"
            out.extend([pattern] if expand(pattern) == run else run)
        else:
            out.extend(run)
        run.clear()

    for name in names:
        m = _NUMBERED.match(name)
        prev = _NUMBERED.match(run[-1]) if run else None
        if not (m and prev and _follows(prev, m)):
            close()
        run.append(name)
    close()
    return out


def _follows(prev: re.Match[str], m: re.Match[str]) -> bool:
    """``m`` numbers the name after ``prev`` (same text around, same width when zero-padded)."""
    padded = prev.group(2).startswith("0") and len(prev.group(2)) > 1
    return (
        (m.group(1), m.group(3)) == (prev.group(1), prev.group(3))
        and int(m.group(2)) == int(prev.group(2)) + 1
        and (not padded or len(m.group(2)) == len(prev.group(2)))
    )


def _next(prev: str, name: str) -> bool:
    a, b = _NUMBERED.match(prev), _NUMBERED.match(name)
    return a is not None and b is not None and _follows(a, b)


def _names(names: list[str]) -> str | list[str]:
    found = compact(names)
    return found[0] if len(found) == 1 else found


def _entries(
    entries: list[dict[str, Any]], kept: Callable[[str], bool], address: Callable[[str, str], str]
) -> list[Any]:
    """Device entries with only the kept names: one entry per run of kept names, with its first device's addresses."""
    out: list[Any] = []
    for entry in entries:
        names = expand(entry["name"])
        runs: list[list[str]] = []
        for k, name in enumerate(names):
            if not kept(name):
                continue
            if runs and k > 0 and kept(names[k - 1]) and _next(runs[-1][-1], name):
                runs[-1].append(name)
            else:
                runs.append([name])
        for run in runs:
            item = copy.deepcopy(entry)
            item["name"] = compact(run)[0]
            for key in ("mgmt", "loopback", "bmc"):
                if key in entry:
                    item[key] = address(run[0], key)
            out.append(item)
    return out


def _profiles(intent: Intent, data: dict[str, Any], red: Reduction) -> None:
    for name, profile in data.get("host_profiles", {}).items():
        nics: list[Any] = []
        kept_rails = 0
        for spec in profile.get("nics", []):
            netdevs = expand(spec["netdev"])
            rdmas = expand(spec["rdma"]) if spec.get("rdma") else None
            first = spec.get("rail")
            keep = len(netdevs)
            if first is not None and spec["network"] in red.rails:
                keep = max(0, min(len(netdevs), red.rails[spec["network"]] - int(first)))
                kept_rails += keep if spec["network"] == "compute" else 0
            if keep == 0:
                continue
            item = dict(spec, netdev=_one(netdevs[:keep]))
            if rdmas is not None:
                item["rdma"] = _one(rdmas[:keep])
            nics.append(item)
        profile["nics"] = nics
        rails = max(
            (
                n.rail + 1
                for h in intent.hosts.values()
                if h.profile_name == name
                for n in h.nics.values()
                if n.rail is not None and n.network == "compute"
            ),
            default=0,
        )
        gpus = int(profile.get("gpus", 0))
        if gpus and rails and kept_rails < rails:
            need = max((int(s["gpu"]) + len(expand(s["netdev"])) for s in nics if s.get("gpu") is not None), default=0)
            profile["gpus"] = min(gpus, max(need, math.ceil(gpus * kept_rails / rails), 1))
            red.said.append(f"GPUs per host of profile {name}: {gpus} -> {profile['gpus']}")


def _one(names: list[str]) -> str:
    found = compact(names)
    if len(found) != 1:
        raise ValueError(f"{names}: not one brace pattern")
    return found[0]


def _cabling(data: dict[str, Any], red: Reduction) -> None:
    keep = red.switches | red.hosts
    out = []
    for i, gen in enumerate(data.get("cabling", [])):
        g = dict(gen)
        if g["kind"] == "rail_optimized":
            hosts = [h for h in expand_names(g["hosts"]) if h in red.hosts]
            leaves = expand_names(g["leaves"])[: red.rails.get(g.get("network", "compute"), 0)]
            if not hosts:
                continue
            g["hosts"], g["leaves"] = _names(hosts), _names(leaves)
        else:
            for key in ("leaves", "spines", "super_spines"):
                if key in g:
                    g[key] = [n for n in expand_names(g[key]) if n in keep]
            if not all(g[key] for key in ("leaves", "spines", "super_spines") if key in g):
                continue
            for key in ("leaves", "spines", "super_spines"):
                if key in g:
                    g[key] = _names(g[key])
            if g["kind"] == "clos3":
                g["pods"] = red.pods[i]
        out.append(g)
    data["cabling"] = out


def _tenants(intent: Intent, data: dict[str, Any], red: Reduction) -> None:
    def nic_ok(item: str) -> list[str]:
        host, _, rest = item.partition(":")
        return [
            f"{h}:{r}"
            for h in expand(host)
            if h in red.hosts
            for r in expand(rest)
            if not rest or r not in intent.hosts[h].nics or red.nic_kept(intent, h, r)
        ]

    for tenant in data.get("tenants", []):
        tenant["hosts"] = [h for p in tenant.get("hosts", []) for h in expand(p) if h in red.hosts]
        tenant["nics"] = [x for p in tenant.get("nics", []) for x in nic_ok(p)]
        gpus = {h: int(intent.hosts[h].profile.gpus) for h in red.hosts}
        tenant["gpus"] = [
            x for p in tenant.get("gpus", []) for x in nic_ok(p) if int(x.split(":")[1]) < gpus.get(x.split(":")[0], 0)
        ]
        for key in ("hosts", "nics", "gpus"):
            if not tenant[key]:
                del tenant[key]


def reduced_data(intent: Intent, data: dict[str, Any], red: Reduction, source: Path, scale: Scale) -> dict[str, Any]:
    """The merged intent data with only what ``red`` keeps (a deep copy)."""
    data = copy.deepcopy(data)
    switches, hosts = intent.switches, intent.hosts

    def address(name: str, key: str) -> str:
        dev: Any = switches.get(name) or hosts.get(name)
        return str(getattr(dev, key))

    data["switches"] = _entries(data.get("switches", []), lambda n: n in red.switches, address)
    data["hosts"] = _entries(data.get("hosts", []), lambda n: n in red.hosts, address)
    _profiles(intent, data, red)
    _cabling(data, red)
    keep = red.switches | red.hosts

    def end_ok(end: str) -> bool:
        dev, port = end.split(":", 1)
        return dev in keep and (dev not in hosts or port not in hosts[dev].nics or red.nic_kept(intent, dev, port))

    data["links"] = [lk for lk in data.get("links", []) if end_ok(lk["a"]) and end_ok(lk["b"])]
    _tenants(intent, data, red)
    for key in ("links", "cabling", "tenants", "switches", "hosts"):
        if key in data and not data[key]:
            del data[key]
    fabric = data["fabric"]
    fabric["description"] = (
        f"{fabric.get('description') or fabric['name']} [reduced: xoff scale --scale {scale.text} {source}]"
    )
    return data


def dump(data: dict[str, Any], red: Reduction, source: Path, scale: Scale) -> str:
    """The reduced intent as a YAML file, its header saying what was reduced."""
    head = [f"# {data['fabric']['name']}, reduced by `xoff scale --scale {scale.text}` from {source}:"]
    head += [f"#   {line}" for line in red.said] or ["#   nothing to reduce"]
    body = yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=120)
    return "\n".join(head) + "\n" + body
