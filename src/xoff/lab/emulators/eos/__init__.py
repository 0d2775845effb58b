"""Arista EOS emulator: the CLI that netmiko's ``arista_eos`` driver and Ansible's ``arista.eos``
collection drive, over a grammar from EOS's documented CLI (``commands.py``, ``system_cmds.py``: what a
GPU fabric's switch carries and the common statements around it, abbreviations and refusals as EOS has
them), with configuration sessions, commit timers and ``configure replace``; state under the device's
state dir (``store.py``), changes applied to the lab's namespace and FRR (``apply.py``). A switch boots
as a new EOS switch ships (EOS's clean-config, ``defaults.py``), with only its hostname, management
address and port names from the lab (``factory.py``); it imports nothing of xoff's renderer, intent,
parsers or push code. PFC, queue and PFC
watchdog counters (``show_counters.py``) are zero, as the lab has no data plane, unless the state dir's
``counters.json`` test hook (the lab's fault seeds) says otherwise.

The session is split by concern: ``emulator.py`` (the session contract, a line to its command), ``cli.py``
(the level, mode and configuration session one SSH session shares with its handlers; commit timers),
``exec_cmds.py``, ``config_mode.py``, ``show_dispatch.py``, ``pipes.py``.
"""

from xoff.lab.emulators.eos.emulator import Emulator

__all__ = ["Emulator"]
