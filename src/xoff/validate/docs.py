"""docs/checks.md, generated from the registry and the built-in catalogs (a test fails when it is stale)."""

from __future__ import annotations

from pydantic_core import PydanticUndefined

from xoff.validate.catalog import BUILTIN, load_catalog
from xoff.validate.registry import CHECKS, Check, Registry

HEADER = """\
# Check reference

Generated from the check registry and `validators/*.yaml` by `python -m xoff.validate.docs > docs/checks.md`;
a test fails when this page is stale. Each check has a stable id (use it in catalogs), a severity (warnings do
not fail a gate), what it needs (`desired`: runs on the intent alone; `observed`: needs a snapshot or a live
collect, skipped offline with the reason), and thresholds a catalog may set (`checks: {<id>: {<param>: value}}`).
Findings name the device, and the port and priority where they apply. `reads` lists the device fields a check
judges, the first being what it is about: on a snapshot a device whose collector did not read them all is not
judged (the result names it), and a check with no such device left is skipped, never a success. `tags` are what
`xoff validate --tags` chooses checks by (the id's family is always one; `--checks` takes id globs).
"""


def _params(cls: type[Check]) -> list[str]:
    out = []
    for name, info in cls.Params.model_fields.items():
        default = info.default if info.default is not PydanticUndefined else "required"
        if isinstance(default, tuple):
            default = list(default)
        kind = getattr(info.annotation, "__name__", None) or str(info.annotation).replace("typing.", "")
        out.append(f"`{name}` ({kind}, default `{default}`)")
    return out


def checks_markdown(registry: Registry = CHECKS) -> str:
    catalogs = {name: set(load_catalog(name, registry).ids) for name in BUILTIN}
    lines = [HEADER, "| id | severity | needs | catalogs | title |", "|---|---|---|---|---|"]
    for check_id in registry.ids():
        cls = registry.get(check_id)
        inside = ", ".join(n for n in BUILTIN if check_id in catalogs[n]) or "none (site catalogs)"
        lines.append(
            f"| [`{check_id}`](#{check_id.replace('.', '')}) | {cls.severity.value} | {', '.join(sorted(cls.needs))} | {inside} | {cls.title} |"
        )
    for check_id in registry.ids():
        cls = registry.get(check_id)
        lines += ["", f"## {check_id}", "", f"**{cls.title}**", ""]
        lines.append(f"- severity: {cls.severity.value}; needs: {', '.join(sorted(cls.needs))}")
        lines.append("- tags: " + ", ".join(f"`{t}`" for t in sorted(cls.tag_set())))
        params = _params(cls)
        lines.append("- params: " + ("; ".join(params) if params else "none"))
        if cls.reads:  # with a snapshot, judged only where the collector read these (validate/coverage.py)
            lines.append("- reads: " + ", ".join(f"`{r}`" for r in cls.reads))
        if cls.hint:
            lines.append(f"- remediation: {cls.hint}")
        lines += ["", " ".join(cls.description().split())]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(checks_markdown(), end="")
