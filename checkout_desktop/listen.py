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
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.collector import settle_start_up, thaw
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import (
    HealthLevel,
    ListenerHealthChanged,
    TunnelUrlChanged,
)
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
from checkout_desktop.settings import (
    ListenerSettings,
    Settings,
    SettingsError,
    load_settings,
    unknown_profile,
)
from checkout_desktop.texts import reason_said, shown, translate

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


class ListenOptionError(ValueError):
    """An option or setting `listen` cannot run with; the message says what to do."""


class SecretFileKind(Enum):
    """What an owner-only secret file holds, and the option that names it."""

    WEBHOOK_TOKEN = "--token-file"
    CLIENT_SECRET = "--client-secret-file"

    @property
    def option(self) -> str:
        return self.value

    def words(self, path: Path) -> str:
        """The file, named in the owner's language."""
        if self is SecretFileKind.CLIENT_SECRET:
            return translate("SecretFile", "the client-secret file {path}").format(path=path)
        return translate("SecretFile", "the webhook token file {path}").format(path=path)


def read_token_file(path: Path, kind: SecretFileKind = SecretFileKind.WEBHOOK_TOKEN) -> SecretStr:
    """A secret (the webhook token, or what `kind` says) from a file that only its owner can
    read (mode 600 or 400)."""
    file = kind.words(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise TokenFileError(
            translate("SecretFile", "{file} does not exist").format(file=file)
        ) from None
    except OSError as exc:
        raise TokenFileError(
            translate("SecretFile", "cannot open {file}: {reason}").format(
                file=file, reason=exc.strerror
            )
        ) from None
    # The checks run on the opened file itself, so the file cannot be swapped in between.
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TokenFileError(
                translate("SecretFile", "{file} is not a regular file").format(file=file)
            )
        if info.st_mode & 0o077:
            raise TokenFileError(
                translate(
                    "SecretFile",
                    "{file} can be read or changed by other users (mode {mode}); run `chmod "
                    "600 {path}` and try again",
                ).format(file=file, mode=f"{stat.S_IMODE(info.st_mode):03o}", path=path)
            )
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise TokenFileError(
                translate("SecretFile", "{file} belongs to another user").format(file=file)
            )
        raw = os.read(fd, _MAX_TOKEN_FILE + 1)
    finally:
        os.close(fd)
    if len(raw) > _MAX_TOKEN_FILE:
        raise TokenFileError(
            translate("SecretFile", "{file} is larger than a secret can be").format(file=file)
        )
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise TokenFileError(
            translate("SecretFile", "{file} is not UTF-8 text").format(file=file)
        ) from None
    if not text:
        raise TokenFileError(translate("SecretFile", "{file} is empty").format(file=file))
    if any(c.isspace() for c in text):
        raise TokenFileError(
            translate(
                "SecretFile", "{file} holds more than one word; put only the secret in it"
            ).format(file=file)
        )
    register_secret(text)
    return SecretStr(text)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port",
        type=int,
        metavar=translate("Placeholder", "PORT"),
        help=translate(
            "ListenCommand", "port to listen on (0: any free port; default: the one in settings)"
        ),
    )
    parser.add_argument(
        "--host",
        metavar=translate("Placeholder", "ADDRESS"),
        help=translate(
            "ListenCommand",
            "loopback address to bind (default: the one in settings, normally 127.0.0.1)",
        ),
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help=translate(
            "ListenCommand",
            "allow a --host that is not loopback (an inbox shared on a trusted network); "
            "without it any address but 127.0.0.1, ::1 or localhost is refused",
        ),
    )
    parser.add_argument(
        "--token-file",
        metavar=translate("Placeholder", "FILE"),
        help=translate(
            "ListenCommand",
            "read the webhook token from FILE instead of the keychain; FILE must be readable "
            "by its owner only (chmod 600)",
        ),
    )
    parser.add_argument(
        "--profile",
        metavar=translate("Placeholder", "NAME"),
        help=translate("ListenCommand", "profile whose webhook token the keychain holds"),
    )
    parser.add_argument(
        "--no-tunnel",
        action="store_true",
        help=translate("ListenCommand", "do not start the tunnel set in settings"),
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
        name = args.profile or settings.active_profile
        profile = settings.profiles.get(name)
        if profile is None:
            raise ListenOptionError(unknown_profile(name, settings.profiles))
        if profile.is_builtin_sandbox and not args.token_file:
            # Its notifications go to the window's own inbox, signed with its public test
            # token: nothing reaches a `listen`, and the keychain holds no token for it. (A
            # standalone `sandbox` given a token file can still deliver to `listen --token-file`.)
            raise ListenOptionError(
                translate(
                    "ListenCommand",
                    "the built-in sandbox (profile {profile}) notifies the terminal's own inbox "
                    "while the window runs, and needs no token; listen is for a real "
                    "environment: name its profile with --profile NAME (known profiles: {known}) "
                    "or choose it in Settings → Environment",
                ).format(profile=repr(name), known=", ".join(sorted(settings.profiles)))
            )
        # Notifications' times without offset are read in the profile's zone.
        set_naive_zone(profile.time_zone)
        listener_settings = _listener_settings(settings, args)
        token = webhook_token(settings, token_file=args.token_file, profile=args.profile)
        shared = _shared_store(getattr(args, "store", None) or settings.shared_store_url)
    except (
        ListenOptionError,
        SettingsError,
        ListenerError,
        TokenFileError,
        SecretMissing,
        KeychainUnavailable,
    ) as exc:
        print(f"checkout-desktop listen: {shown(exc)}", file=sys.stderr)
        if isinstance(exc, SecretMissing):
            hint = translate("ListenCommand", "(or pass the token with --token-file FILE)")
            print(f"  {hint}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"checkout-desktop listen: {shown(exc)}", file=sys.stderr)
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
            message = translate(
                "ListenCommand",
                "waiting: the shop's inbox is held by {counter} on {host} (process {pid}); this "
                "one takes it over when that one stops",
            ).format(counter=holder.counter, host=holder.host, pid=holder.pid)
            print(message, file=sys.stderr, flush=True)
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
            print(f"checkout-desktop listen: {shown(exc)}", file=sys.stderr)
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


def _print_health(event: ListenerHealthChanged) -> None:
    """The inbox's health on stderr, in the owner's language (the log keeps it in English)."""
    levels = {
        HealthLevel.HEALTHY: translate("ListenCommand", "healthy"),
        HealthLevel.DEGRADED: translate("ListenCommand", "degraded"),
        HealthLevel.DOWN: translate("ListenCommand", "down"),
    }
    print(
        translate("ListenCommand", "inbox health: {level} — {reason}").format(
            level=levels.get(event.level, event.level.value), reason=reason_said(event.reason)
        ),
        file=sys.stderr,
    )


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
    bus.subscribe(ListenerHealthChanged, _print_health)
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
            print(f"checkout-desktop listen: {shown(exc)}", file=sys.stderr)
            return 1
        except TunnelConfigError as exc:
            print(f"checkout-desktop listen: {shown(exc)}", file=sys.stderr)
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
    stats = listener.stats
    print(
        translate(
            "ListenCommand",
            "stopped; {stored} stored, {duplicates} duplicates, {quarantined} quarantined, "
            "{refused} refused",
        ).format(
            stored=stats.stored,
            duplicates=stats.duplicates,
            quarantined=stats.quarantined,
            refused=stats.refused,
        ),
        file=sys.stderr,
    )
    return return_code


def _print_url_notice(event: TunnelUrlChanged) -> None:
    if event.previous_url:
        message = translate(
            "ListenCommand",
            "ACTION NEEDED: set the notification URL in the merchant panel to {url} (it holds "
            "{previous}); until then the service delivers to a dead address",
        ).format(url=event.notification_url, previous=event.previous_url)
    else:
        message = translate(
            "ListenCommand",
            "ACTION NEEDED: set the notification URL in the merchant panel to {url} (it holds "
            "nothing); until then the service delivers to a dead address",
        ).format(url=event.notification_url)
    print(message, file=sys.stderr, flush=True)


__all__ = [
    "SecretFileKind",
    "TokenFileError",
    "configure",
    "read_token_file",
    "run",
    "webhook_token",
]
