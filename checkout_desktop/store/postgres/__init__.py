"""The shared store of a shop with several counters, on PostgreSQL (psycopg 3, async)."""
