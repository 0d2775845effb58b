"""``cma_roce_mode [-d dev] [-p port] [-m 1|2]``: RDMA-CM's default RoCE mode (see ``_cma.py``)."""

from __future__ import annotations

from xoff.lab.shims import _cma
from xoff.lab.shims._state import HostRoot, run


def main(root: HostRoot, argv: list[str]) -> int:
    return _cma.main(_cma.ROCE_MODE, root, argv)


if __name__ == "__main__":
    run(main, _cma.ROCE_MODE.name)
