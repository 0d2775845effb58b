"""``cma_roce_mode [-d dev] [-p port] [-m 1|2]``: RDMA-CM's default RoCE mode (see ``_cma.py``)."""

from __future__ import annotations

from xoff.lab.shims import _cma
from xoff.lab.shims._state import HostRoot, run

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import NoReturn


def main(root: HostRoot, argv: list[str]) -> int:
    return _cma.main(_cma.ROCE_MODE, root, argv)


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, _cma.ROCE_MODE.name)


if __name__ == "__main__":
    cli()
