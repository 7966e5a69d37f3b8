"""A supervisor PIN is made of the digits 0-9: another script's digits are refused, full-width
ones (an East Asian keyboard's) count as the same digits, when the PIN is set and when checked."""

from __future__ import annotations

import logging

import pytest

from checkout_desktop.charges.authority import PinError, check_pin_format, hash_pin, verify_pin

logger = logging.getLogger(__name__)


def test_full_width_digits_set_the_same_pin_as_ascii_ones() -> None:
    stored = hash_pin("\uff11\uff12\uff13\uff14")  # "１２３４"
    assert verify_pin("1234", stored)
    assert verify_pin("\uff11\uff12\uff13\uff14", stored)
    assert not verify_pin("1235", stored)
    assert check_pin_format("\uff19\uff18\uff17\uff16") == "9876"


@pytest.mark.parametrize(
    "pin",
    [
        "\u0661\u0662\u0663\u0664",  # Arabic-Indic digits
        "\u0967\u0968\u0969\u096a",  # Devanagari digits
        "1234\n",  # a trailing line break is not a digit
        "12 34",
        "123",
        "123456789",
    ],
)
def test_anything_but_four_to_eight_digits_is_refused(pin: str) -> None:
    with pytest.raises(PinError):
        hash_pin(pin)
    stored = hash_pin("1234")
    assert not verify_pin(pin, stored)
