"""The terminal's headless core: store, event bus, gateway and inbox, built on the running loop.

`Terminal.start` builds every part at once (the inbox built but idle when deferred), so a
`Terminal` is complete from construction; nothing here imports Qt. Heavy modules are imported
where they are first needed, so that the window's start-up decides what loads when.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets as pysecrets
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checkout_desktop.domain.start_problems import StartProblem, StartProblemKind

if TYPE_CHECKING:
    import httpx
    from pydantic import SecretStr

    from checkout_desktop.charges.service import ChargeService
    from checkout_desktop.charges.views import ChargeViews
    from checkout_desktop.domain.deliveries import EventSummary
    from checkout_desktop.domain.events import DomainEvent, EventBus
    from checkout_desktop.domain.inbox_events import InboxHolderChanged, WebhookStored
    from checkout_desktop.gateway.client import DeviceIdentity
    from checkout_desktop.gateway.tokens import TokenManager
    from checkout_desktop.inbox.service import Inbox, ListenerTls, Registrar, Registration
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox.link import SandboxLink
    from checkout_desktop.secrets import Credentials, SecretStore
    from checkout_desktop.settings import Settings
    from checkout_desktop.store.ports import DeliveryBatches, EventReads, Store
    from checkout_desktop.store.postgres.address import StoreAddress
    from checkout_desktop.store.postgres.inbox_lock import HolderInfo, InboxLock

logger = logging.getLogger(__name__)


class StartupError(RuntimeError):
    """The terminal cannot start as configured; the message says what to fix."""


@dataclass
class Terminal:
    """Everything but the window: store, bus, gateway, inbox and (for the sandbox) its link."""

    settings: Settings
    paths: AppPaths
    bus: EventBus
    store: Store
    """The store (the ports the core uses): the SQLite file, or the shop's shared store."""
    views: ChargeViews
    """What the window's widgets read about charges."""
    events: EventReads
    """What the event list reads (the store's stored deliveries)."""
    http: httpx.AsyncClient
    tokens: TokenManager
    service: ChargeService
    inbox: Inbox
    """Built with the terminal; started by `start_inbox` (at once unless deferred)."""
    credentials: Credentials
    merchant_document: str
    sandbox: SandboxLink | None = None
    secrets: SecretStore | None = None
    problems: list[StartProblem] = field(default_factory=list)
    """What did not start (the window shows it); an empty list means everything runs."""
    counter: str | None = None
    """This counter's id on a shared store (its sale ids carry it); None on the local file."""
    shared: StoreAddress | None = None
    """The shop's shared store, when the terminal works on one."""
    inbox_lock: InboxLock | None = None
    """On a shared store: this counter's claim on the shop's inbox (one counter holds it)."""
    inbox_holder: HolderInfo | None = None
    """Who held the shop's inbox when last asked (None: nobody, or the local file)."""
    _holder_told: InboxHolderChanged | None = None
    """What the window was last told of the inbox's holder (replayed to a window built later)."""
    _seat_task: asyncio.Task[None] | None = None
    _feed_task: asyncio.Task[None] | None = None
    _store_answers: bool = True
    """Whether the shared store answered, as its watch last found (`_store_reachable`)."""
    _store_password: SecretStr | None = None
    _back_task: asyncio.Future[None] | None = None
    _unheard_since: datetime | None = None
    """Since when this counter may have missed the shared store's notifications (None: it has
    heard them all); the charges changed from then on are announced once it listens again."""

    @property
    def profile_is_sandbox(self) -> bool:
        return self.settings.profile.is_builtin_sandbox

    @classmethod
    async def start(
        cls,
        settings: Settings,
        paths: AppPaths,
        *,
        sandbox: SandboxLink | None = None,
        secrets: SecretStore | None = None,
        listener_port: int | None = None,
        bus: EventBus | None = None,
        health_interval_s: float | None = None,
        defer_inbox: bool = False,
        store_url: str | None = None,
    ) -> Terminal:
        """Build and start the core. For the built-in sandbox, `sandbox` must be running.

        `store_url` (the global `--store`, else the settings' shared store) names the shop's
        shared PostgreSQL store; without one the core works on the data folder's SQLite file.

        With `defer_inbox`, only the store and the gateway start now (what charging and the
        access token need); `start_inbox` then starts the inbox, its health checks and the
        reconciler.
        """
        import httpx
        from pydantic import SecretStr

        from checkout_desktop.charges.authority import Authority
        from checkout_desktop.charges.ledger import inbox_applier
        from checkout_desktop.charges.service import ChargeService
        from checkout_desktop.charges.shop import ShopSettings
        from checkout_desktop.charges.views import ChargeViews
        from checkout_desktop.domain.environments import sandbox_environment
        from checkout_desktop.domain.events import EventBus
        from checkout_desktop.domain.timestamps import set_naive_zone
        from checkout_desktop.gateway.client import ChargeClient
        from checkout_desktop.gateway.profiles import (
            client_id_of,
            resolve_endpoints,
            sandbox_credentials,
        )
        from checkout_desktop.gateway.tokens import TokenManager
        from checkout_desktop.inbox.service import Inbox
        from checkout_desktop.secrets import (
            KeychainCredentials,
            KeychainUnavailable,
            SecretMissing,
            SecretStore,
        )
        from checkout_desktop.settings import save_settings

        profile = settings.profile
        bus = bus or EventBus()
        listener_settings = settings.listener.model_copy()
        if listener_port is not None:
            listener_settings.port = listener_port
        problems: list[StartProblem] = []
        http_verify: Any = True
        environment = profile.name
        if profile.is_builtin_sandbox:
            if sandbox is None:
                raise StartupError("the built-in sandbox profile needs a running sandbox")
            # Only this sandbox knows the charges it made (`domain/environments.py`).
            environment = sandbox_environment(profile.name, sandbox.info.instance)
            credentials: Credentials = sandbox_credentials(
                sandbox.info.credentials, profile.sdk_credential
            )
            merchant_document = sandbox.info.credentials.merchant_document
            client_id = client_id_of(profile, sandbox_client_id=sandbox.info.credentials.client_id)
            webhook_token = credentials.webhook_token()
            # The sandbox's endpoints are plain HTTP on loopback: a client context that trusts
            # no authority at all (an https call through it would fail, never pass unchecked)
            # spares loading the system's certificate bundle, ~20 ms at each start.
            http_verify = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        else:
            secrets = secrets or SecretStore()
            credentials = KeychainCredentials(secrets, profile.name)
            merchant_document = profile.merchant_document
            client_id = client_id_of(profile)
            try:
                webhook_token = credentials.webhook_token()
            except (SecretMissing, KeychainUnavailable) as exc:
                # Charging still works; only notifications wait for the token.
                kind = (
                    StartProblemKind.WEBHOOK_TOKEN_MISSING
                    if isinstance(exc, SecretMissing)
                    else StartProblemKind.KEYCHAIN_UNAVAILABLE
                )
                problems.append(StartProblem(kind, str(exc)))
                webhook_token = SecretStr(pysecrets.token_urlsafe(24))
        endpoints = resolve_endpoints(profile, sandbox=None if sandbox is None else sandbox.info)

        set_naive_zone(profile.time_zone)
        device = await _device_identity(paths, endpoints.base_url)
        shared_url = store_url or settings.shared_store_url
        opened = await _open_store(paths, shared_url, secrets, device)
        store = opened.store
        shop = ShopSettings(store, by=opened.counter or device.terminal_id)
        try:
            # The PIN and the shop's name, and the rules another counter learned of this
            # environment's service, as the shop's store holds them.
            if await shop.agree(settings.ui, learned=(settings.profile, environment)):
                save_settings(settings, paths)
        except BaseException:
            await store.close()
            raise
        http = httpx.AsyncClient(verify=http_verify)
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id=client_id,
            credentials=credentials,
            events=bus,
            timeout_s=profile.request_timeout_s,
        )
        client = ChargeClient(
            http=http,
            endpoints=endpoints,
            tokens=tokens,
            timeout_s=profile.request_timeout_s,
            token_field=profile.token_field,
            on_token_field=_keep_token_field(settings, paths),
            device=device,
        )
        service = ChargeService(
            store=store,
            client=client,
            profile=environment,
            events=bus,
            policy=_check_policy(settings.reconcile_interval_s),
            authority=Authority(settings.ui.supervisor_pin_hash),
            owner=device.terminal_id,
            counter=opened.counter,
            shop=shop,
        )
        inbox = Inbox(
            store=opened.batches,
            applier=inbox_applier,
            listener_settings=listener_settings,
            token=webhook_token,
            bus=bus,
            tunnel_settings=None if sandbox is not None else settings.tunnel,
            heartbeat_interval_s=health_interval_s or settings.tunnel.heartbeat_interval_s,
            tls=None if sandbox is None else _sandbox_tls(sandbox, paths),
            register=(
                None
                if sandbox is None
                else _sandbox_registrar(sandbox, listener_settings.path, http)
            ),
        )
        terminal = cls(
            settings=settings,
            paths=paths,
            bus=bus,
            store=store,
            views=ChargeViews(store),
            events=store.events,
            http=http,
            tokens=tokens,
            service=service,
            inbox=inbox,
            credentials=credentials,
            merchant_document=merchant_document,
            sandbox=sandbox,
            secrets=secrets,
            problems=problems,
            counter=opened.counter,
            shared=opened.address,
            inbox_lock=opened.lock,
            _store_password=opened.password,
        )
        if not defer_inbox:
            try:
                await terminal.start_inbox()
            except BaseException:
                await terminal.stop()
                raise
        return terminal

    async def start_inbox(self) -> None:
        """Start the inbox (writer, listener, tunnel, health) and then the reconciler.

        A listener that cannot bind or a tunnel that cannot be configured goes to `problems`;
        charging and the reconciler run all the same.
        """

        if self.inbox.started or self._seat_task is not None:
            raise RuntimeError("the inbox has already been started")
        if self.shared is not None and self._feed_task is None:
            self._feed_task = asyncio.ensure_future(self._follow_shop(self.shared))
        if self.profile_is_sandbox:
            # The built-in sandbox runs on this computer and notifies this counter alone: every
            # counter on it receives its own sandbox's notifications (the shop's inbox, and its
            # lock, are for the one service all counters share).
            await self._start_own_inbox()
            self.service.start(self.settings.reconcile_interval_s)
            return
        if self.inbox_lock is not None and not await self._take_inbox():
            # Another counter (or a `listen` box) receives the shop's notifications; this one
            # sees them through the shared store, and takes the inbox over if that one goes.
            self._seat_task = asyncio.ensure_future(self._wait_for_inbox())
            self.service.start(self.settings.reconcile_interval_s)
            return
        await self._start_own_inbox()
        self.service.start(self.settings.reconcile_interval_s)

    async def _start_own_inbox(self) -> None:
        from checkout_desktop.inbox.listener import ListenerError

        try:
            await self.inbox.start()
        except ListenerError as exc:
            self.problems.append(StartProblem(exc.kind, str(exc)))
        finally:
            self.problems.extend(self.inbox.problems)

    async def _take_inbox(self) -> bool:
        """Try to hold the shop's inbox; note who holds it either way, and say so when that
        changed (the log, and the window's status bar through `InboxHolderChanged`)."""
        from checkout_desktop.store.errors import StoreError

        lock = self.inbox_lock
        assert lock is not None
        try:
            self.inbox_holder = await asyncio.to_thread(lock.try_take)
        except StoreError as exc:
            logger.warning("cannot ask who holds the shop's inbox: %s", exc)
            return False
        self._tell_holder(here=lock.held)
        return lock.held

    def _tell_holder(self, *, here: bool) -> None:
        from checkout_desktop.domain.inbox_events import InboxHolderChanged

        holder = None if here else self.inbox_holder
        event = InboxHolderChanged(
            here=here,
            # `listen` holds the inbox as "listen@<host>" (listen.py).
            listen_box=holder is not None and holder.counter.startswith("listen@"),
            counter=None if holder is None else holder.counter,
            host=None if holder is None else holder.host,
            since=None if holder is None else holder.since,
        )
        if event == self._holder_told:
            return
        self._holder_told = event
        # Holding it, the lock says so in the log and the listener's own states follow.
        if not here and holder is None:
            logger.info("nobody holds the shop's inbox now: this counter asks again shortly")
        elif not here and holder is not None:
            logger.info(
                "the shop's inbox is held by counter %s on %s (process %d, since %s): "
                "notifications arrive there and show here through the shared store",
                holder.counter,
                holder.host,
                holder.pid,
                holder.since.isoformat(timespec="seconds"),
            )
        self.bus.publish(event)

    async def _follow_shop(self, address: StoreAddress) -> None:
        """What other counters commit — deliveries and charge changes — on this terminal's bus
        (LISTEN/NOTIFY), so its event list and history are live; its own inbox, while it holds
        the shop's, announces its deliveries itself. On the built-in sandbox every counter has
        an inbox of its own: the others' deliveries are announced too (an announcement names a
        stored delivery, so one announced twice shows once).

        Notifications sent while this counter did not listen (the store or the network was
        down) are gone: once it listens again it reads what changed meanwhile — the deliveries
        after its watermark, and every charge changed since it stopped hearing the store."""
        from checkout_desktop.domain.timestamps import utc_now
        from checkout_desktop.store.errors import StoreError
        from checkout_desktop.store.postgres import schema
        from checkout_desktop.store.postgres.live import watch

        channels = (schema.EVENTS_CHANNEL, schema.CHARGES_CHANNEL, schema.SHOP_CHANNEL)
        last: int | None = None
        while True:
            try:
                if last is None:
                    last = await self.store.events.latest_id()
                async with watch(
                    address,
                    self._store_password,
                    channels=channels,
                    on_reachable=self._store_reachable,
                ) as notices:
                    self._store_reachable(True, "")
                    # What changed while this counter was not listening (or starting).
                    last = await self._catch_up(last)
                    async for notice in notices:
                        if notice.channel == schema.SHOP_CHANNEL:
                            await self._take_shop_settings()
                            continue
                        if notice.channel == schema.CHARGES_CHANNEL and not notice.resync:
                            await self._announce_charge(notice.payload)
                            continue
                        if notice.resync:
                            if self._unheard_since is None:
                                self._unheard_since = utc_now()
                            last = await self._catch_up(last)
                            continue
                        if self.inbox.started and not self.profile_is_sandbox:
                            # The shop's one inbox is this counter's: it announced them.
                            last = await self.store.events.latest_id()
                            continue
                        last = await self._announce_deliveries(last)
            except StoreError as exc:
                logger.warning("the shared store's changes are not followed now: %s", exc)
                if self._unheard_since is None:
                    self._unheard_since = utc_now()
                if str(getattr(exc, "problem", "")) == "unreachable":
                    self._store_reachable(False, str(exc))
            await asyncio.sleep(INBOX_TAKEOVER_S)

    async def _catch_up(self, last: int) -> int:
        """After a time without hearing the store: the shop's settings, the deliveries after
        `last` (the watermark it returns moved) and every charge changed meanwhile, announced.

        A read that fails as the store comes back (its server still starting) is asked again
        a few times before the watch gives up and starts over."""
        from checkout_desktop.store.errors import StoreError

        for attempt in range(CATCH_UP_TRIES):
            try:
                await self._take_shop_settings()
                last = await self._announce_deliveries(last)
                since = self._unheard_since
                if since is not None:
                    changed = await self.store.charges.changed_since(
                        since - CATCH_UP_MARGIN, limit=CATCH_UP_LIMIT
                    )
                    if changed:
                        logger.info(
                            "%d charges changed while this counter did not hear the shared "
                            "store: announced again",
                            len(changed),
                        )
                    for merchant_charge_id in changed:
                        await self._announce_charge(merchant_charge_id)
                    self._unheard_since = None
                return last
            except StoreError as exc:
                if attempt + 1 == CATCH_UP_TRIES:
                    raise
                logger.info("the shared store's first answers failed; asking again: %s", exc)
                await asyncio.sleep(CATCH_UP_RETRY_S)
        return last

    async def _announce_deliveries(self, last: int) -> int:
        """The deliveries stored after `last`, announced; the new watermark."""
        for summary in await self.store.events.newer(after=last, limit=500):
            last = summary.id
            self.bus.publish(_stored_elsewhere(summary))
        return last

    def _store_reachable(self, reachable: bool, detail: str) -> None:
        """Tell the window when the shared store stops answering and when it is back."""
        from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged

        if not reachable and self._unheard_since is None:
            from checkout_desktop.domain.timestamps import utc_now

            self._unheard_since = utc_now()
        if reachable == self._store_answers:
            return
        self._store_answers = reachable
        if not reachable:
            self.bus.publish(SharedStoreReachabilityChanged(reachable=False, detail=detail))
            return
        # Back: the pool is renewed first, so that what the window reads again at once is
        # answered (its connections died with the server, and its own reconnection attempts
        # may be far off by now).
        self._back_task = asyncio.ensure_future(self._store_back(detail))

    async def _store_back(self, detail: str) -> None:
        from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged
        from checkout_desktop.store.errors import StoreError
        from checkout_desktop.store.postgres.store import PgStore

        if isinstance(self.store, PgStore):
            try:
                await self.store.renew_pool()
            except StoreError as exc:
                logger.warning("the shared store's connections could not be renewed: %s", exc)
        if self._store_answers:
            self.bus.publish(SharedStoreReachabilityChanged(reachable=True, detail=detail))

    async def _take_shop_settings(self) -> None:
        """Another counter changed the shop's PIN, name or learned rules: this counter's
        authority takes the PIN at once, and the window the rest (`ShopSettingsChanged`)."""
        shop = self.service.shop
        if shop is None:
            return
        now = await shop.now(self.service.profile)
        if now.pin_held:
            self.service.authority.set_pin_hash(now.pin_hash)
        self.bus.publish(now)

    async def _announce_charge(self, merchant_charge_id: str) -> None:
        """Another counter committed a change to this charge or its attempt: announce both as
        they now stand. The attempt is announced even once the charge exists — the commit that
        records the charge also settles the attempt, and whoever counts open attempts (the
        status bar, the history's list of unknown outcomes) must hear of that."""
        from checkout_desktop.domain.charge_events import AttemptChanged, ChargeChanged
        from checkout_desktop.domain.reasons import Reason, ReasonCode

        why = Reason.of(ReasonCode.SHARED_STORE_CHANGE)
        record = await self.store.charges.charge(merchant_charge_id)
        attempt = await self.store.charges.attempt(merchant_charge_id)
        if record is not None:
            status = None if record.status is None else str(record.status)
            # The same status before and after: a re-read, never a "status moved" notice (this
            # counter announces the moves it makes itself).
            self.bus.publish(
                ChargeChanged(
                    merchant_charge_id=merchant_charge_id,
                    sale_id=record.sale_id,
                    status=status,
                    previous_status=status,
                    source="store",
                    reason=why,
                )
            )
        if attempt is not None:
            self.bus.publish(
                AttemptChanged(
                    merchant_charge_id=merchant_charge_id,
                    sale_id=attempt.sale_id,
                    state=attempt.state,
                    reason=why,
                )
            )

    async def _wait_for_inbox(self) -> None:
        while True:
            await asyncio.sleep(INBOX_TAKEOVER_S)
            if await self._take_inbox():
                logger.info("the shop's inbox was free: this counter now receives notifications")
                await self._start_own_inbox()
                return

    def current_state(self) -> list[DomainEvent]:
        """The token, listener, tunnel and health states as events, for a window built later."""
        reason = "; ".join(problem.detail for problem in self.problems) or None
        state = [self.tokens.snapshot(), *self.inbox.current_state(reason)]
        if self._holder_told is not None:
            state.append(self._holder_told)
        return state

    def acknowledge_url(self, url: str) -> None:
        """The merchant updated the panel's notification URL (the tunnel's notice)."""
        self.inbox.acknowledge_url(url)

    @property
    def notification_url(self) -> str | None:
        return self.inbox.notification_url

    async def stop(self) -> None:
        """Stop in reverse order; every step runs even if an earlier one fails."""
        for task in (self._seat_task, self._feed_task, self._back_task):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        steps: list[tuple[str, Callable[[], Any]]] = [
            ("reconciler", self.service.stop),
            ("inbox", self.inbox.stop),
            ("HTTP client", self.http.aclose),
        ]
        if self.inbox_lock is not None:
            steps.append(("inbox lock", self.inbox_lock.release))
        for name, step in steps:
            try:
                result = step()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                logger.exception("stopping the %s failed", name)
        await self.store.close()


