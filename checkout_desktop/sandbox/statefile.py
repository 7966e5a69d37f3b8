"""The sandbox's charges on disk (`--state-file`): after a restart it still knows them.

The terminal starts a new sandbox at each launch. Held in memory only, yesterday's training
sale would be unknown to the next one: its refund or query would get "no such charge", and a
charge whose reply was lost in a crash could not be settled by asking, as it can at the real
service, which remembers its charges. So this file keeps the card charges (their transactions
and the masked card record each carries: never a full number, CVV or expiry) and the wallet
and PIX charges. Access tokens, unused card tokens, 3DS sessions in progress and the
notification and delivery logs are not kept: a restart ends them, as a new session at the
service would.

The whole file is rewritten after each change (`SandboxServer.save_if_changed` says when),
atomically: a temporary file in the same folder, flushed and synced, then renamed over the old
one, so a crash at any moment leaves either the old file or the new one. Only the charges that
changed are encoded again (each charge's JSON is kept between saves, by its `revision`):
encoding 5,000 charges would take a tenth of a second at every change. At most
`max_charges` are kept (5,000 by default, `SandboxConfig.state_max_charges`); beyond that the
oldest go, from memory too. A file that
cannot be used is moved aside to `<name>.broken` and the sandbox starts with no charges: a
simulator must always start.
"""

from __future__ import annotations

import contextlib
import enum
import heapq
import json
import logging
import os
import re
import secrets
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from checkout_desktop.domain.enums import CardBrand, ChargeStatus, TransactionStatus
from checkout_desktop.sandbox.cards import CardBehaviour
from checkout_desktop.sandbox.qr import QrCharge
from checkout_desktop.sandbox.state import (
    CardToken,
    SandboxCharge,
    SandboxTransaction,
    ThreeDsResult,
    Tracked,
    charge_changes,
)

if TYPE_CHECKING:
    from checkout_desktop.sandbox.state import SandboxState

logger = logging.getLogger(__name__)

STATE_VERSION = 1
_INSTANCE = re.compile(r"[0-9a-f]{6,32}")
BROKEN_SUFFIX = ".broken"
TEMPORARY_SUFFIX = ".tmp"
LOCK_SUFFIX = ".lock"

_E = TypeVar("_E", bound=enum.Enum)
_MISSING = object()


def new_instance() -> str:
    """A short id telling one sandbox (with its kept charges) from another."""
    return secrets.token_hex(6)


class StateFileError(ValueError):
    """Why a state file's content cannot be used; the message never quotes the content."""


