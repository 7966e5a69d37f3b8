"""The redaction filter keeps secrets, tokens and card data out of every log line."""

from __future__ import annotations

import logging
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkout_desktop.domain.counters import COUNTER_ID_PATTERN
from checkout_desktop.logsetup import RedactionFilter, redact, register_secret, setup_logging


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        ("Authorization: Bearer abc.def.ghi", "abc.def.ghi", "Authorization: [redacted]"),
        ("header bearer XYZ123", "XYZ123", "bearer"),
        ("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature", "eyJhbGciOiJIUzI1NiJ9", "token"),
        (
            "got card_t/AIChh82EgN440hTW8vQqHcPC82EwBW",
            "AIChh82EgN440hTW8vQqHcPC82EwBW",
            "card_t/AICh",
        ),
        ("sdk tk_YTAyMjgzOWQtNjgzZS00YjA2", "YTAyMjgzOWQtNjgzZS00YjA2", "tk_"),
        ("pan 4111111111111111 end", "4111111111111111", "pan"),
        ("pan 4111 1111 1111 1111 end", "4111 1111 1111 1111", "end"),
        ("pan 5555-5555-5555-4444", "5555-5555-5555-4444", "pan"),
        ('{"cvv": "123", "x": 1}', '"123"', '"x": 1'),
        ("client_secret=abcdef", "abcdef", "client_secret"),
        ('{"cardNumber": "4000000000000002"}', "4000000000000002", "cardNumber"),
        ("expirationMonth=02 expirationYear=2030", "2030", "expirationMonth"),
    ],
)
def test_redact(text: str, gone: str, kept: str) -> None:
    out = redact(text)
    assert gone not in out
    assert kept in out


def test_non_card_numbers_stay() -> None:
    assert redact("charge 1234567890123 of order 42") == "charge 1234567890123 of order 42"
    assert redact("amount 1500 cents") == "amount 1500 cents"


def test_registered_secrets_are_removed_anywhere() -> None:
    register_secret("plainWebhookTokenValue")
    assert redact("x=plainWebhookTokenValue;") == "x=[secret];"


def test_filter_merges_arguments_before_redacting(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("test.redaction")
    handler = caplog.handler
    handler.addFilter(RedactionFilter())
    try:
        with caplog.at_level(logging.INFO, logger="test.redaction"):
            logger.info("card %s token %s", "4111111111111111", "Bearer abc.def.ghi")
    finally:
        handler.removeFilter(handler.filters[-1])
    assert "4111111111111111" not in caplog.text
    assert "abc.def.ghi" not in caplog.text
    assert "[card number]" in caplog.text


def test_setup_logging_writes_a_redacted_owner_only_file(tmp_path: Path) -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    level = root.level
    try:
        setup_logging(tmp_path / "logs", console=False)
        log = logging.getLogger("test.file")
        try:
            raise ValueError("bad card 4111111111111111 secret client_secret=zzz")
        except ValueError:
            log.exception("failed with Bearer abc.def.ghi")
        for handler in root.handlers:
            handler.flush()
        content = (tmp_path / "logs" / "checkout-desktop.log").read_text()
        assert "failed with Bearer [redacted]" in content
        assert "ValueError" in content
        for leaked in ("4111111111111111", "zzz", "abc.def.ghi"):
            assert leaked not in content
        assert (tmp_path / "logs" / "checkout-desktop.log").stat().st_mode & 0o077 == 0
    finally:
        for handler in list(root.handlers):
            if handler not in before:
                root.removeHandler(handler)
                handler.close()
        root.setLevel(level)


# -- merchant charge ids are never taken for card numbers ------------------------------------------

# Test card numbers of the brands a Brazilian shop takes, 13 to 19 digits.
_TEST_PANS = (
    "4111111111111111",
    "4000000000000002",
    "4222222222222",
    "5555555555554444",
    "5500000000000004",
    "2223003122003222",
    "378282246310005",
    "36227206271667",
    "6011111111111117",
    "3530111333300000",
    "6062825624254001",
    "4514166653413658",
    "6362970000457013",
    "5066991111111118",
    "4111111111111111110",
)


def _groups_of_four(pan: str, separator: str) -> str:
    return separator.join(pan[i : i + 4] for i in range(0, len(pan), 4))


def _merchant_charge_id(counter: str | None, random_part: str, attempt: int) -> str:
    sale = random_part if counter is None else f"{counter}-{random_part}"
    return f"{sale}-{attempt:02d}"


_hex12 = st.text(alphabet="0123456789abcdef", min_size=12, max_size=12)
_counters = st.one_of(
    st.none(),
    st.just("u8n56"),
    st.from_regex(COUNTER_ID_PATTERN, fullmatch=True),
)


def test_the_walkthrough_charge_id_is_kept() -> None:
    line = "QR charge u8n56-99505790117d-01 (PIX) awaiting payment"
    assert redact(line) == line
    assert redact("sale u8n56-99505790117d charged") == "sale u8n56-99505790117d charged"


def test_ids_as_sales_make_them_are_kept() -> None:
    """The ids `Sale` makes, a fixed sample large enough to hold many whose digits pass the
    Luhn check (about one in six hundred did for the prefix u8n56)."""
    rng = random.Random(20240605)
    for i in range(20_000):
        counter = None if i % 10 == 0 else "u8n56" if i % 2 else "k7ab2"
        random_part = "".join(rng.choice("0123456789abcdef") for _ in range(12))
        if i % 7 == 0:
            random_part = "".join(rng.choice("0123456789") for _ in range(12))
        sale_id = random_part if counter is None else f"{counter}-{random_part}"
        mcid = f"{sale_id}-{1 + i % 12:02d}"
        for line in (
            f"QR charge {mcid} (PIX) awaiting payment",
            f"charge {mcid}: authorized",
            f"merchantChargeId={mcid}",
            f"GET /charges/{mcid}/status 200",
            f'{{"merchantChargeId": "{mcid}", "amount": 1500}}',
        ):
            assert redact(line) == line, line
        if counter is not None:
            line = f"sale {sale_id} opened"
            assert redact(line) == line, line


@settings(max_examples=400, deadline=None)
@given(_counters, _hex12, st.integers(min_value=1, max_value=120))
def test_any_charge_id_is_kept(counter: str | None, random_part: str, attempt: int) -> None:
    mcid = _merchant_charge_id(counter, random_part, attempt)
    line = f"charge {mcid} (PIX) awaiting payment; capture {mcid}, 1500 cents"
    assert redact(line) == line


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(_TEST_PANS),
    st.sampled_from(["{}", "{4 }", "{4-}"]),
    st.sampled_from(
        [
            "pan {pan} end",
            "pan:{pan}",
            "card{pan}x",
            "({pan})",
            '{{"n": "{pan}"}}',
            "charge {mcid} card {pan}",
            "charge {mcid}: {pan}",
            "{pan} for {mcid}",
            "charge {mcid}-{pan}",
            "{pan} {mcid}",
            "{pan}-{mcid}",
        ]
    ),
    _counters,
    _hex12,
)
def test_card_numbers_are_still_hidden_beside_charge_ids(
    pan: str, writing: str, template: str, counter: str | None, random_part: str
) -> None:
    written = pan if writing == "{}" else _groups_of_four(pan, writing[2])
    mcid = _merchant_charge_id(counter, random_part, 1)
    out = redact(template.format(pan=written, mcid=mcid))
    assert written not in out
    assert pan not in re.sub(r"\D", "", out)
    assert "[card number]" in out
