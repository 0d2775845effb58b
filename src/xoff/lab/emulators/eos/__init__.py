"""Arista EOS emulator: the CLI that netmiko's ``arista_eos`` driver and Ansible's ``arista.eos``
collection drive, over a strict grammar of what xoff renders (``commands.py``), with configuration
sessions, commit timers and ``configure replace``; state under the device's state dir (``store.py``),
changes applied to the lab's namespace and FRR (``apply.py``). A switch boots provisioned for the
underlay, built from the lab's FabricState by the EOS renderer (``factory.py``). PFC, queue and PFC
watchdog counters (``show_counters.py``) are zero, as the lab has no data plane, unless the state dir's
``counters.json`` test hook (the lab's fault seeds) says otherwise.

The session is split by concern: ``emulator.py`` (the session contract, a line to its command), ``cli.py``
(the level, mode and configuration session one SSH session shares with its handlers; commit timers),
``exec_cmds.py``, ``config_mode.py``, ``show_dispatch.py``, ``pipes.py``.
"""

from xoff.lab.emulators.eos.emulator import Emulator

__all__ = ["Emulator"]
