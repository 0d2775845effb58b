"""Collect: read running state from devices into the same FabricState model as desired, plus what
only a running fabric has (LLDP neighbours, BGP session states, counters, GPU/NIC topology)."""
