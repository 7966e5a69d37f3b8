"""Finding and masking card data in text: normalised first, so no spelling of a number hides it.

A number can be written in many ways that a plain digit search misses: JSON `\\u` escapes,
fullwidth or other Unicode digits, separators of any kind (spaces, no-break spaces, dashes,
dots, underscores, slashes), or split across several fields of one message. Each text is
therefore normalised (JSON decoded, Unicode NFKC, every decimal digit made ASCII) before it is
looked at, and the digits of all string values of one message are looked at together too.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator

from checkout_desktop.domain.documents import luhn_valid

MIN_PAN = 12
MAX_PAN = 19
# Up to this many separator characters may stand between two digits of one written number
# ("4111 - 1111", "4111\u00a0\u00a01111"); letters end a number.
_MAX_GAP = 3
_DIGIT_RUN = re.compile(rf"[0-9](?:[^0-9A-Za-z]{{0,{_MAX_GAP}}}[0-9])*")
_NON_DIGIT = re.compile(r"[^0-9]")
# Field names under which card data could travel; compared without case or punctuation, so
# "card_number", "CardNumber" and "card-number" are one name.
CARD_DATA_KEYS = frozenset(
    {
        "cvv",
        "cvv2",
        "cvc",
        "cvc2",
        "cid",
        "securitycode",
        "cardsecuritycode",
        "codigodeseguranca",
        "number",
        "cardnumber",
        "numerodocartao",
        "pan",
        "primaryaccountnumber",
        "expiry",
        "expirydate",
        "expiration",
        "expirationdate",
        "expirationmonth",
        "expirationyear",
        "expmonth",
        "expyear",
        "validade",
    }
)
# A value that reads as an expiry date (MM/YY, MM/YYYY, with any separator) or that names a
# security code next to its digits.
_EXPIRY = re.compile(r"(?<![0-9])(0[1-9]|1[0-2])[^0-9A-Za-z]{1,3}(20[0-9]{2}|[0-9]{2})(?![0-9])")
_CVV_WORDS = re.compile(
    r"(?:cvv2?|cvc2?|cid|security\s*code|c[oó]digo\s*de\s*seguran[cç]a)\W{0,3}[0-9]{3,4}",
    re.IGNORECASE,
)
_SHORT_CODE = re.compile(r"[0-9]{3,4}")
# No bridge message has a reason to carry more digits than this outside its token.
_MAX_SPREAD_DIGITS = 64


def normalise(text: str) -> str:
    """`text` in NFKC with every decimal digit (fullwidth, Arabic-Indic, …) made ASCII."""
    folded = unicodedata.normalize("NFKC", text)
    if folded.isascii():
        return folded
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in folded)


def fold_key(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", normalise(key).lower())


def _strings(value: object, key: str | None = None) -> Iterator[tuple[str | None, str, bool]]:
    """(key, text, is a string) for every key and string or number value, in order."""
    if isinstance(value, dict):
        for k, item in value.items():
            yield None, str(k), True
            yield from _strings(item, str(k))
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, key)
    elif isinstance(value, str):
        yield key, value, True
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield key, repr(value), False


def _card_key(value: object) -> str | None:
    if isinstance(value, dict):
        for key, item in value.items():
            if fold_key(str(key)) in CARD_DATA_KEYS:
                return f"a field named {fold_key(str(key))[:40]!r}"
            found = _card_key(item)
            if found:
                return found
    elif isinstance(value, list):
        for item in value:
            found = _card_key(item)
            if found:
                return found
    return None


def card_number_in(text: str) -> str | None:
    """A description of the card number `text` holds (already normalised), or None."""
    for match in _DIGIT_RUN.finditer(text):
        digits = _NON_DIGIT.sub("", match.group(0))
        if len(digits) > MAX_PAN:
            return f"a run of {len(digits)} digits that may hold a card number"
        if len(digits) >= MIN_PAN and luhn_valid(digits):
            return "a card number"
    return None


def _luhn_window(digits: str) -> bool:
    for size in range(MIN_PAN, min(MAX_PAN, len(digits)) + 1):
        for start in range(len(digits) - size + 1):
            window = digits[start : start + size]
            # A window inside a longer run of one repeated digit says nothing.
            if luhn_valid(window) and len(set(window)) > 1:
                return True
    return False


def find_card_data(
    raw: str,
    *,
    opaque_keys: frozenset[str] = frozenset(),
    short_code_keys: frozenset[str] = frozenset(),
) -> str | None:
    """What card data a message (a JSON text) carries, described without the data, or None.

    Looked for: a card number in the raw text or in any decoded key or value; a card number
    whose digits are spread over several string values; a key named like a card field; a value
    that reads as an expiry date or a security code. Values under `opaque_keys` (random tokens)
    are screened alone, for a card number only, and left out of the cross-field digits; a value
    of only 3–4 digits is a security code unless its key is one of `short_code_keys` (the last
    four digits).
    """
    found = card_number_in(normalise(raw))
    if found is not None:
        return found
    try:
        decoded = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    found = _card_key(decoded)
    if found is not None:
        return found
    spread: list[str] = []
    for key, value, is_string in _strings(decoded):
        text = normalise(value)
        found = card_number_in(text)
        if found is not None:
            return found
        if key in opaque_keys:
            # A random token is screened for a card number only: its letters, digits and
            # separators read, by chance, as an expiry ("05-27") or a code ("cid1234") now
            # and then, and a good card would then be refused as a security event.
            continue
        if _EXPIRY.search(text):
            return "an expiry date"
        if _CVV_WORDS.search(text):
            return "a security code"
        if (
            is_string
            and key is not None
            and key not in short_code_keys
            and _SHORT_CODE.fullmatch(text.strip())
        ):
            return "a security code"
        if key not in opaque_keys:
            spread.append(_NON_DIGIT.sub("", text))
    joined = "".join(spread)
    if len(joined) > _MAX_SPREAD_DIGITS:
        return f"{len(joined)} digits spread over its fields, which may hold a card number"
    if len(joined) >= MIN_PAN and _luhn_window(joined):
        return "a card number split across fields"
    return None


def hide_card_numbers(text: str, marker: str = "[card number]") -> str:
    """`text` normalised, with every card number (any spelling) replaced by `marker`: for
    text about to be logged, where not even the first digits are needed.

    A run of digit groups may hold a number beside other digits ("line 38: 5500 0000 …"), so
    every stretch of whole groups with 12 to 19 digits is checked, the longest first.
    """

    def replace(match: re.Match[str]) -> str:
        run = match.group(0)
        groups = [(g.start(), g.end()) for g in _GROUP.finditer(run)]
        spans: list[tuple[int, int]] = []
        i = 0
        while i < len(groups):
            for j in range(len(groups) - 1, i - 1, -1):
                if not _written_as_one_number(run, groups[i : j + 1]):
                    continue
                digits = "".join(run[a:b] for a, b in groups[i : j + 1])
                if MIN_PAN <= len(digits) <= MAX_PAN and luhn_valid(digits):
                    spans.append((groups[i][0], groups[j][1]))
                    i = j
                    break
            i += 1
        for a, b in reversed(spans):
            run = run[:a] + marker + run[b:]
        return run

    return _DIGIT_RUN.sub(replace, normalise(text))


_GROUP = re.compile(r"[0-9]+")


def _written_as_one_number(run: str, groups: list[tuple[int, int]]) -> bool:
    """Groups a person writes one number in: the same separator throughout and groups of at
    least three digits but the last ("5500 0000 0000 0004", "3782-822463-10005"), unlike a
    time or a list of small numbers ("11-23 07:52:11,474")."""
    if len(groups) == 1:
        return True
    separators = {run[groups[k][1] : groups[k + 1][0]] for k in range(len(groups) - 1)}
    return len(separators) == 1 and all(b - a >= 3 for a, b in groups[:-1])


# -- masking (bytes at the inbox's door) ---------------------------------------------------------

# One digit as a JSON body may write it: ASCII, a `\u003N` escape, or a fullwidth digit.
_B_DIGIT = rb"(?:[0-9]|\\u003[0-9]|\xef\xbc[\x90-\x99])"
_B_SEP = rb"(?:[ \-._/]|\xc2\xa0|\\u00[aA]0|\\u0020)"
# A number standing alone: not glued to letters or digits, nor joined to them by a dash, dot,
# underscore or slash (the digit groups of a UUID such as "…820a-4965-4123-8746-6d92…" are
# part of an identifier, not a card number).
_B_NUMBER = re.compile(
    rb"(?<![0-9A-Za-z])(?<![0-9A-Za-z][\-._/])"
    + _B_DIGIT
    + rb"(?:"
    + _B_SEP
    + rb"{0,2}"
    + _B_DIGIT
    + rb"){11,18}(?![\-._/]?[0-9A-Za-z])"
)
_B_ONE_DIGIT = re.compile(_B_DIGIT)
# Every byte a match of _B_NUMBER can hold, and a stretch that can hold one: it starts where a
# digit can (an ASCII digit, a `\u` escape, a fullwidth digit's lead byte) and has room for
# twelve digits. A match lies inside one such stretch, so the costly pattern (lookbehinds at
# every position, no literal to skip to) runs only over these few stretches of a body; the
# lookarounds still see the bytes around them.
_B_NUMBER_BYTES = rb"[0-9\\uaA\xef\xbc\x90-\x99 \-._/\xc2\xa0]"
_B_STRETCH = re.compile(rb"[0-9\\\xef]" + _B_NUMBER_BYTES + rb"{11,}")
MASK = b"*"
# Masking keeps what the store holds readable: only what can be a card number is masked (13 to
# 19 digits, an issuer's first digit 2-6, the Luhn check), so the millisecond timestamps and
# most document numbers of a notification stay as they came.
MIN_STORED_PAN = 13
_CARD_FIRST_DIGITS = frozenset("23456")
_NOT_DIGITS = bytes(b for b in range(256) if not 0x30 <= b <= 0x39)


def _digit_value(token: bytes) -> str:
    if len(token) == 1:
        return token.decode()
    if token.startswith(b"\\u"):
        return token[-1:].decode()
    return str(token[2] - 0x90)


def _digit_tokens_at_most(body: bytes) -> int:
    """An upper bound of the digits `body` writes in any spelling: its ASCII digits, plus one
    for each fullwidth digit's lead bytes (a `\\u003N` escape already counts its own)."""
    return len(body.translate(None, _NOT_DIGITS)) + body.count(b"\xef\xbc")


