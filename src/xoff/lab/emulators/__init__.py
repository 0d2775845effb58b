"""NOS emulators: strict, stateful stand-ins for a switch's CLI, one module per platform.

A platform's record names its emulator class (``Platform.emulator``, e.g.
``"xoff.lab.emulators.eos:Emulator"``: a string, so the core never imports the lab), a subclass of
:class:`xoff.lab.emulators.base.EmulatorBase`; the lab's SSH server resolves it from the platform
registry and starts one per session.
"""
