"""NVIDIA Cumulus Linux NVUE emulator: a bash-like login shell with ``nv set``/``unset`` into a pending
revision checked against NVUE's documented object model (``objmodel``; the emulator imports nothing of
xoff's platforms, renderer or push strategy), atomic ``nv config apply`` with revisions, history and rollback (``nv config apply <rev>``), ``nv config
diff|show|save|detach``, and ``nv show ... -o json`` (see ``emulator``).

Formats confirmed against NVIDIA's Cumulus Linux 5.x docs (CumulusNetworks/docs, NVUE-CLI.md): the
prompt ``cumulus@<host>:mgmt:~$``, ``applied [rev_id: N]``, ``saved [rev_id: applied]``, ``nv config
diff`` as ``- unset:``/``- set:`` YAML, ``nv config show`` as ``- header:``/``- set:``, the revision names
``applied``/``startup``/``empty``, the interface JSON keys (``type``, ``link.mtu``, ``link.admin-status``,
``link.oper-status``, ``ip.address``). Not published, so chosen and kept in one place each: the wording
of ``Error:`` lines for a refused ``nv set`` (``schema``), ``Invalid config [rev_id: N]`` with its
problem lines (``nv``), and the column layout of ``nv config revision``/``history``.
"""

from xoff.lab.emulators.cumulus.emulator import Emulator

__all__ = ["Emulator"]
