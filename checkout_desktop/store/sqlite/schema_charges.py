"""Schema of charges: attempts recorded before sending, charges, transactions and timelines.

No table here ever holds card data: an attempt keeps each card's brand and last four digits
only, and replies (which the service masks) are masked again before they are stored.
"""

import json
import logging

from checkout_desktop.domain.shown_status import shown_status
from checkout_desktop.domain.state import AttemptState, ChargeState

logger = logging.getLogger(__name__)

V1 = """
CREATE TABLE charge_attempt (
    merchant_charge_id TEXT PRIMARY KEY,
    sale_id TEXT NOT NULL,
    profile TEXT NOT NULL,
    amount INTEGER NOT NULL CHECK (amount > 0),
    late_capture INTEGER NOT NULL DEFAULT 0,
    cards_json TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    resolved_at TEXT,
    answered INTEGER NOT NULL DEFAULT 0,
    queries INTEGER NOT NULL DEFAULT 0,
    detail TEXT
);
CREATE INDEX charge_attempt_sale ON charge_attempt (sale_id, created_at);
CREATE INDEX charge_attempt_open ON charge_attempt (state)
    WHERE state IN ('RECORDED', 'UNKNOWN');

CREATE TABLE charge (
    id INTEGER PRIMARY KEY,
    merchant_charge_id TEXT NOT NULL UNIQUE,
    charge_id TEXT,
    sale_id TEXT,
    status TEXT,
    amount INTEGER,
    refunded_amount INTEGER,
    three_ds_status TEXT,
    state_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_webhook_at TEXT,
    last_checked_at TEXT,
    checks INTEGER NOT NULL DEFAULT 0,
    next_check_at TEXT,
    check_reason TEXT
);
CREATE INDEX charge_charge_id ON charge (charge_id) WHERE charge_id IS NOT NULL;
CREATE INDEX charge_sale ON charge (sale_id, id) WHERE sale_id IS NOT NULL;
CREATE INDEX charge_status ON charge (status, id);
CREATE INDEX charge_next_check ON charge (next_check_at) WHERE next_check_at IS NOT NULL;

CREATE TABLE charge_transaction (
    merchant_charge_id TEXT NOT NULL REFERENCES charge (merchant_charge_id),
    txn_key TEXT NOT NULL,
    transaction_id TEXT,
    payment_type TEXT,
    status TEXT,
    amount INTEGER,
    refunded_amount INTEGER,
    brand TEXT,
    last_four TEXT CHECK (last_four IS NULL OR (length(last_four) = 4
        AND last_four NOT GLOB '*[^0-9]*')),
    nsu TEXT,
    authorization_code TEXT,
    installments INTEGER,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (merchant_charge_id, txn_key)
);

CREATE TABLE charge_timeline (
    id INTEGER PRIMARY KEY,
    merchant_charge_id TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    source TEXT NOT NULL
        CHECK (source IN ('request', 'reply', 'webhook', 'reconciliation', '3ds', 'system')),
    source_ref TEXT,
    input_status TEXT,
    occurred_at TEXT,
    outcome TEXT NOT NULL,
    previous_status TEXT,
    new_status TEXT,
    reason TEXT NOT NULL,
    changes_json TEXT NOT NULL DEFAULT '[]',
    body_json TEXT
);
CREATE INDEX charge_timeline_charge ON charge_timeline (merchant_charge_id, id);
"""

# Refunds, captures and cancellations recorded before they are sent (like charge attempts),
# and the daily sweep that asks about each charge of the day once.
V3 = """
CREATE TABLE money_operation (
    id INTEGER PRIMARY KEY,
    merchant_charge_id TEXT NOT NULL REFERENCES charge (merchant_charge_id),
    kind TEXT NOT NULL CHECK (kind IN ('refund', 'capture', 'cancel')),
    amount INTEGER NOT NULL CHECK (amount > 0),
    state TEXT NOT NULL,
    base_status TEXT,
    base_amount INTEGER,
    base_refunded INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    resolved_at TEXT,
    answered INTEGER NOT NULL DEFAULT 0,
    queries INTEGER NOT NULL DEFAULT 0,
    detail TEXT
);
CREATE INDEX money_operation_charge ON money_operation (merchant_charge_id, id);
-- One operation at a time per charge: a second open one cannot even be written.
CREATE UNIQUE INDEX money_operation_open ON money_operation (merchant_charge_id)
    WHERE state IN ('RECORDED', 'SENT', 'UNKNOWN');

CREATE TABLE charge_sweep (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    window_from TEXT NOT NULL,
    window_to TEXT NOT NULL,
    after_id INTEGER NOT NULL DEFAULT 0,
    checked INTEGER NOT NULL DEFAULT 0,
    changed INTEGER NOT NULL DEFAULT 0,
    finished_at TEXT
);
CREATE INDEX charge_created ON charge (created_at, id);
"""

# Reasons as data (checkout_desktop.domain.reasons): the code and its arguments (JSON) beside
# the English text, so each screen shows them in its own language. Rows written before this
# step keep only their text and are shown as stored.
REASONS = """
ALTER TABLE charge_timeline ADD COLUMN reason_code TEXT;
ALTER TABLE charge_timeline ADD COLUMN reason_args TEXT;
ALTER TABLE charge ADD COLUMN check_reason_code TEXT;
ALTER TABLE charge ADD COLUMN check_reason_args TEXT;
"""

# Tenders as data (checkout_desktop.domain.tenders): each attempt keeps what pays it as a list
# of JSON objects with a "kind", so a new payment method needs no new column. The card lists
# of earlier rows become card tenders; a row whose tenders_json is empty is read from its cards.
TENDERS = """
ALTER TABLE charge_attempt ADD COLUMN tenders_json TEXT;
UPDATE charge_attempt SET tenders_json = (
    SELECT json_group_array(json_set(value, '$.kind', 'card')) FROM json_each(cards_json)
);
"""

