"""A kept certificate's key pin and expiry, read from its DER bytes without `cryptography`.

The terminal decides Chromium's flags for the built-in sandbox at the very start of a run,
before it has loaded anything heavy; the pin of the certificate the sandbox will serve (kept in
a folder by `certs.load_or_create`) is all it needs from that certificate. Reading two fields
of an X.509 structure takes a few lines of DER; the cryptography package costs ~25 ms to load.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import logging
import ssl
from pathlib import Path

logger = logging.getLogger(__name__)

CERT_FILE = "sdk-backend-cert.pem"
KEY_FILE = "sdk-backend-key.pem"
RENEW_MARGIN = dt.timedelta(days=7)
"""A kept certificate is replaced when it has less than this left, so a long run never
outlives it."""

_SEQUENCE = 0x30
_VERSION = 0xA0
_UTC_TIME = 0x17
_GENERALIZED_TIME = 0x18


class CertificateFormatError(ValueError):
    """The bytes are not the X.509 certificate structure expected; the message says where."""


def _item(der: bytes, offset: int) -> tuple[int, int, int]:
    """(tag, start of the contents, end) of the DER item at `offset`."""
    if offset + 2 > len(der):
        raise CertificateFormatError(f"truncated at byte {offset}")
    tag = der[offset]
    first = der[offset + 1]
    start = offset + 2
    if first < 0x80:
        length = first
    else:
        count = first & 0x7F
        if not 1 <= count <= 4 or start + count > len(der):
            raise CertificateFormatError(f"bad length at byte {offset}")
        length = int.from_bytes(der[start : start + count], "big")
        start += count
    end = start + length
    if end > len(der):
        raise CertificateFormatError(f"an item at byte {offset} runs past the end")
    return tag, start, end


def _children(der: bytes, start: int, end: int) -> list[tuple[int, int, int, int]]:
    """(tag, offset, contents start, end) of each item inside [start, end)."""
    items = []
    offset = start
    while offset < end:
        tag, content, item_end = _item(der, offset)
        items.append((tag, offset, content, item_end))
        offset = item_end
    return items


def _time(tag: int, text: bytes) -> dt.datetime:
    value = text.decode("ascii")
    if not value.endswith("Z"):
        raise CertificateFormatError("a validity time is not in UTC")
    if tag == _UTC_TIME:
        # RFC 5280: two-digit years 50-99 are 19xx, 00-49 are 20xx.
        year = int(value[:2])
        value = f"{1900 + year if year >= 50 else 2000 + year}{value[2:]}"
    elif tag != _GENERALIZED_TIME:
        raise CertificateFormatError(f"a validity time has tag {tag:#x}")
    try:
        return dt.datetime.strptime(value, "%Y%m%d%H%M%SZ").replace(tzinfo=dt.UTC)
    except ValueError:
        raise CertificateFormatError(f"a validity time reads {value!r}") from None


def certificate_facts(cert_pem: bytes) -> tuple[str, dt.datetime]:
    """(base64 SHA-256 of the SubjectPublicKeyInfo, end of validity) of a PEM certificate.

    The first is what Chromium's --ignore-certificate-errors-spki-list takes.
    """
    try:
        der = ssl.PEM_cert_to_DER_cert(cert_pem.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise CertificateFormatError("not a PEM certificate") from None
    tag, start, end = _item(der, 0)
    if tag != _SEQUENCE:
        raise CertificateFormatError("the certificate is not a sequence")
    parts = _children(der, start, end)
    if not parts or parts[0][0] != _SEQUENCE:
        raise CertificateFormatError("no to-be-signed part")
    _, _, tbs_start, tbs_end = parts[0]
    fields = _children(der, tbs_start, tbs_end)
    if fields and fields[0][0] == _VERSION:
        fields = fields[1:]
    # serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
    if len(fields) < 6 or any(f[0] != _SEQUENCE for f in fields[1:6]):
        raise CertificateFormatError("the to-be-signed part lacks its first six fields")
    _, _, validity_start, validity_end = fields[3]
    times = _children(der, validity_start, validity_end)
    if len(times) != 2:
        raise CertificateFormatError("the validity holds no start and end")
    not_after_tag, _, not_after_start, not_after_end = times[1]
    not_after = _time(not_after_tag, der[not_after_start:not_after_end])
    _, spki_offset, _, spki_end = fields[5]
    pin = base64.b64encode(hashlib.sha256(der[spki_offset:spki_end]).digest()).decode("ascii")
    return pin, not_after


def kept_pin(folder: Path, *, now: dt.datetime | None = None) -> str | None:
    """The pin of the certificate kept in `folder`, or None when it would be replaced.

    None when the certificate or its key is missing, unreadable, or within RENEW_MARGIN of
    its end: `certs.load_or_create` then makes a new one, whose pin is not known beforehand.
    """
    try:
        cert_pem = (folder / CERT_FILE).read_bytes()
        if not (folder / KEY_FILE).is_file():
            return None
        pin, not_after = certificate_facts(cert_pem)
    except (OSError, CertificateFormatError) as exc:
        logger.info("the kept certificate in %s cannot be read (%s)", folder, exc)
        return None
    moment = now if now is not None else dt.datetime.now(dt.UTC)
    if not_after - moment <= RENEW_MARGIN:
        return None
    return pin
