"""One exported AWX project per test module (``xoff inventory export --shard-by pod``), of a 3-tier fabric
with pods, scalable units and planes (the failure-domain tests' intent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.desired.test_domains import PLACED
from xoff import api


@pytest.fixture(scope="module")
def intent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("intent") / "intent.yaml"
    path.write_text(PLACED, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def project(intent: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("awx") / "project"
    api.export_awx(intent, api.AwxOptions(shard_by="pod", output=out))
    return out
