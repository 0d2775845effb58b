"""``xoff watch``: the fabric's counters read over time, kept as rates, judged as signals (issue 18).

``sample.py`` is the contract every part builds on: a counter source (SSH batch per device, gNMI, a file of
samples) yields ``Sample``s of ``Reading``s named by ``metrics.METRICS``; the watcher keeps them in a window, turns
counters into rates, and judges them as findings; the Prometheus exporter serves the same readings.
"""
