"""``lab up`` makes room in the kernel's neighbour tables: a bound lower than the labs need is raised and said, one
as large or larger is left alone, a knob that cannot be read (no IPv6, not the root namespace) is skipped."""

from __future__ import annotations

from pathlib import Path

from xoff.lab.neighbours import ROOM, make_room


def _proc(tmp_path: Path, values: dict[str, tuple[int, int, int]]) -> Path:
    for family, triple in values.items():
        d = tmp_path / family / "neigh" / "default"
        d.mkdir(parents=True)
        for i, v in enumerate(triple, start=1):
            (d / f"gc_thresh{i}").write_text(f"{v}\n", encoding="utf-8")
    return tmp_path


def test_low_bounds_are_raised_and_said(tmp_path: Path) -> None:
    proc = _proc(tmp_path, {"ipv4": (128, 512, 1024), "ipv6": (128, 9000, 20000)})
    said = make_room(proc)
    assert said == [
        "raised net.ipv4.neigh.default.gc_thresh1 from 128 to 1024",
        "raised net.ipv4.neigh.default.gc_thresh2 from 512 to 8192",
        "raised net.ipv4.neigh.default.gc_thresh3 from 1024 to 16384",
        "raised net.ipv6.neigh.default.gc_thresh1 from 128 to 1024",
    ]
    read = [int((proc / "ipv6" / "neigh" / "default" / f"gc_thresh{i}").read_text()) for i in (1, 2, 3)]
    assert read == [ROOM[0], 9000, 20000]  # larger ones are the machine's choice: left alone
    assert make_room(proc) == []  # a second lab up says nothing


def test_a_missing_family_is_skipped(tmp_path: Path) -> None:
    proc = _proc(tmp_path, {"ipv4": (128, 512, 1024)})
    assert len(make_room(proc)) == 3
