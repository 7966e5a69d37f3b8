"""Service timestamps: ISO 8601, with or without a UTC offset, up to nine fractional digits."""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

logger = logging.getLogger(__name__)

DEFAULT_NAIVE_ZONE = "America/Sao_Paulo"
# Brazil has kept -03:00 all year since 2019: the stand-in where no time-zone database exists.
_BRASILIA_FIXED = timezone(timedelta(hours=-3), "-03")


def zone_named(name: str) -> tzinfo:
    """The time zone `name`; UTC for "UTC", fixed -03:00 for Brasília without a zone database.

    ValueError for a name the zone database does not know.
    """
    if name.upper() == "UTC":
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        if name == DEFAULT_NAIVE_ZONE:
            return _BRASILIA_FIXED
        raise ValueError(f"unknown time zone {name!r}") from None


_naive_zone: tzinfo = zone_named(DEFAULT_NAIVE_ZONE)


def set_naive_zone(name: str) -> None:
    """Read timestamps without an offset in the zone `name` (the profile's; ValueError if unknown).

    Every documented offset of the service is -03:00 and its one example without offset (the 3DS
    notification) is Brasília time, so a naive time is read there unless the profile says not.
    """
    global _naive_zone
    _naive_zone = zone_named(name)


def naive_zone() -> tzinfo:
    return _naive_zone


_ISO = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<time>\d{2}:\d{2}(?::\d{2})?)"
    r"(?:[.,](?P<frac>\d{1,9}))?"
    r"(?P<tz>Z|z|[+-]\d{2}:?\d{2})?$"
)


def parse_timestamp(text: str) -> datetime:
    """Parse a service timestamp into an aware datetime.

    A timestamp without offset is read in the profile's time zone (`set_naive_zone`, Brasília
    by default). Fractions beyond microseconds are truncated.
    """
    stripped = text.strip()
    match = _ISO.match(stripped)
    if match is None:
        raise ValueError(f"not an ISO 8601 timestamp: {text!r}")
    try:
        # Every shape the pattern admits reads the same in C (truncating extra fraction
        # digits) at a tenth of the cost; what it refuses takes the long way and gets its error.
        fast = datetime.fromisoformat(stripped)
    except ValueError:
        pass
    else:
        return fast if fast.tzinfo is not None else fast.replace(tzinfo=_naive_zone)
    return parse_by_parts(match)


def parse_by_parts(match: re.Match[str]) -> datetime:
    """The reference reading of a matched timestamp, each part of the pattern taken apart."""
    frac = (match["frac"] or "")[:6].ljust(6, "0")
    clock = match["time"] if match["time"].count(":") == 2 else match["time"] + ":00"
    parsed = datetime.fromisoformat(f"{match['date']}T{clock}.{frac}")
    tz = match["tz"]
    if tz is None:
        return parsed.replace(tzinfo=_naive_zone)
    if tz in ("Z", "z"):
        return parsed.replace(tzinfo=UTC)
    sign = 1 if tz[0] == "+" else -1
    digits = tz[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return parsed.replace(tzinfo=timezone(sign * offset))


class Timestamp:
    """A wire timestamp that keeps its original text (for exact round trips) and its instant."""

    __slots__ = ("at", "raw")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.at = parse_timestamp(raw)

    @classmethod
    def from_datetime(cls, moment: datetime) -> Timestamp:
        if moment.tzinfo is None:
            raise ValueError("a naive datetime has no defined instant")
        return cls(moment.isoformat())

    @property
    def has_offset(self) -> bool:
        return _ISO.match(self.raw.strip())["tz"] is not None  # type: ignore[index]

    def __str__(self) -> str:
        return self.raw

    def __repr__(self) -> str:
        return f"Timestamp({self.raw!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Timestamp):
            return self.at == other.at
        return NotImplemented

    def __lt__(self, other: Timestamp) -> bool:
        return self.at < other.at

    def __hash__(self) -> int:
        return hash(self.at)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def validate(value: Any) -> Timestamp:
            if isinstance(value, Timestamp):
                return value
            if isinstance(value, datetime):
                return cls.from_datetime(value)
            if isinstance(value, str):
                return cls(value)
            raise ValueError("a timestamp must be an ISO 8601 string")

        return core_schema.no_info_plain_validator_function(
            validate,
            json_schema_input_schema=core_schema.str_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda value: value.raw, when_used="always"
            ),
        )


def utc_now() -> datetime:
    return datetime.now(UTC)
