"""Service variants: each open question about the real service, played one way or the other.

The public evidence leaves some of the service's behaviour unknown (which spelling of the card
token field it reads, how it answers a query for a charge it does not hold, which customer data
it requires, ...). The sandbox plays each possibility as a named variant, so the terminal can be
tested against all of them; the defaults follow the evidence (`shared/spec/service-evidence.md`).

Names and values, as `checkout-desktop sandbox --variant NAME=VALUE` and the admin endpoint
`PATCH /_sandbox/variants` take them:

- ``token-field``: ``temporatyCardToken`` (default: the spec's request shape),
  ``temporaryCardToken`` or ``both``. A charge whose card token is under the other spelling
  gets a 400 naming the missing card token.
- ``not-found``: ``400`` (default: the find-charge page documents no 404) or ``404``; either way
  in the documented error body.
- ``require``: ``phone,device`` (default), ``none``, or any of ``phone``, ``device`` and
  ``email`` joined by commas: which of ``customer.phone``, ``deviceInformation`` and
  ``customer.email`` a charge must carry (a 400 names the missing one). The docs list the
  e-mail without saying whether it is required; the terminal leaves it out of a sale without one.
- ``customer-document``: ``any`` (default) or ``no-cnpj`` (the documented regex
  ``^\\d{9}$|^\\d{11}$|^[A-Z0-9]{9}$``, which refuses a 14-digit CNPJ).
- ``timestamps``: ``offset`` (default, as the examples: replies and the envelope layout with
  ``-03:00``; the flat layout and the 3DS notification without offset, in Brasília time) or
  ``naive-brt`` (every timestamp without offset, in Brasília time).
- ``envelope-id``: ``notification`` (default: the envelope's top-level ``id`` names the
  notification) or ``charge`` (it is the charge's id).
- ``sdk-credential``: ``both`` (default), ``transparent`` (only the ``tk_…`` transparent token)
  or ``merchant`` (only the legacy form the published SDK sends for a merchant token,
  ``bcrypt(CNPJ + merchantToken)``).
- ``partial-refund``: ``PARTIAL`` (default: a partly refunded charge says so) or ``PAID``.
- ``query-content-type``: ``required`` (default: a query without ``Content-Type:
  application/json`` gets 415, as the docs list) or ``optional``.
- ``three-ds-card``: ``token`` (default: 3DS setup takes the SDK's one-time token, as its page
  says) or ``card-data`` (setup refuses a token and asks for the card's data, as the public
  plugin sends it; the terminal never has card data, so 3DS is unavailable to it).
- ``three-ds-reply``: ``plain`` (default: the 3DS authorization answers with the charge) or
  ``wrapped`` (``{"charge": {…}}``, which the public plugin also reads).
- ``three-ds-notification``: ``sent`` (default: a ``THREE_DS_CHALLENGE`` notification per 3DS
  result) or ``never`` (the result is only found by asking the status endpoint).
- ``qr-unpaid``: ``PENDING`` (default: a public fixture's transaction status of a new QR) or
  ``PRE_AUTHORIZED``; the charge of an unpaid QR is PRE_AUTHORIZED either way.
- ``wallet-paid``: ``AUTHORIZED`` (default: the documentation's example, with the transaction
  ``CAPTURED``) or ``PAID`` (charge and transaction PAID, as a paid PIX).
- ``qr-expired``: ``expired-canceled`` (default: transaction EXPIRED, charge CANCELED),
  ``expired-stays`` (transaction EXPIRED, the charge stays PRE_AUTHORIZED) or ``canceled``
  (transaction and charge CANCELED).
- ``qr-cancel``: ``refund`` (default: the refund endpoint cancels an unpaid QR in full) or
  ``refused`` (a 400: an unpaid QR only expires).
- ``qr-image``: ``as-sources`` (default: PIX ``qrCodeBase64`` raw base64, the wallet's a
  ``data:`` URI, as public code reads them), ``raw`` or ``data-uri``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from checkout_desktop.texts import QT_TRANSLATE_NOOP, WordedError, Words

logger = logging.getLogger(__name__)


class VariantError(WordedError, ValueError):
    """A variant name or value the sandbox does not play; the message lists the choices."""


REQUIRE_CHOICES = ("phone", "device", "email")

CHOICES: dict[str, tuple[str, ...]] = {
    "token-field": ("temporatyCardToken", "temporaryCardToken", "both"),
    "not-found": ("400", "404"),
    "require": ("phone,device", "phone", "device", "phone,device,email", "none"),
    "customer-document": ("any", "no-cnpj"),
    "timestamps": ("offset", "naive-brt"),
    "envelope-id": ("notification", "charge"),
    "sdk-credential": ("both", "transparent", "merchant"),
    "partial-refund": ("PARTIAL", "PAID"),
    "query-content-type": ("required", "optional"),
    "three-ds-card": ("token", "card-data"),
    "three-ds-reply": ("plain", "wrapped"),
    "three-ds-notification": ("sent", "never"),
    "qr-unpaid": ("PENDING", "PRE_AUTHORIZED"),
    "wallet-paid": ("AUTHORIZED", "PAID"),
    "qr-expired": ("expired-canceled", "expired-stays", "canceled"),
    "qr-cancel": ("refund", "refused"),
    "qr-image": ("as-sources", "raw", "data-uri"),
}
"""Every variant and its values; the first value is the default."""

VARIANT_NAMES = tuple(CHOICES)


def _attr(name: str) -> str:
    return name.replace("-", "_")


def _normalise(name: str, raw: str) -> str:
    value = raw.strip()
    if name == "require":
        parts = {p.strip() for p in value.split(",") if p.strip()}
        if parts == {"none"} or value == "":
            return "none"
        unknown = sorted(parts - set(REQUIRE_CHOICES))
        if unknown:
            raise VariantError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "SandboxCommand",
                        "require={value}: unknown {unknown}; use none or any of phone, device, "
                        "email joined by commas",
                    ),
                    value=repr(value),
                    unknown=", ".join(unknown),
                )
            )
        return ",".join(p for p in REQUIRE_CHOICES if p in parts)
    for choice in CHOICES[name]:
        if choice.lower() == value.lower():
            return choice
    raise VariantError(
        Words(
            QT_TRANSLATE_NOOP(
                "SandboxCommand", "{name}={value} is not a value it takes; use {choices}"
            ),
            name=name,
            value=repr(value),
            choices="|".join(CHOICES[name]),
        )
    )


@dataclass
class ServiceVariants:
    """The variant in force for each open question; changeable while the sandbox runs."""

    token_field: str = "temporatyCardToken"
    not_found: str = "400"
    require: str = "phone,device"
    customer_document: str = "any"
    timestamps: str = "offset"
    envelope_id: str = "notification"
    sdk_credential: str = "both"
    partial_refund: str = "PARTIAL"
    query_content_type: str = "required"
    three_ds_card: str = "token"
    three_ds_reply: str = "plain"
    three_ds_notification: str = "sent"
    qr_unpaid: str = "PENDING"
    wallet_paid: str = "AUTHORIZED"
    qr_expired: str = "expired-canceled"
    qr_cancel: str = "refund"
    qr_image: str = "as-sources"

    def __post_init__(self) -> None:
        for name in VARIANT_NAMES:
            setattr(self, _attr(name), _normalise(name, str(getattr(self, _attr(name)))))

    def as_dict(self) -> dict[str, str]:
        """Name → value, with the names as the command line writes them."""
        return {name: str(getattr(self, _attr(name))) for name in VARIANT_NAMES}

    def update(self, changes: dict[str, Any]) -> None:
        """Set several variants at once; an unknown name or value refuses the whole change."""
        unknown = sorted(set(changes) - set(VARIANT_NAMES))
        if unknown:
            raise VariantError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "SandboxCommand", "unknown variant(s) {unknown}; known: {known}"
                    ),
                    unknown=", ".join(unknown),
                    known=", ".join(VARIANT_NAMES),
                )
            )
        checked = {}
        for name, value in changes.items():
            if not isinstance(value, str):
                raise VariantError(
                    Words(
                        QT_TRANSLATE_NOOP("SandboxCommand", "{name} takes a text value: {choices}"),
                        name=name,
                        choices="|".join(CHOICES[name]),
                    )
                )
            checked[name] = _normalise(name, value)
        for name, value in checked.items():
            setattr(self, _attr(name), value)

    # -- what the handlers ask -------------------------------------------------------------

    def accepts_token_field(self, spelling: str) -> bool:
        return self.token_field in ("both", spelling)

    @property
    def requires_phone(self) -> bool:
        return "phone" in self.require.split(",")

    @property
    def requires_device(self) -> bool:
        return "device" in self.require.split(",")

    @property
    def requires_email(self) -> bool:
        return "email" in self.require.split(",")

    @property
    def not_found_status(self) -> int:
        return int(self.not_found)


def parse_cli_variants(items: list[str]) -> ServiceVariants:
    """ServiceVariants from `NAME=VALUE` items (repeatable; a later one wins)."""
    variants = ServiceVariants()
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep:
            if name in CHOICES:
                raise VariantError(
                    Words(
                        QT_TRANSLATE_NOOP(
                            "SandboxCommand", "variant {name} needs a value, as {example}"
                        ),
                        name=repr(name),
                        example=f"{name}={CHOICES[name][0]}",
                    )
                )
            raise VariantError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "SandboxCommand", "write a variant as NAME=VALUE; known: {known}"
                    ),
                    known=", ".join(VARIANT_NAMES),
                )
            )
        variants.update({name: value})
    return variants