def _could_be_card(digits: str) -> bool:
    return (
        MIN_STORED_PAN <= len(digits) <= MAX_PAN
        and digits[0] in _CARD_FIRST_DIGITS
        and luhn_valid(digits)
    )


def mask_card_numbers(body: bytes, *, json_text: bool = True) -> tuple[bytes, int]:
    """`body` with every Luhn-valid card number masked (first six and last four kept), and how
    many were masked. Works on the bytes, so a body that is not JSON is masked as well; inside a
    JSON string the masked number stays a valid string, and a bare JSON number becomes one.
    """
    count = 0
    if _digit_tokens_at_most(body) < MIN_STORED_PAN:
        # Too few digits in all of it to write one card number: the regex need not scan it.
        return body, 0

    def replace(match: re.Match[bytes]) -> bytes:
        nonlocal count
        text = match.group(0)
        if text.isdigit():
            # The usual case (a document or an id written in plain ASCII digits): the Luhn
            # check decides before any token is looked at.
            digits = text.decode()
            if not _could_be_card(digits):
                return text
            tokens = list(_B_ONE_DIGIT.finditer(text))
        else:
            tokens = list(_B_ONE_DIGIT.finditer(text))
            digits = "".join(_digit_value(t.group(0)) for t in tokens)
            if not _could_be_card(digits):
                return text
        count += 1
        keep = set(range(6)) | set(range(len(tokens) - 4, len(tokens)))
        out = bytearray()
        last = 0
        for i, token in enumerate(tokens):
            out += text[last : token.start()]
            out += token.group(0) if i in keep else MASK
            last = token.end()
        out += text[last:]
        masked = bytes(out)
        if json_text and not _inside_string(body, match.start()):
            masked = b'"' + masked + b'"'
        return masked

    parts: list[bytes] = []
    done = 0
    for match in _number_matches(body):
        parts.append(body[done : match.start()])
        parts.append(replace(match))
        done = match.end()
    if not parts:
        return body, 0
    parts.append(body[done:])
    return b"".join(parts), count


