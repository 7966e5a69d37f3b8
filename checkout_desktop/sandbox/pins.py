"""A certificate's key pin, expiry and DNS names, read from its DER bytes without `cryptography`.

The terminal decides Chromium's flags for the built-in sandbox at the very start of a run,
before it has loaded anything heavy; the pin of the certificate the sandbox will serve (kept in
a folder by `certs.load_or_create`) is all it needs from that certificate. Checking whether a
kept certificate can be reused needs its expiry and names too. Reading these few fields of an
X.509 structure takes a few lines of DER; the cryptography package costs ~25 ms and ~7 MB to
load, in the terminal and in the sandbox process alike.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import logging
import ssl
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

CERT_FILE = "sdk-backend-cert.pem"
KEY_FILE = "sdk-backend-key.pem"
RENEW_MARGIN = dt.timedelta(days=7)
"""A kept certificate is replaced when it has less than this left, so a long run never
outlives it."""

_SEQUENCE = 0x30
_VERSION = 0xA0
_EXTENSIONS = 0xA3
_OID = 0x06
_OCTET_STRING = 0x04
_DNS_NAME = 0x82
_UTC_TIME = 0x17
_GENERALIZED_TIME = 0x18
_SUBJECT_ALT_NAME = bytes([0x55, 0x1D, 0x11])  # 2.5.29.17


@dataclass(frozen=True)
class CertificateFacts:
    spki_sha256_b64: str
    """Base64 SHA-256 of the SubjectPublicKeyInfo: what Chromium's
    --ignore-certificate-errors-spki-list takes."""
    not_after: dt.datetime
    dns_names: tuple[str, ...]
    """The DNS names of the subjectAltName extension."""


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


def certificate_facts(cert_pem: bytes) -> CertificateFacts:
    """The key pin, the end of validity and the DNS names of a PEM certificate."""
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
    # serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, then optional
    # unique ids and [3] extensions
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
    names: tuple[str, ...] = ()
    for field_tag, _, content, field_end in fields[6:]:
        if field_tag == _EXTENSIONS:
            names = _dns_names(der, content, field_end)
    return CertificateFacts(spki_sha256_b64=pin, not_after=not_after, dns_names=names)


def _dns_names(der: bytes, start: int, end: int) -> tuple[str, ...]:
    """The dNSName entries of the subjectAltName among the extensions in [start, end)."""
    wrapper = _children(der, start, end)
    if len(wrapper) != 1 or wrapper[0][0] != _SEQUENCE:
        raise CertificateFormatError("the extensions are not one sequence")
    _, _, list_start, list_end = wrapper[0]
    for tag, _, content, item_end in _children(der, list_start, list_end):
        if tag != _SEQUENCE:
            raise CertificateFormatError("an extension is not a sequence")
        parts = _children(der, content, item_end)
        if len(parts) < 2 or parts[0][0] != _OID or parts[-1][0] != _OCTET_STRING:
            raise CertificateFormatError("an extension lacks its id or value")
        if der[parts[0][2] : parts[0][3]] != _SUBJECT_ALT_NAME:
            continue
        _, _, value_start, value_end = parts[-1]
        names_tag, names_start, names_end = _item(der, value_start)
        if names_tag != _SEQUENCE or names_end != value_end:
            raise CertificateFormatError("the subjectAltName is not one sequence")
        return tuple(
            der[name_start:name_end].decode("ascii", errors="replace")
            for name_tag, _, name_start, name_end in _children(der, names_start, names_end)
            if name_tag == _DNS_NAME
        )
    return ()


def usable_for(facts: CertificateFacts, host: str, *, now: dt.datetime | None = None) -> bool:
    """The certificate names `host` and has more than RENEW_MARGIN left."""
    moment = now if now is not None else dt.datetime.now(dt.UTC)
    return host in facts.dns_names and facts.not_after - moment > RENEW_MARGIN


def kept_pin(folder: Path, host: str, *, now: dt.datetime | None = None) -> str | None:
    """The pin of the certificate kept in `folder` for `host`, or None when it would be replaced.

    None when the certificate or its key is missing or unreadable, names another host, or is
    within RENEW_MARGIN of its end: `certs.load_or_create` then makes a new one, whose pin is
    not known beforehand.
    """
    try:
        cert_pem = (folder / CERT_FILE).read_bytes()
        if not (folder / KEY_FILE).is_file():
            return None
        facts = certificate_facts(cert_pem)
    except (OSError, CertificateFormatError) as exc:
        logger.info("the kept certificate in %s cannot be read (%s)", folder, exc)
        return None
    return facts.spki_sha256_b64 if usable_for(facts, host, now=now) else None
