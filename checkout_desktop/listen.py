"""`checkout-desktop listen`: the webhook inbox without the window, writing to the same store.

For a shop that wants notifications recorded while the terminal is closed (a login item or a
system service). Prints the bound address on standard output, logs to standard error and the
log folder, and runs until SIGTERM or SIGINT, then answers and commits what is in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.collector import settle_start_up, thaw
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import ListenerHealthChanged, TunnelUrlChanged
from checkout_desktop.domain.timestamps import set_naive_zone
from checkout_desktop.inbox.listener import ListenerError, check_bind_host
from checkout_desktop.inbox.service import Inbox
from checkout_desktop.inbox.tunnel import TunnelConfigError
from checkout_desktop.logsetup import register_secret, setup_logging
from checkout_desktop.paths import app_paths
from checkout_desktop.secrets import (
    KeychainCredentials,
    KeychainUnavailable,
    SecretMissing,
    SecretStore,
)
from checkout_desktop.settings import ListenerSettings, Settings, SettingsError, load_settings

if TYPE_CHECKING:
    from checkout_desktop.store.ports import DeliveryBatches
    from checkout_desktop.store.postgres.address import StoreAddress
    from checkout_desktop.store.postgres.inbox_lock import InboxLock

logger = logging.getLogger(__name__)

_MAX_TOKEN_FILE = 4096
INBOX_TAKEOVER_S = 1.0
"""How often a `listen` waiting for the shop's inbox asks whether its holder is gone."""


class TokenFileError(ValueError):
    """The token file cannot be used; the message says why and how to fix it."""


def read_token_file(path: Path) -> SecretStr:
    """The webhook token from a file that only its owner can read (mode 600 or 400)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise TokenFileError(f"the token file {path} does not exist") from None
    except OSError as exc:
        raise TokenFileError(f"cannot open the token file {path}: {exc.strerror}") from None
    # The checks run on the opened file itself, so the file cannot be swapped in between.
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TokenFileError(f"the token file {path} is not a regular file")
        if info.st_mode & 0o077:
            raise TokenFileError(
                f"the token file {path} can be read or changed by other users (mode "
                f"{stat.S_IMODE(info.st_mode):03o}); run `chmod 600 {path}` and try again"
            )
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise TokenFileError(f"the token file {path} belongs to another user")
        raw = os.read(fd, _MAX_TOKEN_FILE + 1)
    finally:
        os.close(fd)
    if len(raw) > _MAX_TOKEN_FILE:
        raise TokenFileError(f"the token file {path} is larger than a token can be")
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise TokenFileError(f"the token file {path} is not UTF-8 text") from None
    if not text:
        raise TokenFileError(f"the token file {path} is empty")
    if any(c.isspace() for c in text):
        raise TokenFileError(
            f"the token file {path} holds more than one word; put only the token in it"
        )
    register_secret(text)
    return SecretStr(text)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port",
        type=int,
        metavar="PORT",
        help="port to listen on (0: any free port; default: the one in settings)",
    )
    parser.add_argument(
        "--host",
        metavar="ADDRESS",
        help="loopback address to bind (default: the one in settings, normally 127.0.0.1)",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that is not loopback (an inbox shared on a trusted network); "
        "without it any address but 127.0.0.1, ::1 or localhost is refused",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="read the webhook token from FILE instead of the keychain; FILE must be readable "
        "by its owner only (chmod 600)",
    )
    parser.add_argument(
        "--profile", metavar="NAME", help="profile whose webhook token the keychain holds"
    )
    parser.add_argument(
        "--no-tunnel", action="store_true", help="do not start the tunnel set in settings"
    )


def _listener_settings(settings: Settings, args: argparse.Namespace) -> ListenerSettings:
    updates: dict[str, object] = {}
    if args.port is not None:
        updates["port"] = args.port
    if args.host is not None:
        updates["host"] = args.host
    chosen = ListenerSettings.model_validate({**settings.listener.model_dump(), **updates})
    check_bind_host(chosen.host, allow_remote=args.allow_remote)
    return chosen


def webhook_token(
    settings: Settings, *, token_file: str | None = None, profile: str | None = None
) -> SecretStr:
    """The token deliveries must carry: from `token_file`, else from the profile's keychain."""
    if token_file:
        return read_token_file(Path(token_file))
    return KeychainCredentials(SecretStore(), profile or settings.active_profile).webhook_token()


def run(args: argparse.Namespace) -> int:
    paths = app_paths(args.data_dir).ensure()
    setup_logging(paths.log_dir, level=logging.DEBUG if args.verbose else logging.INFO)
    try:
        settings = load_settings(paths)
        profile = settings.profiles.get(args.profile or settings.active_profile)
        if profile is not None:
            # Notifications' times without offset are read in the profile's zone.
            set_naive_zone(profile.time_zone)
        listener_settings = _listener_settings(settings, args)
        token = webhook_token(settings, token_file=args.token_file, profile=args.profile)
        shared = _shared_store(getattr(args, "store", None) or settings.shared_store_url)
    except (
        SettingsError,
        ListenerError,
        TokenFileError,
        SecretMissing,
        KeychainUnavailable,
    ) as exc:
        print(f"checkout-desktop listen: {exc}", file=sys.stderr)
        if isinstance(exc, SecretMissing):
            print("  (or pass the token with --token-file FILE)", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"checkout-desktop listen: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(
        _serve(
            settings,
            listener_settings,
            token,
            paths.database_file if shared is None else shared,
            tunnel=not args.no_tunnel,
            allow_remote=args.allow_remote,
        )
    )


