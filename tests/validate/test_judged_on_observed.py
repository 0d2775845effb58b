"""No check reports ``success`` from a field that was not observed, over EVERY registered check and EVERY platform
collector:

(a) with every observed field and every snapshot extra removed, no check is ``success`` (each is skipped, saying why);
(b) for each platform collector, on the devices of that platform, the field paths its own ``parse`` reports are the
    only ones a check may judge: corrupting every other value of those observed devices changes no check's status
    and no finding.

The observed devices in (b) come from each collector's real ``parse`` (of xoff's rendered configuration for SONiC,
EOS and Cumulus; of the hosts' own interfaces, plus the parse fixtures that are there, for Linux hosts): only its
``fields`` are used, never its input as a format sample. What the intent alone defines (``INTENT_PLAN``: names, kinds, cabling, the QoS class plan, which NIC is
RoCE, ...) is the frame every observed Device keeps from desired by contract (``contracts.collect``) and is not
corrupted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from tests.support.paths import INVENTORY, ROOT
from xoff.contracts.observed import Snapshot
from xoff.desired import FabricState, build_fabric_state
from xoff.desired.models import Device
from xoff.intent import load_intent
from xoff.platforms.registry import collector_for, platforms
from xoff.validate import CHECKS, Status, run_checks
from xoff.validate.coverage import unread
from xoff.validate.mirror import mirror_snapshot

FIX = ROOT / "tests" / "fixtures" / "parse"

# Device paths the intent alone defines (no device shows them): copied from desired into every observed Device.
INTENT_PLAN = (
    "name",
    "kind",
    "platform",
    "role",
    "network",
    "asic",
    "hwsku",
    "guid",
    "mgmt_address",
    "interfaces.*.name",
    "interfaces.*.kind",
    "interfaces.*.peer",
    "interfaces.*.link_role",
    "interfaces.*.network",
    "qos.policy",
    "qos.classes",
    "qos.cnp_dscp",
    "qos.cnp_priority",
    "buffers.model",
    "buffers.lossless_mtu",
    "buffers.small_packet_percent",
    "buffers.profiles.*.name",
    "buffers.profiles.*.source",
    "host.profile",
    "host.gpus",
    "host.nic_model",
    "host.nics.*.netdev",
    "host.nics.*.rdma",
    "host.nics.*.network",
    "host.nics.*.rail",
    "host.nics.*.gpu",
    "host.nics.*.speed_mbps",
    "host.nics.*.roce_mode",
    "host.gpudirect.gdr_level",
    "host.gpudirect.gpu_nic",
    "subnet_manager",
)
# Judges the collection's own error list, which every snapshot holds (an empty list is what was observed).
ALWAYS_OBSERVED = {"collect.complete"}


@cache
def _state(fabric: str) -> FabricState:
    return build_fabric_state(load_intent(INVENTORY / fabric))


def _bare(snap: Snapshot) -> Snapshot:
    """The snapshot with nothing observed: no field read on any device, every extra at its empty default (every
    field of the model, so an extra added later is emptied too)."""
    kept = {"snapshot_version", "fabric", "collected_at", "observed", "errors", "lab_only"}
    empty = {
        name: field.get_default(call_default_factory=True)
        for name, field in Snapshot.model_fields.items()
        if name not in kept
    }
    return snap.model_copy(update=empty)


@pytest.mark.parametrize("fabric", ["lab-mini", "roce-pod", "ib-pod"])
def test_no_check_succeeds_with_nothing_observed(fabric: str) -> None:
    desired = _state(fabric)
    results = run_checks(desired, observed=_bare(mirror_snapshot(desired)))
    assert {r.id for r in results} == set(CHECKS.ids())
    succeeded = [r.id for r in results if r.status is Status.SUCCESS and r.id not in ALWAYS_OBSERVED]
    assert succeeded == []
    # each says why it did not judge
    assert all(r.message for r in results if r.status is Status.SKIPPED)


# --- (b) the fields each platform collector reports -----------------------------------------------------------


def _sonic_outputs(state: FabricState, name: str) -> dict[str, str]:
    from xoff.platforms.sonic import collect as sonic
    from xoff.platforms.sonic.config_db import build_config_db
    from xoff.render import render_fabric

    dump: dict[str, Any] = build_config_db(state.devices[name], state)
    dump["bgpraw"] = {f.name: f.content for f in render_fabric(state, devices=[name])}.get("frr.conf", "")
    return {sonic.RUNNING.text: json.dumps(dump)}


def _eos_outputs(state: FabricState, name: str) -> dict[str, str]:
    from xoff.platforms.eos.collect import RUNNING
    from xoff.render import render_fabric

    (config,) = [f.content for f in render_fabric(state, devices=[name]) if f.name == "running-config"]
    return {RUNNING.text: config}


def _cumulus_outputs(state: FabricState, name: str) -> dict[str, str]:
    from xoff.platforms.cumulus.collect import CONFIG
    from xoff.render import render_fabric

    (startup,) = [f.content for f in render_fabric(state, devices=[name]) if f.name == "startup.yaml"]
    return {CONFIG.text: json.dumps(yaml.safe_load(startup))}  # the applied tree, as `nv config show -o json`


def _linux_outputs(state: FabricState, name: str) -> dict[str, str]:
    from xoff.platforms.linux import collect as host
    from xoff.platforms.linux import kernel

    desired = state.devices[name]
    links = [{"ifname": n, "mtu": i.mtu or 1500, "flags": ["UP"]} for n, i in desired.interfaces.items()]
    addrs = [
        {"ifname": n, "addr_info": [{"family": "inet", "local": a.split("/")[0], "prefixlen": int(a.split("/")[1])}]}
        for n, i in desired.interfaces.items()
        for a in i.addresses
    ]
    outputs = {host.LINKS.text: json.dumps(links), host.ADDRS.text: json.dumps(addrs)}
    extra = [(kernel.ROUTES, "ip_-j_-4_route_show_table_all", "multipath-and-stray-hop")]
    extra += [(kernel.IOMMU, "iommu", "translated")]
    extra += [(kernel.ecn(n), "ecn-sysfs", "connectx7-prio3") for n in (desired.host.nics if desired.host else {})]
    for command, folder, case in extra:  # more fields read where the parse fixtures are there
        path = FIX / "linux" / folder / f"{case}.raw"
        if path.is_file():
            outputs[command.text] = path.read_text(encoding="utf-8")
    return outputs


OUTPUTS = {"sonic": _sonic_outputs, "eos": _eos_outputs, "cumulus": _cumulus_outputs, "linux": _linux_outputs}


def test_every_platform_collector_is_covered() -> None:
    with_collector = {name for name, p in platforms().items() if p.collector is not None}
    assert with_collector <= set(OUTPUTS), f"add the collector of {sorted(with_collector - set(OUTPUTS))} here"


def _parsed_fields(state: FabricState, platform: str) -> dict[str, list[str]]:
    """Device -> the field paths its platform's collector reported on a real parse (it must read something)."""
    fields = {}
    collector = collector_for(platform)
    for name, dev in state.devices.items():
        if dev.platform != platform:
            continue
        obs = collector.parse(OUTPUTS[platform](state, name), dev)
        assert obs.device is not None, [str(e) for e in obs.errors]
        fields[name] = obs.fields
    assert fields, f"no {platform} device in the fabric"
    return fields


