"""`python -m checkout_desktop.sandbox`: the same as `checkout-desktop sandbox`."""

from __future__ import annotations

import logging
import os

# No pydantic plugins: their search reads every installed package's metadata (as cli.main).
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from checkout_desktop.sandbox.cli import main

logger = logging.getLogger(__name__)

if __name__ == "__main__":
    raise SystemExit(main())
