"""The embedded SQLite store: schema, migrations and repositories."""
