"""The inbox's card masking scans only the stretches of a body that can hold a number, and finds
exactly what a scan of the whole body finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from checkout_desktop.domain import carddata

# Pieces a notification's bytes are made of near a number: digits in every spelling, the
# separators a number may be written with, letters and punctuation that end or glue one.
_PIECES = st.sampled_from(
    [
        b"0",
        b"4",
        b"5",
        b"9",
        b"41111111",
        b"55000000",
        b"00000004",
        b"\\u0035",
        b"\\u0030",
        b"\\u00a0",
        b"\\u0020",
        b"\xef\xbc\x95",
        b"\xef\xbc\x90",
        b"\xc2\xa0",
        b" ",
        b"-",
        b".",
        b"_",
        b"/",
        b"a",
        b"u",
        b"A",
        b"x",
        b'"',
        b":",
        b",",
        b"\\",
        b"\xef",
        b"\xbc",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_PIECES, max_size=60).map(b"".join))
def test_the_stretches_find_every_match_of_the_whole_scan(body: bytes) -> None:
    whole = [m.span() for m in carddata._B_NUMBER.finditer(body)]
    assert [m.span() for m in carddata._number_matches(body)] == whole


def test_a_number_glued_to_an_identifier_before_its_stretch_is_left_alone() -> None:
    # The stretch starts at the "4"; what stands before it still decides.
    body = b'{"id": "aaaa-4111-1111-1111-1111", "pan": "4111 1111 1111 1111"}'
    spans = [m.span() for m in carddata._number_matches(body)]
    assert [body[a:b] for a, b in spans] == [b"4111 1111 1111 1111"]
    masked, count = carddata.mask_card_numbers(body)
    assert count == 1
    assert b"aaaa-4111-1111-1111-1111" in masked
    assert b"4111 11** **** 1111" in masked


def test_a_body_without_a_stretch_comes_back_as_it_was() -> None:
    body = b'{"doc": "658.440.590-38", "at": "2026-11-23T07:33:34Z", "n": 12345678901}'
    assert carddata.mask_card_numbers(body) == (body, 0)