@dataclass(frozen=True)
class SharedStore:
    """The shop's shared store `listen` serves the inbox of, and its password."""

    address: StoreAddress
    password: SecretStr | None


def _shared_store(url: str | None) -> SharedStore | None:
    if not url:
        return None
    from checkout_desktop.store.postgres import db
    from checkout_desktop.store.postgres.address import StoreAddress

    address = StoreAddress.parse(url)
    return SharedStore(address, db.keychain_password(address, SecretStore()))


async def _hold_inbox(shared: SharedStore, stop: asyncio.Event) -> InboxLock | None:
    """Wait until this process holds the shop's inbox (None: stopped first). While another
    counter holds it, say who, once, and ask again every INBOX_TAKEOVER_S seconds: when that
    counter stops or dies, the server frees its lock and this one takes the inbox over."""
    from checkout_desktop.store.postgres.inbox_lock import InboxLock

    lock = InboxLock(shared.address, shared.password, counter=f"listen@{socket.gethostname()}")
    told: tuple[str, str, int] | None = None
    while not stop.is_set():
        holder = await asyncio.to_thread(lock.try_take)
        if lock.held:
            return lock
        if holder is not None and (holder.counter, holder.host, holder.pid) != told:
            told = (holder.counter, holder.host, holder.pid)
            print(
                f"waiting: the shop's inbox is held by {holder.counter} on {holder.host} "
                f"(process {holder.pid}); this one takes it over when that one stops",
                file=sys.stderr,
                flush=True,
            )
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(INBOX_TAKEOVER_S):
                await stop.wait()
    return None


async def _serve(
    settings: Settings,
    listener_settings: ListenerSettings,
    token: SecretStr,
    store: Path | SharedStore,
    *,
    tunnel: bool,
    allow_remote: bool = False,
) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        if isinstance(store, Path):
            return await _serve_inbox(
                settings, listener_settings, token, store, stop, tunnel, allow_remote
            )
        from checkout_desktop.store.errors import StoreError
        from checkout_desktop.store.postgres.writer import PgDeliveryBatches

        try:
            lock = await _hold_inbox(store, stop)
        except StoreError as exc:
            print(f"checkout-desktop listen: {exc}", file=sys.stderr)
            return 1
        if lock is None:
            return 0
        try:
            return await _serve_inbox(
                settings,
                listener_settings,
                token,
                PgDeliveryBatches(store.address, store.password),
                stop,
                tunnel,
                allow_remote,
                where=str(store.address),
            )
        finally:
            lock.release()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


async def _serve_inbox(
    settings: Settings,
    listener_settings: ListenerSettings,
    token: SecretStr,
    store: Path | DeliveryBatches,
    stop: asyncio.Event,
    tunnel: bool,
    allow_remote: bool,
    *,
    where: str | None = None,
) -> int:
    bus = EventBus()
    bus.subscribe(TunnelUrlChanged, _print_url_notice)
    bus.subscribe(
        ListenerHealthChanged,
        lambda e: print(f"inbox health: {e.level.value} — {e.reason}", file=sys.stderr),
    )
    inbox = Inbox(
        store=store,
        listener_settings=listener_settings,
        token=token,
        bus=bus,
        tunnel_settings=settings.tunnel if tunnel else None,
        heartbeat_interval_s=settings.tunnel.heartbeat_interval_s,
        applier=inbox_applier,
        strict_tunnel=True,
        allow_remote=allow_remote,
    )
    try:
        try:
            url = await inbox.start()
        except ListenerError as exc:
            print(f"checkout-desktop listen: {exc}", file=sys.stderr)
            return 1
        except TunnelConfigError as exc:
            print(f"checkout-desktop listen: {exc}", file=sys.stderr)
            return_code = 2
        else:
            # Printed only once a signal stops the inbox cleanly: whoever reads the address may
            # stop it.
            print(f"listening on {url}", flush=True)
            print(f"store: {store if where is None else where}", flush=True)
            # Started: what start-up built stays out of the collections that run under load.
            settle_start_up()
            await stop.wait()
            return_code = 0
    finally:
        await inbox.stop()
        thaw()
    listener = inbox.listener
    assert listener is not None
    print(
        f"stopped; {listener.stats.stored} stored, {listener.stats.duplicates} duplicates, "
        f"{listener.stats.quarantined} quarantined, {listener.stats.refused} refused",
        file=sys.stderr,
    )
    return return_code


def _print_url_notice(event: TunnelUrlChanged) -> None:
    print(
        f"ACTION NEEDED: set the notification URL in the merchant panel to "
        f"{event.notification_url} (it holds {event.previous_url or 'nothing'}); until then "
        "the service delivers to a dead address",
        file=sys.stderr,
        flush=True,
    )


__all__ = ["TokenFileError", "configure", "read_token_file", "run", "webhook_token"]
