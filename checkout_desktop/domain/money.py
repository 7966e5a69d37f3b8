"""Money as integer centavos, with Brazilian real formatting and parsing."""

from __future__ import annotations

import re

MAX_CENTAVOS = 99_999_999_99
"""The largest amount the terminal accepts for one charge (R$ 99.999.999,99)."""

_BRL_INPUT = re.compile(r"^(?P<int>\d{1,3}(?:\.\d{3})+|\d+)(?:,(?P<frac>\d{1,2}))?$")


class MoneyError(ValueError):
    """An amount that is not a valid BRL value."""


class AmountTooLarge(MoneyError):
    """An amount above `MAX_CENTAVOS`."""


def format_brl(centavos: int, *, symbol: bool = True) -> str:
    """Format centavos as `R$ 1.234,56` (negative amounts as `-R$ 1,00`)."""
    if isinstance(centavos, bool) or not isinstance(centavos, int):
        raise MoneyError(f"an amount must be whole centavos, got {centavos!r}")
    sign = "-" if centavos < 0 else ""
    reais, cents = divmod(abs(centavos), 100)
    grouped = f"{reais:,}".replace(",", ".")
    body = f"{grouped},{cents:02d}"
    return f"{sign}R$ {body}" if symbol else f"{sign}{body}"


def parse_brl(text: str) -> int:
    """Parse a BRL amount typed by a person into centavos.

    Accepts `R$ 1.234,56`, `1234,56`, `1234,5`, `1234` and `0,99`. A dot is only a thousands
    separator (groups of three); a comma is the decimal separator, as in pt-BR.
    """
    cleaned = text.strip().replace("R$", "").replace("\u00a0", " ").strip()
    negative = cleaned.startswith("-")
    if negative:
        cleaned = cleaned[1:].strip()
    match = _BRL_INPUT.match(cleaned)
    if match is None:
        raise MoneyError(f"{text!r} is not an amount in reais (example: 1.234,56)")
    reais = int(match["int"].replace(".", ""))
    frac = (match["frac"] or "").ljust(2, "0")
    value = reais * 100 + int(frac)
    if value > MAX_CENTAVOS:
        raise AmountTooLarge(
            f"{text!r} is above the largest amount accepted ({format_brl(MAX_CENTAVOS)})"
        )
    return -value if negative else value


def keypad_append(centavos: int, digit: str) -> int:
    """Cents-first keypad entry: typing 1, 2, 3 gives R$ 0,01, R$ 0,12, R$ 1,23."""
    if len(digit) != 1 or not digit.isdigit():
        raise MoneyError(f"{digit!r} is not a digit")
    value = centavos * 10 + int(digit)
    if value > MAX_CENTAVOS:
        raise AmountTooLarge(f"above the largest amount accepted ({format_brl(MAX_CENTAVOS)})")
    return value


def keypad_backspace(centavos: int) -> int:
    return centavos // 10
