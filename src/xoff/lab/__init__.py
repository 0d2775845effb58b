"""The embedded lab: simulated fabrics and hosts built from FabricState."""
