"""Money formatting/parsing and Brazilian document validation, with property tests."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checkout_desktop.domain import documents, money
from checkout_desktop.domain.documents import DocumentError
from checkout_desktop.domain.money import MoneyError


@pytest.mark.parametrize(
    ("centavos", "text"),
    [
        (0, "R$ 0,00"),
        (1, "R$ 0,01"),
        (123456, "R$ 1.234,56"),
        (100000000, "R$ 1.000.000,00"),
        (-150, "-R$ 1,50"),
    ],
)
def test_format_brl(centavos: int, text: str) -> None:
    assert money.format_brl(centavos) == text


@pytest.mark.parametrize(
    ("text", "centavos"),
    [
        ("R$ 1.234,56", 123456),
        ("1234,56", 123456),
        ("1234,5", 123450),
        ("1234", 123400),
        ("0,99", 99),
        ("  R$\u00a012,00 ", 1200),
        ("1.000.000", 100000000),
    ],
)
def test_parse_brl(text: str, centavos: int) -> None:
    assert money.parse_brl(text) == centavos


@pytest.mark.parametrize(
    "text", ["", "abc", "1,234", "12.34", "1.23,45", "1,2,3", "R$", "1e5", "99999999999"]
)
def test_parse_brl_rejects_with_a_clear_message(text: str) -> None:
    with pytest.raises(MoneyError, match="amount"):
        money.parse_brl(text)


def test_format_rejects_non_integers() -> None:
    with pytest.raises(MoneyError):
        money.format_brl(1.5)  # type: ignore[arg-type]
    with pytest.raises(MoneyError):
        money.format_brl(True)


@given(st.integers(min_value=-money.MAX_CENTAVOS, max_value=money.MAX_CENTAVOS))
def test_format_then_parse_is_identity(centavos: int) -> None:
    assert money.parse_brl(money.format_brl(centavos)) == centavos
    assert money.parse_brl(money.format_brl(centavos, symbol=False)) == centavos


@given(st.lists(st.sampled_from("0123456789"), max_size=12))
def test_keypad_entry_is_cents_first(digits: list[str]) -> None:
    value = 0
    typed = ""
    for digit in digits:
        try:
            value = money.keypad_append(value, digit)
        except MoneyError:
            assert int(typed + digit) > money.MAX_CENTAVOS
            break
        typed += digit
    assert value == int(typed or "0")
    assert money.keypad_backspace(value) == value // 10


def _cpf_strategy() -> st.SearchStrategy[str]:
    body = st.text("0123456789", min_size=9, max_size=9).filter(lambda s: len(set(s)) > 1)
    return body.map(lambda s: s + documents.cpf_check_digits(s))


def _cnpj_strategy() -> st.SearchStrategy[str]:
    body = st.text("0123456789", min_size=12, max_size=12).filter(lambda s: len(set(s)) > 1)
    return body.map(lambda s: s + documents.cnpj_check_digits(s))


@given(_cpf_strategy())
def test_generated_cpfs_validate_formatted_or_not(cpf: str) -> None:
    assert documents.validate_cpf(cpf) == cpf
    assert documents.validate_cpf(documents.format_cpf(cpf)) == cpf
    assert documents.validate_tax_document(cpf) == ("CPF", cpf)


def _reference_cpf_ok(number: str) -> bool:
    # The other common formulation: weights 1..9 (then 0..9), remainder mod 11 mod 10.
    d = [int(c) for c in number]
    d1 = sum(v * (i + 1) for i, v in enumerate(d[:9])) % 11 % 10
    d2 = sum(v * i for i, v in enumerate(d[:10])) % 11 % 10
    return len(set(number)) > 1 and d[9] == d1 and d[10] == d2


def _reference_cnpj_ok(number: str) -> bool:
    d = [int(c) for c in number]
    w1 = [6, 7, 8, 9, 2, 3, 4, 5, 6, 7, 8, 9]
    d1 = sum(v * w for v, w in zip(d[:12], w1, strict=True)) % 11 % 10
    d2 = sum(v * w for v, w in zip(d[:13], [5, *w1], strict=True)) % 11 % 10
    return len(set(number)) > 1 and d[12] == d1 and d[13] == d2


def _verdict(validate: object, number: str) -> bool:
    try:
        validate(number)  # type: ignore[operator]
    except DocumentError:
        return False
    return True


@given(st.one_of(_cpf_strategy(), st.text("0123456789", min_size=11, max_size=11)))
def test_cpf_agrees_with_an_independent_formulation(number: str) -> None:
    assert _verdict(documents.validate_cpf, number) is _reference_cpf_ok(number)


@given(st.one_of(_cnpj_strategy(), st.text("0123456789", min_size=14, max_size=14)))
def test_cnpj_agrees_with_an_independent_formulation(number: str) -> None:
    assert _verdict(documents.validate_cnpj, number) is _reference_cnpj_ok(number)


@given(
    _cpf_strategy(), st.integers(min_value=9, max_value=10), st.integers(min_value=1, max_value=9)
)
def test_a_changed_check_digit_breaks_a_cpf(cpf: str, position: int, delta: int) -> None:
    changed = cpf[:position] + str((int(cpf[position]) + delta) % 10) + cpf[position + 1 :]
    with pytest.raises(DocumentError, match="CPF"):
        documents.validate_cpf(changed)


@given(_cnpj_strategy())
def test_generated_cnpjs_validate_formatted_or_not(cnpj: str) -> None:
    assert documents.validate_cnpj(cnpj) == cnpj
    assert documents.validate_cnpj(documents.format_cnpj(cnpj)) == cnpj
    assert documents.validate_tax_document(cnpj) == ("CNPJ", cnpj)


@given(
    _cnpj_strategy(), st.integers(min_value=12, max_value=13), st.integers(min_value=1, max_value=9)
)
def test_a_changed_check_digit_breaks_a_cnpj(cnpj: str, position: int, delta: int) -> None:
    changed = cnpj[:position] + str((int(cnpj[position]) + delta) % 10) + cnpj[position + 1 :]
    with pytest.raises(DocumentError, match="CNPJ"):
        documents.validate_cnpj(changed)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("111.111.111-11", "all digits equal"),
        ("123", "11 digits"),
        ("658.443.590-39", "check digits"),
    ],
)
def test_bad_cpfs(text: str, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        documents.validate_cpf(text)


def test_known_documents() -> None:
    assert documents.validate_cpf("658.443.590-38") == "65844359038"
    assert documents.validate_cnpj("30.155.515/0001-21") == "30155515000121"
    with pytest.raises(DocumentError, match="neither"):
        documents.validate_tax_document("1234")


@pytest.mark.parametrize(
    ("text", "expected"), [("01310-100", "01310100"), ("01310100", "01310100")]
)
def test_cep(text: str, expected: str) -> None:
    assert documents.validate_cep(text) == expected


@pytest.mark.parametrize("text", ["0131-0100", "1234567", "00000-000", "abcde-fgh"])
def test_bad_cep(text: str) -> None:
    with pytest.raises(DocumentError, match="CEP"):
        documents.validate_cep(text)


def test_uf() -> None:
    assert documents.validate_uf(" sp ") == "SP"
    assert len(documents.UFS) == 27
    with pytest.raises(DocumentError, match="state code"):
        documents.validate_uf("XX")


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("4111111111111111", True),
        ("5555555555554444", True),
        ("378282246310005", True),
        ("4111111111111112", False),
        ("41111", False),
        ("4111a11111111111", False),
    ],
)
def test_luhn(number: str, valid: bool) -> None:
    assert documents.luhn_valid(number) is valid


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ("11987654321", True),  # area code and a mobile: nothing can follow
        ("(11) 98765-4321", True),
        ("1133334444", True),  # a landline: a 9th digit would make no mobile
        ("(11) 3333-4444", True),
        ("1198765432", False),  # a mobile's 10th digit is still to come
        ("11187654321", False),  # no valid phone: Enter says what is wrong
        ("+55 11 98765-432", False),  # a country code goes on for longer
        ("5591987654321"[:11], False),  # 55 is an area code and the country code
        ("0 11 98765-432", False),  # a trunk prefix
        ("119876543210", False),
        ("", False),
    ],
)
def test_a_phone_typed_in_full(text: str, complete: bool) -> None:
    assert documents.phone_typed_in_full(text) is complete


@given(st.text(alphabet="0123456789 ()-+", max_size=16))
def test_a_phone_typed_in_full_is_a_valid_phone(text: str) -> None:
    if documents.phone_typed_in_full(text):
        documents.validate_phone(text)


def test_a_cpf_typed_in_full() -> None:
    assert documents.cpf_typed_in_full("390.533.447-05")
    assert documents.cpf_typed_in_full("39053344705")
    assert not documents.cpf_typed_in_full("3905334470")
    assert not documents.cpf_typed_in_full("39053344706")  # a wrong check digit
    assert not documents.cpf_typed_in_full("11111111111")
    # The first 11 digits of this CNPJ make a valid CPF: whoever moves on lets digit 12 back.
    assert documents.validate_cnpj("34012345010069")
    assert documents.cpf_typed_in_full("34012345010")
