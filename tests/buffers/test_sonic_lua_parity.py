"""xoff's dynamic model and port check against SONiC's own Lua outputs, stored as data.

The inputs and outputs in tests/fixtures/sonic-lua/ come from running sonic-swss's
buffer_headroom_mellanox.lua and buffer_check_headroom_mellanox.lua unmodified (see the README there).
"""

from __future__ import annotations

import csv
from pathlib import Path

from xoff.buffers import PgReservation, check_port_headroom, compute_headroom, shared_headroom_pool_size

DATA = Path(__file__).resolve().parents[1] / "fixtures" / "sonic-lua"


def _rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _opt(cell: str) -> int | None:
    return int(cell) if cell else None


def _headroom_case(r: dict[str, str]) -> tuple[int, int, int]:
    # SONiC turns on the shared headroom pool when the pool has an xoff or a ratio is set (both non-zero).
    shp = bool(_opt(r["pool_xoff"])) or bool(_opt(r["over_subscribe_ratio"]))
    room = compute_headroom(
        r["asic"],
        int(r["speed_mbps"]),
        int(r["cable_m"]),
        port_mtu=int(r["port_mtu"]),
        lossless_mtu=int(r["lossless_mtu"]),
        small_packet_percent=int(r["small_packet_percentage"]),
        shared_headroom_pool=shp,
        gearbox_delay_ns=_opt(r["gearbox_delay_ns"]) or 0,
        eight_lanes=r["lanes"] == "8",
    )
    return room.xon, room.xoff, room.size


def test_dynamic_model_equals_sonic_lua_on_every_stored_case() -> None:
    rows = _rows("headroom.csv")
    assert len(rows) >= 3888
    mismatches = [
        (r, got) for r in rows if (got := _headroom_case(r)) != (int(r["xon"]), int(r["xoff"]), int(r["size"]))
    ]
    assert not mismatches, f"{len(mismatches)} of {len(rows)} differ, first: {mismatches[:3]}"


def test_stored_grid_covers_the_issue_dimensions() -> None:
    rows = _rows("headroom.csv")
    seen = {col: {r[col] for r in rows} for col in ("asic", "lanes", "small_packet_percentage", "gearbox_delay_ns")}
    assert seen["asic"] == {f"spectrum{n}" for n in range(1, 7)}
    assert seen["lanes"] == {"4", "8"}
    assert {"50", "100"} <= seen["small_packet_percentage"]
    assert {"100", "1600000"} <= {r["speed_mbps"] for r in rows}
    assert len(seen["gearbox_delay_ns"]) > 2


def _pgs(cell: str) -> list[PgReservation]:
    out = []
    for item in cell.split():
        key, _, nums = item.partition("=")
        size, xon, xoff = (int(n) for n in nums.split("/"))
        out.append(PgReservation(key, size, xon, xoff))
    return out


def test_port_check_equals_sonic_lua_on_every_stored_case() -> None:
    rows = _rows("port_check.csv")
    assert len(rows) > 1000
    bad = []
    for r in rows:
        pgs = _pgs(r["pgs"])
        if r["lossy_pg0"] == "1":
            pgs.insert(0, PgReservation("0", 0))  # ingress_lossy_profile: size 0, no xon/xoff
        verdict = check_port_headroom(
            r["asic"],
            pgs,
            max_headroom_size=_opt(r["max_headroom_size"]),
            shared_headroom_pool=bool(int(r["pool_xoff"])),
            eight_lanes=r["lanes"] == "8",
        )
        want_total, want_shared = _opt(r["total"]), _opt(r["shared"])
        if (
            verdict.ok != (r["result"] == "1")
            or (want_total is not None and verdict.total != want_total)
            or (want_shared is not None and verdict.shared != want_shared)
        ):
            bad.append((r["case"], verdict))
    assert not bad, f"{len(bad)} of {len(rows)} differ, first: {bad[:3]}"


def test_port_check_stored_cases_reject_and_accept() -> None:
    rows = _rows("port_check.csv")
    results = {(r["result"], r["pool_xoff"] != "0", r["lossy_pg0"], r["lanes"]) for r in rows}
    # Both answers occur with and without the shared pool, the size-0 lossy PG and 8 lanes.
    assert {(res, shp, lossy, lanes) for res in "01" for shp in (True, False) for lossy in "01" for lanes in "48"} == (
        results
    )


def test_shared_headroom_pool_size_equals_sonic_lua_on_every_stored_case() -> None:
    rows = _rows("shared_pool.csv")
    assert len(rows) >= 400
    bad = []
    for r in rows:
        ports = int(r["ports"])
        lossless = PgReservation("3-4", int(r["size"]), int(r["xon"]), int(r["xoff"]))
        pgs = [pg for _ in range(ports) for pg in (PgReservation("0", 0), lossless)]
        got = shared_headroom_pool_size(pgs, lossless_ports=ports, over_subscribe_ratio=int(r["over_subscribe_ratio"]))
        if got != int(r["shared_headroom_pool"]):
            bad.append((r, got))
    assert not bad, f"{len(bad)} of {len(rows)} differ, first: {bad[:3]}"
