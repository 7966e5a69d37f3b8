"""Unit checks of the sandbox's parts: test cards, BIN rules, faults, certificate, tokens, bodies."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import logging
import re
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from checkout_desktop.domain.documents import luhn_valid, validate_cnpj
from checkout_desktop.domain.enums import CardBrand
from checkout_desktop.domain.timestamps import parse_timestamp
from checkout_desktop.sandbox import certs
from checkout_desktop.sandbox.cards import (
    CARD_LENGTHS,
    TEST_CARDS,
    CardBehaviour,
    behaviour_of,
    brand_for_bin,
    cards_markdown,
)
from checkout_desktop.sandbox.credentials import SandboxCredentials
from checkout_desktop.sandbox.faults import (
    FaultDice,
    FaultSettingError,
    FaultSettings,
    parse_cli_faults,
)
from checkout_desktop.sandbox.render import with_offset, without_offset
from checkout_desktop.sandbox.sdk_backend import mask_document, mask_name
from checkout_desktop.sandbox.state import SandboxClock, SandboxState

logger = logging.getLogger(__name__)

ISSUE_TABLE = {
    "4111111111111111": ("VISA", CardBehaviour.APPROVED),
    "5555555555554444": ("MASTERCARD", CardBehaviour.APPROVED),
    "6362970000457013": ("ELO", CardBehaviour.APPROVED),
    "378282246310005": ("AMEX", CardBehaviour.APPROVED),
    "6062825624254001": ("HIPERCARD", CardBehaviour.APPROVED),
    "4000000000000002": ("VISA", CardBehaviour.DENIED),
    "4000000000003063": ("VISA", CardBehaviour.THREE_DS_FRICTIONLESS),
    "4000000000003220": ("VISA", CardBehaviour.THREE_DS_CHALLENGE),
    "4000008400001629": ("VISA", CardBehaviour.THREE_DS_REJECTED),
    "4000000000001042": ("VISA", CardBehaviour.THREE_DS_UNAVAILABLE),
    "4000000000000119": ("VISA", CardBehaviour.GATEWAY_ERROR),
    "4000000000009995": ("VISA", CardBehaviour.SLOW),
}


def test_the_test_cards_are_exactly_the_issue_table() -> None:
    assert {c.number: (c.brand.value, c.behaviour) for c in TEST_CARDS} == ISSUE_TABLE


@pytest.mark.parametrize("card", TEST_CARDS, ids=lambda c: c.number)
def test_each_test_card_is_a_valid_number_of_its_brand(card: object) -> None:
    from checkout_desktop.sandbox.cards import SandboxCard

    assert isinstance(card, SandboxCard)
    assert luhn_valid(card.number)
    assert brand_for_bin(card.number[:6]) == card.brand
    assert len(card.number) in CARD_LENGTHS[card.brand]
    assert behaviour_of(card.number) == card.behaviour


def test_the_readme_table_matches_the_cards() -> None:
    doc = (Path(__file__).parents[2] / "checkout_desktop/sandbox/TEST_CARDS.md").read_text("utf-8")
    assert cards_markdown() in doc
    assert cards_markdown().count("\n") == len(TEST_CARDS) + 2


@pytest.mark.parametrize(
    ("bin6", "brand"),
    [
        ("411111", CardBrand.VISA),
        ("401178", CardBrand.ELO),
        ("431274", CardBrand.ELO),
        ("506720", CardBrand.ELO),
        ("650500", CardBrand.ELO),
        ("510000", CardBrand.MASTERCARD),
        ("272099", CardBrand.MASTERCARD),
        ("222100", CardBrand.MASTERCARD),
        ("340000", CardBrand.AMEX),
        ("370000", CardBrand.AMEX),
        ("637095", CardBrand.HIPERCARD),
        ("272100", None),
        ("601100", None),
        ("999999", None),
        ("12345", None),
        ("abcdef", None),
    ],
)
def test_brand_by_bin_prefix(bin6: str, brand: CardBrand | None) -> None:
    assert brand_for_bin(bin6) == brand


def test_cards_outside_the_table_are_approved() -> None:
    assert behaviour_of("4012888888881881") == CardBehaviour.APPROVED


def test_cli_fault_parsing() -> None:
    faults = parse_cli_faults(
        [
            "latency=0.25",
            "error-rate=0.1",
            "seed=9",
            "token-expiry-now",
            "webhook-duplicate=true",
            "webhook-delay=1.5",
            "webhook-reorder=on",
            "webhook-reorder-window=0.5",
            "webhook-drop-first=2",
            "reply-drop-field=chargeStatus",
        ]
    )
    assert faults == FaultSettings(
        latency_s=0.25,
        error_rate=0.1,
        seed=9,
        token_expiry_now=True,
        webhook_duplicate=True,
        webhook_delay_s=1.5,
        webhook_reorder=True,
        webhook_reorder_window_s=0.5,
        webhook_drop_first=2,
        reply_drop_field="chargeStatus",
    )
    assert parse_cli_faults(["webhook-duplicate=no"]).webhook_duplicate is False


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["gremlins"], "unknown fault 'gremlins'"),
        (["latency"], "needs a value"),
        (["latency=fast"], "needs a number"),
        (["seed=1.5"], "needs a whole number"),
        (["webhook-duplicate=perhaps"], "not a yes/no value"),
        (["error-rate=-0.1"], "between 0 and 1"),
        (["webhook-drop-first=1000"], "between 0 and 100"),
        (["latency=99999"], "between 0 and 3600"),
        (["reply-drop-field"], "needs a value"),
        (["reply-drop-field=a b"], "reply_drop_field must be empty or a field name"),
    ],
)
def test_cli_fault_errors(items: list[str], message: str) -> None:
    with pytest.raises(FaultSettingError, match=re.escape(message)):
        parse_cli_faults(items)


def test_fault_update_is_all_or_nothing() -> None:
    faults = FaultSettings()
    with pytest.raises(FaultSettingError):
        faults.update(latency_s=1.0, error_rate=5.0)
    assert faults == FaultSettings()
    with pytest.raises(FaultSettingError, match="unknown fault setting"):
        faults.update(nonsense=1)
    faults.update(latency_s=1.0)
    assert faults.latency_s == 1.0


def test_fault_dice_follow_the_seed_and_rate() -> None:
    def draws(seed: int, rate: float) -> list[bool]:
        dice = FaultDice(FaultSettings(error_rate=rate, seed=seed))
        return [dice.fail_this_request() for _ in range(200)]

    assert draws(1, 0.3) == draws(1, 0.3)
    assert draws(1, 0.3) != draws(2, 0.3)
    assert not any(draws(1, 0.0))
    assert all(draws(1, 1.0))
    assert 30 < sum(draws(1, 0.3)) < 90


def test_generated_certificate() -> None:
    cert = certs.generate("checkout-qa.picpay.com")
    parsed = cert.certificate
    names = parsed.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["checkout-qa.picpay.com"]
    public = parsed.public_key()
    assert isinstance(public, ec.EllipticCurvePublicKey)
    assert public.curve.name == "secp256r1"
    life = parsed.not_valid_after_utc - parsed.not_valid_before_utc
    assert life <= dt.timedelta(days=3)
    spki = public.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert cert.spki_sha256_b64 == base64.b64encode(hashlib.sha256(spki).digest()).decode()
    assert cert.server_context() is not None
    assert certs.generate("checkout-qa.picpay.com").spki_sha256_b64 != cert.spki_sha256_b64


def test_certificate_folder_is_reused_and_replaced_for_another_host(tmp_path: Path) -> None:
    first = certs.load_or_create(tmp_path, "checkout-qa.picpay.com")
    again = certs.load_or_create(tmp_path, "checkout-qa.picpay.com")
    assert again.spki_sha256_b64 == first.spki_sha256_b64
    assert (tmp_path / certs.KEY_FILE).stat().st_mode & 0o777 == 0o600
    other = certs.load_or_create(tmp_path, "other.example.com")
    assert other.spki_sha256_b64 != first.spki_sha256_b64
    (tmp_path / certs.CERT_FILE).write_text("garbage", encoding="utf-8")
    repaired = certs.load_or_create(tmp_path, "other.example.com")
    assert repaired.spki_sha256_b64 != other.spki_sha256_b64


def test_access_tokens_match_the_spec_regex_and_expire_by_the_clock() -> None:
    clock = SandboxClock()
    state = SandboxState(SandboxCredentials(), clock)
    pattern = re.compile(r"^([\w=]+)\.([\w=]+)\.([\w\-\+\/=]*)")
    for _ in range(200):
        token = state.issue_access_token("sandbox-terminal", 300).token
        assert pattern.match(token), token
        assert len(token.split(".")) == 3
    assert state.check_access_token(token) is None
    clock.advance(299)
    assert state.check_access_token(token) is None
    clock.advance(1)
    assert state.check_access_token(token) == "the access token has expired"
    assert state.check_access_token("nope") == "the access token is unknown"
    with pytest.raises(ValueError, match="forward"):
        clock.advance(-1)


def test_default_credentials_are_valid_public_values() -> None:
    creds = SandboxCredentials()
    assert validate_cnpj(creds.merchant_document) == creds.merchant_document
    assert creds.transparent_token.startswith("tk_")
    assert SandboxCredentials.from_json(creds.as_json()) == creds
    with pytest.raises(ValueError, match="CNPJ"):
        SandboxCredentials(merchant_document="12345678000100")
    with pytest.raises(ValueError, match="tk_"):
        SandboxCredentials(transparent_token="abc")


def test_masks() -> None:
    assert mask_name("Joao da Silva") == "J*** d* S****"
    assert mask_name("  Ana  ") == "A**"
    assert mask_document("65844359038") == "658********"


def test_timestamp_forms() -> None:
    moment = dt.datetime(2024, 7, 1, 19, 0, 0, 123456, tzinfo=dt.UTC)
    assert with_offset(moment) == "2024-07-01T16:00:00.123-03:00"
    # Without offset, in Brasília time, as the 3DS notification example.
    assert without_offset(moment) == "2024-07-01T16:00:00.123456000"
    assert parse_timestamp(without_offset(moment)) == moment
    assert parse_timestamp(with_offset(moment)) == moment.replace(microsecond=123000)


def test_chromium_flags_bracket_an_ipv6_address() -> None:
    from dataclasses import dataclass

    from checkout_desktop.sandbox.process import chromium_flag_list, chromium_flags

    @dataclass
    class Mapping:
        sdk_host: str = "checkout-qa.picpay.com"
        sdk_address: str = "::1"
        sdk_port: int = 8443
        sdk_spki_sha256_b64: str = "pin="

    assert chromium_flag_list(Mapping())[0] == (
        "--host-resolver-rules=MAP checkout-qa.picpay.com [::1]:8443"
    )
    assert chromium_flags(Mapping(sdk_address="127.0.0.1")) == (
        '--host-resolver-rules="MAP checkout-qa.picpay.com 127.0.0.1:8443" '
        "--ignore-certificate-errors-spki-list=pin="
    )


def test_logs_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from checkout_desktop.sandbox.state import DeliveryRecord

    state = SandboxState(SandboxCredentials(), SandboxClock())
    monkeypatch.setattr(SandboxState, "MAX_LOG_ENTRIES", 10)
    for attempt in range(25):
        state.add_delivery(DeliveryRecord("n", "e", "PAYMENT", None, attempt, "delivered"))
    assert len(state.deliveries) <= 10
    assert state.deliveries[-1].attempt == 24
