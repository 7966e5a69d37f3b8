"""The charge state machine: merges API replies, notifications and 3DS results into one state.

Pure functions, no I/O. Every input yields a new state (possibly unchanged) and one timeline
entry saying whether it was applied and why, so a shop can always explain a status.

Ordering rule. Inputs arrive duplicated and out of order (notifications are retried, delayed
and reordered; a query reply can overtake a notification). An input replaces the current
status only if it is *later in the charge's life*:

1. DENIED is final: once a charge is denied nothing moves it, and a denial beats anything.
2. Otherwise the lifecycle stage decides (PENDING < PRE_AUTHORIZED < AUTHORIZED < PAID < PARTIAL
   < REFUNDED/CANCELED < CHARGEBACK < ERROR). Stage comes before time because the times of
   different inputs are not the same kind of clock reading (a reply carries the transaction's
   `updatedAt`, a notification its `eventDate`, which a delayed delivery may set late); a
   late notification of an earlier stage must never undo a refund.
3. Within one stage (two partial refunds, or a status the service has not published) the
   larger refunded amount is the later (it only grows), then the input's `occurred_at`
   decides where both carry one.
4. Equal position: the same state seen again; it may still fill gaps (charge id, amounts).

A charge with a wallet or PIX transaction orders its statuses as a QR's life runs
(`domain/qr_order.py`): expired or cancelled unpaid comes before a payment the service reports
later, so a payment that lands after a cancel is shown and can be refunded.

For any valid lifecycle this order agrees with the real order of events, so every
permutation and duplication of the same inputs ends in the same state (property-tested).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from checkout_desktop.domain.enums import (
    ChargeStatus,
    PaymentType,
    ThreeDsStatus,
    TransactionStatus,
)
from checkout_desktop.domain.qr_order import QR_CHARGE_STAGE, QR_TRANSACTION_STAGE, is_qr_type
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate, TransactionInfo

logger = logging.getLogger(__name__)


class AttemptState(StrEnum):
    """Where one charge attempt stands, as far as the terminal can know."""

    RECORDED = "RECORDED"
    """Committed before sending; whether it reached the service is not known yet."""
    UNKNOWN = "UNKNOWN"
    """Sent without a reply (timeout, lost connection, crash): resolved only by a query."""
    CREATED = "CREATED"
    """The service holds the charge; its status (which may be DENIED) is in the charge."""
    REJECTED = "REJECTED"
    """The service refused the request, or it never left the terminal: no charge exists."""
    NOT_FOUND = "NOT_FOUND"
    """After an unclear outcome, queries found no charge once it could no longer appear."""
    ENDED = "ENDED"
    """A supervisor ended an attempt the service's answers could not settle: the sale is free.
    Whether the service holds a charge is not known; if one appears, it is merged as usual."""


UNRESOLVED_ATTEMPT_STATES = frozenset({AttemptState.RECORDED, AttemptState.UNKNOWN})


class Outcome(StrEnum):
    APPLIED = "applied"
    """The input changed the state."""
    DUPLICATE = "duplicate"
    """The same state seen again; nothing changed."""
    IGNORED = "ignored"
    """The input is older than the state; nothing changed."""


_CHARGE_STAGE: dict[ChargeStatus, int] = {
    ChargeStatus.PENDING: 0,
    ChargeStatus.PRE_AUTHORIZED: 1,
    # A paid wallet QR is reported AUTHORIZED (its transaction CAPTURED) after the unpaid
    # PRE_AUTHORIZED: a later stage, so a stale PRE_AUTHORIZED never turns it back to waiting,
    # whatever the two inputs' clocks say.
    ChargeStatus.AUTHORIZED: 2,
    ChargeStatus.PAID: 3,
    ChargeStatus.PARTIAL: 4,
    ChargeStatus.REFUNDED: 5,
    ChargeStatus.CANCELED: 5,
    ChargeStatus.CHARGEBACK: 6,
    ChargeStatus.ERROR: 7,
    ChargeStatus.DENIED: 8,
}

_TRANSACTION_STAGE: dict[TransactionStatus, int] = {
    TransactionStatus.PENDING: 0,
    TransactionStatus.PRE_AUTHORIZED: 1,
    TransactionStatus.AUTHORIZED: 1,
    TransactionStatus.PAID: 2,
    TransactionStatus.CAPTURED: 2,
    TransactionStatus.PARTIALLY_REFUNDED: 3,
    TransactionStatus.REFUNDED: 4,
    TransactionStatus.CANCELED: 4,
    TransactionStatus.EXPIRED: 4,
    TransactionStatus.CHARGEBACK: 5,
    TransactionStatus.ERROR: 6,
    TransactionStatus.DENIED: 7,
}

_THREE_DS_STAGE: dict[ThreeDsStatus, int] = {
    ThreeDsStatus.CHALLENGED: 0,
    ThreeDsStatus.APPROVED: 1,
    ThreeDsStatus.REJECTED: 1,
}

_UNKNOWN_STAGE = -1
"""A status the service has not published sorts before every known one unless times say
otherwise: it is stored and shown, but never undoes a known later state on a guess."""


def charge_stage(status: ChargeStatus | None, *, qr: bool = False) -> int:
    """Where a charge status stands in a charge's life (`qr`: a wallet or PIX charge's)."""
    if status is None:
        return _UNKNOWN_STAGE - 1
    return (QR_CHARGE_STAGE if qr else _CHARGE_STAGE).get(status, _UNKNOWN_STAGE)


def is_final_charge_status(status: ChargeStatus | None) -> bool:
    """Nothing more is expected without a merchant action (capture, refund)."""
    return status in {
        ChargeStatus.PAID,
        ChargeStatus.DENIED,
        ChargeStatus.ERROR,
        ChargeStatus.CANCELED,
        ChargeStatus.REFUNDED,
        ChargeStatus.CHARGEBACK,
        ChargeStatus.PARTIAL,
    }


# ---------------------------------------------------------------------------------------------
# State


@dataclass(frozen=True)
class TransactionState:
    """One transaction (one card) of a charge."""

    key: str
    transaction_id: str | None = None
    payment_type: PaymentType | None = None
    status: TransactionStatus | None = None
    status_at: datetime | None = None
    amount: int | None = None
    refunded_amount: int | None = None
    brand: str | None = None
    last_four: str | None = None
    nsu: str | None = None
    authorization_code: str | None = None
    installments: int | None = None
    soft_descriptor: str | None = None
    reason: str | None = None
    created_at: datetime | None = None
    expires_at: datetime | None = None
    """When a QR (wallet or PIX) stops being payable, as the service says or as computed."""
    qr_code: str | None = None
    """A QR's text: the PIX "copia e cola" code or the wallet's payload."""
    qr_image: str | None = None
    """A QR's image as the service sent it (raw base64 PNG or a data: URI)."""
    end_to_end_id: str | None = None
    """A paid PIX's end-to-end id (shown on the receipt)."""

    def to_json(self) -> dict[str, Any]:
        qr = {
            name: value
            for name, value in (
                ("created_at", _iso(self.created_at)),
                ("expires_at", _iso(self.expires_at)),
                ("qr_code", self.qr_code),
                ("qr_image", self.qr_image),
                ("end_to_end_id", self.end_to_end_id),
            )
            if value is not None
        }
        return qr | {
            "key": self.key,
            "transaction_id": self.transaction_id,
            "payment_type": None if self.payment_type is None else str(self.payment_type),
            "status": None if self.status is None else str(self.status),
            "status_at": _iso(self.status_at),
            "amount": self.amount,
            "refunded_amount": self.refunded_amount,
            "brand": self.brand,
            "last_four": self.last_four,
            "nsu": self.nsu,
            "authorization_code": self.authorization_code,
            "installments": self.installments,
            "soft_descriptor": self.soft_descriptor,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TransactionState:
        return cls(
            key=str(data["key"]),
            transaction_id=data.get("transaction_id"),
            payment_type=_opt(PaymentType, data.get("payment_type")),
            status=_opt(TransactionStatus, data.get("status")),
            status_at=_from_iso(data.get("status_at")),
            amount=data.get("amount"),
            refunded_amount=data.get("refunded_amount"),
            brand=data.get("brand"),
            last_four=data.get("last_four"),
            nsu=data.get("nsu"),
            authorization_code=data.get("authorization_code"),
            installments=data.get("installments"),
            soft_descriptor=data.get("soft_descriptor"),
            reason=data.get("reason"),
            created_at=_from_iso(data.get("created_at")),
            expires_at=_from_iso(data.get("expires_at")),
            qr_code=data.get("qr_code"),
            qr_image=data.get("qr_image"),
            end_to_end_id=data.get("end_to_end_id"),
        )


@dataclass(frozen=True)
class ThreeDsState:
    status: ThreeDsStatus
    pares_status: str | None = None
    eci: str | None = None
    occurred_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "pares_status": self.pares_status,
            "eci": self.eci,
            "occurred_at": _iso(self.occurred_at),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ThreeDsState:
        return cls(
            status=ThreeDsStatus(data["status"]),
            pares_status=data.get("pares_status"),
            eci=data.get("eci"),
            occurred_at=_from_iso(data.get("occurred_at")),
        )


@dataclass(frozen=True)
class ChargeState:
    """Everything known about one charge, merged from every input seen so far."""

    merchant_charge_id: str
    charge_id: str | None = None
    status: ChargeStatus | None = None
    status_at: datetime | None = None
    amount: int | None = None
    refunded_amount: int | None = None
    transactions: tuple[TransactionState, ...] = ()
    three_ds: ThreeDsState | None = None
    notified_status: ChargeStatus | None = None
    """The latest status a notification has told us (None: no notification yet)."""
    notified_refunded_amount: int | None = None
    inputs: int = 0
    """How many inputs were merged (applied or not)."""

    @property
    def is_final(self) -> bool:
        return is_final_charge_status(self.status)

    @property
    def awaiting_notification(self) -> bool:
        """The service has a status it has not yet notified: a notification is expected."""
        if self.status is None:
            return False
        return (
            _compare_charge(
                self.status,
                self.status_at,
                self.refunded_amount,
                self.notified_status,
                None,
                self.notified_refunded_amount,
                qr=self.is_qr,
            )
            > 0
        )

    @property
    def is_qr(self) -> bool:
        """A wallet or PIX charge: its statuses follow a QR's life."""
        return any(is_qr_type(txn.payment_type) for txn in self.transactions)

    def transaction(self, key: str) -> TransactionState | None:
        for txn in self.transactions:
            if txn.key == key:
                return txn
        return None

    def summary(self) -> dict[str, Any]:
        """The parts of the state that define the charge's outcome (used for equality checks)."""
        return {
            "merchant_charge_id": self.merchant_charge_id,
            "charge_id": self.charge_id,
            "status": None if self.status is None else str(self.status),
            "amount": self.amount,
            "refunded_amount": self.refunded_amount,
            "transactions": {
                t.key: (None if t.status is None else str(t.status), t.amount, t.refunded_amount)
                for t in self.transactions
            },
            "three_ds": None if self.three_ds is None else str(self.three_ds.status),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "merchant_charge_id": self.merchant_charge_id,
            "charge_id": self.charge_id,
            "status": None if self.status is None else str(self.status),
            "status_at": _iso(self.status_at),
            "amount": self.amount,
            "refunded_amount": self.refunded_amount,
            "transactions": [t.to_json() for t in self.transactions],
            "three_ds": None if self.three_ds is None else self.three_ds.to_json(),
            "notified_status": None if self.notified_status is None else str(self.notified_status),
            "notified_refunded_amount": self.notified_refunded_amount,
            "inputs": self.inputs,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChargeState:
        three_ds = data.get("three_ds")
        return cls(
            merchant_charge_id=str(data["merchant_charge_id"]),
            charge_id=data.get("charge_id"),
            status=_opt(ChargeStatus, data.get("status")),
            status_at=_from_iso(data.get("status_at")),
            amount=data.get("amount"),
            refunded_amount=data.get("refunded_amount"),
            transactions=tuple(TransactionState.from_json(t) for t in data.get("transactions", [])),
            three_ds=None if three_ds is None else ThreeDsState.from_json(three_ds),
            notified_status=_opt(ChargeStatus, data.get("notified_status")),
            notified_refunded_amount=data.get("notified_refunded_amount"),
            inputs=int(data.get("inputs", 0)),
        )


@dataclass(frozen=True)
class TimelineEntry:
    """What one input did to a charge, in words a person can read."""

    outcome: Outcome
    reason: Reason
    previous_status: str | None
    new_status: str | None
    input_status: str | None
    occurred_at: datetime | None
    changes: tuple[Reason, ...] = field(default_factory=tuple)

    @property
    def applied(self) -> bool:
        return self.outcome == Outcome.APPLIED


@dataclass(frozen=True)
class Merge:
    state: ChargeState
    entry: TimelineEntry

    @property
    def changed(self) -> bool:
        return self.entry.applied


# ---------------------------------------------------------------------------------------------
# Ordering


def _compare_time(a: datetime | None, b: datetime | None) -> int:
    if a is None or b is None or a == b:
        return 0
    return 1 if a > b else -1


def _compare_amount(a: int | None, b: int | None) -> int:
    left = -1 if a is None else a
    right = -1 if b is None else b
    return (left > right) - (left < right)


def _compare_charge(
    new: ChargeStatus | None,
    new_at: datetime | None,
    new_refunded: int | None,
    cur: ChargeStatus | None,
    cur_at: datetime | None,
    cur_refunded: int | None,
    *,
    qr: bool = False,
) -> int:
    """+1: `new` is later in the charge's life than `cur`; -1: earlier; 0: same position."""
    new_stage, cur_stage = charge_stage(new, qr=qr), charge_stage(cur, qr=qr)
    if new_stage != cur_stage:
        both_unpublished_or_time_known = (
            _UNKNOWN_STAGE in (new_stage, cur_stage)
            and new is not None
            and cur is not None
            and ChargeStatus.DENIED not in (new, cur)
            and _compare_time(new_at, cur_at) != 0
        )
        if both_unpublished_or_time_known:
            # An unpublished status has no stage; its time is the only honest order.
            return _compare_time(new_at, cur_at)
        return 1 if new_stage > cur_stage else -1
    if new_refunded is not None and cur_refunded is not None and new_refunded != cur_refunded:
        # Within a stage the refunded amount only grows, whatever two inputs' clocks say (a
        # notification's time without offset may read hours off).
        return 1 if new_refunded > cur_refunded else -1
    by_time = _compare_time(new_at, cur_at)
    if by_time:
        return by_time
    if new is not None and cur is not None and new != cur:
        # Same stage, different names (PRE_AUTHORIZED/AUTHORIZED, REFUNDED/CANCELED) and no
        # time to tell them apart: a fixed order keeps the result independent of arrival.
        by_amount = _compare_amount(new_refunded, cur_refunded)
        if by_amount:
            return by_amount
        return 1 if str(new) > str(cur) else -1
    return _compare_amount(new_refunded, cur_refunded)


def _compare_transaction(new: TransactionState, cur: TransactionState) -> int:
    qr = is_qr_type(new.payment_type) or is_qr_type(cur.payment_type)
    stages = QR_TRANSACTION_STAGE if qr else _TRANSACTION_STAGE
    new_stage = -2 if new.status is None else stages.get(new.status, _UNKNOWN_STAGE)
    cur_stage = -2 if cur.status is None else stages.get(cur.status, _UNKNOWN_STAGE)
    if new_stage != cur_stage:
        if (
            _UNKNOWN_STAGE in (new_stage, cur_stage)
            and -2 not in (new_stage, cur_stage)
            and _compare_time(new.status_at, cur.status_at) != 0
        ):
            return _compare_time(new.status_at, cur.status_at)
        return 1 if new_stage > cur_stage else -1
    if (
        new.refunded_amount is not None
        and cur.refunded_amount is not None
        and new.refunded_amount != cur.refunded_amount
    ):
        return 1 if new.refunded_amount > cur.refunded_amount else -1
    by_time = _compare_time(new.status_at, cur.status_at)
    if by_time:
        return by_time
    by_amount = _compare_amount(new.refunded_amount, cur.refunded_amount)
    if by_amount:
        return by_amount
    if new.status is not None and cur.status is not None and new.status != cur.status:
        return 1 if str(new.status) > str(cur.status) else -1
    return 0


# ---------------------------------------------------------------------------------------------
# Merging


def _latest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def transaction_key(info: TransactionInfo, index: int) -> str:
    """Transactions are matched by the service's id; a reply without ids falls back to order."""
    return info.transactionId or f"#{index}"


def transaction_from_info(info: TransactionInfo, index: int) -> TransactionState:
    credit = info.credit
    when = info.updatedAt or info.createdAt
    created = None if info.createdAt is None else info.createdAt.at
    qr = info.pix or info.wallet
    expires: datetime | None = None
    if info.wallet is not None and info.wallet.expiresAt is not None:
        expires = info.wallet.expiresAt.at
    elif info.pix is not None and info.pix.expiration is not None and created is not None:
        expires = created + timedelta(seconds=info.pix.expiration)
    return TransactionState(
        key=transaction_key(info, index),
        transaction_id=info.transactionId,
        payment_type=info.paymentType,
        status=info.effective_status,
        status_at=None if when is None else when.at,
        amount=info.amount,
        refunded_amount=info.refundedAmount,
        brand=None if credit is None or credit.brand is None else str(credit.brand),
        last_four=None if credit is None else credit.last_four,
        nsu=None if credit is None else credit.nsu,
        authorization_code=None if credit is None else credit.authorizationCode,
        installments=info.numberOfInstallments
        if info.numberOfInstallments is not None
        else (None if credit is None else credit.installmentNumber),
        soft_descriptor=info.softDescriptor,
        reason=info.errorMessage or (None if credit is None else credit.reasonMessage),
        created_at=created,
        expires_at=expires,
        qr_code=None if qr is None else qr.qrCode,
        qr_image=None if qr is None else qr.qrCodeBase64,
        end_to_end_id=None if info.pix is None else info.pix.endToEndId,
    )


_TXN_DETAIL_FIELDS = (
    "transaction_id",
    "payment_type",
    "amount",
    "refunded_amount",
    "brand",
    "last_four",
    "nsu",
    "authorization_code",
    "installments",
    "soft_descriptor",
    "reason",
    "created_at",
    "expires_at",
    "qr_code",
    "qr_image",
    "end_to_end_id",
)


def _fill_gaps(base: TransactionState, other: TransactionState) -> TransactionState:
    """Take from `other` only the details `base` lacks (never a status)."""
    gaps = {
        name: getattr(other, name)
        for name in _TXN_DETAIL_FIELDS
        if getattr(base, name) is None and getattr(other, name) is not None
    }
    return replace(base, **gaps) if gaps else base


def merge_transaction(
    current: TransactionState | None, new: TransactionState
) -> tuple[TransactionState, int]:
    """The merged transaction and the comparison (+1 newer, 0 same, -1 older)."""
    if current is None:
        return new, 1
    order = _compare_transaction(new, current)
    if order > 0:
        return _fill_gaps(new, current), order
    merged = _fill_gaps(current, new)
    if order == 0:
        merged = replace(merged, status_at=_latest(current.status_at, new.status_at))
    return merged, order


def _merge_transactions(
    current: tuple[TransactionState, ...], incoming: Iterable[TransactionState]
) -> tuple[tuple[TransactionState, ...], list[Reason]]:
    by_key = {t.key: t for t in current}
    changes: list[Reason] = []
    for txn in incoming:
        before = by_key.get(txn.key)
        merged, order = merge_transaction(before, txn)
        # A QR's payment type rides along, so a timeline without the body (a notification's)
        # can still tell a QR's story.
        qr = {"payment_type": str(merged.payment_type)} if is_qr_type(merged.payment_type) else {}
        if before is None:
            changes.append(
                Reason.of(
                    ReasonCode.CHANGE_TRANSACTION_NEW,
                    key=txn.key,
                    status=_opt_str(txn.status),
                    **qr,
                )
            )
        elif order > 0 and merged.status != before.status:
            changes.append(
                Reason.of(
                    ReasonCode.CHANGE_TRANSACTION_STATUS,
                    key=txn.key,
                    previous_status=_opt_str(before.status),
                    status=_opt_str(merged.status),
                    **qr,
                )
            )
        elif order > 0 and merged.refunded_amount != before.refunded_amount:
            changes.append(
                Reason.of(
                    ReasonCode.CHANGE_TRANSACTION_REFUNDED,
                    key=txn.key,
                    previous_amount=before.refunded_amount,
                    amount=merged.refunded_amount,
                )
            )
        by_key[txn.key] = merged
    # Sorted by key so the tuple does not depend on the order transactions were first seen.
    return tuple(by_key[k] for k in sorted(by_key)), changes


def _opt_str(status: object) -> str | None:
    return None if status is None else str(status)


def _name(status: object) -> str:
    return "no status" if status is None else str(status)


def initial_state(merchant_charge_id: str) -> ChargeState:
    return ChargeState(merchant_charge_id=merchant_charge_id)


def merge_charge_update(state: ChargeState | None, update: ChargeUpdate) -> Merge:
    """Merge one charge input (reply, query, notification) into the charge's state."""
    current = state or initial_state(update.merchant_charge_id)
    if current.merchant_charge_id != update.merchant_charge_id:
        raise ValueError(
            f"an update for charge {update.merchant_charge_id!r} cannot merge into charge "
            f"{current.merchant_charge_id!r}"
        )
    qr = current.is_qr or update.names_a_qr
    order = _compare_charge(
        update.status,
        update.occurred_at,
        update.refunded_amount,
        current.status,
        current.status_at,
        current.refunded_amount,
        qr=qr,
    )
    transactions, txn_changes = _merge_transactions(
        current.transactions,
        (transaction_from_info(info, i) for i, info in enumerate(update.transactions)),
    )
    changes: list[Reason] = []
    fields: dict[str, Any] = {"transactions": transactions, "inputs": current.inputs + 1}

    if order > 0:
        fields["status"] = update.status
        fields["status_at"] = update.occurred_at
        if update.amount is not None:
            fields["amount"] = update.amount
        if update.refunded_amount is not None:
            fields["refunded_amount"] = update.refunded_amount
        if current.status != update.status:
            changes.append(
                Reason.of(
                    ReasonCode.CHANGE_STATUS,
                    previous_status=_opt_str(current.status),
                    status=str(update.status),
                )
            )
        if (fields.get("refunded_amount") or 0) != (current.refunded_amount or 0):
            changes.append(
                Reason.of(
                    ReasonCode.CHANGE_REFUNDED,
                    previous_amount=current.refunded_amount or 0,
                    amount=fields["refunded_amount"],
                )
            )
    else:
        if order == 0:
            fields["status_at"] = _latest(current.status_at, update.occurred_at)
        if current.amount is None and update.amount is not None:
            fields["amount"] = update.amount
            changes.append(Reason.of(ReasonCode.CHANGE_AMOUNT, amount=update.amount))
        if current.refunded_amount is None and update.refunded_amount is not None and order == 0:
            fields["refunded_amount"] = update.refunded_amount
    if current.charge_id is None and update.charge_id is not None:
        fields["charge_id"] = update.charge_id
        changes.append(Reason.of(ReasonCode.CHANGE_CHARGE_ID, charge=update.charge_id))

    if update.source == "webhook":
        notified = _compare_charge(
            update.status,
            update.occurred_at,
            update.refunded_amount,
            current.notified_status,
            None,
            current.notified_refunded_amount,
            qr=qr,
        )
        if notified > 0:
            fields["notified_status"] = update.status
            fields["notified_refunded_amount"] = update.refunded_amount

    changes.extend(txn_changes)
    new_state = replace(current, **fields)

    if changes and order > 0:
        outcome = Outcome.APPLIED
        if current.status is None:
            reason = Reason.of(ReasonCode.MERGE_FIRST_STATUS, status=str(update.status))
        elif current.status == update.status:
            reason = Reason.of(ReasonCode.MERGE_LATER_UPDATE, status=str(update.status))
        else:
            reason = Reason.of(
                ReasonCode.MERGE_LATER_STAGE,
                status=str(update.status),
                current_status=str(current.status),
            )
    elif changes:
        outcome = Outcome.APPLIED
        reason = (
            Reason.of(ReasonCode.MERGE_DETAILS_ADDED, current_status=_opt_str(current.status))
            if order == 0
            else Reason.of(
                ReasonCode.MERGE_OLDER_DETAILS_ADDED, why=_older_reason(update, current, qr=qr)
            )
        )
    elif order >= 0 or _same_position(update, current):
        # The same status and amounts at an earlier time is the service confirming what is
        # known: a notification is stamped when it is sent, a query's reply when the
        # transaction last changed, and the two differ by a moment.
        outcome = Outcome.DUPLICATE
        reason = Reason.of(ReasonCode.MERGE_NOTHING_NEW, current_status=_opt_str(current.status))
    else:
        outcome = Outcome.IGNORED
        reason = _older_reason(update, current, qr=qr)
    entry = TimelineEntry(
        outcome=outcome,
        reason=reason,
        previous_status=None if current.status is None else str(current.status),
        new_status=None if new_state.status is None else str(new_state.status),
        input_status=str(update.status),
        occurred_at=update.occurred_at,
        changes=tuple(changes),
    )
    return Merge(new_state, entry)


def _same_position(update: ChargeUpdate, current: ChargeState) -> bool:
    """The input names the status and refunded amount the charge has (or no amount)."""
    return update.status == current.status and (
        update.refunded_amount is None
        or current.refunded_amount is None
        or update.refunded_amount == current.refunded_amount
    )


def _older_reason(update: ChargeUpdate, current: ChargeState, *, qr: bool = False) -> Reason:
    status = str(update.status)
    if current.status == ChargeStatus.DENIED:
        return Reason.of(ReasonCode.MERGE_AFTER_DENIED, status=status)
    if charge_stage(update.status, qr=qr) < charge_stage(current.status, qr=qr):
        return Reason.of(
            ReasonCode.MERGE_EARLIER_STAGE, status=status, current_status=_opt_str(current.status)
        )
    if (
        update.occurred_at is not None
        and current.status_at is not None
        and update.occurred_at < current.status_at
    ):
        return Reason.of(
            ReasonCode.MERGE_HAPPENED_BEFORE,
            status=status,
            occurred_at=update.occurred_at.isoformat(),
            current_at=current.status_at.isoformat(),
        )
    return Reason.of(ReasonCode.MERGE_OLDER, status=status, current_status=_opt_str(current.status))


def merge_three_ds(state: ChargeState, update: ThreeDsUpdate) -> Merge:
    """Merge a 3DS challenge result; it is recorded beside the charge status, never replaces it."""
    current = state
    before = current.three_ds
    new = ThreeDsState(
        status=update.status,
        pares_status=update.pares_status,
        eci=update.eci,
        occurred_at=update.occurred_at,
    )
    fields: dict[str, Any] = {"inputs": current.inputs + 1}
    changes: list[Reason] = []
    if current.charge_id is None and update.charge_id is not None:
        fields["charge_id"] = update.charge_id
        changes.append(Reason.of(ReasonCode.CHANGE_CHARGE_ID, charge=update.charge_id))
    if before is None:
        order = 1
    else:
        new_stage = _THREE_DS_STAGE.get(update.status, _UNKNOWN_STAGE)
        cur_stage = _THREE_DS_STAGE.get(before.status, _UNKNOWN_STAGE)
        if new_stage != cur_stage:
            order = 1 if new_stage > cur_stage else -1
        else:
            order = _compare_time(update.occurred_at, before.occurred_at)
            if order == 0 and update.status != before.status:
                order = 1 if str(update.status) > str(before.status) else -1
    if order > 0:
        fields["three_ds"] = new
        changes.append(
            Reason.of(
                ReasonCode.CHANGE_THREE_DS,
                previous_status=None if before is None else str(before.status),
                status=str(update.status),
            )
        )
    new_state = replace(current, **fields)
    if changes:
        outcome = Outcome.APPLIED
        if order <= 0:
            reason = Reason.of(ReasonCode.THREE_DS_OLDER_CHARGE_ID)
        elif update.pares_status:
            reason = Reason.of(
                ReasonCode.THREE_DS_RESULT_PARES,
                status=str(update.status),
                pares=str(update.pares_status),
            )
        else:
            reason = Reason.of(ReasonCode.THREE_DS_RESULT, status=str(update.status))
    elif order == 0:
        outcome = Outcome.DUPLICATE
        reason = Reason.of(ReasonCode.THREE_DS_ALREADY, status=str(update.status))
    else:
        outcome = Outcome.IGNORED
        reason = Reason.of(
            ReasonCode.THREE_DS_OLDER,
            status=str(update.status),
            current_status=None if before is None else str(before.status),
        )
    entry = TimelineEntry(
        outcome=outcome,
        reason=reason,
        previous_status=None if current.status is None else str(current.status),
        new_status=None if new_state.status is None else str(new_state.status),
        input_status=str(update.status),
        occurred_at=update.occurred_at,
        changes=tuple(changes),
    )
    return Merge(new_state, entry)


def merge(state: ChargeState | None, update: ChargeUpdate | ThreeDsUpdate) -> Merge:
    """Merge any input. A 3DS input needs the charge's state (it may name only the charge id)."""
    if isinstance(update, ChargeUpdate):
        return merge_charge_update(state, update)
    if state is None:
        if update.merchant_charge_id is None:
            raise ValueError(
                "a 3DS result that names only the service's charge id needs the charge's state"
            )
        state = initial_state(update.merchant_charge_id)
    return merge_three_ds(state, update)


def fold(
    updates: Iterable[ChargeUpdate | ThreeDsUpdate], state: ChargeState | None = None
) -> tuple[ChargeState | None, list[TimelineEntry]]:
    """Merge a sequence of inputs; returns the final state and one timeline entry per input."""
    entries: list[TimelineEntry] = []
    for update in updates:
        result = merge(state, update)
        state = result.state
        entries.append(result.entry)
    return state, entries


# ---------------------------------------------------------------------------------------------
# JSON helpers


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _from_iso(text: Any) -> datetime | None:
    return None if text is None else datetime.fromisoformat(str(text))


def _opt(kind: Any, value: Any) -> Any:
    return None if value is None else kind(value)
