"""checkout-desktop: a card-payment terminal for a small shop (Checkout Transparente)."""

# The single source of the version: pyproject.toml reads it from here. A constant, because
# importlib.metadata costs ~20 ms at every start of the terminal and of its sandbox process.
__version__ = "0.1.0"

__all__ = ["__version__"]
