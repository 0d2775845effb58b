"""The dashboard JSON type-checked by TypeScript's compiler against Grafana's own published types.

No package on the registries this project reaches (PyPI, Debian, npm) ships Grafana's dashboard JSON schema (the
``jsonschema/`` files of grafana-foundation-sdk live only in its repository). What npm does ship, generated from the
same CUE kinds: ``@grafana/schema`` (Grafana's package of the dashboard v1 model and each panel plugin's options) and
``@grafana/grafana-foundation-sdk`` (the Prometheus query model). ``make grafana-types`` installs them with the
``typescript`` compiler into the venv (``.venv/grafana-types``, pinned in the Makefile, never in this repository);
``$XOFF_GRAFANA_TYPES`` points elsewhere.

The dashboard is written out as one TypeScript object literal typed as Grafana's ``Dashboard`` whose panels are the
union of the row and the panel kinds it uses, each with that kind's ``Options`` and Prometheus targets. ``tsc
--strict`` then rejects what Grafana's types do: an unknown key (excess property check), a missing required field, a
value of the wrong type or outside an enumeration. TypeScript's string enums do not accept their string values in
JSON, so ``Plain<T>`` reads each enum as the union of its values (a template literal type), and drops methods (the
SDK's query type marks its variant with one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ENV = "XOFF_GRAFANA_TYPES"
# panel type -> the module of @grafana/schema with that panel plugin's Options (its package.json ``exports``)
PANEL_OPTIONS = {
    kind: f"@grafana/schema/dist/esm/raw/composable/{kind}/panelcfg/x/{name}PanelCfg_types.gen"
    for kind, name in (("stat", "Stat"), ("timeseries", "TimeSeries"), ("table", "Table"))
}
PROMETHEUS_QUERY = "@grafana/grafana-foundation-sdk/prometheus"

_PRELUDE = """\
import type * as G from "@grafana/schema";
import type { Dataquery as PromQuery } from "%(prometheus)s";
%(imports)s
// JSON holds an enum's values: a string enum becomes the union of its values; methods are no JSON
type Plain<T> = T extends string
  ? `${T}`
  : T extends number | boolean | null | undefined
    ? T
    : T extends readonly (infer U)[]
      ? Plain<U>[]
      : T extends object
        ? { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: Plain<T[K]> }
        : T;
type PanelOf<K extends string, O> = Omit<Plain<G.Panel>, "type" | "options" | "targets"> & {
  type: K;
  options?: Plain<O>;
  targets?: Plain<PromQuery>[];
};
type AnyPanel = Plain<G.RowPanel> | %(panels)s;
export const dashboard: Omit<Plain<G.Dashboard>, "panels"> & { panels?: AnyPanel[] } = """


def types_dir() -> Path | None:
    """Where ``make grafana-types`` installed the compiler and the types: ``$XOFF_GRAFANA_TYPES``, else beside the
    interpreter running the tests (the venv); None when neither holds them."""
    env = os.environ.get(ENV)
    where = Path(env) if env else Path(sys.prefix) / "grafana-types"
    return where if (where / "node_modules" / ".bin" / "tsc").is_file() else None


def source(doc: dict[str, Any]) -> str:
    """The TypeScript module that declares ``doc`` as Grafana's dashboard (one key per line, for tsc's line numbers)."""
    unknown = sorted({p["type"] for p in doc.get("panels", ())} - set(PANEL_OPTIONS) - {"row"})
    if unknown:
        raise ValueError(f"panel types without their Grafana Options here: {unknown}")
    imports = "\n".join(f'import type {{ Options as {k}Options }} from "{m}";' for k, m in PANEL_OPTIONS.items())
    panels = " | ".join(f'PanelOf<"{k}", {k}Options>' for k in PANEL_OPTIONS)
    head = _PRELUDE % {"prometheus": PROMETHEUS_QUERY, "imports": imports, "panels": panels}
    return head + json.dumps(doc, indent=2) + ";\n"


def tsc_errors(doc: dict[str, Any], where: Path, work: Path) -> list[str]:
    """tsc's errors for ``doc`` (each ``line: message``, with the offending line of the literal); [] when it is
    what Grafana's types accept."""
    text = source(doc)
    (work / "dashboard.ts").write_text(text, encoding="utf-8")
    config = {
        "compilerOptions": {
            "strict": True,
            "noEmit": True,
            "module": "esnext",
            "moduleResolution": "bundler",
            "target": "es2022",
            "skipLibCheck": True,  # the packages' own .d.ts are theirs to check; ours is the dashboard
            "typeRoots": [],
        },
        "files": ["dashboard.ts"],
    }
    (work / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    modules = work / "node_modules"  # the packages' own exports maps resolve as npm laid them out
    if not modules.exists():
        modules.symlink_to(where / "node_modules", target_is_directory=True)
    result = subprocess.run(
        [str(where / "node_modules" / ".bin" / "tsc"), "-p", str(work / "tsconfig.json"), "--pretty", "false"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=work,
    )
    lines = text.splitlines()
    errors: list[str] = []
    for line in (result.stdout + result.stderr).splitlines():
        if not line.startswith("dashboard.ts("):
            if line.strip() and not line.startswith(" "):
                errors.append(line)  # a tsc failure outside the file (config, a module not found) is an error too
            elif errors:
                errors[-1] += " " + line.strip()
            continue
        at = int(line.split("(", 1)[1].split(",", 1)[0])
        errors.append(f"{line.split(': ', 1)[-1]} [line {at}: {lines[at - 1].strip()}]")
    if result.returncode != 0 and not errors:
        errors.append(f"tsc exited {result.returncode}: {result.stdout}{result.stderr}")
    return errors
