"""The key pin and expiry of a kept certificate, read without cryptography, match cryptography."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

import pytest
from cryptography import x509

from checkout_desktop.sandbox import SDK_HOST, certs
from checkout_desktop.sandbox.pins import (
    CERT_FILE,
    KEY_FILE,
    RENEW_MARGIN,
    CertificateFormatError,
    certificate_facts,
    kept_pin,
)

logger = logging.getLogger(__name__)


@pytest.mark.parametrize(
    "validity",
    [
        certs.EPHEMERAL_VALIDITY,
        certs.PERSISTENT_VALIDITY,
        # Past 2049 the end is a GeneralizedTime, not a UTCTime.
        dt.timedelta(days=365 * 40),
    ],
)
def test_the_facts_are_the_ones_cryptography_reads(validity: dt.timedelta) -> None:
    certificate = certs.generate(SDK_HOST, validity)
    pin, not_after = certificate_facts(certificate.cert_pem)
    assert pin == certificate.spki_sha256_b64
    parsed = x509.load_pem_x509_certificate(certificate.cert_pem)
    assert not_after == parsed.not_valid_after_utc


def test_the_kept_pin_is_the_one_load_or_create_serves(tmp_path: Path) -> None:
    kept = certs.load_or_create(tmp_path, SDK_HOST)
    assert kept_pin(tmp_path) == kept.spki_sha256_b64
    assert certs.load_or_create(tmp_path, SDK_HOST).spki_sha256_b64 == kept.spki_sha256_b64


def test_no_pin_for_a_certificate_that_would_be_renewed(tmp_path: Path) -> None:
    kept = certs.load_or_create(tmp_path, SDK_HOST)
    _, not_after = certificate_facts(kept.cert_pem)
    assert kept_pin(tmp_path, now=not_after - RENEW_MARGIN - dt.timedelta(minutes=1))
    assert kept_pin(tmp_path, now=not_after - RENEW_MARGIN) is None


def test_no_pin_without_the_key_or_the_certificate(tmp_path: Path) -> None:
    assert kept_pin(tmp_path) is None
    certs.load_or_create(tmp_path, SDK_HOST)
    (tmp_path / KEY_FILE).unlink()
    assert kept_pin(tmp_path) is None


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"not a certificate",
        b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        b"-----BEGIN CERTIFICATE-----\nMIIBAAo=\n-----END CERTIFICATE-----\n",
        b"\xff\xfe",
    ],
)
def test_garbage_is_refused_with_a_message(tmp_path: Path, text: bytes) -> None:
    with pytest.raises(CertificateFormatError):
        certificate_facts(text)
    (tmp_path / CERT_FILE).write_bytes(text)
    (tmp_path / KEY_FILE).write_bytes(b"key")
    assert kept_pin(tmp_path) is None
