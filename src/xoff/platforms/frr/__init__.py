"""FRR: the BGP underlay's frr.conf, for every switch whose BGP runs in FRR (SONiC; the lab's FRR
standing in for EOS and Cumulus switches). ``render`` prints it, ``check`` proves it with the real FRR."""

from xoff.platforms.record import Ref, Renderer

RENDERER = Renderer("frr", Ref("xoff.platforms.frr.render:render"))  # SONiC's BGP runs in FRR
