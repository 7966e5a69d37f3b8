"""The TLS certificate of the sandbox's SDK backend, issued for the host the SDK build calls.

The terminal's webhook listener uses the same kind of kept certificate for https://localhost.
The cryptography package is loaded only to issue a certificate: reusing a kept one reads it
with `pins` and checks its key with the ssl module (cryptography costs ~25 ms and ~7 MB).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import ssl
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from checkout_desktop.sandbox.pins import (
    CERT_FILE,
    KEY_FILE,
    RENEW_MARGIN,
    CertificateFormatError,
    certificate_facts,
    usable_for,
)

if TYPE_CHECKING:
    from cryptography import x509

logger = logging.getLogger(__name__)

__all__ = [
    "CERT_FILE",
    "EPHEMERAL_VALIDITY",
    "KEY_FILE",
    "PERSISTENT_VALIDITY",
    "RENEW_MARGIN",
    "CertificateError",
    "SdkCertificate",
    "generate",
    "load_or_create",
    "usable_kept_certificate",
]

EPHEMERAL_VALIDITY = dt.timedelta(days=2)
PERSISTENT_VALIDITY = dt.timedelta(days=90)


class CertificateError(RuntimeError):
    """The sandbox could not create or load its SDK-backend certificate."""


@dataclass(frozen=True)
class SdkCertificate:
    """A leaf certificate and its key, both PEM; the key never leaves memory unless persisted."""

    host: str
    cert_pem: bytes
    key_pem: bytes

    @property
    def certificate(self) -> x509.Certificate:
        from cryptography import x509

        return x509.load_pem_x509_certificate(self.cert_pem)

    @property
    def spki_sha256_b64(self) -> str:
        """Base64 SHA-256 of the SubjectPublicKeyInfo: what Chromium's SPKI allow-list wants."""
        return certificate_facts(self.cert_pem).spki_sha256_b64

    def server_context(self) -> ssl.SSLContext:
        """A server-side TLS context; the key passes through a 0600 file deleted at once.

        Python's ssl module loads keys only from files, so the key is written to a private
        temporary folder, loaded, and removed before this function returns. No client
        certificate is asked for, so no authority bundle is loaded (create_default_context
        would parse the system's, ~20 ms, for nothing).
        """
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        with tempfile.TemporaryDirectory(prefix="checkout-sandbox-tls-") as folder:
            os.chmod(folder, 0o700)
            cert_path = Path(folder) / CERT_FILE
            key_path = Path(folder) / KEY_FILE
            cert_path.write_bytes(self.cert_pem)
            fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(self.key_pem)
            context.load_cert_chain(cert_path, key_path)
        return context

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts exactly this certificate (for tests and tools)."""
        context = ssl.create_default_context(cadata=self.cert_pem.decode("ascii"))
        return context


def generate(host: str, validity: dt.timedelta = EPHEMERAL_VALIDITY) -> SdkCertificate:
    """A self-signed EC P-256 certificate with SAN DNS:<host>."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, host),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "checkout-desktop sandbox"),
        ]
    )
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + validity)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        # CA=true lets a client use the self-signed leaf directly as its trust anchor.
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return SdkCertificate(
        host=host,
        cert_pem=cert.public_bytes(serialization.Encoding.PEM),
        key_pem=key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


def usable_kept_certificate(folder: Path, host: str) -> SdkCertificate | None:
    """The certificate kept in `folder` if `load_or_create` would reuse it as it is, else None.

    Reused when it names `host`, has more than RENEW_MARGIN left, and its key loads with it.
    """
    cert_path = folder / CERT_FILE
    key_path = folder / KEY_FILE
    try:
        cert_pem = cert_path.read_bytes()
        key_pem = key_path.read_bytes()
        facts = certificate_facts(cert_pem)
    except (OSError, CertificateFormatError):
        return None
    if not usable_for(facts, host):
        return None
    kept = SdkCertificate(host=host, cert_pem=cert_pem, key_pem=key_pem)
    try:
        kept.server_context()
    except (ssl.SSLError, ValueError):
        logger.warning(
            "the key in %s does not load with its certificate; a new one is needed", folder
        )
        return None
    return kept


def load_or_create(folder: Path, host: str) -> SdkCertificate:
    """Reuse the certificate kept in `folder` (so the SPKI pin stays the same across runs).

    A missing, foreign-host or nearly expired certificate is replaced. The key file is 0600.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise CertificateError(f"cannot create the certificate folder {folder}: {exc}") from None
    kept = usable_kept_certificate(folder, host)
    if kept is not None:
        return kept
    cert_path = folder / CERT_FILE
    key_path = folder / KEY_FILE
    if cert_path.is_file() or key_path.is_file():
        logger.info("the certificate in %s is not usable for %s; issuing a new one", folder, host)
    fresh = generate(host, PERSISTENT_VALIDITY)
    key_path.unlink(missing_ok=True)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(fresh.key_pem)
    cert_path.write_bytes(fresh.cert_pem)
    return fresh
