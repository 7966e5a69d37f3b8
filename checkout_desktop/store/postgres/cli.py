"""`checkout-desktop --store URL store …`: the shared store's password and a connection check."""

from __future__ import annotations

import argparse
import getpass
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from checkout_desktop.errors import PlainError
from checkout_desktop.logsetup import setup_logging
from checkout_desktop.paths import (
    app_paths,
    data_folder_holder,
    hold_data_folder,
    let_go_of_data_folder,
)
from checkout_desktop.secrets import KeychainUnavailable, SecretStore
from checkout_desktop.store.errors import StoreError
from checkout_desktop.store.postgres import db, schema
from checkout_desktop.store.postgres.address import StoreAddress, StoreAddressError
from checkout_desktop.store.postgres.inbox_lock import HolderInfo, current_holder
from checkout_desktop.store.postgres.migrate import TableCopy, TargetNotEmpty, copy_store
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words, translate

logger = logging.getLogger(__name__)


class StoreCommandError(PlainError):
    exit_code = 2


class FolderInUse(PlainError):
    """A terminal runs on the data folder whose store was to be copied."""

    exit_code = 1


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(
        dest="store_action", metavar=translate("Placeholder", "ACTION"), required=True
    )
    password_help = translate(
        "StoreCommand",
        "try the shared store's password (read from the terminal, or the first line of "
        "standard input), and keep it in the OS keychain once the server accepts it",
    )
    password = actions.add_parser("password", help=password_help, description=password_help)
    password.add_argument(
        "--forget",
        action="store_true",
        help=translate("StoreCommand", "remove the password from the keychain instead"),
    )
    check_help = translate(
        "StoreCommand",
        "connect to the shared store, bring its schema up to date and say what it holds",
    )
    actions.add_parser("check", help=check_help, description=check_help)
    migrate_help = translate(
        "StoreCommand",
        "copy this computer's whole store (charges, timelines, deliveries) into an empty "
        "shared store in one transaction, verified by counts and checksums",
    )
    move = actions.add_parser("migrate", help=migrate_help, description=migrate_help)
    move.add_argument(
        "--to",
        metavar=translate("Placeholder", "URL"),
        required=True,
        help=translate(
            "StoreCommand", "the shared store to copy into (its password from the keychain)"
        ),
    )


def _address(args: argparse.Namespace) -> StoreAddress:
    url = getattr(args, "to", None) or getattr(args, "store", None)
    if not url:
        raise StoreCommandError(
            translate(
                "StoreCommand",
                "name the shared store before the command: {command} (or {migrate})",
            ).format(
                command="checkout-desktop --store postgresql://USER@HOST/DATABASE store …",
                migrate="store migrate --to URL",
            )
        )
    return StoreAddress.parse(url)


def _read_password() -> SecretStr:
    if sys.stdin.isatty():
        value = getpass.getpass(translate("StoreCommand", "Password of the shared store: "))
    else:
        value = sys.stdin.readline().rstrip("\r\n")
    if not value:
        raise StoreCommandError(translate("StoreCommand", "no password given; nothing was stored"))
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
                    (
                        translate("StoreCommand", "password of {store} removed from the keychain")
                        if gone
                        else translate("StoreCommand", "the keychain held no password for {store}")
                    ).format(store=address)
                )
                return 0
            password = _read_password()
            # Tried before it is kept: a mistyped password must not replace one that works.
            try:
                report = check(address, password)
            except db.SharedStoreError as exc:
                raise db.SharedStoreError(
                    exc.problem, _not_kept(exc), address=exc.address
                ) from None
            except StoreError as exc:
                raise type(exc)(_not_kept(exc)) from None
            db.save_password(address, password, secrets)
            print(
                translate("StoreCommand", "password of {store} kept in the OS keychain").format(
                    store=address
                )
            )
        else:
            report = check(address, db.keychain_password(address, secrets))
    except KeychainUnavailable as exc:
        raise StoreCommandError(exc.words or str(exc)) from None
    except StoreAddressError:
        raise
    for line in report_lines(address, report):
        print(line)
    return 0


