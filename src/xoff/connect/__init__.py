"""Connections to devices, built from intent (or a lab): targets, credentials, host keys.

Shared by push and collect, and the only place that knows how to reach a device. Secrets come from
environment variables or a 0600 secrets file, never from the intent, and never appear in output:
``mask`` blanks every secret value out of any text before it is shown, logged or saved.
"""

from xoff.connect.credentials import Credentials, CredentialSet, load_credentials, mask
from xoff.connect.targets import Target, build_targets

__all__ = ["CredentialSet", "Credentials", "Target", "build_targets", "load_credentials", "mask"]
