"""Service timestamps: ISO 8601, with or without a UTC offset, up to nine fractional digits."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

_ISO = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<time>\d{2}:\d{2}(?::\d{2})?)"
    r"(?:[.,](?P<frac>\d{1,9}))?"
    r"(?P<tz>Z|z|[+-]\d{2}:?\d{2})?$"
)


def parse_timestamp(text: str) -> datetime:
    """Parse a service timestamp into an aware datetime.

    A timestamp without offset is read as UTC (the 3DS notification example has none; the
    service's other timestamps carry one). Fractions beyond microseconds are truncated.
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
        return fast if fast.tzinfo is not None else fast.replace(tzinfo=UTC)
    return parse_by_parts(match)


def parse_by_parts(match: re.Match[str]) -> datetime:
    """The reference reading of a matched timestamp, each part of the pattern taken apart."""
    frac = (match["frac"] or "")[:6].ljust(6, "0")
    clock = match["time"] if match["time"].count(":") == 2 else match["time"] + ":00"
    parsed = datetime.fromisoformat(f"{match['date']}T{clock}.{frac}")
    tz = match["tz"]
    if tz is None or tz in ("Z", "z"):
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
