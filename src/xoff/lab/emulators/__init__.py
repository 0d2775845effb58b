"""NOS emulators: strict, stateful stand-ins for a switch's CLI, one module per platform.

A platform's record names its emulator class (``Platform.emulator``, e.g. ``".eos:Emulator"``: a
string relative to this package, so the core never imports the lab; a site's emulator is an absolute
"module:Class"), a subclass of
:class:`xoff.lab.emulators.base.EmulatorBase`; the lab's SSH server resolves it from the platform
registry and starts one per session.
"""
