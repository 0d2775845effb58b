"""docs/watch.md, generated from the signals, the thresholds and the metric catalogue (a test fails when stale):
``python -m xoff.watch.docs > docs/watch.md``."""

from __future__ import annotations

from dataclasses import fields

from xoff.watch.metrics import METRICS
from xoff.watch.signals import SIGNALS
from xoff.watch.thresholds import SOURCES, Thresholds

HEADER = """\
# xoff watch

Generated from `src/xoff/watch/` (signals, thresholds, metric catalogue) by `python -m xoff.watch.docs >
docs/watch.md`; a test fails when this page is stale.

`xoff watch INTENT` reads the fabric's counters every `--interval` seconds, keeps the last `--window` seconds of
samples per series (bounded memory), turns counters into rates (a total that went down is a reset, never a
negative rate; a value not observed is a gap, never 0) and judges the signals below. Findings are reported the way
`xoff validate` reports them: device, port, priority/queue, expected and actual, and a hint.

```
xoff watch inventory/lab-mini --lab mini --once --window 30 --interval 5 --format html -o watch.html
xoff watch inventory/lab-mini --live --interval 10 --record samples.jsonl      # until Ctrl-C
xoff watch inventory/lab-mini --replay samples.jsonl --format junit -o watch.xml
```

- Where the counters come from: exactly one of `--replay FILE` (samples recorded with `--record`, JSON Lines,
  one sample per line: nothing contacted), `--lab NAME`, `--live` (the intent's management addresses); with none,
  exit 2 and nothing is contacted. `--source ssh` (default) reads one SSH batch per device per round.
- `--once` reads one window (at least two rounds), reports and exits: 0 no finding, 1 findings (any signal, or a
  signal that could not run), 2 bad input, 4 no device could be read. Without `--once` the rounds go on (one line
  per round on stderr) until Ctrl-C, then the report of the last window; `--once` cut short by Ctrl-C exits 130.
- Continuous mode (`--lab`/`--live` without `--once`): after every round, once the window holds two rounds, the
  signals judge the window (the signals only, no report) and a finding that is new (signal x device x port and
  priority/queue, not firing at the previous round) prints one line on stdout when it starts and one when it
  clears, while `--listen` keeps serving. `--format text`:
  `14:05:10 round 3 START watch.pause_storm leaf1: Ethernet0 priority 3 rx pause - PFC pause storm: ... - Expected:
  <= 1000 frames/s Actual: 2500 frames/s` and `14:05:50 round 8 CLEAR watch.pause_storm leaf1: Ethernet0 priority
  3 rx pause`. `--format json`: JSON Lines, one object per start or clear (`event` start|clear, `signal`,
  `severity`, `device`, `port`, `priority`, `object`, `problem`, `expected`, `actual`, `round`, `at` in Unix
  seconds), and at Ctrl-C the report as one more line. Ctrl-C is how this mode ends, so its exit status is the
  run's: 1 if any finding started during the run (even if none is firing at the end), else 0 (4: nothing read).
  A `--replay` is judged once, at its end.
- `--limit` chooses devices as `push` does; `--threshold NAME=VALUE` overrides a default below.
- Reports: `text` (a table), `json` (validate's JSON plus a `watch` object: rounds, devices not read, thresholds,
  each finding's series), `junit` (one testcase per signal x device: classname the signal id, name the device),
  `html` (validate's self-contained page, with an inline SVG time series under each finding, its threshold dashed).
- A signal judges the devices that reported what it reads; one with nothing observed is `skipped` with the
  reason, never a success. A device that could not be read is listed with its error.

Every round is also handed to the round hooks (`xoff.api.watch(..., hooks=...)`: the recorder, the Prometheus
exporter); the alert rules carry the same signal ids and thresholds. `--listen HOST:PORT` serves the metrics
below to Prometheus; the alert rules (`deploy/prometheus/xoff-alerts.yml`) and the Grafana dashboard
(`deploy/grafana/xoff.json`) are described in [watch-prometheus.md](watch-prometheus.md). `--source gnmi` reads
the SONiC and Cumulus switches over gNMI (SONiC's telemetry service, NVUE's gNMI streaming) and every other device
over SSH in the same round.
"""


