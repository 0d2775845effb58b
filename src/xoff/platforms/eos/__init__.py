"""Arista EOS: the running-config text from FabricState (reference/lossless.md §3.1).

``structured.py`` builds a plain structured config per device, keyed and nested like AVD's
``eos_cli_config_gen`` input so the two can be compared line by line; ``templates/eos/*.j2``
only print it; ``render.py`` joins them.
"""
