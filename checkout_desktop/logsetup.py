"""One logging setup for the whole terminal, with a filter that redacts secrets and card data."""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import re
import sys
import threading
from collections.abc import Callable
from io import TextIOWrapper
from pathlib import Path
from typing import Any

from checkout_desktop.domain.carddata import hide_card_numbers
from checkout_desktop.domain.documents import luhn_valid

_known_secrets: set[str] = set()
_lock = threading.Lock()

_BEARER = re.compile(r"(?i)\b(bearer)\s+[^\s\"',;]+")
_JWT = re.compile(r"\b[A-Za-z0-9_\-=]{8,}\.[A-Za-z0-9_\-=]{8,}\.[A-Za-z0-9_\-+/=]{4,}")
_CARD_TOKEN = re.compile(r"card_t/([A-Za-z0-9_\-+/=.]{4})[A-Za-z0-9_\-+/=.]*")
_TRANSPARENT_TOKEN = re.compile(r"\btk_[A-Za-z0-9_\-=]+")
_PAN_CANDIDATE = re.compile(r"(?<![\d.])\d(?:[ -]?\d){12,18}(?![\d])")
# The terminal's own sale and charge ids, as `charges/sale.py` makes them: a sale id is
# `<counter>-<12 hex>` (or `<12 hex>` alone on a terminal without a counter id), a charge's
# merchantChargeId is the sale id and `-<nn>`, the attempt. Their digits, read across the
# hyphens with the counter's, pass the Luhn check now and then (about one id in six hundred),
# and the id would be logged as "[card number]": not found in the log, and a false alarm. An id
# written whole, standing alone, is therefore left as it is; nothing that reads as a card number
# fits this shape (a letter first and a 12-character middle, or 12 + 2 digits not following
# other digits), and every other text is still searched. A sale id of 12 hex digits alone is not
# kept: it cannot be told from a 12-digit number.
_OWN_ID = re.compile(
    r"(?<![\w\-])"
    r"(?:[a-z][a-z0-9]{1,7}-[0-9a-f]{12}(?:-[0-9]{2,3})?"
    r"|(?<![0-9][ .,:;/_])[0-9a-f]{12}-[0-9]{2,3})"
    r"(?![\w\-])"
)
_SENSITIVE_PAIR = re.compile(
    r"(?i)([\"']?(?:client_secret|access_token|password|cvv|cvc|securityCode|authorization|"
    r"merchantToken|transparentToken|webhook_token|cardNumber|expirationMonth|expirationYear)"
    r"[\"']?\s*[:=]\s*)((?:[Bb]earer\s+)?(?:\"[^\"]*\"|'[^']*'|[^\s,;}]+))"
)


def register_secret(value: str) -> None:
    """Make a secret value redacted wherever it would appear in a log line."""
    if value and len(value) >= 4:
        with _lock:
            _known_secrets.add(value)


def holds_secret(text: str) -> bool:
    """Whether `text` contains any registered secret (a token a header must not keep)."""
    return secret_finder()(text)


def secret_finder() -> Callable[[str], bool]:
    """`holds_secret` for the secrets registered now, to check many texts in a row (a
    delivery's headers) with one look at the registry."""
    with _lock:
        secrets = tuple(_known_secrets)
    return lambda text: any(secret in text for secret in secrets)


def forget_secret(value: str) -> None:
    with _lock:
        _known_secrets.discard(value)


def _mask_pan(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group(0))
    return "[card number]" if luhn_valid(digits) else match.group(0)


def redact(text: str) -> str:
    """Remove secrets, bearer and access tokens, card numbers and CVVs from a piece of text."""
    with _lock:
        secrets = sorted(_known_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, "[secret]")
    text = _SENSITIVE_PAIR.sub(lambda m: m.group(1) + "[redacted]", text)
    text = _BEARER.sub(lambda m: m.group(1) + " [redacted]", text)
    text = _JWT.sub("[token]", text)
    text = _CARD_TOKEN.sub(lambda m: f"card_t/{m.group(1)}…", text)
    text = _TRANSPARENT_TOKEN.sub("tk_[redacted]", text)
    # The terminal's own ids are kept whole; card numbers are looked for in all the rest.
    parts: list[str] = []
    done = 0
    for match in _OWN_ID.finditer(text):
        parts.append(_hide_card_numbers(text[done : match.start()]))
        parts.append(match.group(0))
        done = match.end()
    parts.append(_hide_card_numbers(text[done:]))
    return "".join(parts)


