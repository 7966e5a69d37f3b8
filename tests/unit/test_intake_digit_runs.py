"""The parse limits find the longest run of digits in a body as a regular expression would."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from checkout_desktop.inbox.intake import MAX_NUMBER_CHARS, limits_problem, longest_digit_run

_BYTES = st.binary(max_size=400) | st.lists(
    st.sampled_from([b"0", b"9", b"12345678", b"1" * 64, b" ", b"\t", b"\n", b"a", b'"', b"\xff"]),
    max_size=60,
).map(b"".join)


@given(_BYTES)
def test_the_longest_run_is_what_a_regular_expression_finds(body: bytes) -> None:
    runs = [len(m.group()) for m in re.finditer(rb"[0-9]+", body)]
    assert longest_digit_run(body) == max(runs, default=0)


def test_a_number_one_digit_over_the_limit_is_refused_and_at_the_limit_is_not() -> None:
    at_limit = b'{"amount": ' + b"1" * MAX_NUMBER_CHARS + b"}"
    over = b'{"amount": ' + b"1" * (MAX_NUMBER_CHARS + 1) + b"}"
    assert limits_problem(at_limit) is None
    problem = limits_problem(over)
    assert problem is not None
    assert "digits" in problem.english()


def test_digits_inside_a_string_are_text_not_a_number() -> None:
    assert limits_problem(b'{"id": "' + b"7" * 200 + b'"}') is None
