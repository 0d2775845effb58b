"""Problems found after loading (buffers, ASN plans) still point at the intent's file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from xoff.desired.build import build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent

MINIMAL = Path(__file__).parent.parent / "fixtures" / "intent" / "minimal.yaml"


def test_buffer_problems_are_located_at_the_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tomahawk has no 400G static headroom row: each switch's ports without a row are a problem per reason (speed
    and cable), naming the ports, at the policy they use."""
    monkeypatch.chdir(tmp_path)
    text = MINIMAL.read_text(encoding="utf-8").replace("    asic: spectrum4\n", "    asic: tomahawk\n")
    Path("intent.yaml").write_text(text, encoding="utf-8")
    policy_line = text.splitlines().index("  rdma:") + 2  # the policy mapping starts on the line after its key
    with pytest.raises(InputError) as info:
        build_fabric_state(load_intent(Path("intent.yaml")))
    lines = info.value.render().splitlines()
    # the cabled lossless ports: on each leaf 2 to hosts (5 m) and 1 to the spine (40 m), 2 on the spine (40 m)
    assert len(lines) == 5, lines
    assert sum(line.count("Ethernet") for line in lines) == 8, lines
    assert all(line.startswith(f"intent.yaml:{policy_line}:5: qos_policies.rdma.buffers: ") for line in lines), lines
    assert "<intent>" not in info.value.render()


def test_problem_without_a_written_field_goes_to_its_nearest_written_ancestor() -> None:
    intent = load_intent(MINIMAL)
    written = intent.locate("qos_policies.rdma")
    assert written is not None
    assert intent.locate("qos_policies.rdma.buffers.headroom_rows[3]") == written
    assert intent.locate("fabric.name") is not None
    assert intent.locate("fabric.name") != intent.locate("fabric")