TERMINAL_ID_FILE = "terminal-id"
INBOX_TAKEOVER_S = 3.0
"""How often a counter without the shop's inbox asks whether it is free (its holder gone)."""
CATCH_UP_MARGIN = timedelta(minutes=10)
"""How far before it stopped hearing the store a counter reads changed charges again: a
charge's change time is its writer's clock, which may run behind this counter's."""
CATCH_UP_LIMIT = 500
CATCH_UP_TRIES = 5
CATCH_UP_RETRY_S = 1.0


@dataclass(frozen=True)
class _OpenedStore:
    store: Store
    batches: Path | DeliveryBatches
    """The inbox's half of the store: the SQLite file's path, or the shared store's."""
    counter: str | None = None
    address: StoreAddress | None = None
    lock: InboxLock | None = None
    password: SecretStr | None = None


def _stored_elsewhere(summary: EventSummary) -> WebhookStored:
    """A delivery another counter's inbox stored, as this terminal's bus announces one."""
    from checkout_desktop.domain.inbox_events import WebhookStored

    return WebhookStored(
        event_id=summary.id,
        received_at=summary.received_at,
        verdict=summary.verdict,
        event_type=summary.event_type,
        body_type=summary.body_type,
        merchant_charge_id=summary.merchant_charge_id,
        charge_id=summary.charge_id,
        status=summary.status,
        reason=summary.reason_data,
        duplicate_of=summary.duplicate_of,
        merge_outcome=summary.merge_data,
    )


