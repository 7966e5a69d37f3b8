"""checkout-desktop: a card-payment terminal for a small shop (Checkout Transparente)."""

from importlib import metadata

try:
    __version__ = metadata.version("checkout-desktop")
except metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
