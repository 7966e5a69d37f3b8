"""Schema of the shop's shared facts: the settings its counters share, and their ids."""

SHOP_SCHEMA = """
CREATE TABLE shop_setting (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by TEXT NOT NULL
);
CREATE TABLE shop_counter (
    counter_id TEXT PRIMARY KEY,
    terminal_id TEXT NOT NULL UNIQUE,
    host TEXT NOT NULL,
    registered_at TEXT NOT NULL
);
"""
"""Schema step 10 (the same on SQLite and PostgreSQL)."""
