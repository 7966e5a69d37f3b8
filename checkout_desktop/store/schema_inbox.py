"""Schema of the webhook inbox: every delivery, its verdict, and the quarantine of bad bodies."""

V2 = """
CREATE TABLE webhook_event (
    id INTEGER PRIMARY KEY,
    received_at TEXT NOT NULL,
    event_type TEXT,
    body_type TEXT,
    merchant_charge_id TEXT,
    status TEXT,
    verdict TEXT NOT NULL,
    body_sha256 TEXT NOT NULL,
    headers_json TEXT NOT NULL,
    body BLOB NOT NULL
);
CREATE INDEX webhook_event_charge ON webhook_event (merchant_charge_id, id);
CREATE INDEX webhook_event_sha ON webhook_event (body_sha256);
"""
