"""The device's persistent state under ``ctx.state_dir``, and the switch's file system as the
shell sees it.

Files (all JSON as SONiC writes them: ``sonic-cfggen --print-data`` sorts keys, indent 4):

- ``config_db.json``: the running CONFIG_DB;
- ``saved/config_db.json``: the startup configuration, the switch's ``/etc/sonic/config_db.json``;
- ``checkpoints/<name>.cp.json``: ``config checkpoint`` (the switch's ``/etc/sonic/checkpoints``);
- ``files/``: every other path a session writes or reads (``/home/admin/patch.json``, ``/tmp/x``);
- ``counters.json``: optional test hook with counter values (see ``counters``).

The first use of a state directory writes a factory CONFIG_DB (``factory``) as both running and
startup configuration. Writers take an exclusive ``flock`` on ``.lock``: several SSH sessions of
one device share these files.
"""

from __future__ import annotations

import fcntl
import json
import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from xoff.lab.emulators.base import EmulatorContext
from xoff.lab.emulators.sonic.factory import factory_config_db
from xoff.lab.emulators.sonic.moving import read_counters

ConfigDb = dict[str, dict[str, dict[str, Any]]]

HOME = "/home/admin"
SAVED_PATH = "/etc/sonic/config_db.json"  # DEFAULT_CONFIG_DB_FILE
CHECKPOINTS_PATH = "/etc/sonic/checkpoints"  # generic_config_updater CHECKPOINTS_DIR
CHECKPOINT_EXT = ".cp.json"


def dumps_sorted(config: Any) -> str:
    """``sonic-cfggen -d --print-data`` / ``config save``: sorted keys, indent 4, no final newline."""
    return json.dumps(config, indent=4, sort_keys=True)


class Store:
    def __init__(self, ctx: EmulatorContext) -> None:
        self.ctx = ctx
        self.root = ctx.state_dir
        self.running_file = self.root / "config_db.json"
        self.saved_file = self.root / "saved" / "config_db.json"
        self.checkpoints = self.root / "checkpoints"
        self.fs = self.root / "files"  # the lab SSH server's SFTP/SCP root (xoff.lab.sshd FILES_DIR)
        self.counters_file = self.root / "counters.json"

    # --- locking and the CONFIG_DB files ---------------------------------------------------------

    @contextmanager
    def locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def running(self) -> ConfigDb:
        if not self.running_file.exists():
            with self.locked():
                if not self.running_file.exists():
                    factory = factory_config_db(self.ctx)
                    self._write(self.saved_file, factory)
                    self._write(self.running_file, factory)
        data: ConfigDb = json.loads(self.running_file.read_text(encoding="utf-8"))
        return data

    def write_running(self, config: ConfigDb) -> None:
        self._write(self.running_file, config)

    def _write(self, path: Path, config: ConfigDb) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(dumps_sorted(config), encoding="utf-8")
        tmp.replace(path)

    # --- checkpoints -----------------------------------------------------------------------------

    def checkpoint_file(self, name: str) -> Path:
        return self.checkpoints / f"{name}{CHECKPOINT_EXT}"

    def checkpoint_names(self) -> list[str]:
        if not self.checkpoints.is_dir():
            return []
        names = [p.name for p in self.checkpoints.iterdir() if p.name.endswith(CHECKPOINT_EXT)]
        return [n[: -len(CHECKPOINT_EXT)] for n in sorted(names)]

    # --- the file system the shell sees ----------------------------------------------------------

    def host_path(self, path: str, cwd: str = HOME) -> Path:
        """Where a switch path lives in the state directory (never outside it)."""
        absolute = posixpath.normpath(posixpath.join(cwd, path.replace("~", HOME, 1) if path.startswith("~") else path))
        if absolute == SAVED_PATH:
            return self.saved_file
        if absolute == CHECKPOINTS_PATH or absolute.startswith(CHECKPOINTS_PATH + "/"):
            return self.checkpoints / absolute[len(CHECKPOINTS_PATH) :].lstrip("/")
        return self.fs / absolute.lstrip("/")

    def ensure_dirs(self) -> None:
        for directory in (HOME, "/tmp", "/etc/sonic"):
            (self.fs / directory.lstrip("/")).mkdir(parents=True, exist_ok=True)

    def is_dir(self, path: str) -> bool:
        absolute = posixpath.normpath(path)
        return absolute in {"/", "/etc", "/etc/sonic", CHECKPOINTS_PATH} or self.host_path(absolute).is_dir()

    # --- counters (test hook) --------------------------------------------------------------------

    def counters(self) -> dict[str, Any]:
        """``counters.json`` (COUNTERS_DB as the show commands print it): ``{"pfc": {port: {"rx": [8], "tx": [8]}},
        "queue": {port: {"UC3": {"packets": n, "bytes": n, "drop_packets": n, "drop_bytes": n}}},
        "pg_headroom_watermark" / "pg_shared_watermark" / "pg_headroom_persistent_watermark": {port: [8]},
        "buffer_pool_watermark" / "headroom_pool_watermark": {pool: n}, "pfcwd": {"<port>:<queue>": {"status":
        "operational", "storm_detected": n, "storm_restored": n, "tx_ok": n, "tx_dropped": n, ...}}}`` (the PFC
        watchdog's COUNTERS_DB fields), "fec": {port: {"corr": n, "uncorr": n, "symbol_err": n, "pre_ber": x, "post_ber":
        x}} (``show interfaces counters fec-stats``); missing values are zero, ``null`` ones are what COUNTERS_DB lacks
        (N/A). A value may rise with time or be a gauge (``moving``: resolved at the instant of the read)."""
        return read_counters(self.counters_file)
