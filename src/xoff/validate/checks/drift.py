"""Drift: every observed FabricState field against the intent, with the path and both values."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from xoff.buffers import get_asic
from xoff.validate.context import CheckContext
from xoff.validate.context import Params as CheckParams
from xoff.validate.drift import device_drift, port_drift, port_of, show
from xoff.validate.model import Finding
from xoff.validate.registry import Check, register


@register
class StateDrift(Check):
    """Any value a device runs that differs from the intent: interface MTU/speed/addresses, QoS maps,
    PFC, ECN, schedulers, buffer profiles, watchdog, BGP neighbours, host NIC settings. Only the fields
    the collector read are compared (the rest is not observable on that platform, never "equal"; a field
    read beside some of its children, such as the ports of ``interfaces``, is compared as the set of keys it
    holds: a port in the intent and not on the device, or the reverse, is drift, its values only as read);
    buffer sizes and ECN thresholds are equal within one cell of the device's ASIC (read-back rounding).
    A port whose own settings differ from its switch's (a watchdog action or timer, DSCP map, scheduler
    or ECN profile per queue) is compared with what the intent means for that port and named
    (``ports.<port>.watchdog_action``, ``ports.<port>.schedulers.<queue>``). A device observed and not in the
    intent is drift; a device of the intent that was not observed (not reached, no capture) is named, not
    judged."""

    class Params(CheckParams):
        ignore: tuple[str, ...] = ()  # field path patterns (fnmatch) not to compare, e.g. "interfaces.*.admin_up"

    id = "drift.state"
    title = "Every observed field equals the intent (path, intended and running value)"
    needs = frozenset({"observed"})
    hint = "push the intended configuration (xoff push), or change the intent if the running value is right"

    def skip_reason(self, ctx: CheckContext) -> str | None:
        if not ctx.snapshot.observed_fields:
            return "the snapshot lists no observed fields (nothing was read into the model)"
        return None

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        ignore = ctx.params_as(self.Params).ignore
        observed = ctx.snapshot.observed
        fields = ctx.snapshot.observed_fields
        unseen = [n for n in ctx.desired.devices if ctx.selects(n) and (n not in observed.devices or n not in fields)]
        if unseen:  # not reached or no capture: not judged (collect.complete reports a device that failed)
            self.note = f"not judged on {', '.join(sorted(unseen))}: device not observed"
        for name, paths in sorted(ctx.snapshot.observed_fields.items()):
            want = ctx.desired.devices.get(name)
            have = observed.devices.get(name)
            if want is None:
                yield Finding(name, "device", "observed but not in the intent", "absent", "present")
                continue
            if have is None:
                continue  # named in the note: not observed
            ports = ctx.snapshot.port_settings.get(name, {})
            if want == have and not ports:  # nothing differs anywhere: no need to dump and walk it
                continue
            cell = get_asic(want.asic).cell_size if want.asic else None
            dumped = want.model_dump(mode="json")
            diffs = device_drift(dumped, have.model_dump(mode="json"), [p for p in paths if p], cell)
            for port, settings in sorted(ports.items()):
                diffs += port_drift(dumped, port, settings.model_dump(mode="json"), cell)
            for diff in diffs:
                if any(fnmatchcase(diff.path, pat) for pat in ignore):
                    continue
                yield Finding(
                    name, diff.path, "differs from intent", show(diff.desired), show(diff.observed), port_of(diff.path)
                )
