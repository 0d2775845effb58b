"""``cma_roce_tos [-d dev] [-p port] [-t tos]``: RDMA-CM's default ToS (see ``_cma.py``)."""

from __future__ import annotations

from xoff.lab.shims import _cma
from xoff.lab.shims._state import HostRoot, run


def main(root: HostRoot, argv: list[str]) -> int:
    return _cma.main(_cma.ROCE_TOS, root, argv)


if __name__ == "__main__":
    run(main, _cma.ROCE_TOS.name)
