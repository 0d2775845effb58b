"""lldpd (SONiC's docker-lldp, Cumulus, Linux hosts): its JSON output read into LLDP neighbours."""