def _hide_card_numbers(text: str) -> str:
    text = _PAN_CANDIDATE.sub(_mask_pan, text)
    # Numbers written any other way (dots, slashes, no-break spaces, fullwidth digits): found
    # on the normalised text, which replaces the text only when it held one.
    hidden = hide_card_numbers(text)
    return (
        hidden
        if "[card number]" in hidden and hidden.count("[card number]") > text.count("[card number]")
        else text
    )


class RedactionFilter(logging.Filter):
    """Rewrites each record's message (with its arguments merged) through `redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not hide the record
            message = f"{record.msg!r} {record.args!r}"
        record.msg = redact(message)
        record.args = None
        return True


class RedactingFormatter(logging.Formatter):
    """Also redacts what the formatter adds: tracebacks and exception text."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class OwnerOnlyRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating log whose every file (the current one and each rotated one) is created 0600,
    and that survives a full disk quietly: one notice on standard error when writing fails,
    nothing more until a line can be written again, then one notice that it can."""

    def __init__(self, filename: Path, **kwargs: Any) -> None:
        self._failing = False
        self._failed_now = False
        super().__init__(filename, **kwargs)

    def _open(self) -> TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        stream = open(fd, self.mode, encoding=self.encoding, errors=self.errors)  # noqa: SIM115
        assert isinstance(stream, TextIOWrapper)
        return stream

    def emit(self, record: logging.LogRecord) -> None:
        self._failed_now = False
        super().emit(record)
        if self._failing and not self._failed_now:
            self._failing = False
            _notice(f"checkout-desktop: the log {self.baseFilename} can be written again")

    def handleError(self, record: logging.LogRecord) -> None:
        self._failed_now = True
        error = sys.exc_info()[1]
        if not isinstance(error, OSError):
            super().handleError(record)
            return
        if not self._failing:
            self._failing = True
            _notice(
                f"checkout-desktop: the log {self.baseFilename} cannot be written "
                f"({error.strerror or error}); log lines are dropped until it can be"
            )
        # A half-written stream may hold the failed line: start the next one afresh.
        try:
            if self.stream is not None:
                self.stream.close()
        except OSError:
            pass
        self.stream = None


def _notice(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(text, file=sys.stderr, flush=True)


def setup_logging(
    log_dir: Path | None = None, *, level: int = logging.INFO, console: bool = True
) -> None:
    """Configure the root logger once: redacting handlers for the console and a rotating file."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_checkout_desktop", False):
            root.removeHandler(handler)
            handler.close()
    handlers: list[logging.Handler] = []
    if console:
        handlers.append(logging.StreamHandler())
    if log_dir is not None:
        try:
            log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            file_handler = OwnerOnlyRotatingFileHandler(
                log_dir / "checkout-desktop.log",
                maxBytes=5_000_000,
                backupCount=5,
                encoding="utf-8",
            )
        except OSError as exc:
            # A log that cannot be written (read-only or full disk) must not stop the terminal:
            # what it would have said goes to the console, and whatever else cannot be written
            # (the store) is refused in plain words by its own check.
            _notice(
                f"checkout-desktop: cannot write the log in {log_dir} ({exc.strerror or exc}); "
                "logging to the console only"
            )
            log_dir = None
            if not console:
                handlers.append(logging.StreamHandler())
        else:
            handlers.append(file_handler)
    for handler in handlers:
        handler.addFilter(RedactionFilter())
        handler.setFormatter(RedactingFormatter(_FORMAT))
        handler._checkout_desktop = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(level)
    if log_dir is not None:
        from checkout_desktop.paths import tighten

        for path in log_dir.glob("checkout-desktop.log*"):
            tighten(path)
