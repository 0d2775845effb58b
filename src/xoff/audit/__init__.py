"""Audit over time: what changed in the running state between two snapshots (``xoff diff``, ``diff``), and which
findings are new since an accepted baseline (``xoff validate --baseline``, ``baseline``)."""
