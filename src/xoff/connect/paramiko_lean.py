"""paramiko, imported without ``invoke`` when this module is the first to import it (``connect.channel`` is, on the
collect path: ``from xoff.connect.paramiko_lean import paramiko``).

``paramiko.config`` imports invoke, and through it ``unittest.mock`` and ``asyncio`` (~40 ms, a tenth of the
imports of ``xoff validate --lab``, all before the first connection), only to run an ssh_config's ``Match exec``.
xoff never has paramiko read an ssh_config (``options.connect_handler_args``: ``ssh_config_file`` None), and
paramiko is built to do without invoke (``Match exec`` then raises the ImportError). Only paramiko's own import
sees invoke missing: ``import invoke`` later in the same process imports it as usual.
"""

from __future__ import annotations

import sys

if "paramiko" not in sys.modules and "invoke" not in sys.modules:
    sys.modules["invoke"] = None  # type: ignore[assignment]  # paramiko.config's `import invoke` raises ImportError
    try:
        import paramiko  # type: ignore[import-untyped]
    finally:
        del sys.modules["invoke"]

import paramiko

__all__ = ["paramiko"]