def _number_matches(body: bytes) -> Iterator[re.Match[bytes]]:
    """The matches of _B_NUMBER in `body`, as a scan of the whole body finds them."""
    for stretch in _B_STRETCH.finditer(body):
        # A lookbehind reads the bytes before `pos`; a lookahead reads at most two bytes past a
        # match, which ends inside the stretch.
        yield from _B_NUMBER.finditer(body, stretch.start(), stretch.end() + 2)


def _inside_string(body: bytes, position: int) -> bool:
    """Whether `position` of a JSON text falls inside a string (quotes before it are odd)."""
    inside = False
    escaped = False
    for byte in body[:position]:
        if escaped:
            escaped = False
        elif byte == 0x5C and inside:
            escaped = True
        elif byte == 0x22:
            inside = not inside
    return inside


def mask_text(text: str) -> str:
    """`text` with every card number masked, for a value about to be stored or logged."""
    masked, count = mask_card_numbers(text.encode("utf-8", "surrogatepass"), json_text=False)
    return masked.decode("utf-8", "surrogatepass") if count else text


__all__ = [
    "CARD_DATA_KEYS",
    "MASK",
    "card_number_in",
    "find_card_data",
    "fold_key",
    "hide_card_numbers",
    "mask_card_numbers",
    "mask_text",
    "normalise",
]
