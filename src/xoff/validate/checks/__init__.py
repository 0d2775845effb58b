"""Built-in checks; importing this package registers them."""

from xoff.validate.checks import lossless

__all__ = ["lossless"]
