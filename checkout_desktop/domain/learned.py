"""The rules a profile learns from its service's refusals, and where a shop's store keeps them.

Each is set when the service refuses a charge or a cancel for it, and the owner may let one go
(Settings → General) so the terminal tries again: the customer's e-mail required, a CNPJ
refused as the customer's document, no cancel of an unpaid QR.
"""

from __future__ import annotations

from typing import Literal, get_args

LearnedFlag = Literal["customer_email_required", "customer_cnpj_refused", "qr_cancel_refused"]
LEARNED_FLAGS: tuple[LearnedFlag, ...] = get_args(LearnedFlag)
LEARNED_PREFIX = "learned/"
"""A shop's store keeps them as `learned/<environment>/<flag>` (`charges/shop.py`)."""

__all__ = ["LEARNED_FLAGS", "LEARNED_PREFIX", "LearnedFlag"]
