"""The tender seam: a sale's request built from its tenders, and tenders kept as JSON in the store.

Attempts recorded before tenders were kept (a card list) read back as card tenders, both after
the migration and where a row has no tenders of its own.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from checkout_desktop.charges.sale import Sale, SaleDraft
from checkout_desktop.domain.enums import InstallmentType
from checkout_desktop.domain.records import CardSummary, stored_tender
from checkout_desktop.domain.tenders import CardTender
from checkout_desktop.domain.wire import Customer
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from tests.integration.charging_support import HOLDER_DOCUMENT

logger = logging.getLogger(__name__)

TOKEN_A = "card_t/aaaaaaaaaaaaaaaaaaaaaaaaaaaa"
TOKEN_B = "card_t/bbbbbbbbbbbbbbbbbbbbbbbbbbbb"


def _draft(installments: int = 3) -> SaleDraft:
    return SaleDraft(
        amount=2500,
        installments=installments,
        installment_type=InstallmentType.MERCHANT,
        soft_descriptor="LOJA TESTE",
        late_capture=False,
        customer=Customer.model_validate(
            {
                "name": "Maria Silva",
                "email": "maria@example.com",
                "documentType": "CPF",
                "document": HOLDER_DOCUMENT,
            }
        ),
        billing_address=None,
    )


def test_a_sale_builds_its_request_from_its_tenders() -> None:
    sale = Sale("a1b2c3d4e5f6")
    sale.add(
        CardTender(token=TOKEN_A, brand="VISA", last_four="1111", holder_name="M", amount=1000)
    )
    sale.add(CardTender(token=TOKEN_B, brand="ELO", last_four="7013", holder_name="M", amount=1500))
    assert sale.remaining(2500) == 0
    attempt = sale.next_attempt(_draft())
    assert attempt.merchant_charge_id == "a1b2c3d4e5f6-01"
    body = attempt.request.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert [t["amount"] for t in body["transactions"]] == [1000, 1500]
    assert [t["credit"]["installmentNumber"] for t in body["transactions"]] == [3, 3]
    assert attempt.tenders == (CardSummary("VISA", "1111", 3), CardSummary("ELO", "7013", 3))
    # What the store keeps names its kind and never the token.
    kept = json.dumps([t.to_json() for t in attempt.tenders])
    assert '"kind": "card"' in kept and "card_t/" not in kept
    assert "card_t/aaaa" not in repr(sale.cards[0])
    assert sale.next_attempt(_draft()).merchant_charge_id == "a1b2c3d4e5f6-02"


def test_an_unknown_kind_of_tender_is_refused_plainly() -> None:
    with pytest.raises(ValueError, match="'voucher', which this checkout-desktop does not know"):
        stored_tender({"kind": "voucher", "code": "X"})
    assert stored_tender({"brand": "VISA", "last_four": "1111"}) == CardSummary("VISA", "1111")


def _store_at_schema_5(path: Path) -> None:
    """A store as the terminal wrote it before tenders were kept, with one attempt."""
    raw = sqlite3.connect(path, isolation_level=None)
    try:
        for version, _, script in db.MIGRATIONS:
            if version > 5:
                break
            for statement in db._statements(script):
                raw.execute(statement)
        raw.execute("PRAGMA user_version = 5")
        raw.execute(f"PRAGMA application_id = {db.APPLICATION_ID}")
        raw.execute(
            "INSERT INTO charge_attempt (merchant_charge_id, sale_id, profile, amount, "
            "late_capture, cards_json, state, created_at, updated_at) VALUES ('old-000001', "
            "'sale-old', 'builtin-sandbox', 2500, 0, :cards, 'CREATED', "
            "'2026-05-04T10:00:00.000000Z', '2026-05-04T10:00:00.000000Z')",
            {
                "cards": json.dumps(
                    [
                        {"brand": "VISA", "last_four": "1111", "installments": 2},
                        {"brand": "ELO", "last_four": "7013", "installments": 2},
                    ]
                )
            },
        )
    finally:
        raw.close()


def test_attempts_recorded_as_card_lists_read_back_as_card_tenders(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _store_at_schema_5(path)
    conn = db.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
        (tenders,) = conn.execute(
            "SELECT tenders_json FROM charge_attempt WHERE merchant_charge_id = 'old-000001'"
        ).fetchone()
        assert [t["kind"] for t in json.loads(tenders)] == ["card", "card"]
        expected = (CardSummary("VISA", "1111", 2), CardSummary("ELO", "7013", 2))
        attempt = ChargeRepository(conn).attempt("old-000001")
        assert attempt is not None and attempt.tenders == expected
        # A row without tenders of its own is read from its card list.
        conn.execute("UPDATE charge_attempt SET tenders_json = NULL")
        again = ChargeRepository(conn).attempt("old-000001")
        assert again is not None and again.tenders == expected and again.cards == expected
    finally:
        conn.close()
