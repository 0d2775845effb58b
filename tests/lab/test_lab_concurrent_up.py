"""Two labs coming up at the same moment, from the same intent, in different labs directories (as parallel test
workers and CI jobs do) take different address blocks: the choice of free blocks reads the root namespace, so
without the machine-wide claim (``xoff.lab.lab.addresses_claimed``) both found the intent's management /24 free and
both put it on their bridges, and SSH to a device reached the other lab's (a loaded run once failed a push on
"Host key ... does not match")."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from ipaddress import IPv4Network
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from xoff.lab import names, netns
from xoff.lab.lab import UpReport, resolve, up
from xoff.lab.teardown import down

pytestmark = pytest.mark.lab
INTENT = ROOT / "tests" / "fixtures" / "intents" / "watch-host"


def test_two_labs_coming_up_at_once_take_different_blocks() -> None:
    labs = [f"c{os.getpid() % 100000}{side}" for side in "ab"]
    roots = {lab: Path(tempfile.mkdtemp(prefix="xcu-")) for lab in labs}  # short: FRR's socket paths
    start = threading.Barrier(len(labs))
    reports: dict[str, UpReport | BaseException] = {}

    def bring_up(lab: str) -> None:
        roots[lab].chmod(0o755)
        start.wait()
        try:
            reports[lab] = up(INTENT, lab, remap_addresses=True, root=roots[lab])
        except BaseException as exc:  # judged below, after both labs are down
            reports[lab] = exc

    threads = [threading.Thread(target=bring_up, args=(lab,)) for lab in labs]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(isinstance(r, UpReport) for r in reports.values()), reports
        prefixes = [IPv4Network(resolve(lab, roots[lab]).mgmt_prefix) for lab in labs]
        assert not prefixes[0].overlaps(prefixes[1]), prefixes
        # the fabric's own blocks live inside each lab's namespaces: the same in both is no clash
        on_root = [{a for a, _ in (b.split(" -> ") for b in reports[lab].remap)} for lab in labs]  # type: ignore[union-attr]
        assert "198.19.249.0/24" in on_root[0] & on_root[1], on_root  # both labs' management block, one moved
    finally:
        for lab in labs:
            if (roots[lab] / lab).exists():
                down(lab, roots[lab])
            assert netns.names(names.namespace_prefix(lab)) == []
            shutil.rmtree(roots[lab], ignore_errors=True)
