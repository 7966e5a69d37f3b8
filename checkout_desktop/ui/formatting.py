"""Locale-aware display of money, instants and statuses for every panel."""

from __future__ import annotations

import logging
import os
import time
from datetime import UTC, datetime

from PySide6.QtCore import QCoreApplication, QDateTime, QLocale, QTimeZone

logger = logging.getLogger(__name__)

CURRENCY_SYMBOL = "R$"


def format_money(centavos: int | None, locale: QLocale | None = None) -> str:
    """Centavos as the locale writes reais (pt_BR `R$ 1.234,56`, English `R$1,234.56`)."""
    if centavos is None:
        return "—"
    loc = locale or QLocale()
    if loc.language() == QLocale.Language.C:
        # No locale at all (LANG=C): the C locale writes "1234.56R$"; English's way instead.
        loc = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    # Whole centavos divided by 100 are exact to two places for every amount the terminal
    # accepts (below 2**53), so the float never shows a rounding artefact.
    return loc.toCurrencyString(centavos / 100, CURRENCY_SYMBOL, 2)


# The machine's zone, asked for again when TZ changes or after _ZONE_TTL_S: looking it up costs
# more than the conversion it serves, and a list formats a few instants per row.
_ZONE_TTL_S = 30.0
_zone: tuple[str | None, float, QTimeZone] | None = None


def _system_zone() -> QTimeZone:
    global _zone
    tz, now = os.environ.get("TZ"), time.monotonic()
    cached = _zone
    if cached is not None and cached[0] == tz and now < cached[1]:
        return cached[2]
    zone = QTimeZone.systemTimeZone()
    _zone = (tz, now + _ZONE_TTL_S, zone)
    return zone


def to_qdatetime(moment: datetime) -> QDateTime:
    """An aware datetime as a QDateTime in the machine's local time zone."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    msecs = int(moment.timestamp() * 1000)
    return QDateTime.fromMSecsSinceEpoch(msecs, _system_zone())


def format_instant(
    moment: datetime | None, locale: QLocale | None = None, *, seconds: bool = True
) -> str:
    """An instant in local time, in the locale's short date and a 24-hour clock with seconds."""
    if moment is None:
        return "—"
    loc = locale or QLocale()
    stamp = to_qdatetime(moment)
    date = loc.toString(stamp.date(), QLocale.FormatType.ShortFormat)
    clock = stamp.time().toString("HH:mm:ss" if seconds else "HH:mm")
    return f"{date} {clock}"


def format_instant_precise(moment: datetime | None, locale: QLocale | None = None) -> str:
    """An instant with milliseconds: timelines order inputs that land within one second."""
    if moment is None:
        return "—"
    loc = locale or QLocale()
    stamp = to_qdatetime(moment)
    date = loc.toString(stamp.date(), QLocale.FormatType.ShortFormat)
    return f"{date} {stamp.time().toString('HH:mm:ss.zzz')}"


def format_duration(seconds: float) -> str:
    """A short duration for the status bar: `4 min 05 s`, `42 s`."""
    whole = max(0, int(seconds))
    minutes, secs = divmod(whole, 60)
    if minutes:
        return QCoreApplication.translate("Formatting", "{minutes} min {seconds} s").format(
            minutes=minutes, seconds=f"{secs:02d}"
        )
    return QCoreApplication.translate("Formatting", "{seconds} s").format(seconds=secs)
