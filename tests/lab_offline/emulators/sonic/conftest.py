"""The SONiC emulator fixtures (lab-mini on disk, sessions on a state directory), shared with the other SONiC
emulator directory through tests/support/sonic_fixtures.py."""

from tests.support.sonic_fixtures import fabric_file, rendered, session, state_dir

__all__ = ["fabric_file", "rendered", "session", "state_dir"]
