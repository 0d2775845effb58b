"""NOS emulators: strict, stateful stand-ins for a switch's CLI, one module per platform.

A platform module ``xoff.lab.emulators.<platform>`` exposes ``Emulator``, a subclass of
:class:`xoff.lab.emulators.base.EmulatorBase`; the lab's SSH server starts one per session.
"""
