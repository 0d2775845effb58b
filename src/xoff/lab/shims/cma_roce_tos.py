"""``cma_roce_tos [-d dev] [-p port] [-t tos]``: RDMA-CM's default ToS (see ``_cma.py``)."""

from __future__ import annotations

from xoff.lab.shims import _cma
from xoff.lab.shims._state import HostRoot, run

TYPE_CHECKING = False  # what the type checker reads; `typing` costs a shim more to import than its work
if TYPE_CHECKING:
    from typing import NoReturn


def main(root: HostRoot, argv: list[str]) -> int:
    return _cma.main(_cma.ROCE_TOS, root, argv)


def cli() -> NoReturn:
    """The tool's entry point: what the lab host's wrapper runs."""
    run(main, _cma.ROCE_TOS.name)


if __name__ == "__main__":
    cli()
