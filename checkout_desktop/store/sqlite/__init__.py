"""The store on one SQLite file: schema, migrations, repositories and the store ports on them."""
