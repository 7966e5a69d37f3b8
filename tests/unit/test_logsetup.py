"""The redaction filter keeps secrets, tokens and card data out of every log line."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

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