async def _open_store(
    paths: AppPaths, url: str | None, secrets: SecretStore | None, device: DeviceIdentity
) -> _OpenedStore:
    """The store the core works on: the data folder's file, or the shop's shared store."""
    from checkout_desktop.store.counters import counter_id

    if not url:
        from checkout_desktop.store.sqlite.store import SqliteStore

        local = SqliteStore.open(paths.database_file)
        try:
            counter = await counter_id(local, paths.data_dir, device.terminal_id)
        except BaseException:
            await local.close()
            raise
        return _OpenedStore(local, paths.database_file, counter=counter)
    from checkout_desktop.secrets import KeychainUnavailable, SecretStore
    from checkout_desktop.store.errors import StoreError
    from checkout_desktop.store.postgres import db
    from checkout_desktop.store.postgres.address import StoreAddress
    from checkout_desktop.store.postgres.inbox_lock import InboxLock
    from checkout_desktop.store.postgres.store import PgStore
    from checkout_desktop.store.postgres.writer import PgDeliveryBatches

    address = StoreAddress.parse(url)
    try:
        password = await asyncio.to_thread(db.keychain_password, address, secrets or SecretStore())
    except KeychainUnavailable as exc:
        raise StartupError(f"the shared store's password cannot be read: {exc}") from None
    try:
        store = await PgStore.open(address, password)
    except StoreError as exc:
        raise StartupError(str(exc)) from exc
    try:
        counter = await counter_id(store, paths.data_dir, device.terminal_id)
    except BaseException:
        await store.close()
        raise
    return _OpenedStore(
        store,
        PgDeliveryBatches(address, password),
        counter=counter,
        address=address,
        lock=InboxLock(address, password, counter=counter),
        password=password,
    )


