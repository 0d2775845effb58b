"""Helpers shared by test directories, imported as ``tests.support.<module>``."""
