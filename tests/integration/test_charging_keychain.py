"""Charging with the client secret in a real Secret Service keychain, read at the moment of use."""

from __future__ import annotations

import logging
from pathlib import Path

import keyring.backend
import pytest
from pydantic import SecretStr

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.gateway.errors import InvalidCredentials
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.secrets import KeychainCredentials, SecretName, SecretStore
from tests.integration.charging_support import (
    APPROVED,
    SandboxAccess,
    card_token,
    charge_request,
    charging_stack,
    visa,
)

logger = logging.getLogger(__name__)

PROFILE = "keychain-charging-test"


@pytest.mark.keychain
@pytest.mark.asyncio
async def test_charging_reads_the_client_secret_from_the_keychain_when_needed(
    real_keyring: keyring.backend.KeyringBackend, tmp_path: Path
) -> None:
    store = SecretStore(real_keyring)
    server = SandboxServer(SandboxConfig(api_port=0, sdk_port=0))
    await server.start()
    try:
        access = SandboxAccess.of_server(server)
        store.set(PROFILE, SecretName.CLIENT_SECRET, SecretStr(access.client_secret))
        credentials = KeychainCredentials(store, PROFILE)
        async with charging_stack(
            access, tmp_path / "store.sqlite3", credentials=credentials
        ) as stack:
            first = await stack.service.charge(
                sale_id="sale-1",
                request=charge_request(await card_token(access, APPROVED)),
                tenders=visa("1111"),
            )
            assert first.status == ChargeStatus.PAID

            # A wrong secret in the keychain is noticed at the next token request: the value
            # is never cached beyond the moment it is used.
            store.set(PROFILE, SecretName.CLIENT_SECRET, SecretStr("wrong_secret_value"))
            stack.tokens.forget()
            refused = await stack.service.charge(
                sale_id="sale-2",
                request=charge_request(await card_token(access, APPROVED)),
                tenders=visa("1111"),
            )
            assert refused.attempt == AttemptState.REJECTED
            assert isinstance(refused.error, InvalidCredentials)
            assert "wrong_secret_value" not in refused.message.english()
            assert "wrong_secret_value" not in refused.message.args_json()
            assert refused.merchant_charge_id not in server.state.charges

            store.set(PROFILE, SecretName.CLIENT_SECRET, SecretStr(access.client_secret))
            again = await stack.service.charge(
                sale_id="sale-2",
                request=charge_request(await card_token(access, APPROVED)),
                tenders=visa("1111"),
            )
            assert again.status == ChargeStatus.PAID
            assert server.state.tokens_issued == 2
    finally:
        store.delete(PROFILE, SecretName.CLIENT_SECRET)
        await server.stop()
    assert store.get(PROFILE, SecretName.CLIENT_SECRET) is None
