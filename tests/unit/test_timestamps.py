"""Service timestamps with and without offset, with up to nine fractional digits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from checkout_desktop.domain.timestamps import (
    Timestamp,
    naive_zone,
    parse_timestamp,
    set_naive_zone,
)

BRT = timezone(timedelta(hours=-3))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Without offset: Brasília time (the 3DS example's eventDate; every documented offset
        # is -03:00), so 11:30 there is 14:30 UTC.
        ("2025-04-16T11:30:04.157929932", datetime(2025, 4, 16, 14, 30, 4, 157929, tzinfo=UTC)),
        (
            "2022-05-01T16:00:00-03:00",
            datetime(2022, 5, 1, 16, tzinfo=timezone(timedelta(hours=-3))),
        ),
        ("2022-05-01T16:00:00Z", datetime(2022, 5, 1, 16, tzinfo=UTC)),
        (
            "2022-05-01T16:00:00.1+0530",
            datetime(2022, 5, 1, 16, 0, 0, 100000, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        ),
        ("2022-05-01 16:00", datetime(2022, 5, 1, 16, tzinfo=BRT)),
    ],
)
def test_parse(text: str, expected: datetime) -> None:
    assert parse_timestamp(text) == expected


def test_a_naive_time_is_read_in_the_profiles_zone() -> None:
    before = naive_zone()
    try:
        set_naive_zone("UTC")
        assert parse_timestamp("2022-05-01T16:00:00") == datetime(2022, 5, 1, 16, tzinfo=UTC)
        set_naive_zone("Asia/Tokyo")
        assert parse_timestamp("2022-05-01T16:00:00") == datetime(2022, 5, 1, 7, tzinfo=UTC)
        with pytest.raises(ValueError, match="unknown time zone"):
            set_naive_zone("Mars/Olympus_Mons")
    finally:
        set_naive_zone(str(before))
    assert parse_timestamp("2022-05-01T16:00:00") == datetime(2022, 5, 1, 19, tzinfo=UTC)


@pytest.mark.parametrize(
    "text", ["", "yesterday", "2022-13-01T00:00:00", "2022-05-01T16:00:00.1234567890", "2022-05-01"]
)
def test_rejects(text: str) -> None:
    with pytest.raises(ValueError, match=r"ISO 8601|month|out of range|must be in"):
        parse_timestamp(text)


class _Holder(BaseModel):
    at: Timestamp


@given(
    st.datetimes(min_value=datetime(1000, 1, 1), timezones=st.just(UTC)),
    st.integers(min_value=0, max_value=999),
)
def test_nine_digit_fractions_round_trip_exactly(moment: datetime, nanos: int) -> None:
    raw = moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + f"{nanos:03d}"
    holder = _Holder.model_validate({"at": raw})
    assert holder.model_dump(mode="json") == {"at": raw}
    assert holder.at.at == moment.replace(tzinfo=naive_zone())
    assert not holder.at.has_offset


def test_ordering_uses_the_instant() -> None:
    a = Timestamp("2022-05-01T16:00:00-03:00")
    b = Timestamp("2022-05-01T19:00:00Z")
    c = Timestamp("2022-05-01T19:00:01Z")
    assert a == b and a < c and hash(a) == hash(b)


def _parse_the_long_way(text: str) -> datetime:
    """The parser's reference reading, without the fast path in C."""
    from checkout_desktop.domain.timestamps import _ISO, parse_by_parts

    match = _ISO.match(text.strip())
    assert match is not None
    return parse_by_parts(match)


@given(
    st.datetimes(min_value=datetime(1000, 1, 1)),
    st.sampled_from(["T", " "]),
    st.booleans(),
    st.sampled_from(["", ".", ","]),
    st.integers(min_value=1, max_value=9),
    st.sampled_from(["", "Z", "z", "+", "-"]),
    st.integers(min_value=0, max_value=23),
    st.integers(min_value=0, max_value=59),
    st.booleans(),
)
def test_every_accepted_shape_reads_as_the_long_way_does(
    moment: datetime,
    separator: str,
    seconds: bool,
    point: str,
    digits: int,
    zone: str,
    hours: int,
    minutes: int,
    colon: bool,
) -> None:
    text = moment.strftime("%Y-%m-%d") + separator + moment.strftime("%H:%M")
    if seconds:
        text += moment.strftime(":%S")
        if point:
            text += point + f"{moment.microsecond:06d}987"[:digits]
    if zone in ("+", "-"):
        zone += f"{hours:02d}" + (":" if colon else "") + f"{minutes:02d}"
    text += zone
    expected = _parse_the_long_way(text)
    parsed = parse_timestamp(text)
    assert parsed == expected
    assert parsed.utcoffset() == expected.utcoffset()