async def _device_identity(paths: AppPaths, base_url: str) -> DeviceIdentity:
    """This terminal's `deviceInformation`: a stable id (kept in the data folder) and the
    address it reaches the service from."""
    from checkout_desktop.gateway.client import DeviceIdentity, local_address_towards

    file = paths.data_dir / TERMINAL_ID_FILE
    try:
        terminal_id = file.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        terminal_id = ""
    if not (8 <= len(terminal_id) <= 64 and terminal_id.replace("-", "").isalnum()):
        terminal_id = "terminal-" + pysecrets.token_hex(8)
        try:
            paths.ensure()
            file.write_text(terminal_id + "\n", encoding="ascii")
        except OSError as exc:
            logger.warning("cannot keep the terminal id in %s: %s", file, exc.strerror)
    try:
        ip = await asyncio.wait_for(asyncio.to_thread(local_address_towards, base_url), 3.0)
    except TimeoutError:
        ip = "127.0.0.1"
    return DeviceIdentity(terminal_id=terminal_id, ip=ip)


def _keep_token_field(settings: Settings, paths: AppPaths) -> Callable[[str], None]:
    """Keep the card-token spelling the service took in the profile (saved at once)."""

    def keep(spelling: str) -> None:
        from checkout_desktop.settings import save_settings

        profile = settings.profile
        if profile.token_field == spelling:
            return
        profile.token_field = spelling  # type: ignore[assignment]
        save_settings(settings, paths)
        logger.info("profile %s now sends the card token as %s", profile.name, spelling)

    return keep


