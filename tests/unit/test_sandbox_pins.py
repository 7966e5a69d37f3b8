"""A certificate's pin, expiry and names, read without cryptography, match cryptography's."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import ipaddress
import logging
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

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
    facts = certificate_facts(certificate.cert_pem)
    parsed = x509.load_pem_x509_certificate(certificate.cert_pem)
    spki = parsed.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert facts.spki_sha256_b64 == base64.b64encode(hashlib.sha256(spki).digest()).decode()
    assert facts.not_after == parsed.not_valid_after_utc
    assert facts.dns_names == (SDK_HOST,)


def test_every_dns_name_of_the_alternative_names_is_read() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "several")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.DNSName("other.example"),
                ]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    facts = certificate_facts(cert.public_bytes(serialization.Encoding.PEM))
    assert facts.dns_names == ("localhost", "other.example")
    bare = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=30))
        .sign(key, hashes.SHA256())
    )
    assert certificate_facts(bare.public_bytes(serialization.Encoding.PEM)).dns_names == ()


def test_the_kept_pin_is_the_one_load_or_create_serves(tmp_path: Path) -> None:
    kept = certs.load_or_create(tmp_path, SDK_HOST)
    assert kept_pin(tmp_path, SDK_HOST) == kept.spki_sha256_b64
    assert certs.load_or_create(tmp_path, SDK_HOST).spki_sha256_b64 == kept.spki_sha256_b64
    # Another host's certificate would be replaced: no pin to tell.
    assert kept_pin(tmp_path, "other.example") is None


def test_no_pin_for_a_certificate_that_would_be_renewed(tmp_path: Path) -> None:
    kept = certs.load_or_create(tmp_path, SDK_HOST)
    not_after = certificate_facts(kept.cert_pem).not_after
    early = not_after - RENEW_MARGIN - dt.timedelta(minutes=1)
    assert kept_pin(tmp_path, SDK_HOST, now=early) == kept.spki_sha256_b64
    assert kept_pin(tmp_path, SDK_HOST, now=not_after - RENEW_MARGIN) is None


def test_no_pin_without_the_key_or_the_certificate(tmp_path: Path) -> None:
    assert kept_pin(tmp_path, SDK_HOST) is None
    certs.load_or_create(tmp_path, SDK_HOST)
    (tmp_path / KEY_FILE).unlink()
    assert kept_pin(tmp_path, SDK_HOST) is None


def test_a_key_that_does_not_fit_its_certificate_is_replaced(tmp_path: Path) -> None:
    first = certs.load_or_create(tmp_path, SDK_HOST)
    (tmp_path / KEY_FILE).write_bytes(certs.generate(SDK_HOST).key_pem)
    assert certs.usable_kept_certificate(tmp_path, SDK_HOST) is None
    renewed = certs.load_or_create(tmp_path, SDK_HOST)
    assert renewed.spki_sha256_b64 != first.spki_sha256_b64
    assert certs.usable_kept_certificate(tmp_path, SDK_HOST) == renewed


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
    assert kept_pin(tmp_path, SDK_HOST) is None
