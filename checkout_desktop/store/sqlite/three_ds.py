"""Rows of the 3DS flows: one per charge attempt that went through 3-D Secure.

A flow's step is written before the call it names is sent, inside the caller's transaction, so
that a terminal stopped mid-flow knows at its next start whether a money call may have gone
out (then the service is asked) or not (then the sale ends cleanly: nothing was charged). The
challenge's access token is never stored: it is a credential, and a challenge is not resumed.
The PostgreSQL store runs these same statements (`store/postgres/charges.py`).
"""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime
from typing import Any

from checkout_desktop.domain.three_ds import OPEN_STEPS, ThreeDsFlowRecord, ThreeDsStep
from checkout_desktop.store.errors import RepositoryError

logger = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE three_ds_flow (
    merchant_charge_id TEXT PRIMARY KEY,
    sale_id TEXT NOT NULL,
    step TEXT NOT NULL,
    charge_id TEXT,
    authentication_id TEXT,
    result TEXT,
    step_up_url TEXT,
    width INTEGER,
    height INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX three_ds_flow_open ON three_ds_flow (step)
    WHERE step NOT IN ('DONE', 'ENDED');
"""
"""Schema step 9 (SQLite and PostgreSQL alike: plain text and integer columns)."""

_COLUMNS = (
    "merchant_charge_id, sale_id, step, charge_id, authentication_id, result, step_up_url, "
    "width, height, created_at, updated_at"
)
_FIELDS = frozenset({"charge_id", "authentication_id", "result", "step_up_url", "width", "height"})


class ThreeDsRows:
    """The 3DS flow methods of the charge repository (mixed into ChargeRepository)."""

    conn: sqlite3.Connection

    def now(self) -> datetime:
        raise NotImplementedError

    def require_transaction(self, what: str) -> None:
        raise NotImplementedError

    def record_three_ds(self, merchant_charge_id: str, sale_id: str) -> ThreeDsFlowRecord:
        """A new flow at step SETUP (commit it before the setup is sent)."""
        self.require_transaction("record_three_ds")
        now = _ts(self.now())
        try:
            self.conn.execute(
                "INSERT INTO three_ds_flow (merchant_charge_id, sale_id, step, created_at, "
                "updated_at) VALUES (:mcid, :sale, :step, :now, :now)",
                {"mcid": merchant_charge_id, "sale": sale_id, "step": "SETUP", "now": now},
            )
        except sqlite3.IntegrityError:
            raise RepositoryError(f"charge {merchant_charge_id} already has a 3DS flow") from None
        flow = self.three_ds_flow(merchant_charge_id)
        assert flow is not None
        return flow

    def move_three_ds(
        self, merchant_charge_id: str, step: ThreeDsStep, **fields: Any
    ) -> ThreeDsFlowRecord:
        """Move a flow to `step`, setting any of its fields; a closed flow never moves again."""
        self.require_transaction("move_three_ds")
        unknown = sorted(set(fields) - _FIELDS)
        if unknown:
            raise RepositoryError(f"a 3DS flow has no field(s) {', '.join(unknown)}")
        current = self.three_ds_flow(merchant_charge_id)
        if current is None:
            raise RepositoryError(f"charge {merchant_charge_id} has no 3DS flow")
        if not current.open:
            raise RepositoryError(
                f"the 3DS flow of charge {merchant_charge_id} is already {current.step}"
            )
        sets = ", ".join(f"{name} = :{name}" for name in sorted(fields))
        self.conn.execute(
            "UPDATE three_ds_flow SET step = :step, updated_at = :now"  # noqa: S608 - names checked above
            + (", " + sets if sets else "")
            + " WHERE merchant_charge_id = :mcid",
            {"step": step.value, "now": _ts(self.now()), "mcid": merchant_charge_id, **fields},
        )
        moved = self.three_ds_flow(merchant_charge_id)
        assert moved is not None
        return moved

    def three_ds_flow(self, merchant_charge_id: str) -> ThreeDsFlowRecord | None:
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM three_ds_flow WHERE merchant_charge_id = :mcid",  # noqa: S608 - fixed column list
            {"mcid": merchant_charge_id},
        ).fetchone()
        return None if row is None else _flow(row)

    def open_three_ds_flows(self, limit: int = 100) -> list[ThreeDsFlowRecord]:
        """Flows not DONE or ENDED (at start-up: the ones a stopped terminal left)."""
        steps = sorted(step.value for step in OPEN_STEPS)
        marks = ", ".join(f":s{i}" for i in range(len(steps)))
        rows = self.conn.execute(
            f"SELECT {_COLUMNS} FROM three_ds_flow WHERE step IN ({marks}) "  # noqa: S608 - placeholders only
            "ORDER BY created_at LIMIT :limit",
            {**{f"s{i}": step for i, step in enumerate(steps)}, "limit": limit},
        ).fetchall()
        return [_flow(row) for row in rows]


def _ts(moment: datetime) -> str:
    """The store's one instant form (as `charges.ts` writes it): UTC, microseconds, "Z"."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _required_ts(text: str) -> datetime:
    return datetime.fromisoformat(text.removesuffix("Z")).replace(tzinfo=UTC)


def _flow(row: Any) -> ThreeDsFlowRecord:
    return ThreeDsFlowRecord(
        merchant_charge_id=row["merchant_charge_id"],
        sale_id=row["sale_id"],
        step=ThreeDsStep(row["step"]),
        charge_id=row["charge_id"],
        authentication_id=row["authentication_id"],
        result=row["result"],
        step_up_url=row["step_up_url"],
        width=None if row["width"] is None else int(row["width"]),
        height=None if row["height"] is None else int(row["height"]),
        created_at=_required_ts(row["created_at"]),
        updated_at=_required_ts(row["updated_at"]),
    )


__all__ = ["SCHEMA", "ThreeDsRows"]