def _corrupted(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, str):
        return value + "-x"
    if isinstance(value, list):
        return [*value, 5] if not value or isinstance(value[0], int) else value[:0]
    if isinstance(value, dict):
        return {k: _corrupted(v) for k, v in value.items()}
    return 3 if value is None else value


def _leaves(data: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(concrete path, value) of every leaf: a scalar, a list, an int-keyed map, None."""
    if isinstance(data, dict) and data and all(isinstance(k, str) for k in data):
        for key, value in data.items():
            yield from _leaves(value, (*path, key))
    else:
        yield path, data


def _pattern(model: Any, path: tuple[str, ...]) -> str:
    """``interfaces.Ethernet0.mtu`` -> ``interfaces.*.mtu``: map keys become ``*`` (model fields stay)."""
    out = []
    for segment in path:
        if isinstance(model, BaseModel) and segment in type(model).model_fields:
            out.append(segment)
            model = getattr(model, segment)
        else:
            out.append("*")
            model = model.get(segment) if isinstance(model, dict) else None
    return ".".join(out)


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def corrupt_unread(device: Device, fields: list[str]) -> tuple[Device, list[str]]:
    """The device with every value its collector did not read changed (where the model accepts the change), and the
    paths changed."""
    data = device.model_dump()
    changed: dict[tuple[str, ...], Any] = {}
    for path, value in _leaves(data):
        pattern = _pattern(device, path)
        planned = any(pattern == p or pattern.startswith(p + ".") for p in INTENT_PLAN)
        if path and not planned and unread(device, fields, [pattern]) and _corrupted(value) != value:
            changed[path] = value
            _set(data, path, _corrupted(value))
    for _ in range(len(changed) + 1):
        try:
            return Device.model_validate(data), sorted(".".join(p) for p in changed)
        except ValidationError as exc:  # a value the model does not allow: left as it was
            for err in exc.errors():
                loc = tuple(str(x) for x in err["loc"])
                key = next((p for p in changed if loc[: len(p)] == p), None)
                if key is None:
                    raise
                _set(data, key, changed.pop(key))
    raise AssertionError("unreachable")


def _outcome(desired: FabricState, snap: Snapshot) -> dict[str, tuple[str, list[str]]]:
    return {r.id: (r.status.value, sorted(str(f) for f in r.findings)) for r in run_checks(desired, observed=snap)}


@pytest.mark.parametrize("platform", sorted(OUTPUTS))
def test_values_a_collector_did_not_read_change_no_check(platform: str) -> None:
    fabric = "lab-mini"
    desired = _state(fabric)
    fields = _parsed_fields(desired, platform)
    base = mirror_snapshot(desired)
    base = base.model_copy(update={"observed_fields": {**base.observed_fields, **fields}})
    devices = dict(base.observed.devices)
    changed_any = []
    for name, read in fields.items():
        devices[name], changed = corrupt_unread(devices[name], read)
        changed_any += [f"{name}.{p}" for p in changed]
    assert changed_any, f"{platform}: nothing left unread to corrupt"
    corrupt = base.model_copy(update={"observed": base.observed.model_copy(update={"devices": devices})})
    before, after = _outcome(desired, base), _outcome(desired, corrupt)
    differ = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    assert differ == {}, f"{platform}: judged on values it did not read ({len(changed_any)} changed)"
