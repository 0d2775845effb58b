"""Reports: how results are shown to people (text, rich tables) and to machines (JSON)."""
