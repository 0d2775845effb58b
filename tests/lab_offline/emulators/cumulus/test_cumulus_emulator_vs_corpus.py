"""The NVUE emulator's output for every command the Cumulus collector runs, read by xoff's parser, has the
shape of the real-format corpus (tests/fixtures/real/cumulus/, sources in its README.md): no key, value type
or group the corpus' samples lack. The emulator is lab-mini's sleaf1 with xoff's rendered configuration
applied and counters seeded through its hook file, so every group it prints holds values."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cumulus_emu import applied_sleaf1, fabric, run

from tests.support.corpus import corpus_shape, jsonable, samples, shape
from xoff.lab.emulators.cumulus import Emulator
from xoff.platforms.cumulus import counters
from xoff.platforms.cumulus.collect import CONFIG, INTERFACES, Collector
from xoff.platforms.cumulus.config_read import read_config, read_interfaces

SEEDED = {
    "pfc": {"swp1": {"4": {"rx-pause-frames": 1200, "rx-pause-duration": 7}}},
    "watchdog": {"swp1": {"4": {"deadlock-count": 1, "status": "DEADLOCK"}}},
    "queues": {"swp1": {"4": {"tx-frames": 10, "tx-bytes": 4096, "tx-uc-buffer-discards": 2, "ecn-marked-frames": 3}}},
}
PARSERS: dict[str, tuple[str, Callable[[str], Any]]] = {
    CONFIG.slug: (CONFIG.text, read_config),
    INTERFACES.slug: (INTERFACES.text, read_interfaces),
    counters.qos_command("PORT").slug: (counters.qos_command("swp1").text, counters.parse_qos),
    counters.watchdog_command("PORT").slug: (counters.watchdog_command("swp1").text, counters.parse_watchdog),
}

# NVUE collections keyed by names of the user's or NVUE's choosing (profiles, pools, neighbours, ...): a name
# no sample has is held to the shape of the members the samples have
COLLECTIONS = {"pfc", "mapping", "egress-scheduler", "congestion-control", "egress-queue-mapping", "traffic-pool",
               "neighbor", "network", "address", "interface", "static", "server", "dscp", "switch-priority",
               "traffic-class", "via"}  # fmt: skip


@pytest.fixture(scope="module")
def sleaf1(tmp_path_factory: pytest.TempPathFactory) -> Emulator:
    tmp: Path = tmp_path_factory.mktemp("sleaf1")
    emu = applied_sleaf1(tmp)
    (tmp / "state" / "counters.json").write_text(json.dumps(SEEDED), encoding="utf-8")
    return emu


def test_the_collector_runs_exactly_these_nvue_commands() -> None:
    """Every NVUE command the collector runs has a corpus and is compared below (FRR's and lldpd's are
    compared with their own corpora)."""
    desired = fabric().devices["sleaf1"]
    slugs = {c.slug.replace("swp1", "PORT") for c in Collector().commands(desired) if c.text.startswith("nv ")}
    slugs = {
        s if "_swp" not in s else "_".join("PORT" if w.startswith("swp") else w for w in s.split("_")) for s in slugs
    }
    assert slugs == set(PARSERS)


@pytest.mark.parametrize("slug", list(PARSERS))
def test_emulator_output_read_by_the_parser_has_the_corpus_shape(sleaf1: Emulator, slug: str) -> None:
    command, parse = PARSERS[slug]
    reply = run(sleaf1, command)
    assert reply.status == 0, reply.output
    assert corpus_shape("cumulus", slug)  # the expected files exist
    expected = [shape(json.loads(p.with_name(p.stem + ".expected.json").read_text())) for p in samples("cumulus", slug)]
    assert _uncovered(shape(jsonable(parse(reply.output))), expected) == []


@pytest.mark.parametrize("slug", list(PARSERS))
def test_emulator_output_has_the_keys_and_types_real_switches_print(sleaf1: Emulator, slug: str) -> None:
    command, _ = PARSERS[slug]
    raw = [shape(json.loads(p.read_text())) for p in samples("cumulus", slug)]
    assert _uncovered(shape(json.loads(run(sleaf1, command).output)), raw) == []


def _uncovered(emulated: Any, corpus: list[Any], path: str = "") -> list[str]:
    """Where ``emulated`` has a key or a type no corpus sample has at that place (each sample's shape on its
    own: a field one sample has as null and another as a mapping is held to the samples that have a mapping)."""
    if isinstance(emulated, dict):
        problems = []
        for key, value in emulated.items():
            found = [c[key] for c in corpus if isinstance(c, dict) and key in c]
            if not found and path.rsplit(".", 1)[-1] in COLLECTIONS:  # an identifier (a profile, a pool)
                found = [v for c in corpus if isinstance(c, dict) for v in c.values()]
            problems += _uncovered(value, found, f"{path}.{key}") if found else [f"{path}.{key}: no sample has it"]
        return problems
    if isinstance(emulated, list):
        found = [c[0] for c in corpus if isinstance(c, list) and c]
        if not emulated or not found:
            return [] if any(isinstance(c, list) for c in corpus) else [f"{path}: a list where no sample has one"]
        return _uncovered(emulated[0], found, f"{path}[]")
    allowed = {kind for c in corpus if not isinstance(c, (dict, list)) for kind in str(c).split("|")}
    extra = set(str(emulated).split("|")) - allowed
    return (
        [f"{path or '.'}: {'|'.join(sorted(extra))} where the samples have {' or '.join(map(str, corpus))}"]
        if extra
        else []
    )
