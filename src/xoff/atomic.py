"""One file written whole or not at all: a temporary file beside it, then a rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: str | bytes, mode: int = 0o644, dir_mode: int = 0o777) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` so that readers, and a crash of this process, see the old or the new
    file, never a part. Missing parents are made with ``dir_mode`` (less the umask). No fsync: what xoff writes this
    way (lab state in /run, Ansible's backups of one run) is rewritten by the next run anyway."""
    path.parent.mkdir(mode=dir_mode, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        Path(tmp).chmod(mode)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
