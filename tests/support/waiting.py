"""How long a test waits for a condition: ``SETTLE_S``, generous on purpose.

Tests wait on conditions, not on time: each wait polls its condition and ends as soon as it holds, so
an idle machine never waits this long. The bound only says when to give up, and a busy controller
(load 6-14 on 2 cores, as issue 14 measured) stretches "a few seconds" (BGP or LLDP settling, a
commit timer firing, a daemon starting) to a minute: a short bound there fails a test that is right.
"""

SETTLE_S = 120.0