def report_lines(address: StoreAddress, report: StoreReport) -> list[str]:
    """What `store check` (and a kept password) says about the store, in the owner's words."""
    holder = report.inbox
    return [
        translate("StoreCommand", "shared store {store}: PostgreSQL {version}").format(
            store=address, version=report.server_version
        ),
        "  "
        + translate("StoreCommand", "schema {version} (this terminal knows up to {known})").format(
            version=report.schema_version, known=schema.SCHEMA_VERSION
        ),
        "  "
        + (
            translate("StoreCommand", "connection: TLS")
            if report.tls
            else translate("StoreCommand", "connection: not encrypted")
        ),
        "  "
        + (
            translate("StoreCommand", "event search: trigram index")
            if report.search_index
            else translate("StoreCommand", "event search: scans (no pg_trgm)")
        ),
        "  "
        + translate("StoreCommand", "{charges} charges, {events} webhook deliveries").format(
            charges=report.charges, events=report.events
        ),
        "  "
        + (
            translate("StoreCommand", "inbox: no counter holds it")
            if holder is None
            else translate(
                "StoreCommand",
                "inbox: held by {counter} on {host} (process {pid}) since {since} UTC",
            ).format(
                counter=holder.counter,
                host=holder.host,
                pid=holder.pid,
                since=f"{holder.since:%Y-%m-%d %H:%M}",
            )
        ),
    ]


def _not_kept(problem: Exception) -> Words:
    return Words(
        QT_TRANSLATE_NOOP(
            "StoreCommand", "{problem}; the password typed was not kept in the keychain"
        ),
        problem=getattr(problem, "words", None) or str(problem),
    )


def _migrate(args: argparse.Namespace, address: StoreAddress, password: SecretStr | None) -> int:
    paths = app_paths(args.data_dir)
    source = paths.database_file
    if not source.exists():
        raise StoreCommandError(
            translate(
                "StoreCommand",
                "there is no store at {store} to copy; choose the folder with --data-dir or "
                "CHECKOUT_DESKTOP_HOME",
            ).format(store=source)
        )
    # The folder's lock, as the terminal window holds it: refused while a window runs on this
    # folder (its later sales would stay behind in the copied file), and a window started
    # during the copy is refused in turn.
    try:
        held = hold_data_folder(paths.data_dir)
    except OSError as exc:
        raise StoreCommandError(
            translate(
                "StoreCommand", "cannot lock the data folder {folder} ({why}); nothing was copied"
            ).format(folder=paths.data_dir, why=exc.strerror or exc)
        ) from exc
    if held is None:
        folder, pid = paths.data_dir, data_folder_holder(paths.data_dir) or "?"
        raise FolderInUse(
            translate(
                "StoreCommand",
                "checkout-desktop is running on {folder} (process {pid}): the sales it makes "
                "after the copy would stay in this folder's own store. Close it, then run store "
                "migrate again; nothing was copied",
            ).format(folder=folder, pid=pid)
        )
    try:
        copied = _copy(source, address, password, url=args.to)
    finally:
        let_go_of_data_folder(held)
    total = sum(c.rows for c in copied)
    print(
        translate(
            "StoreCommand",
            "verified: {rows} rows in {tables} tables, counts and SHA-256 checksums equal",
        ).format(rows=total, tables=len(copied))
    )
    print(
        translate(
            "StoreCommand",
            "next: open every counter of this shop on the shared store: start it with "
            '`checkout-desktop --store {url}`, or choose "The shop\'s shared database" in '
            "Settings (on each computer, `checkout-desktop --store {url} store password` keeps "
            "its password first). A counter left on its own store keeps its sales there.",
        ).format(url=args.to)
    )
    return 0


def _copy(
    source: Path, address: StoreAddress, password: SecretStr | None, *, url: str
) -> list[TableCopy]:
    def report(done: TableCopy) -> None:
        rows = translate("StoreCommand", "{table}: {rows} rows").format(
            table=done.table, rows=done.rows
        )
        print(f"  {rows}", flush=True)

    print(
        translate("StoreCommand", "copying {source} into {store} (one transaction)").format(
            source=source, store=address
        )
    )
    try:
        return copy_store(source, address, password, progress=report)
    except TargetNotEmpty as exc:
        # Another data folder of the shop (or its counters already work on the shared store).
        raise TargetNotEmpty(
            exc.problem,
            translate(
                "StoreCommand",
                "{problem} This folder's sales stay in its own store; to work on the shared "
                "store from now on, start this counter with `checkout-desktop --store {url}`, "
                'or choose "The shop\'s shared database" in Settings.',
            ).format(problem=exc, url=url),
            address=exc.address,
        ) from None


__all__ = ["StoreReport", "check", "configure", "run"]
