"""The EOS push's split of a real running-config (every ``show running-config`` sample of the corpus:
cEOS 4.33, EOS 4.28, vEOS 4.27/4.29, a cut one): what xoff manages is what it judges, the rest is carried
as it is, and no line is lost or doubled by the replace."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.support.corpus import read_sample, sample_ids, samples
from xoff.platforms.eos.apply import RUNNING_CONFIG, Strategy
from xoff.platforms.eos.config_tree import MANAGED, config_diff, config_lines, family, unmanaged_lines

SAMPLES = samples("eos", "show_running-config")


def _managed_text(text: str) -> str:
    """The sample's sections xoff manages, as a rendered file would hold them."""
    out, keep = [], False
    for line in config_lines(text):
        if not line.startswith(" "):
            keep = family(line) in MANAGED
        if keep:
            out.append(line)
    return "\n".join(out) + "\n"


def test_there_are_samples() -> None:
    assert len(SAMPLES) >= 3


@pytest.mark.parametrize("sample", SAMPLES, ids=sample_ids(SAMPLES))
def test_a_real_running_config_splits_into_managed_and_carried(sample: Path) -> None:
    text = read_sample(sample)
    desired = _managed_text(text)
    # the same managed lines: nothing to change, nothing drifted, whatever else the switch holds
    assert config_diff(text, desired) == []
    change = Strategy().diff(text, {RUNNING_CONFIG: desired})
    assert change.lines == []
    # the replace restates every line of the switch once: the unmanaged ones carried, the rest rendered
    assert Counter(change.payload) == Counter(config_lines(text))
    carried = unmanaged_lines(text, desired)
    assert all(family(ln) not in MANAGED for ln in carried if not ln.startswith(" "))
    # a managed section only the switch has is a difference (here: the first one, left out of desired)
    lines = config_lines(desired)
    end = next((i for i, ln in enumerate(lines[1:], 1) if not ln.startswith(" ")), len(lines))
    assert f"- {lines[0]}" in config_diff(text, "\n".join(lines[end:]) + "\n")
