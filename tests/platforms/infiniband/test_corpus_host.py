"""The real-format corpus of the host-side InfiniBand commands (``ibstat``, ``sminfo``): every sample under
``tests/fixtures/real/infiniband/<command>/`` parsed and compared with the expected file beside it. The
format of each sample and its source: tests/fixtures/real/infiniband/README.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.corpus import expected_for, read_sample, sample_ids, samples
from xoff.platforms.infiniband import host

IBSTAT = samples("infiniband", host.IBSTAT.slug)
SMINFO = samples("infiniband", host.SMINFO.slug)


def test_every_command_has_three_samples() -> None:
    assert len(IBSTAT) >= 3 and len(SMINFO) >= 3


@pytest.mark.parametrize("sample", IBSTAT, ids=sample_ids(IBSTAT))
def test_ibstat(sample: Path) -> None:
    text = read_sample(sample)
    want, got = expected_for(sample, {"ports": host.ibstat(text), "unmodelled": host.ibstat_unmodelled(text)})
    assert got == want


@pytest.mark.parametrize("sample", SMINFO, ids=sample_ids(SMINFO))
def test_sminfo(sample: Path) -> None:
    want, got = expected_for(sample, host.sminfo(read_sample(sample)))
    assert got == want
