"""All vendor knowledge, one package per NOS or host type.

Each package exports one frozen ``PLATFORM`` record (``record.py``: identity, transport, capabilities,
renderers, apply strategy, collector, containerlab kind, Ansible variables, lab emulator), and
``registry.py`` lists them: a new platform is one package plus one line there (or one entry point).
Read them with ``from xoff.platforms.registry import get_platform, platforms``.
"""
