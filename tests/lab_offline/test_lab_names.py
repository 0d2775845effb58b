"""Names of what the lab creates: legal for Linux, stable, and recognisable by cleanup."""

from __future__ import annotations

import pytest

from xoff.lab import names


@pytest.mark.parametrize(
    ("port", "expected"),
    [("Ethernet0", "Ethernet0"), ("Ethernet1/1", "Ethernet1_1"), ("swp1", "swp1"), ("eth0", "eth0"),
     ("Management1", "Management1"), ("1", "1"), ("Ethernet1/1:2", "Ethernet1_1_2"), ("Port-Channel10", "Port-Channel10")],
)  # fmt: skip
def test_linux_ifname(port: str, expected: str) -> None:
    assert names.linux_ifname(port) == expected


def test_linux_ifname_long_names_are_truncated_with_a_stable_hash() -> None:
    long = names.linux_ifname("Ethernet1/1/1000")
    assert len(long) == 15 and long.startswith("Ethernet1_")
    assert long == names.linux_ifname("Ethernet1/1/1000")  # stable
    assert long != names.linux_ifname("Ethernet1/1/1001")  # and distinct
    assert len(names.linux_ifname("HundredGigE0/0/0/10")) <= 15


@pytest.mark.parametrize(
    ("fabric", "lab"), [("lab-mini", "lab-mini"), ("Lab_Mini.v2", "lab-mini-v2"), ("ib-pod", "ib-pod")]
)
def test_lab_name(fabric: str, lab: str) -> None:
    assert names.lab_name(fabric) == lab
    assert names.check_lab_name(lab) == lab


@pytest.mark.parametrize("bad", ["", "-a", "a-", "A", "a_b", "x" * 25, "a/b"])
def test_bad_lab_names(bad: str) -> None:
    with pytest.raises(ValueError, match="not a valid lab name"):
        names.check_lab_name(bad)


def test_root_namespace_names_fit_and_match_the_cleanup_patterns() -> None:
    bridge, veth = names.bridge("lab-mini"), names.root_veth("lab-mini", "leaf1")
    assert len(bridge) <= 15 and names.BRIDGE_RE.match(bridge)
    assert len(veth) <= 15 and names.VETH_RE.match(veth)
    assert names.bridge("lab-mini") != names.bridge("lab-mini2")
    assert names.root_veth("lab-mini", "leaf1") != names.root_veth("lab-mini2", "leaf1")
    assert names.namespace("lab-mini", "leaf1") == "xl-lab-mini-leaf1"
    assert names.namespace("lab-mini", "leaf1").startswith(names.namespace_prefix("lab-mini"))


def test_labs_root_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv(names.ROOT_ENV, raising=False)
    assert names.labs_root() == names.DEFAULT_ROOT
    monkeypatch.setenv(names.ROOT_ENV, str(tmp_path))
    assert names.lab_dir("x") == tmp_path / "x"
