"""What ``rollback clean-config`` (EOS's factory default configuration) holds, as EOS prints it.

A fresh EOS switch prints these lines before anything is configured (public ``show running-config``
captures of new cEOS and physical switches, 4.26 to 4.32: ``no aaa root``, the ``admin`` user with no
password, ``transceiver qsfp default-mode 4x10G``, ``service routing protocols model``, ``spanning-tree
mode mstp``, and from 4.30 ``system l1`` with its two ``unsupported ... action error`` lines; sources in
``tests/lab_offline/emulators/eos/README.md``). Every interface the hardware has is listed too, and
``no ip routing``: the model (``model.RunningConfig``) adds those.
"""

from __future__ import annotations

CLEAN_CONFIG = """\
no aaa root
username admin privilege 15 role network-admin nopassword
transceiver qsfp default-mode 4x10G
service routing protocols model multi-agent
spanning-tree mode mstp
system l1
   unsupported speed action error
   unsupported error-correction action error
"""
