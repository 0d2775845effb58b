"""Every command a platform collector runs has a real-format corpus (tests/fixtures/real/README.md): a directory
``tests/fixtures/real/<platform>/<slug>/`` with at least three samples (``<case>.txt``), each with its
``<case>.expected.json``. Commands with per-device arguments are named with the placeholders of docs/captures.md
(``PORT``, ``NETDEV``, ``RDMA``). A command printed by a tool several platforms share (FRR's ``vtysh``, ``lldpctl``,
infiniband-diags) may keep its corpus under that tool's directory instead (``frr/``, ``lldpd/``, ``infiniband/``).
"""

from __future__ import annotations

import pytest

from tests.support.corpus import REAL, samples
from xoff.collect.captures_doc import platform_commands

MIN_SAMPLES = 3
SHARED_TOOLS = {"vtysh": "frr", "lldpctl": "lldpd", "ibstat": "infiniband", "sminfo": "infiniband"}

COMMANDS = [(platform, c.text, c.slug) for platform, commands in platform_commands().items() for c in commands]


def corpus_of(platform: str, text: str, slug: str) -> tuple[str, str]:
    """(corpus platform directory, command directory) where the command's samples live."""
    tool = SHARED_TOOLS.get(text.split(maxsplit=1)[0])
    if tool is not None and not (REAL / platform / slug).is_dir():
        return tool, slug
    return platform, slug


@pytest.mark.parametrize(("platform", "text", "slug"), COMMANDS, ids=[f"{p}:{s}" for p, _, s in COMMANDS])
def test_every_collected_command_has_three_real_samples(platform: str, text: str, slug: str) -> None:
    where, command = corpus_of(platform, text, slug)
    found = samples(where, command)
    assert len(found) >= MIN_SAMPLES, (
        f"{platform} runs `{text}`: tests/fixtures/real/{where}/{command}/ has {len(found)} sample(s) "
        f"(at least {MIN_SAMPLES} in formats published by others, sources in tests/fixtures/real/{where}/README.md)"
    )
    missing = [p.name for p in found if not p.with_name(p.stem + ".expected.json").is_file()]
    assert missing == [], f"samples without an expected file: {missing}"


@pytest.mark.parametrize("platform", sorted({p for p, _, _ in COMMANDS}))
def test_every_platform_corpus_names_its_sources(platform: str) -> None:
    assert (REAL / platform / "README.md").is_file(), f"tests/fixtures/real/{platform}/README.md names the sources"
