"""Schema of the webhook inbox: every delivery, its verdict, and the quarantine of bad bodies."""

import logging

logger = logging.getLogger(__name__)

# One row per authenticated delivery, in arrival order (`id` is the keyset for paging, never
# OFFSET). Quarantined deliveries (bad JSON, a body the format forbids, a refused content type,
# an oversized or stalled body) live in the same table so the live list and the export show one
# sequence; `webhook_quarantine` is the view support tools read. Unauthenticated requests are
# never stored. The Authorization header's value is never stored: headers_json holds a marker.
#
# Every index below serves one filter of the event list at 1,000,000 rows: (column, id) lets
# SQLite walk a filter in id order and stop after one page. The partial unique index is the
# dedupe key: one first delivery per body hash; re-deliveries point at it through duplicate_of.
#
# Free-text search has its own index (SEARCH_INDEX below), kept off the delivery path: the inbox
# writer fills it in batches when it has nothing else to do, and `webhook_event_search` says up
# to which id it holds. A search asks the index for ids up to there and scans only the newer,
# not yet indexed tail.
V2 = """
CREATE TABLE webhook_event (
    id INTEGER PRIMARY KEY,
    received_at TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (
        verdict IN ('accepted', 'duplicate', 'unknown', 'self_test', 'quarantined')
    ),
    reason TEXT,
    event_type TEXT,
    body_type TEXT,
    layout TEXT,
    event_ref TEXT,
    merchant_charge_id TEXT,
    charge_id TEXT,
    status TEXT,
    duplicate_of INTEGER REFERENCES webhook_event (id),
    merge_outcome TEXT,
    body_sha256 TEXT NOT NULL,
    content_type TEXT,
    remote TEXT,
    headers_json TEXT NOT NULL,
    body BLOB NOT NULL
);
CREATE INDEX webhook_event_received ON webhook_event (received_at);
CREATE INDEX webhook_event_charge ON webhook_event (merchant_charge_id, id);
CREATE INDEX webhook_event_charge_id ON webhook_event (charge_id, id);
CREATE INDEX webhook_event_status ON webhook_event (status, id);
CREATE INDEX webhook_event_type ON webhook_event (event_type, id);
CREATE INDEX webhook_event_body_type ON webhook_event (body_type, id);
CREATE INDEX webhook_event_verdict ON webhook_event (verdict, id);
CREATE UNIQUE INDEX webhook_event_first_delivery ON webhook_event (body_sha256)
    WHERE duplicate_of IS NULL AND verdict != 'quarantined';
CREATE VIEW webhook_quarantine AS
    SELECT id, received_at, reason, event_type, content_type, remote, headers_json, body
    FROM webhook_event
    WHERE verdict = 'quarantined';
"""

# A trigram index makes substring search an index lookup (terms of 3+ characters). It is an
# external-content table: the text stays in webhook_event only, the index holds row ids per
# trigram (detail=none: no positions, several times smaller; adjacency is checked afterwards by
# the same LIKE the search always used, so results are exactly what a full scan would give).
# Part of schema 2, created by `db.connect` with the store (and on opening a store that lacks
# it) where this SQLite has FTS5 with the trigram tokenizer (3.34+); where it has not, the
# store still opens and searches scan. `webhook_event_search.indexed_through` is the id up to
# which the index holds every row; it starts at 0 and the inbox writer moves it forward.
SEARCH_INDEX = """
CREATE TABLE webhook_event_search (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_through INTEGER NOT NULL
);
INSERT INTO webhook_event_search (id, indexed_through) VALUES (1, 0);
CREATE VIRTUAL TABLE webhook_event_fts USING fts5(
    merchant_charge_id, charge_id, event_ref, event_type, body_type, status, reason, body,
    content='webhook_event', content_rowid='id', tokenize='trigram', detail=none
);
"""

# Reasons as data: why a delivery was set aside (`reason`) and what it did to its charge
# (`merge_outcome`), as a code and its arguments beside the stored English text.
REASONS = """
ALTER TABLE webhook_event ADD COLUMN reason_code TEXT;
ALTER TABLE webhook_event ADD COLUMN reason_args TEXT;
ALTER TABLE webhook_event ADD COLUMN merge_code TEXT;
ALTER TABLE webhook_event ADD COLUMN merge_args TEXT;
"""

# Step 14: each delivery keeps the status the event list shows it with
# (`domain/event_status.py`): a QR notification's in the words the History uses for the state
# that notification describes (its own transaction's word, not the charge's later news), any
# other's as it came. The status filter finds a choice's rows by it, down its own index. The
# rows already stored get theirs from their bodies through the same domain function
# (`EVENT_SHOWN_STATUS_FUNCTION`, registered by `db.migrate`); a body that does not name a QR
# tender (in any case) is a card's or none, and keeps its status without being parsed. One
# UPDATE streams the table.
EVENT_SHOWN_STATUS_FUNCTION = "checkout_event_shown_status"
EVENT_SHOWN_STATUS = """
ALTER TABLE webhook_event ADD COLUMN shown_status TEXT;
UPDATE webhook_event SET shown_status = CASE
    WHEN body_type = 'PAYMENT' AND verdict != 'quarantined'
        AND (CAST(body AS TEXT) LIKE '%pix%' OR CAST(body AS TEXT) LIKE '%wallet%')
    THEN checkout_event_shown_status(body, status,
        (SELECT c.state_json FROM charge c
         WHERE c.merchant_charge_id = webhook_event.merchant_charge_id))
    ELSE status END;
CREATE INDEX webhook_event_shown ON webhook_event (shown_status, id);
"""
