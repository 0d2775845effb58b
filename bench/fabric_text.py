"""The QoS policy the lab benchmarks' intents share, as text for their fabric templates.

Brace-escaped (``{{`` ``}}``): each benchmark fills its template with ``str.format``. The policy is the examples'
(DSCP 26 lossless on priority 3, CNP on 6, static headroom from the cable lengths); ``WATCHDOG`` adds the PFC
watchdog the push benchmarks configure.
"""

WATCHDOG = "    pfc_watchdog: {{poll_interval_ms: 200, detection_ms: 200, restoration_ms: 400, action: drop}}\n"
_BUFFERS = "    buffers: {{model: static}}\n"

QOS_POLICIES = """\
qos_policies:
  rdma:
    trust: dscp
    classes:
      roce: {{dscp: [26], priority: 3, lossless: true, scheduler: {{type: dwrr, weight: 50}},
             ecn: {{min_threshold: 150000, max_threshold: 1500000, probability: 100}}}}
      cnp: {{dscp: [48], priority: 6, scheduler: {{type: strict}}}}
      bulk: {{priority: 0, scheduler: {{type: dwrr, weight: 50}}}}
    default_class: bulk
    cnp_class: cnp
    buffers: {{model: static}}
    cable_lengths: {{host_leaf: 5, leaf_spine: 40, spine_super_spine: 300}}
"""


def qos_policies(watchdog: bool = False) -> str:
    """The ``qos_policies:`` block, with the PFC watchdog line when asked."""
    return QOS_POLICIES.replace(_BUFFERS, WATCHDOG + _BUFFERS) if watchdog else QOS_POLICIES