class StateFile:
    """One sandbox's state file: loaded at start, saved after each change of a charge."""

    def __init__(self, path: str | Path, *, max_charges: int) -> None:
        self.path = Path(path)
        self.max_charges = max_charges
        self.instance = ""
        """The file's instance id, set by `load` (a new one when the file is new or unusable)."""
        self._saved_changes: int | None = None
        """`charge_changes()` when the charges were last written (or tried); None: never."""
        self._encoded: dict[str, tuple[Tracked, int, bytes]] = {}
        """Each charge's JSON as last written, by merchantChargeId, with the charge and the
        revision it was encoded at."""
        self._usable = True
        """False when an unusable file could not be moved aside, or another sandbox holds the
        file: it is then left alone."""
        self._warned = False
        self._lock_fd: int | None = None

    # -- one sandbox at a time -----------------------------------------------------------------

    def hold(self) -> bool:
        """Take the file's lock (a sibling `.lock` file), so one sandbox at a time keeps its
        charges in it: a second one started on the same folder (a `doctor` or a self-test
        while the terminal runs) would otherwise overwrite the first one's charges with its own.
        False when another process holds it. Released by `release` or at the process's exit.
        Where the system has no such lock (not POSIX), every sandbox gets it."""
        if self._lock_fd is not None:
            return True
        try:
            import fcntl
        except ImportError:
            return True
        lock = self.path.with_name(self.path.name + LOCK_SUFFIX)
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return True  # an unwritable folder: the first save says so
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def release(self) -> None:
        """Let another sandbox take the file (this one is stopping)."""
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor releases its lock

    # -- start -------------------------------------------------------------------------------

    def load(self, state: SandboxState) -> None:
        """Put the file's charges into `state` and take its instance id; never raises.

        A missing file starts a new one at once (so the new instance id is kept); an unusable
        one is moved aside first.
        """
        started = time.perf_counter()
        if not self.hold():
            logger.warning(
                "sandbox state file %s is kept by another sandbox running on the same folder; "
                "this one starts with no charges and keeps its own in memory only",
                self.path,
            )
            self._usable = False
            self.instance = new_instance()
            return
        problem = None
        try:
            raw = self.path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            # No file yet (its folder may not exist yet either: the first save makes it).
            raw = None
        except OSError as exc:
            raw = None
            problem = f"it cannot be read: {exc.strerror or type(exc).__name__}"
        if raw is not None:
            try:
                instance, charges, qr = decode(raw)
            except StateFileError as exc:
                problem = str(exc)
            else:
                self.instance = instance
                state.charges.update((c.merchant_charge_id, c) for c in charges)
                state.qr_charges.update((c.merchant_charge_id, c) for c in qr)
                dropped = self._bound(state)
                self._saved_changes = None if dropped else charge_changes()
                logger.info(
                    "sandbox state file %s: %d card and %d QR charge(s) loaded in %.1f ms",
                    self.path,
                    len(state.charges),
                    len(state.qr_charges),
                    (time.perf_counter() - started) * 1000,
                )
                self.save_if_changed(state)
                return
        if problem is not None:
            self._set_aside(problem)
        self.instance = new_instance()
        self.save(state)

    def _set_aside(self, problem: str) -> None:
        broken = self.path.with_name(self.path.name + BROKEN_SUFFIX)
        try:
            os.replace(self.path, broken)
        except OSError as exc:
            logger.warning(
                "sandbox state file %s cannot be used (%s) nor moved aside (%s); the sandbox "
                "starts with no charges and keeps them in memory only",
                self.path,
                problem,
                exc.strerror or type(exc).__name__,
            )
            self._usable = False
            return
        logger.warning(
            "sandbox state file %s cannot be used (%s); it was moved to %s and the sandbox "
            "starts with no charges",
            self.path,
            problem,
            broken.name,
        )

    # -- saving ------------------------------------------------------------------------------

    def save_if_changed(self, state: SandboxState) -> None:
        """Write the charges if any changed since the last write (a cheap check otherwise)."""
        if charge_changes() != self._saved_changes:
            self.save(state)

    def save(self, state: SandboxState) -> None:
        """Write every charge now (after dropping the oldest beyond the bound).

        A folder that cannot be written is warned about once; the sandbox goes on in memory
        and tries again at the next change.
        """
        self._saved_changes = charge_changes()
        self._bound(state)
        if not self._usable:
            return
        data = self._encode(state)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, data)
        except OSError as exc:
            if not self._warned:
                self._warned = True
                logger.warning(
                    "cannot write the sandbox state file %s (%s); its charges are kept in "
                    "memory only until it can be written",
                    self.path,
                    exc.strerror or type(exc).__name__,
                )
            else:
                logger.debug("sandbox state file %s still not writable", self.path)

    def _encode(self, state: SandboxState) -> bytes:
        """The whole file, re-encoding only the charges changed since they were last encoded."""
        before = self._encoded
        after: dict[str, tuple[Tracked, int, bytes]] = {}
        cards: list[bytes] = []
        for key, charge in state.charges.items():
            revision = charge.last_revision
            kept = before.get(key)
            if kept is None or kept[1] != revision or kept[0] is not charge:
                kept = (charge, revision, _dumps(_charge_json(charge)))
            after[key] = kept
            cards.append(kept[2])
        qrs: list[bytes] = []
        for key, qr in state.qr_charges.items():
            kept = before.get(key)
            if kept is None or kept[1] != qr.revision or kept[0] is not qr:
                kept = (qr, qr.revision, _dumps(_qr_json(qr)))
            after[key] = kept
            qrs.append(kept[2])
        self._encoded = after
        head = b'{"version":%d,"instance":%s,\n"charges":[\n' % (
            STATE_VERSION,
            _dumps(self.instance),
        )
        # One charge a line: the file stays readable, and greppable, by a person.
        return b"".join(
            (head, b",\n".join(cards), b'],\n"qr_charges":[\n', b",\n".join(qrs), b"]}\n")
        )

    def _bound(self, state: SandboxState) -> int:
        """Drop the oldest charges beyond `max_charges`; how many went."""
        excess = len(state.charges) + len(state.qr_charges) - self.max_charges
        if excess <= 0:
            return 0
        keys: list[tuple[datetime, bool, str]] = [
            (c.created_at, False, key) for key, c in state.charges.items()
        ]
        keys.extend((c.created_at, True, key) for key, c in state.qr_charges.items())
        for _, is_qr, key in heapq.nsmallest(excess, keys):
            if is_qr:
                del state.qr_charges[key]
            else:
                del state.charges[key]
        logger.debug("sandbox state: the %d oldest charge(s) dropped", excess)
        return excess


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path` by `data`: a crash at any moment leaves either the old file or the new."""
    temporary = path.with_name(path.name + TEMPORARY_SUFFIX)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    try:
        # Owner only: the charges name customers.
        with os.fdopen(os.open(temporary, flags, 0o600), "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    if os.name == "posix":
        # The rename itself survives a power cut only once the folder is synced too.
        with contextlib.suppress(OSError):
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)


# ---------------------------------------------------------------------------------------------
# The file's content


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def decode(raw: bytes) -> tuple[str, list[SandboxCharge], list[QrCharge]]:
    """The instance id and the charges of a state file's bytes; StateFileError if unusable."""
    try:
        document = json.loads(raw)
    except UnicodeDecodeError:
        raise StateFileError("it is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise StateFileError(f"it is not JSON (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise StateFileError("it is nested too deeply") from None
    top = _Fields(document, "the file")
    version = top.number("version")
    if version != STATE_VERSION:
        raise StateFileError(f"it is version {version}; this sandbox reads {STATE_VERSION}")
    instance = top.text("instance")
    if not _INSTANCE.fullmatch(instance):
        # It names the sandbox's charges in the terminal's store (`domain/environments.py`).
        raise StateFileError("its instance id is not one a sandbox makes (hexadecimal digits)")
    charges = [_charge(item, f"charges[{i}]") for i, item in enumerate(top.items("charges"))]
    qr = [_qr(item, f"qr_charges[{i}]") for i, item in enumerate(top.items("qr_charges"))]
    ids = [c.merchant_charge_id for c in charges] + [c.merchant_charge_id for c in qr]
    if len(set(ids)) != len(ids):
        raise StateFileError("a merchantChargeId appears twice")
    return instance, charges, qr


def _charge_json(charge: SandboxCharge) -> dict[str, Any]:
    three_ds = charge.three_ds
    return {
        "id": charge.id,
        "merchant_charge_id": charge.merchant_charge_id,
        "status": charge.status.value,
        "late_capture": charge.late_capture,
        "payment_source": charge.payment_source,
        "smart_checkout_id": charge.smart_checkout_id,
        "customer": charge.customer,
        "transactions": [_transaction_json(t) for t in charge.transactions],
        "created_at": charge.created_at.isoformat(),
        "updated_at": charge.updated_at.isoformat(),
        "three_ds": None
        if three_ds is None
        else {
            "status": three_ds.status,
            "pares_status": three_ds.pares_status,
            "eci": three_ds.eci,
        },
    }


def _transaction_json(txn: SandboxTransaction) -> dict[str, Any]:
    card = txn.card
    return {
        "transaction_id": txn.transaction_id,
        "amount": txn.amount,
        "original_amount": txn.original_amount,
        "soft_descriptor": txn.soft_descriptor,
        "installment_number": txn.installment_number,
        "installment_type": txn.installment_type,
        # What the card token kept of the card (all masked). The token itself (single use, spent
        # by this charge), its life and its use are not stored: loaded, the card is only the
        # record of a past transaction.
        "card": {
            "brand": card.brand.value,
            "bin6": card.bin6,
            "last_four": card.last_four,
            "holder_name_masked": card.holder_name_masked,
            "holder_document_masked": card.holder_document_masked,
            "behaviour": card.behaviour.value,
        },
        "status": txn.status.value,
        "created_at": txn.created_at.isoformat(),
        "updated_at": txn.updated_at.isoformat(),
        "nsu": txn.nsu,
        "authorization_code": txn.authorization_code,
        "response_code": txn.response_code,
        "reason_message": txn.reason_message,
        "refunded_amount": txn.refunded_amount,
        "merchant_transaction_id": txn.merchant_transaction_id,
    }


def _qr_json(charge: QrCharge) -> dict[str, Any]:
    return {
        "id": charge.id,
        "merchant_charge_id": charge.merchant_charge_id,
        "kind": charge.kind,
        "amount": charge.amount,
        "customer": charge.customer,
        "soft_descriptor": charge.soft_descriptor,
        "transaction_id": charge.transaction_id,
        "created_at": charge.created_at.isoformat(),
        "updated_at": charge.updated_at.isoformat(),
        "expires_at": charge.expires_at.isoformat(),
        "expiration_s": charge.expiration_s,
        "qr_code": charge.qr_code,
        "qr_image": charge.qr_image,
        "status": charge.status.value,
        "txn_status": charge.txn_status.value,
        "refunded_amount": charge.refunded_amount,
        "end_to_end_id": charge.end_to_end_id,
        "paid_at": None if charge.paid_at is None else charge.paid_at.isoformat(),
        "payment_source": charge.payment_source,
        "refunds": charge.refunds,
    }


def _charge(item: object, where: str) -> SandboxCharge:
    f = _Fields(item, where)
    raw_three_ds = f.value("three_ds")
    three_ds = None
    if raw_three_ds is not None:
        t = _Fields(raw_three_ds, where + ".three_ds")
        three_ds = ThreeDsResult(
            status=t.text("status"), pares_status=t.text("pares_status"), eci=t.text("eci")
        )
    return SandboxCharge(
        id=f.text("id"),
        merchant_charge_id=f.text("merchant_charge_id"),
        status=f.choice(ChargeStatus, "status"),
        late_capture=f.flag("late_capture"),
        payment_source=f.text("payment_source"),
        smart_checkout_id=f.opt_text("smart_checkout_id"),
        customer=f.mapping("customer"),
        transactions=[
            _transaction(t, f"{where}.transactions[{i}]")
            for i, t in enumerate(f.items("transactions"))
        ],
        created_at=f.moment("created_at"),
        updated_at=f.moment("updated_at"),
        three_ds=three_ds,
    )


def _transaction(item: object, where: str) -> SandboxTransaction:
    f = _Fields(item, where)
    c = _Fields(f.value("card"), where + ".card")
    card = CardToken(
        token="",  # spent by this charge, never kept
        brand=c.choice(CardBrand, "brand"),
        bin6=c.text("bin6"),
        last_four=c.text("last_four"),
        holder_name_masked=c.text("holder_name_masked"),
        holder_document_masked=c.text("holder_document_masked"),
        behaviour=c.choice(CardBehaviour, "behaviour"),
        expires_at=float("-inf"),
        used=True,
    )
    return SandboxTransaction(
        transaction_id=f.text("transaction_id"),
        amount=f.number("amount"),
        original_amount=f.number("original_amount"),
        soft_descriptor=f.opt_text("soft_descriptor"),
        installment_number=f.number("installment_number"),
        installment_type=f.text("installment_type"),
        card=card,
        status=f.choice(TransactionStatus, "status"),
        created_at=f.moment("created_at"),
        updated_at=f.moment("updated_at"),
        nsu=f.text("nsu"),
        authorization_code=f.opt_text("authorization_code"),
        response_code=f.text("response_code"),
        reason_message=f.text("reason_message"),
        refunded_amount=f.number("refunded_amount"),
        merchant_transaction_id=f.opt_text("merchant_transaction_id"),
    )


def _qr(item: object, where: str) -> QrCharge:
    f = _Fields(item, where)
    expiration = f.value("expiration_s")
    if expiration is not None and (not isinstance(expiration, int) or isinstance(expiration, bool)):
        raise StateFileError(f"{where}.expiration_s is not a whole number")
    refunds = f.items("refunds")
    if not all(isinstance(r, dict) for r in refunds):
        raise StateFileError(f"{where}.refunds holds something other than objects")
    paid_at = f.value("paid_at")
    return QrCharge(
        id=f.text("id"),
        merchant_charge_id=f.text("merchant_charge_id"),
        kind=f.text("kind"),
        amount=f.number("amount"),
        customer=f.mapping("customer"),
        soft_descriptor=f.opt_text("soft_descriptor"),
        transaction_id=f.text("transaction_id"),
        created_at=f.moment("created_at"),
        updated_at=f.moment("updated_at"),
        expires_at=f.moment("expires_at"),
        expiration_s=expiration,
        qr_code=f.text("qr_code"),
        qr_image=f.text("qr_image"),
        status=f.choice(ChargeStatus, "status"),
        txn_status=f.choice(TransactionStatus, "txn_status"),
        refunded_amount=f.number("refunded_amount"),
        end_to_end_id=f.opt_text("end_to_end_id"),
        paid_at=None if paid_at is None else f.moment("paid_at"),
        payment_source=f.text("payment_source"),
        refunds=refunds,
    )


class _Fields:
    """Typed reads from one object of the file; any surprise is a StateFileError naming where.

    A missing field reads as `_MISSING`, which no check accepts: one dict lookup a field, as
    a full file is tens of thousands of them at start.
    """

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise StateFileError(f"{where} is not an object")
        self.data: dict[str, Any] = data
        self.where = where

    def value(self, key: str) -> Any:
        try:
            return self.data[key]
        except KeyError:
            raise StateFileError(f"{self.where} has no field {key!r}") from None

    def _wrong(self, key: str, what: str) -> StateFileError:
        if key not in self.data:
            return StateFileError(f"{self.where} has no field {key!r}")
        return StateFileError(f"{self.where}.{key} is not {what}")

    def text(self, key: str) -> str:
        value = self.data.get(key, _MISSING)
        if not isinstance(value, str):
            raise self._wrong(key, "text")
        return value

    def opt_text(self, key: str) -> str | None:
        value = self.data.get(key, _MISSING)
        if value is not None and not isinstance(value, str):
            raise self._wrong(key, "text or null")
        return value

    def number(self, key: str) -> int:
        value = self.data.get(key, _MISSING)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._wrong(key, "a whole number")
        return value

    def flag(self, key: str) -> bool:
        value = self.data.get(key, _MISSING)
        if not isinstance(value, bool):
            raise self._wrong(key, "true or false")
        return value

    def moment(self, key: str) -> datetime:
        value = self.text(key)
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise self._wrong(key, "an ISO date and time") from None
        if moment.tzinfo is None:
            raise self._wrong(key, "a date and time with its offset")
        return moment

    def choice(self, kind: type[_E], key: str) -> _E:
        value = self.data.get(key, _MISSING)
        try:
            return kind(value)
        except (TypeError, ValueError):
            raise self._wrong(key, f"a {kind.__name__}") from None

    def mapping(self, key: str) -> dict[str, Any]:
        value = self.data.get(key, _MISSING)
        if not isinstance(value, dict):
            raise self._wrong(key, "an object")
        return value

    def items(self, key: str) -> list[Any]:
        value = self.data.get(key, _MISSING)
        if not isinstance(value, list):
            raise self._wrong(key, "a list")
        return value
