"""Where the EOS push's read of ``show running-config`` ends (``SHOW_CONFIG_END``): after the config's closing
``end`` line (or a ``% `` refusal) and the prompt line that follows, whatever that prompt looks like; never inside
the configuration, and never at an ``end`` that is not a line of its own."""

from __future__ import annotations

import re

import pytest

from xoff.platforms.eos.apply import SHOW_CONFIG_END

ENDS = [
    "interface Ethernet1/1\n   mtu 9214\n!\nend\nspine2#",
    "!\nend\r\nspine2(config-s-xoff-1)# ",
    "!\nend\nleaf-7.pod2 [PROD] #",  # a site's own prompt format (EOS ``prompt``)
    "% Invalid input (privileged mode required)\nspine2>",
]
NOT_YET = [
    "interface Ethernet1/1\n   description to-end\nspine2#",  # end inside a line
    "router bgp 65100\n   neighbor 198.18.0.1 description end\n",
    "!\nend\n",  # the prompt has not come yet
    "!\nend\nspine2#show running-config\n! Command",  # more follows the prompt: an echo, not the end
]


@pytest.mark.parametrize("text", ENDS)
def test_the_read_ends_after_end_and_the_prompt(text: str) -> None:
    assert re.search(SHOW_CONFIG_END, text)


@pytest.mark.parametrize("text", NOT_YET)
def test_the_read_goes_on_inside_the_configuration(text: str) -> None:
    assert not re.search(SHOW_CONFIG_END, text)