# Each charge remembers the profile (service environment) that made it and its customer's
# document, so the history keeps environments apart and nothing about a charge is ever sent to
# another service. Charges from before this step take their attempt's profile; a charge this
# terminal never attempted keeps none, and no service is ever asked about it. Customers are
# kept (name, document, e-mail; no card data) for the history's search and the recent
# customers offered at the next sale.
ENVIRONMENTS = """
ALTER TABLE charge ADD COLUMN profile TEXT;
ALTER TABLE charge ADD COLUMN customer_document TEXT;
ALTER TABLE charge_attempt ADD COLUMN customer_document TEXT;
UPDATE charge SET profile = (SELECT a.profile FROM charge_attempt a
    WHERE a.merchant_charge_id = charge.merchant_charge_id);
CREATE INDEX charge_profile ON charge (profile, id);
CREATE INDEX charge_profile_amount ON charge (profile, amount, id);
CREATE INDEX charge_customer ON charge (customer_document, id)
    WHERE customer_document IS NOT NULL;
CREATE INDEX charge_transaction_last_four ON charge_transaction (last_four)
    WHERE last_four IS NOT NULL;
CREATE TABLE customer (
    document TEXT PRIMARY KEY,
    document_type TEXT NOT NULL,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    email TEXT,
    phone TEXT,
    first_used_at TEXT NOT NULL,
    last_used_at TEXT NOT NULL,
    uses INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX customer_recent ON customer (last_used_at);
"""

# The status each charge is shown with in the history (`domain/shown_status.py`), kept beside
# it so the history's status filter finds exactly the rows shown with the words the clerk
# chose (a QR's charge says PRE_AUTHORIZED while the history shows it awaiting payment). The
# repository writes it with every charge; here the rows already stored get theirs in one
# pass, through the same domain function (`SHOWN_STATUS_FUNCTION`, which `db.migrate`
# registers on the connection). Indexed like `charge_profile`/`charge_status`, so that a
# search by status walks its charges newest first from an index.
SHOWN_STATUS_FUNCTION = "checkout_shown_status"
SHOWN_STATUS = """
ALTER TABLE charge ADD COLUMN shown_status TEXT;
UPDATE charge SET shown_status = checkout_shown_status(state_json, status,
    (SELECT a.state FROM charge_attempt a
     WHERE a.merchant_charge_id = charge.merchant_charge_id));
CREATE INDEX charge_shown ON charge (shown_status, id);
CREATE INDEX charge_profile_shown ON charge (profile, shown_status, id);
"""

# Step 12: the status the history shows is read anew for every stored charge, through the same
# domain function: a paid card charge with money refunded is shown refunded in part (or in
# full), as when the service says PARTIAL; a QR the service called CANCELED once its time ran
# out is shown expired (`domain/shown_status.py`, `domain/qr.py`).
SHOWN_STATUS_AGAIN = """
UPDATE charge SET shown_status = checkout_shown_status(state_json, status,
    (SELECT a.state FROM charge_attempt a
     WHERE a.merchant_charge_id = charge.merchant_charge_id));
"""

# Step 13: a sale keeps the customer's name it was charged under (the customer table holds
# only a document's newest name, which a later sale under the same CPF replaced, so an earlier
# sale showed, and was found by, the later name), and every name a document was charged under
# is kept for the history's search, as its name key (case and accents ignored). Sales from
# before this step take the customer's name as it stands at the upgrade, the best the store
# knows, so a later sale under another name changes them no more.
CUSTOMER_NAMES = """
ALTER TABLE charge_attempt ADD COLUMN customer_name TEXT;
ALTER TABLE charge_attempt ADD COLUMN customer_name_key TEXT;
UPDATE charge_attempt SET
    customer_name = (SELECT k.name FROM customer k WHERE k.document = customer_document),
    customer_name_key = (SELECT k.name_key FROM customer k WHERE k.document = customer_document)
    WHERE customer_document IS NOT NULL;
CREATE TABLE customer_name (
    document TEXT NOT NULL,
    name_key TEXT NOT NULL,
    last_used_at TEXT NOT NULL,
    PRIMARY KEY (document, name_key)
);
INSERT INTO customer_name (document, name_key, last_used_at)
    SELECT document, name_key, last_used_at FROM customer;
"""


# Step 15 (16 on the shared store): a refund, capture or cancel keeps the counter that recorded
# it, so that where counters share a store the one that stopped before its reply settles its own
# when it starts again, and tells its clerk (another counter waits out the grace an open charge
# attempt has). Operations recorded before this step have none: every counter treats them as
# its own, as before.
MONEY_OP_COUNTERS = """
ALTER TABLE money_operation ADD COLUMN counter TEXT;
"""


def stored_shown_status(
    state_json: str | None, status: str | None, attempt_state: str | None
) -> str | None:
    """The shown status of a stored charge row (its state, its status column and its attempt's
    state as stored). A row whose state cannot be read keeps its own status: the upgrade of a
    store never stops on one odd row."""
    try:
        state = ChargeState.from_json(json.loads(state_json or ""))
    except (ValueError, TypeError, KeyError, AttributeError):
        logger.warning("a charge's stored state could not be read; it is shown by its status")
        return status
    try:
        attempt = None if attempt_state is None else AttemptState(attempt_state)
    except ValueError:
        attempt = None  # written by a newer checkout-desktop
    shown = shown_status(state, attempt)
    return None if shown is None else str(shown)
