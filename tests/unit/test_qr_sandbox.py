"""The sandbox's QR parts: the BR Code's CRC16, its fields, a real PNG, end-to-end ids."""

from __future__ import annotations

import base64
import logging
from datetime import UTC, datetime

import pytest

from checkout_desktop.sandbox.qr import (
    check_br_code,
    crc16_ccitt,
    end_to_end_id,
    pix_payload,
    qr_image,
)

logger = logging.getLogger(__name__)


def test_the_crc_is_crc16_ccitt_false() -> None:
    # The catalogue's check value for CRC-16/CCITT-FALSE over "123456789".
    assert crc16_ccitt(b"123456789") == 0x29B1


def fields(payload: str) -> dict[str, str]:
    out = {}
    at = 0
    while at < len(payload):
        tag, size = payload[at : at + 2], int(payload[at + 2 : at + 4])
        out[tag] = payload[at + 4 : at + 4 + size]
        at += 4 + size
    return out


def test_a_pix_payload_is_a_br_code_with_the_amount_and_a_valid_crc() -> None:
    payload = pix_payload(
        amount=12345, location="pix.sandbox.invalid/qr/v2/abc", name="LOJA", city="SP"
    )
    assert check_br_code(payload)
    parsed = fields(payload)
    assert parsed["00"] == "01" and parsed["53"] == "986" and parsed["58"] == "BR"
    assert parsed["54"] == "123.45"
    assert fields(parsed["26"])["00"] == "br.gov.bcb.pix"
    # One changed character breaks the check.
    broken = payload.replace("123.45", "123.46")
    assert not check_br_code(broken)


@pytest.mark.parametrize("data_uri", [False, True])
def test_the_qr_image_is_a_png_raw_or_as_a_data_uri(data_uri: bool) -> None:
    image = qr_image("000201test", data_uri=data_uri)
    assert image.startswith("data:image/png;base64,") == data_uri
    raw = image.partition(",")[2] if data_uri else image
    assert base64.b64decode(raw, validate=True).startswith(b"\x89PNG\r\n\x1a\n")


def test_an_end_to_end_id_has_the_pix_shape() -> None:
    value = end_to_end_id(datetime(2026, 3, 1, 12, 34, tzinfo=UTC))
    assert len(value) == 32 and value.startswith("E22896431202603011234")
    assert value.isalnum()
