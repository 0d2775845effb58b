"""SONiC: CONFIG_DB (config_db.json) rendering, its YANG validation, and its parser.

FRR's frr.conf for SONiC's BGP comes from ``xoff.platforms.frr`` (see xoff.render.registry).
"""
