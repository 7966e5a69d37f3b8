"""`checkout-desktop --store URL store …`: the shared store's password and a connection check."""

from __future__ import annotations

import argparse
import getpass
import logging
import sys
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from checkout_desktop.errors import PlainError
from checkout_desktop.logsetup import setup_logging
from checkout_desktop.paths import app_paths
from checkout_desktop.secrets import KeychainUnavailable, SecretStore
from checkout_desktop.store.errors import StoreError
from checkout_desktop.store.postgres import db, schema
from checkout_desktop.store.postgres.address import StoreAddress, StoreAddressError
from checkout_desktop.store.postgres.inbox_lock import HolderInfo, current_holder
from checkout_desktop.store.postgres.migrate import TableCopy, copy_store

logger = logging.getLogger(__name__)


class StoreCommandError(PlainError):
    exit_code = 2


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="store_action", metavar="ACTION", required=True)
    password = actions.add_parser(
        "password",
        help="try the shared store's password (read from the terminal, or the first line of "
        "standard input), and keep it in the OS keychain once the server accepts it",
    )
    password.add_argument(
        "--forget", action="store_true", help="remove the password from the keychain instead"
    )
    actions.add_parser(
        "check",
        help="connect to the shared store, bring its schema up to date and say what it holds",
    )
    move = actions.add_parser(
        "migrate",
        help="copy this computer's whole store (charges, timelines, deliveries) into an empty "
        "shared store in one transaction, verified by counts and checksums",
    )
    move.add_argument(
        "--to",
        metavar="URL",
        required=True,
        help="the shared store to copy into (its password from the keychain)",
    )


def _address(args: argparse.Namespace) -> StoreAddress:
    url = getattr(args, "to", None) or getattr(args, "store", None)
    if not url:
        raise StoreCommandError(
            "name the shared store before the command: "
            "checkout-desktop --store postgresql://USER@HOST/DATABASE store … (or store "
            "migrate --to URL)"
        )
    return StoreAddress.parse(url)


def _read_password() -> SecretStr:
    if sys.stdin.isatty():
        value = getpass.getpass("Password of the shared store: ")
    else:
        value = sys.stdin.readline().rstrip("\r\n")
    if not value:
        raise StoreCommandError("no password given; nothing was stored")
    return SecretStr(value)


@dataclass(frozen=True)
class StoreReport:
    """What `store check` found."""

    server_version: str
    schema_version: int
    tls: bool
    search_index: bool
    charges: int
    events: int
    inbox: HolderInfo | None


def check(address: StoreAddress, password: SecretStr | None) -> StoreReport:
    """Connect, migrate, and count: the store works as this terminal would use it."""
    conn = db.connect(address, password)
    try:

        def one(sql: str) -> Any:
            cursor = conn.execute(sql)
            row = cursor.fetchone()
            assert row is not None
            return row[0]

        return StoreReport(
            server_version=str(one("SHOW server_version")),
            schema_version=int(one("SELECT version FROM checkout_schema")),
            tls=bool(conn.pgconn.ssl_in_use),
            search_index=db.has_search_index(conn),
            charges=int(one("SELECT count(*) FROM charge")),
            events=int(one("SELECT count(*) FROM webhook_event")),
            inbox=current_holder(conn),
        )
    finally:
        conn.close()


def run(args: argparse.Namespace) -> int:
    setup_logging(None, level=logging.DEBUG if args.verbose else logging.WARNING)
    try:
        address = _address(args)
        secrets = SecretStore()
        if args.store_action == "migrate":
            return _migrate(args, address, db.keychain_password(address, secrets))
        if args.store_action == "password":
            if args.forget:
                gone = secrets.delete_store_password(address.keychain_key)
                print(
                    f"password of {address} removed from the keychain"
                    if gone
                    else f"the keychain held no password for {address}"
                )
                return 0
            password = _read_password()
            # Tried before it is kept: a mistyped password must not replace one that works.
            try:
                report = check(address, password)
            except db.SharedStoreError as exc:
                raise db.SharedStoreError(
                    exc.problem,
                    f"{exc}; the password typed was not kept in the keychain",
                    address=exc.address,
                ) from None
            except StoreError as exc:
                raise type(exc)(f"{exc}; the password typed was not kept in the keychain") from None
            db.save_password(address, password, secrets)
            print(f"password of {address} kept in the OS keychain")
        else:
            report = check(address, db.keychain_password(address, secrets))
    except KeychainUnavailable as exc:
        raise StoreCommandError(str(exc)) from None
    except StoreAddressError:
        raise
    print(f"shared store {address}: PostgreSQL {report.server_version}")
    print(f"  schema {report.schema_version} (this terminal knows up to {schema.SCHEMA_VERSION})")
    print(f"  connection: {'TLS' if report.tls else 'not encrypted'}")
    print(f"  event search: {'trigram index' if report.search_index else 'scans (no pg_trgm)'}")
    print(f"  {report.charges} charges, {report.events} webhook deliveries")
    holder = report.inbox
    print(
        "  inbox: no counter holds it"
        if holder is None
        else f"  inbox: held by {holder.counter} on {holder.host} (process {holder.pid}) since "
        f"{holder.since:%Y-%m-%d %H:%M} UTC"
    )
    return 0


def _migrate(args: argparse.Namespace, address: StoreAddress, password: SecretStr | None) -> int:
    source = app_paths(args.data_dir).database_file
    if not source.exists():
        raise StoreCommandError(
            f"there is no store at {source} to copy; choose the folder with --data-dir or "
            "CHECKOUT_DESKTOP_HOME"
        )

    def report(done: TableCopy) -> None:
        print(f"  {done.table}: {done.rows} rows", flush=True)

    print(f"copying {source} into {address} (one transaction)")
    copied = copy_store(source, address, password, progress=report)
    total = sum(c.rows for c in copied)
    print(f"verified: {total} rows in {len(copied)} tables, counts and SHA-256 checksums equal")
    return 0


__all__ = ["StoreReport", "check", "configure", "run"]