def _sandbox_tls(sandbox: SandboxLink, paths: AppPaths) -> Callable[[], ListenerTls]:
    """The listener's certificate, which the sandbox's webhook sender is told to trust."""

    def tls() -> ListenerTls:
        from checkout_desktop.inbox.service import ListenerTls
        from checkout_desktop.sandbox.link import listener_certificate

        cert = listener_certificate(paths)
        sandbox.webhook_ca_file.write_bytes(cert.cert_pem)
        return ListenerTls(server=cert.server_context(), client=cert.client_context())

    return tls


def _sandbox_registrar(sandbox: SandboxLink, path: str, http: httpx.AsyncClient) -> Registrar:
    """Sets the notification URL in the sandbox's "merchant panel", as a merchant would."""

    async def register(port: int) -> Registration:
        from checkout_desktop.inbox.service import Registration
        from checkout_desktop.sandbox.link import LOCAL_WEBHOOK_HOST, SandboxLinkError

        url = f"https://{LOCAL_WEBHOOK_HOST}:{port}{path}"
        try:
            token = await sandbox.set_webhook(url, http)
        except SandboxLinkError as exc:
            raise StartupError(str(exc)) from None
        return Registration(url=url, token=token)

    return register


def _check_policy(interval_s: float) -> Any:
    from datetime import timedelta

    from checkout_desktop.charges.reconciler import CheckPolicy

    return CheckPolicy(interval=timedelta(seconds=interval_s))
