"""xoff: intent-driven configuration and validation for GPU cluster networks."""

__version__ = "0.1.0"