def _signals() -> list[str]:
    lines = ["## Signals", "", "| id | severity | on | rule | hint |", "|---|---|---|---|---|"]
    for s in SIGNALS:
        lines.append(f"| `{s.id}` | {s.severity.value} | {s.on} | {s.rule} | {s.hint} |")
    return lines


def _thresholds() -> list[str]:
    lines = [
        "",
        "## Thresholds",
        "",
        "Where the intent gives the number, the plan's value is used: lossless",
        "priorities, their queues and PGs (`qos`), the planned headroom per PG (`buffers`), the ECN queues and",
        "their WRED probability.",
        "",
        "| name | default | source |",
        "|---|---|---|",
    ]
    defaults = Thresholds()
    for f in fields(Thresholds):
        lines.append(f"| `{f.name}` | {getattr(defaults, f.name):g} | {SOURCES[f.name]} |")
    return lines


def _metrics() -> list[str]:
    lines = [
        "",
        "## Metrics",
        "",
        "Every metric also has the labels `device`, `network` and `role`.",
        "",
        "| name | kind | unit | labels | on | help |",
        "|---|---|---|---|---|---|",
    ]
    for m in METRICS.values():
        lines.append(f"| `{m.name}` | {m.kind} | {m.unit} | {', '.join(m.labels)} | {m.on} | {m.help} |")
    return lines


# What each switch platform reports for the slow drain and the pause share, and why (the vendors' pages)
PLATFORMS = """
## What each switch platform reports: slow drain and pause duration

| platform | slow drain: what fills | PFC pause duration (`xoff_pfc_rx_pause_duration_seconds_total`) |
|---|---|---|
| SONiC | PG shared and headroom watermarks (`show priority-group watermark shared` / `headroom`, bytes) | gNMI only: COUNTERS_DB `SAI_PORT_STAT_PFC_<p>_RX_PAUSE_DURATION_US` (microseconds); `show pfc counters` prints none |
| Arista EOS | the egress queue's length as LANZ last reported it (`show queue-monitor length \\| json`, `queueLength`, `xoff_queue_length_bytes` on the priority's queue): bytes on Sand (Jericho) switches, the unit Arista's own sample states; for other platforms no unit is stated, so nothing is read there and the signal is skipped for want of a watermark. No PG watermark command was found in Arista's documentation or ANTA's vectors | not read: no pause-duration or pause-quanta counter was found in Arista's documentation or ANTA's vectors (`show interfaces priority-flow-control counters detail` has frames only) |
| NVIDIA Cumulus | PG peak buffer use (`nv show interface <swp> qos buffer ingress-priority-group`, 5.4+: `Max Usage` as the shared, `HR/PL Max Usage` as the headroom watermark; NVUE's sizes, the columns' meaning inferred from their names); over gNMI (`--source gnmi`) `input/priority-group[pg-id]/state/shared-buffer/data/max-occupancy`, bytes as NVIDIA's gNMI streaming page states | gNMI only: `switch-priority/state/in-pause-duration`, microseconds as NVIDIA's gNMI streaming page states; NVUE's `counters qos` prints `rx-pause-duration` with no unit stated, so the SSH path does not read it |
| hosts (ConnectX) | not judged (a switch signal) | `rx_prio<p>_pause_duration` of `ethtool -S` (microseconds), `xoff_nic_pfc_rx_pause_duration_seconds_total` |

LANZ reports a queue only while it is over its threshold: a queue with no report is not observed (never 0), and a
report that stays the newest reads the same length every round, so a congestion that ended is flat, never growing.
"""


def watch_markdown() -> str:
    return HEADER + "\n" + "\n".join([*_signals(), *_thresholds(), *_metrics()]) + "\n" + PLATFORMS


if __name__ == "__main__":
    print(watch_markdown(), end="")
