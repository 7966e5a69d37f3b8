"""`checkout-desktop events`: export stored webhook deliveries as JSON Lines or CSV."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO, cast

from checkout_desktop.domain.deliveries import EventFilter
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.inbox.export import (
    ExportError,
    ExportFormat,
    ExportStats,
    parse_when,
    write_events,
)
from checkout_desktop.logsetup import setup_logging
from checkout_desktop.paths import app_paths
from checkout_desktop.store.errors import StoreError
from checkout_desktop.store.postgres.events import PgEventRepository
from checkout_desktop.store.postgres.events import reading as shared_reading
from checkout_desktop.store.sqlite.events import EventRepository, reading
from checkout_desktop.texts import shown, translate

logger = logging.getLogger(__name__)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--since",
        metavar=translate("Placeholder", "WHEN"),
        help=translate(
            "EventsCommand",
            "only deliveries received at or after WHEN: an ISO 8601 date or time (UTC unless "
            "it carries an offset) or a span back from now such as 90m, 12h, 7d",
        ),
    )
    parser.add_argument(
        "--until",
        metavar=translate("Placeholder", "WHEN"),
        help=translate("EventsCommand", "only deliveries received before WHEN"),
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "csv"),
        default="jsonl",
        help=translate("EventsCommand", "output format (jsonl)"),
    )
    parser.add_argument(
        "--type",
        action="append",
        default=[],
        metavar=translate("Placeholder", "TYPE"),
        help=translate(
            "EventsCommand",
            "event-type header or body type, e.g. TransactionUpdateMessage or PAYMENT (repeatable)",
        ),
    )
    parser.add_argument(
        "--status",
        action="append",
        default=[],
        metavar=translate("Placeholder", "STATUS"),
        help=translate("EventsCommand", "status (repeatable)"),
    )
    parser.add_argument(
        "--verdict",
        action="append",
        default=[],
        choices=[v.value for v in Verdict],
        help=translate("EventsCommand", "inbox verdict (repeatable)"),
    )
    parser.add_argument(
        "--charge",
        metavar=translate("Placeholder", "ID"),
        help=translate("EventsCommand", "merchant charge id or service charge id"),
    )
    parser.add_argument(
        "--search",
        metavar=translate("Placeholder", "TEXT"),
        help=translate("EventsCommand", "free text in ids, reason or body"),
    )
    parser.add_argument(
        "--output",
        "-o",
        metavar=translate("Placeholder", "FILE"),
        help=translate("EventsCommand", "write to FILE instead of standard output"),
    )


def _filter(args: argparse.Namespace) -> EventFilter:
    return EventFilter(
        types=tuple(args.type),
        statuses=tuple(args.status),
        verdicts=tuple(Verdict(v) for v in args.verdict),
        charge=args.charge or None,
        text=args.search or None,
        since=parse_when(args.since) if args.since else None,
        until=parse_when(args.until) if args.until else None,
    )


def run(args: argparse.Namespace) -> int:
    setup_logging(None, level=logging.DEBUG if args.verbose else logging.WARNING)
    try:
        where = _filter(args)
    except ExportError as exc:
        print(f"checkout-desktop events: {shown(exc)}", file=sys.stderr)
        return 2
    store = app_paths(args.data_dir).database_file
    if args.output and _is_a_store(Path(args.output), store):
        message = translate(
            "EventsCommand",
            "{file} is the terminal's store or a database: an export never writes over it; "
            "choose another file",
        ).format(file=args.output)
        print(f"checkout-desktop events: {message}", file=sys.stderr)
        return 2
    shared = getattr(args, "store", None)
    if not shared and not store.exists():
        message = translate(
            "EventsCommand",
            "there is no store at {store} yet (nothing has been received there); choose another "
            "with --data-dir or CHECKOUT_DESKTOP_HOME",
        ).format(store=store)
        print(f"checkout-desktop events: {message}", file=sys.stderr)
        return 1
    try:
        # The shop's shared store when --store names one, else this computer's file.
        source: contextlib.AbstractContextManager[EventRepository | PgEventRepository] = (
            shared_reading(shared) if shared else reading(store)
        )
        with source as repo, contextlib.ExitStack() as stack:
            out: TextIO = sys.stdout
            if args.output:
                out = stack.enter_context(_whole_file(Path(args.output)))
            stats = ExportStats()
            count = write_events(repo.iter_full(where), out, cast(ExportFormat, args.format), stats)
            out.flush()
    except StoreError as exc:
        print(f"checkout-desktop events: {shown(exc)}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        message = translate("EventsCommand", "cannot write the export: {reason}").format(reason=exc)
        print(f"checkout-desktop events: {message}", file=sys.stderr)
        return 1
    logger.info("exported %d deliveries", count)
    if stats.raw_rows:
        message = translate(
            "EventsCommand",
            "{raw} of {count} deliveries could not be rendered and were exported raw (body as "
            'base64, flagged "unrenderable")',
        ).format(raw=stats.raw_rows, count=count)
        print(f"checkout-desktop events: {message}", file=sys.stderr)
    if args.output:
        message = translate("EventsCommand", "exported {count} deliveries to {file}").format(
            count=count, file=args.output
        )
        print(message, file=sys.stderr)
    return 0


_SQLITE_HEADER = b"SQLite format 3\x00"


def _is_a_store(target: Path, store: Path) -> bool:
    """The terminal's store, one of its journal files, or any other SQLite database."""
    names = {store.name + suffix for suffix in ("", "-wal", "-shm", "-journal")}
    try:
        if target.resolve().parent == store.resolve().parent and target.name in names:
            return True
        with target.open("rb") as existing:
            return existing.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER
    except OSError:
        return False


@contextlib.contextmanager
def _whole_file(target: Path) -> Iterator[TextIO]:
    """A new file beside `target` that replaces it only once the export is whole: an export
    that fails leaves what was there. Owner-only, like the store: exports hold customer names
    and e-mails."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    partial = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


__all__ = ["configure", "run"]
