"""The built-in sandbox's credentials: public test values, apart from the sandbox's state.

The terminal reads them from the sandbox's announcement before its window exists; this module
keeps that read from loading the sandbox's whole state model (`sandbox/state.py` re-exports it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checkout_desktop.domain.documents import validate_cnpj

# Public test values: the built-in sandbox's credentials are documented, never secrets.
DEFAULT_CLIENT_ID = "sandbox-terminal"
DEFAULT_CLIENT_SECRET = "sandbox_client_secret_0001"
DEFAULT_MERCHANT_DOCUMENT = "12345678000195"
DEFAULT_TRANSPARENT_TOKEN = "tk_sandboxTransparentToken0001"
DEFAULT_WEBHOOK_TOKEN = "sandbox_webhook_token_0001"
DEFAULT_MERCHANT_TOKEN = "sandbox_merchant_token_0001"


@dataclass(frozen=True)
class SandboxCredentials:
    """Everything a client needs to talk to the sandbox (public test values)."""

    client_id: str = DEFAULT_CLIENT_ID
    client_secret: str = DEFAULT_CLIENT_SECRET
    merchant_document: str = DEFAULT_MERCHANT_DOCUMENT
    transparent_token: str = DEFAULT_TRANSPARENT_TOKEN
    webhook_token: str = DEFAULT_WEBHOOK_TOKEN
    merchant_token: str = DEFAULT_MERCHANT_TOKEN
    """The panel's legacy merchant token; the SDK sends bcrypt(CNPJ + merchantToken)."""

    def __post_init__(self) -> None:
        validate_cnpj(self.merchant_document)
        if not self.transparent_token.startswith("tk_"):
            raise ValueError("the transparent token starts with 'tk_'")
        for name in ("client_id", "client_secret", "webhook_token", "merchant_token"):
            if not getattr(self, name):
                raise ValueError(f"{name} is empty")

    def as_json(self) -> dict[str, str]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "merchant_document": self.merchant_document,
            "transparent_token": self.transparent_token,
            "webhook_token": self.webhook_token,
            "merchant_token": self.merchant_token,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SandboxCredentials:
        return cls(
            client_id=str(data["client_id"]),
            client_secret=str(data["client_secret"]),
            merchant_document=str(data["merchant_document"]),
            transparent_token=str(data["transparent_token"]),
            webhook_token=str(data["webhook_token"]),
            merchant_token=str(data.get("merchant_token", DEFAULT_MERCHANT_TOKEN)),
        )
