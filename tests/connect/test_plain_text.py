"""connect.plain_text: netmiko's ANSI strip, skipped only where it could not change anything."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from netmiko import BaseConnection

from xoff.connect import plain_text

# codes netmiko's strip knows (its docstring's list) and text that looks like them without ESC
SAMPLES = [
    "spine2#show version\r\n\x1b[K\x1b[24;1H\x1b[?25hArista cEOSLab\n",
    "\x1bEline\x1b[2Lnext",
    "leaf1 [1;24r] [K] 24;27H ?25h\nadmin@sonic:~$ ",
    "",
]


def _conn() -> BaseConnection:
    conn = BaseConnection.__new__(BaseConnection)  # no session: the strip reads only RETURN
    conn.RETURN = "\n"
    return conn


@given(st.text(alphabet=st.sampled_from(list("\x1b[];?0123456789HKJEmLDCABrhlnc \r\nsw#$")), max_size=60))
def test_the_fast_path_gives_what_netmikos_strip_gives(text: str) -> None:
    conn = _conn()
    assert plain_text._strip(conn, text) == plain_text._netmiko_strip(conn, text)


def test_samples_and_text_without_esc_comes_back_as_it_is() -> None:
    conn = _conn()
    for text in SAMPLES:
        assert plain_text._strip(conn, text) == plain_text._netmiko_strip(conn, text)
    plain = SAMPLES[2]
    assert plain_text._strip(conn, plain) is plain
    assert plain_text._strip(conn, SAMPLES[0]) == "spine2#show version\r\nArista cEOSLab\n"


def test_installed_for_every_netmiko_session() -> None:
    import xoff.connect.session  # noqa: F401 - installs it

    assert BaseConnection.strip_ansi_escape_codes is plain_text._strip
