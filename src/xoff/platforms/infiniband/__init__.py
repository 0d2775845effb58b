"""InfiniBand running state: infiniband-diags commands, their TextFSM parsers (``textfsm/``), the
observation model (``model.py``) and the collect step for a fabric's subnet manager host."""
