"""Brazilian documents: CPF and CNPJ with check digits, CEP and UF."""

from __future__ import annotations

import re

UFS = frozenset(
    {
        *("AC", "AL", "AP", "AM", "BA", "CE", "DF", "ES", "GO", "MA", "MT", "MS", "MG", "PA"),
        *("PB", "PR", "PE", "PI", "RJ", "RN", "RS", "RO", "RR", "SC", "SP", "SE", "TO"),
    }
)

_NON_DIGIT = re.compile(r"\D")


class DocumentError(ValueError):
    """A document number that is not valid, with the reason in the message."""


def digits_only(text: str) -> str:
    return _NON_DIGIT.sub("", text)


def _cpf_check_digit(body: str) -> int:
    weight = len(body) + 1
    total = sum(int(d) * (weight - i) for i, d in enumerate(body))
    rest = total % 11
    return 0 if rest < 2 else 11 - rest


def cpf_check_digits(first_nine: str) -> str:
    d1 = _cpf_check_digit(first_nine)
    d2 = _cpf_check_digit(first_nine + str(d1))
    return f"{d1}{d2}"


def validate_cpf(text: str) -> str:
    """Return the 11 digits of a valid CPF, or raise DocumentError saying why it is not."""
    number = digits_only(text)
    if len(number) != 11:
        raise DocumentError(f"a CPF has 11 digits; {text!r} has {len(number)}")
    if number == number[0] * 11:
        raise DocumentError(f"{text!r} is not a valid CPF (all digits equal)")
    if cpf_check_digits(number[:9]) != number[9:]:
        raise DocumentError(f"{text!r} is not a valid CPF (check digits do not match)")
    return number


_CNPJ_W1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
_CNPJ_W2 = (6, *_CNPJ_W1)


def _cnpj_digit(body: str, weights: tuple[int, ...]) -> int:
    rest = sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11
    return 0 if rest < 2 else 11 - rest


def cnpj_check_digits(first_twelve: str) -> str:
    d1 = _cnpj_digit(first_twelve, _CNPJ_W1)
    d2 = _cnpj_digit(first_twelve + str(d1), _CNPJ_W2)
    return f"{d1}{d2}"


def validate_cnpj(text: str) -> str:
    """Return the 14 digits of a valid CNPJ, or raise DocumentError saying why it is not."""
    number = digits_only(text)
    if len(number) != 14:
        raise DocumentError(f"a CNPJ has 14 digits; {text!r} has {len(number)}")
    if number == number[0] * 14:
        raise DocumentError(f"{text!r} is not a valid CNPJ (all digits equal)")
    if cnpj_check_digits(number[:12]) != number[12:]:
        raise DocumentError(f"{text!r} is not a valid CNPJ (check digits do not match)")
    return number


def validate_tax_document(text: str) -> tuple[str, str]:
    """Validate a CPF or a CNPJ by its length; return ("CPF"|"CNPJ", digits)."""
    number = digits_only(text)
    if len(number) == 11:
        return "CPF", validate_cpf(number)
    if len(number) == 14:
        return "CNPJ", validate_cnpj(number)
    raise DocumentError(f"{text!r} is neither a CPF (11 digits) nor a CNPJ (14 digits)")


def format_cpf(number: str) -> str:
    n = validate_cpf(number)
    return f"{n[:3]}.{n[3:6]}.{n[6:9]}-{n[9:]}"


def format_cnpj(number: str) -> str:
    n = validate_cnpj(number)
    return f"{n[:2]}.{n[2:5]}.{n[5:8]}/{n[8:12]}-{n[12:]}"


def validate_cep(text: str) -> str:
    """Return the 8 digits of a CEP (postal code)."""
    number = digits_only(text)
    if len(number) != 8 or not re.fullmatch(r"\d{5}-?\d{3}", text.strip()):
        raise DocumentError(f"a CEP has 8 digits, as 01310-100; got {text!r}")
    if number == "00000000":
        raise DocumentError(f"{text!r} is not a valid CEP")
    return number


def validate_uf(text: str) -> str:
    """Return the upper-case two-letter state code (UF)."""
    code = text.strip().upper()
    if code not in UFS:
        raise DocumentError(f"{text!r} is not a Brazilian state code (UF), as SP or RJ")
    return code


def validate_phone(text: str) -> tuple[str, str]:
    """A Brazilian phone number as (area code, number): `(11) 98765-4321`, `11 3333-4444`,
    `+55 11 98765-4321`. A mobile number has 9 digits starting with 9, a landline 8 starting
    with 2 to 5; an area code is two digits, neither 0."""
    digits = digits_only(text)
    if len(digits) in (12, 13) and digits.startswith("55"):
        digits = digits[2:]
    if len(digits) in (11, 12) and digits.startswith("0"):
        digits = digits[1:]  # a trunk prefix, as in 0 11 98765-4321
    if len(digits) not in (10, 11):
        raise DocumentError(
            f"a phone number has a 2-digit area code and 8 or 9 digits; got {len(digits)} digits"
        )
    area, number = digits[:2], digits[2:]
    if "0" in area:
        raise DocumentError(f"{area} is not a Brazilian area code")
    if len(number) == 9 and number[0] != "9":
        raise DocumentError("a 9-digit mobile number starts with 9")
    if len(number) == 8 and number[0] not in "2345":
        raise DocumentError("an 8-digit landline number starts with 2, 3, 4 or 5")
    return area, number


def phone_typed_in_full(text: str) -> bool:
    """Whether a phone being typed is complete, so that no further digit can belong to it: an
    area code and a mobile (9 digits, starting with 9) or landline (8 digits, 2 to 5) number
    that `validate_phone` takes. Forms that can go on are never complete: a country code (`+`
    or a leading 55, also a real area code) or a trunk prefix (a leading 0)."""
    stripped = text.strip()
    digits = digits_only(stripped)
    if len(digits) not in (10, 11) or stripped.startswith(("+", "0")) or digits.startswith("55"):
        return False
    try:
        validate_phone(digits)
    except DocumentError:
        return False
    return True


def cpf_typed_in_full(text: str) -> bool:
    """Whether a CPF/CNPJ being typed is a whole, valid CPF (11 digits whose check digits
    match). About one CNPJ in a hundred has first 11 digits that pass too, so whoever moves on
    at this point lets a 12th digit come back."""
    digits = digits_only(text)
    if len(digits) != 11:
        return False
    try:
        validate_cpf(digits)
    except DocumentError:
        return False
    return True


def luhn_valid(number: str) -> bool:
    """The Luhn check of a card number (digits only)."""
    if not number.isdigit() or not 12 <= len(number) <= 19:
        return False
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0
