"""Entry script of the frozen bundle: the same `checkout-desktop` command as the source tree."""

import logging

from checkout_desktop.cli import main

logger = logging.getLogger(__name__)

if __name__ == "__main__":
    raise SystemExit(main())
