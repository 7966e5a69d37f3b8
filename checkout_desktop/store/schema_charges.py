"""Schema of charges: attempts recorded before sending, charges, transactions and timelines."""

V1 = """
CREATE TABLE charge_attempt (
    merchant_charge_id TEXT PRIMARY KEY,
    sale_id TEXT NOT NULL,
    profile TEXT NOT NULL,
    amount INTEGER NOT NULL CHECK (amount > 0),
    cards_json TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    detail TEXT
);
CREATE INDEX charge_attempt_sale ON charge_attempt (sale_id);
CREATE INDEX charge_attempt_state ON charge_attempt (state);
"""
