"""Where things are in a checkout: one place instead of ``Path(__file__).parents[N]`` in every test."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INVENTORY = ROOT / "inventory"
GOLDEN = ROOT / "tests" / "golden"
