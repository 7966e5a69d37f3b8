"""The first-contact check: everything the terminal needs from the service, tried without a charge.

Against the configured profile it checks the profile itself, the keychain, an access token
(and what its reply carries), a query for a fresh random merchantChargeId (how the service says
"not found"), the card SDK's host (name and TLS) and the notification URL (the service's rules,
and a test notification through the tunnel to a listener). Nothing here ever sends a charge,
capture or refund: the only charge-API call is that query, for an id nobody has used.

Every network step is bounded, and the whole network part has one deadline (`DEADLINE_S`), so
an unreachable service fails in seconds with a plain finding, never a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import re
import socket
import ssl
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import SecretStr

from checkout_desktop.doctor.report import (
    ArgValue,
    CheckName,
    CheckResult,
    Finding,
    Outcome,
    Report,
)

if TYPE_CHECKING:
    import httpx

    from checkout_desktop.gateway.client import ChargeClient
    from checkout_desktop.gateway.profiles import Endpoints
    from checkout_desktop.gateway.tokens import TokenManager
    from checkout_desktop.inbox.service import Inbox
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox.link import SandboxLink
    from checkout_desktop.secrets import Credentials, SecretStore
    from checkout_desktop.settings import Profile, Settings

logger = logging.getLogger(__name__)

DEADLINE_S = 6.0
"""The whole network part ends within this (the token, the query, the SDK host and the round
trip run side by side); with start-up, an unreachable service is reported well within 10 s."""
STEP_TIMEOUT_S = 4.0
"""Any one connection, name lookup or request."""
SDK_PORT = 443

_NOT_FOUND_WORDS = re.compile(
    r"not[\s_-]*found|n[ãa]o\s+(foi\s+)?encontrad|inexistent|does\s+not\s+exist|unknown\s+charge",
    re.IGNORECASE,
)
_CHARGE_WORDS = re.compile(r"charge|merchantchargeid|cobran[çc]a|pedido", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------
# Reaching a host (shared with the periodic probe)


@dataclass(frozen=True)
class Target:
    """A host to reach: where to connect, and how its TLS is trusted (None: plain TCP)."""

    host: str
    port: int
    tls: ssl.SSLContext | None
    connect_to: str | None = None
    """An address to use instead of resolving `host` (the built-in sandbox's SDK backend)."""
    pin: str | None = None
    """The key the certificate must carry (base64 SHA-256 of its SubjectPublicKeyInfo)."""


@dataclass(frozen=True)
class Reached:
    """How reaching a target went: `failure` is None when it answered (and TLS held)."""

    failure: Finding | None
    error: str = ""
    addresses: tuple[str, ...] = ()
    tls_version: str | None = None
    pin: str | None = None


async def resolve(host: str, port: int, within_s: float) -> tuple[str, ...]:
    """The host's addresses, looked up on a thread of its own that is left behind on within_s.

    The resolver ignores cancellation; on the loop's default executor a hung lookup would hold
    the program's exit until it gave up by itself.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[tuple[str, ...]] = loop.create_future()

    def settle(value: tuple[str, ...] | BaseException) -> None:
        if done.done():
            return
        if isinstance(value, BaseException):
            done.set_exception(value)
        else:
            done.set_result(value)

    def lookup() -> None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            found = tuple(dict.fromkeys(str(info[4][0]) for info in infos))
            result: tuple[str, ...] | BaseException = found
        except OSError as exc:
            result = exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(settle, result)

    threading.Thread(target=lookup, name=f"resolve-{host}", daemon=True).start()
    return await asyncio.wait_for(done, within_s)


async def reach(target: Target, within_s: float = STEP_TIMEOUT_S) -> Reached:
    """Resolve, connect and (for TLS) complete the handshake within `within_s` in all."""
    started = time.monotonic()

    def left() -> float:
        return max(0.1, within_s - (time.monotonic() - started))

    if target.connect_to is not None:
        addresses: tuple[str, ...] = (target.connect_to,)
    else:
        try:
            addresses = await resolve(target.host, target.port, left())
        except TimeoutError:
            return Reached(Finding.SDK_NO_ANSWER, f"{within_s:g}")
        except OSError as exc:
            return Reached(Finding.SDK_DNS_FAILED, error_code(exc))
        if not addresses:
            return Reached(Finding.SDK_DNS_FAILED, "no address")
    try:
        _reader, writer = await asyncio.wait_for(
            asyncio.open_connection(
                addresses[0],
                target.port,
                ssl=target.tls,
                server_hostname=target.host if target.tls is not None else None,
                ssl_handshake_timeout=left() if target.tls is not None else None,
            ),
            # A little past the handshake's own bound, which closes the connection cleanly;
            # this one ends a connect that hangs.
            left() + (1.0 if target.tls is not None else 0.0),
        )
    except (TimeoutError, ConnectionAbortedError):
        # asyncio ends a TLS handshake that outlives its bound with ConnectionAbortedError.
        return Reached(Finding.SDK_NO_ANSWER, f"{within_s:g}", addresses)
    except ssl.SSLError as exc:
        return Reached(Finding.SDK_TLS_FAILED, exc.reason or type(exc).__name__, addresses)
    except OSError as exc:
        return Reached(Finding.SDK_CONNECT_FAILED, error_code(exc), addresses)
    try:
        tls = writer.get_extra_info("ssl_object")
        version = None if tls is None else tls.version()
        pin = None
        if tls is not None and target.pin is not None:
            der = tls.getpeercert(binary_form=True)
            pin = _pin_of(der) if der else None
            if pin != target.pin:
                return Reached(Finding.SDK_OTHER_KEY, "", addresses, version, pin)
        return Reached(None, "", addresses, version, pin)
    finally:
        writer.close()
        with contextlib.suppress(OSError, ssl.SSLError, TimeoutError):
            await asyncio.wait_for(writer.wait_closed(), 1.0)


_RESOLVER_CODES = {
    getattr(socket, name): name
    for name in ("EAI_NONAME", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_SERVICE")
    if hasattr(socket, name)
}


def error_code(exc: OSError) -> str:
    """The error's symbolic code (ECONNREFUSED, EAI_NONAME…): the same in every language,
    where the system's own message would be English in a Portuguese report."""
    if isinstance(exc, socket.gaierror) and exc.errno in _RESOLVER_CODES:
        return _RESOLVER_CODES[exc.errno]
    if exc.errno is not None and exc.errno in errno.errorcode:
        return errno.errorcode[exc.errno]
    return type(exc).__name__


def _pin_of(der: bytes) -> str | None:
    from checkout_desktop.sandbox.pins import CertificateFormatError, certificate_facts

    try:
        return certificate_facts(ssl.DER_cert_to_PEM_cert(der).encode("ascii")).spki_sha256_b64
    except CertificateFormatError:
        return None


def sdk_target(profile: Profile, sandbox: SandboxLink | None) -> Target | None:
    """The card SDK's backend host as the card page reaches it; None when the profile has none.

    For the built-in sandbox that is the sandbox's own HTTPS server, which Chromium reaches
    under the SDK's host name and trusts by its key pin only.
    """
    if profile.is_builtin_sandbox:
        if sandbox is None:
            return None
        endpoint = sandbox.sdk_endpoint
        context = ssl.create_default_context(cadata=sandbox.info.sdk_cert_pem)
        return Target(
            host=endpoint.host,
            port=endpoint.port,
            tls=context,
            connect_to=sandbox.info.sdk_address,
            pin=endpoint.spki_sha256_b64,
        )
    host = (profile.sdk_backend_host or "").strip()
    if not host:
        return None
    return Target(host=host, port=SDK_PORT, tls=ssl.create_default_context())


def api_target(base_url: str) -> Target:
    """The service's API host: TLS for https (system trust), plain TCP for a loopback http."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    return Target(host=host, port=port, tls=ssl.create_default_context() if secure else None)


# ---------------------------------------------------------------------------------------------
# What the checks run against


@dataclass
class Secrets:
    """The secrets the checks may use: given on the command line (files) or from the keychain."""

    store: SecretStore | None
    profile: str
    client_secret: SecretStr | None = None
    webhook_token: SecretStr | None = None


@dataclass
class _ResolvedCredentials:
    """Credentials for the token manager: a given client secret first, else the keychain."""

    secrets: Secrets
    fallback: Credentials

    def client_secret(self) -> SecretStr:
        if self.secrets.client_secret is not None:
            return self.secrets.client_secret
        return self.fallback.client_secret()

    def sdk_merchant_token(self) -> SecretStr:
        return self.fallback.sdk_merchant_token()

    def webhook_token(self) -> SecretStr:
        if self.secrets.webhook_token is not None:
            return self.secrets.webhook_token
        return self.fallback.webhook_token()


@dataclass
class Captured:
    """The JSON bodies of the replies seen, by URL (the token reply's, the query's)."""

    bodies: dict[str, Any] = field(default_factory=dict)

    async def hook(self, response: httpx.Response) -> None:
        try:
            await response.aread()
            self.bodies[str(response.request.url)] = response.json()
        except ValueError:
            self.bodies[str(response.request.url)] = None
        except Exception:  # a body that cannot be read is the client's to report
            logger.debug("could not keep a reply body", exc_info=True)


# ---------------------------------------------------------------------------------------------
# The checks


def check_profile(profile: Profile, sandbox: SandboxLink | None) -> CheckResult:
    from checkout_desktop.gateway.profiles import ProfileError, resolve_endpoints

    if profile.is_builtin_sandbox:
        if sandbox is None:
            return CheckResult(CheckName.PROFILE, Outcome.FAILED, Finding.SANDBOX_NOT_STARTED)
        return CheckResult(
            CheckName.PROFILE,
            Outcome.OK,
            Finding.PROFILE_OK,
            {"profile": profile.name, "url": sandbox.info.api_url},
        )
    if not profile.base_url:
        return CheckResult(
            CheckName.PROFILE,
            Outcome.FAILED,
            Finding.PROFILE_NO_BASE_URL,
            {"profile": profile.name},
        )
    try:
        endpoints = resolve_endpoints(profile)
    except ProfileError:
        return CheckResult(
            CheckName.PROFILE,
            Outcome.FAILED,
            Finding.PROFILE_BAD_ADDRESS,
            {"profile": profile.name, "url": profile.base_url},
        )
    if not profile.client_id:
        return CheckResult(
            CheckName.PROFILE,
            Outcome.FAILED,
            Finding.PROFILE_NO_CLIENT_ID,
            {"profile": profile.name},
        )
    if not profile.merchant_document:
        return CheckResult(
            CheckName.PROFILE,
            Outcome.FAILED,
            Finding.PROFILE_NO_MERCHANT_DOCUMENT,
            {"profile": profile.name},
        )
    return CheckResult(
        CheckName.PROFILE,
        Outcome.OK,
        Finding.PROFILE_OK,
        {"profile": profile.name, "url": endpoints.base_url},
    )


def check_keychain(profile: Profile, secrets: Secrets) -> CheckResult:
    """The secrets the profile needs: the client secret and the SDK token to charge, the
    webhook token to receive notifications. Only their presence is checked here."""
    from checkout_desktop.secrets import KeychainUnavailable, SecretName

    if profile.is_builtin_sandbox:
        return CheckResult(CheckName.KEYCHAIN, Outcome.OK, Finding.KEYCHAIN_NOT_NEEDED)
    given = {
        SecretName.CLIENT_SECRET: secrets.client_secret is not None,
        SecretName.WEBHOOK_TOKEN: secrets.webhook_token is not None,
    }
    missing: list[str] = []
    from_files = tuple(name.value for name, present in given.items() if present)
    for name in SecretName:
        if given.get(name):
            continue
        if secrets.store is None:
            return CheckResult(CheckName.KEYCHAIN, Outcome.FAILED, Finding.KEYCHAIN_UNAVAILABLE)
        try:
            if secrets.store.get(profile.name, name) is None:
                missing.append(name.value)
        except KeychainUnavailable:
            return CheckResult(CheckName.KEYCHAIN, Outcome.FAILED, Finding.KEYCHAIN_UNAVAILABLE)
    facts = {"from_files": list(from_files), "missing": missing}
    if not missing:
        return CheckResult(
            CheckName.KEYCHAIN, Outcome.OK, Finding.KEYCHAIN_OK, {"from_files": from_files}, facts
        )
    # Charging needs the client secret and the SDK token; the webhook token only notifications.
    blocking = set(missing) - {SecretName.WEBHOOK_TOKEN.value}
    return CheckResult(
        CheckName.KEYCHAIN,
        Outcome.FAILED if blocking else Outcome.WARNING,
        Finding.KEYCHAIN_MISSING,
        {"missing": tuple(missing)},
        facts,
    )


_TOKEN_PUBLIC_FIELDS = (
    "token_type",
    "expires_in",
    "scope",
    "acquirer-terminal-id",
    "seller-acquirer-id",
    "core-seller-id",
    "merchant-document",
)


async def check_token(
    tokens: TokenManager,
    token_url: str,
    captured: Captured,
    merchant_document: str,
) -> CheckResult:
    """Ask for a fresh access token and say what the reply carries (never the token itself)."""
    from checkout_desktop.gateway.errors import GatewayError

    # The token manager's own timeout bounds the request (cancelling it from here would leave
    # its connection to the garbage collector).
    try:
        token = await tokens.refresh()
    except GatewayError as exc:
        return CheckResult(
            CheckName.TOKEN,
            Outcome.FAILED,
            Finding.TOKEN_FAILED,
            {"reason": exc.reason},
            {"http_status": exc.status},
        )
    body = captured.bodies.get(token_url)
    fields = sorted(str(k) for k in body) if isinstance(body, dict) else []
    public = {
        name: body[name] for name in _TOKEN_PUBLIC_FIELDS if isinstance(body, dict) and name in body
    }
    details = body.get("authorization_details") if isinstance(body, dict) else None
    facts: dict[str, Any] = {
        "fields": fields,
        **public,
        "authorization_details": len(details) if isinstance(details, list) else 0,
        "clock_skew_s": None if tokens.clock_skew_s is None else round(tokens.clock_skew_s, 1),
    }
    args: dict[str, ArgValue] = {
        "seconds": token.expires_in,
        "scopes": tuple(token.scopes),
        "fields": tuple(f for f in fields if f != "access_token"),
    }
    document = public.get("merchant-document")
    if document and merchant_document and str(document) != merchant_document:
        return CheckResult(
            CheckName.TOKEN,
            Outcome.WARNING,
            Finding.TOKEN_OTHER_MERCHANT,
            {**args, "got": str(document), "expected": merchant_document},
            facts,
        )
    return CheckResult(CheckName.TOKEN, Outcome.OK, Finding.TOKEN_OK, args, facts)


def names_charge_not_found(body: Any) -> bool:
    """Whether an error body says the charge (or its merchantChargeId) was not found."""
    if not isinstance(body, dict):
        return False
    texts: list[str] = []
    fields: list[str] = []
    for key in ("message", "error", "error_description", "businessCode"):
        value = body.get(key)
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict) and isinstance(value.get("message"), str):
            texts.append(value["message"])
    errors = body.get("errors")
    if isinstance(errors, list):
        for item in errors:
            if isinstance(item, dict):
                texts.extend(str(item[k]) for k in ("message", "code") if item.get(k))
                if item.get("field"):
                    fields.append(str(item["field"]))
    said = " ".join(texts)
    if not _NOT_FOUND_WORDS.search(said):
        return False
    return bool(_CHARGE_WORDS.search(said)) or any(
        f.lower().endswith("merchantchargeid") for f in fields
    )


async def check_not_found(
    client: ChargeClient, endpoints: Endpoints, captured: Captured
) -> CheckResult:
    """Query a fresh random merchantChargeId and learn how the service says "not found"."""
    from checkout_desktop.gateway.errors import (
        BadRequest,
        ChargeNotFound,
        GatewayError,
        UnsupportedMediaType,
    )

    mcid = str(uuid.uuid4())
    url = endpoints.api(f"charge/{mcid}")
    facts: dict[str, Any] = {"merchantChargeId": mcid}
    try:
        # The client's own timeout bounds the query (see check_token).
        await client.query(mcid)
    except ChargeNotFound as exc:
        shape = "404" if exc.status == 404 else "400"
        return CheckResult(
            CheckName.NOT_FOUND,
            Outcome.OK,
            Finding.NOT_FOUND_404 if shape == "404" else Finding.NOT_FOUND_400,
            {"http_code": exc.status},
            {**facts, "http_status": exc.status, "shape": shape},
        )
    except BadRequest as exc:
        facts["http_status"] = exc.status
        if names_charge_not_found(captured.bodies.get(url)):
            return CheckResult(
                CheckName.NOT_FOUND,
                Outcome.OK,
                Finding.NOT_FOUND_400,
                {"http_code": exc.status},
                {**facts, "shape": "400"},
            )
        return CheckResult(
            CheckName.NOT_FOUND,
            Outcome.WARNING,
            Finding.NOT_FOUND_UNRECOGNISED,
            {"http_code": exc.status, "reason": exc.reason},
            facts,
        )
    except UnsupportedMediaType as exc:
        # Charging works, but no lost reply could ever be settled by asking: say so plainly.
        return CheckResult(
            CheckName.NOT_FOUND,
            Outcome.WARNING,
            Finding.NOT_FOUND_QUERY_REFUSED,
            {"http_code": exc.status, "reason": exc.reason},
            {**facts, "http_status": exc.status},
        )
    except GatewayError as exc:
        return CheckResult(
            CheckName.NOT_FOUND,
            Outcome.FAILED,
            Finding.NOT_FOUND_FAILED,
            {"reason": exc.reason},
            {**facts, "http_status": exc.status},
        )
    return CheckResult(
        CheckName.NOT_FOUND, Outcome.WARNING, Finding.NOT_FOUND_CHARGE_EXISTS, {"id": mcid}, facts
    )


async def check_sdk_host(target: Target | None, within_s: float) -> CheckResult:
    """The card SDK's backend host resolves and completes a TLS handshake."""
    if target is None:
        return CheckResult(CheckName.SDK_HOST, Outcome.FAILED, Finding.SDK_NO_HOST)
    reached = await reach(target, within_s)
    facts = {
        "host": target.host,
        "addresses": list(reached.addresses),
        "tls": reached.tls_version,
    }
    if reached.failure is None:
        return CheckResult(
            CheckName.SDK_HOST,
            Outcome.OK,
            Finding.SDK_OK,
            {"host": target.host, "tls": reached.tls_version or "?"},
            facts,
        )
    return CheckResult(
        CheckName.SDK_HOST,
        Outcome.FAILED,
        reached.failure,
        {"host": target.host, "error": reached.error, "seconds": f"{within_s:g}"},
        facts,
    )


def _manual_url(settings: Settings) -> str | None:
    """A manual tunnel's notification URL: the public URL as the owner typed it (the wizard's
    example holds the path), as the tunnel registers it (`inbox/tunnel.py`)."""
    public = settings.tunnel.public_url
    return None if public is None else public.strip()


def check_notification_url(settings: Settings, url: str | None) -> CheckResult:
    """The notification URL against the service's rules (HTTPS, no query, no IPv4 address)."""
    from checkout_desktop.inbox.url_rules import check_notification_url as rules_broken

    if settings.profile.is_builtin_sandbox:
        return CheckResult(
            CheckName.NOTIFICATION_URL, Outcome.OK, Finding.URL_SANDBOX, {"url": url or "-"}
        )
    mode = settings.tunnel.mode
    if mode == "none":
        return CheckResult(CheckName.NOTIFICATION_URL, Outcome.WARNING, Finding.URL_NO_TUNNEL)
    if mode == "manual":
        url = _manual_url(settings)
    if url is None:
        return CheckResult(
            CheckName.NOTIFICATION_URL, Outcome.WARNING, Finding.URL_NOT_KNOWN_YET, {"mode": mode}
        )
    violations = rules_broken(url)
    if violations:
        return CheckResult(
            CheckName.NOTIFICATION_URL,
            Outcome.FAILED,
            Finding.URL_BREAKS_RULES,
            {"url": url, "rules": tuple(v.rule.value for v in violations)},
            {"url": url, "rules": [v.rule.value for v in violations]},
        )
    return CheckResult(
        CheckName.NOTIFICATION_URL, Outcome.OK, Finding.URL_OK, {"url": url}, {"url": url}
    )


async def round_trip_through(inbox: Inbox, within_s: float) -> CheckResult:
    """A test notification through the inbox's public URL (or its listener), seen stored."""
    from checkout_desktop.domain.inbox_events import HealthLevel
    from checkout_desktop.domain.reasons import ReasonCode

    health = inbox.health
    if health is None:
        return CheckResult(CheckName.ROUND_TRIP, Outcome.WARNING, Finding.ROUND_TRIP_NOT_STARTED)
    try:
        if inbox.tunnel is not None and inbox.tunnel.notification_url is None:
            await asyncio.wait_for(inbox.tunnel.wait_for_url(), within_s)
        status = await asyncio.wait_for(health.check_now(), within_s)
    except TimeoutError:
        return CheckResult(
            CheckName.ROUND_TRIP,
            Outcome.FAILED,
            Finding.ROUND_TRIP_NO_ANSWER,
            {"seconds": f"{within_s:g}"},
        )
    facts = {
        "level": status.level.value,
        "url": inbox.notification_url,
        "seconds": None if status.round_trip_s is None else round(status.round_trip_s, 3),
    }
    if status.level == HealthLevel.HEALTHY or (
        status.level == HealthLevel.DEGRADED and status.reason.code == ReasonCode.HEALTH_SLOW
    ):
        return CheckResult(
            CheckName.ROUND_TRIP,
            Outcome.OK if status.level == HealthLevel.HEALTHY else Outcome.WARNING,
            Finding.ROUND_TRIP_OK,
            {"url": inbox.notification_url or "", "reason": status.reason},
            facts,
        )
    if status.level == HealthLevel.DEGRADED:
        return CheckResult(
            CheckName.ROUND_TRIP,
            Outcome.WARNING,
            Finding.ROUND_TRIP_LOCAL_ONLY,
            {"reason": status.reason},
            facts,
        )
    return CheckResult(
        CheckName.ROUND_TRIP,
        Outcome.FAILED,
        Finding.ROUND_TRIP_FAILED,
        {"reason": status.reason},
        facts,
    )


async def round_trip_to_running(
    settings: Settings, token: SecretStr | None, within_s: float
) -> CheckResult:
    """The listener's port is taken (a terminal or `listen` runs here): send the test
    notification through the public URL and accept the running inbox's acknowledgement."""
    import httpx

    from checkout_desktop.inbox.health import self_test_body
    from checkout_desktop.inbox.intake import SELF_TEST_EVENT_TYPE
    from checkout_desktop.inbox.url_rules import check_notification_url as rules_broken

    port = settings.listener.port
    url = _manual_url(settings) if settings.tunnel.mode == "manual" else None
    if url is None or token is None:
        return CheckResult(
            CheckName.ROUND_TRIP, Outcome.WARNING, Finding.ROUND_TRIP_PORT_TAKEN, {"port": port}
        )
    if rules_broken(url):
        return CheckResult(
            CheckName.ROUND_TRIP, Outcome.WARNING, Finding.ROUND_TRIP_PORT_TAKEN, {"port": port}
        )
    try:
        async with httpx.AsyncClient(timeout=within_s) as client:
            response = await client.post(
                url,
                content=self_test_body(uuid.uuid4().hex),
                headers={
                    "Authorization": token.get_secret_value(),
                    "event-type": SELF_TEST_EVENT_TYPE,
                    "Content-Type": "application/json",
                },
            )
    except httpx.HTTPError as exc:
        return CheckResult(
            CheckName.ROUND_TRIP,
            Outcome.FAILED,
            Finding.ROUND_TRIP_FAILED,
            {"reason": _self_test_error(f"{type(exc).__name__}: {exc}")},
            {"url": url},
        )
    if response.status_code // 100 == 2:
        return CheckResult(
            CheckName.ROUND_TRIP,
            Outcome.OK,
            Finding.ROUND_TRIP_ANSWERED_BY_RUNNING,
            {"url": url, "http_code": response.status_code},
            {"url": url, "http_status": response.status_code},
        )
    return CheckResult(
        CheckName.ROUND_TRIP,
        Outcome.FAILED,
        Finding.ROUND_TRIP_FAILED,
        {"reason": _self_test_http(response.status_code)},
        {"url": url, "http_status": response.status_code},
    )


def _self_test_error(error: str) -> Any:
    from checkout_desktop.domain.reasons import Reason, ReasonCode

    return Reason.of(ReasonCode.SELF_TEST_FAILED, error=error)


def _self_test_http(status: int) -> Any:
    from checkout_desktop.domain.reasons import Reason, ReasonCode

    return Reason.of(ReasonCode.SELF_TEST_HTTP, http_code=status)


# ---------------------------------------------------------------------------------------------
# The whole run


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """True when a listener could bind `host:port` now (0 is always free)."""
    if port == 0:
        return True
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


Remember = Callable[[str, str], bool]
"""Stores a learned not-found shape ("404" or "400") in the named profile; True if it changed."""


async def diagnose(
    settings: Settings,
    paths: AppPaths,
    *,
    secrets: SecretStore | None = None,
    sandbox: SandboxLink | None = None,
    client_secret: SecretStr | None = None,
    webhook_token: SecretStr | None = None,
    inbox: Inbox | None = None,
    remember: Remember | None = None,
    sdk: Target | None = None,
    deadline_s: float = DEADLINE_S,
    step_timeout_s: float = STEP_TIMEOUT_S,
) -> Report:
    """Run every check against the active profile; never sends a charge.

    For the built-in sandbox, `sandbox` must be running (the caller starts it; see
    `start_sandbox_for`). `inbox`, when given, is the running terminal's: the round trip goes
    through it; otherwise a listener of its own starts on a throw-away store (or, when the
    port is taken by a running inbox, the test notification goes to that one). `sdk` says
    where the card SDK's host is reached when not where the profile says (a local service).
    """
    import httpx

    from checkout_desktop.gateway.client import ChargeClient
    from checkout_desktop.gateway.profiles import (
        client_id_of,
        resolve_endpoints,
        sandbox_credentials,
    )
    from checkout_desktop.gateway.tokens import TokenManager
    from checkout_desktop.secrets import KeychainCredentials, SecretStore

    started = time.monotonic()
    profile = settings.profile
    report = Report(profile=profile.name, kind=profile.kind.value, deadline_s=deadline_s)
    given = Secrets(
        store=None if profile.is_builtin_sandbox else (secrets or SecretStore()),
        profile=profile.name,
        client_secret=client_secret,
        webhook_token=webhook_token,
    )
    report.add(check_profile(profile, sandbox))
    report.add(check_keychain(profile, given))
    profile_ok = report.results[0].outcome == Outcome.OK
    step = min(step_timeout_s, deadline_s)

    captured = Captured()
    verify: Any = True
    if profile.is_builtin_sandbox:
        # Plain HTTP on loopback: trust no authority at all (as the terminal does).
        verify = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    http = httpx.AsyncClient(verify=verify, event_hooks={"response": [captured.hook]})
    try:
        credentials: Credentials | None = None
        endpoints = None
        client_id = ""
        merchant_document = profile.merchant_document
        if profile_ok:
            if profile.is_builtin_sandbox:
                assert sandbox is not None
                credentials = sandbox_credentials(sandbox.info.credentials)
                merchant_document = sandbox.info.credentials.merchant_document
                client_id = client_id_of(
                    profile, sandbox_client_id=sandbox.info.credentials.client_id
                )
            else:
                assert given.store is not None
                credentials = _ResolvedCredentials(
                    given, KeychainCredentials(given.store, profile.name)
                )
                client_id = client_id_of(profile)
            endpoints = resolve_endpoints(
                profile, sandbox=None if sandbox is None else sandbox.info
            )

        async def token_and_query() -> None:
            if endpoints is None or credentials is None:
                report.add(CheckResult(CheckName.TOKEN, Outcome.SKIPPED, Finding.NEEDS_TOKEN))
                report.add(CheckResult(CheckName.NOT_FOUND, Outcome.SKIPPED, Finding.NEEDS_TOKEN))
                return
            tokens = TokenManager(
                http=http,
                token_url=endpoints.token_url,
                client_id=client_id,
                credentials=credentials,
                timeout_s=step,
            )
            token = report.add(
                await check_token(tokens, endpoints.token_url, captured, merchant_document)
            )
            if token.outcome not in (Outcome.OK, Outcome.WARNING):
                report.add(CheckResult(CheckName.NOT_FOUND, Outcome.SKIPPED, Finding.NEEDS_TOKEN))
                return
            client = ChargeClient(
                http=http,
                endpoints=endpoints,
                tokens=tokens,
                # The query asks the token for this much life; a short one is enough here.
                timeout_s=min(step, max(0.5, deadline_s - (time.monotonic() - started))),
                token_field=profile.token_field,
            )
            found = report.add(await check_not_found(client, endpoints, captured))
            shape = found.facts.get("shape")
            if isinstance(shape, str):
                report.not_found_shape = shape
                if remember is not None:
                    try:
                        report.remembered = remember(profile.name, shape)
                    except Exception:
                        logger.exception("could not store the not-found shape in the profile")

        sdk_at = sdk or sdk_target(profile, sandbox)

        async def sdk_host() -> None:
            report.add(await check_sdk_host(sdk_at, step))

        async def notifications() -> None:
            left = max(0.5, deadline_s - (time.monotonic() - started))
            await _notifications(settings, paths, report, given, sandbox, inbox, left)

        parts = [token_and_query(), sdk_host(), notifications()]
        try:
            await asyncio.wait_for(asyncio.gather(*parts), deadline_s + 1.0)
        except TimeoutError:
            logger.warning("the connection check ran past its deadline")
        for check in CheckName:
            if report.result(check) is None:
                report.add(
                    CheckResult(
                        check,
                        Outcome.FAILED,
                        Finding.TOKEN_NO_ANSWER if check == CheckName.TOKEN else _no_answer(check),
                        {"seconds": f"{deadline_s:g}"}
                        | ({"host": sdk_at.host} if check == CheckName.SDK_HOST and sdk_at else {}),
                    )
                )
    finally:
        await http.aclose()
    report.elapsed_s = time.monotonic() - started
    for result in report.ordered():
        log = logger.info if result.outcome in (Outcome.OK, Outcome.SKIPPED) else logger.warning
        log(
            "connection check %s: %s — %s",
            result.check.value,
            result.outcome.value,
            result.english(),
        )
    return report


def _no_answer(check: CheckName) -> Finding:
    return {
        CheckName.NOT_FOUND: Finding.NOT_FOUND_NO_ANSWER,
        CheckName.SDK_HOST: Finding.SDK_NO_ANSWER,
        CheckName.ROUND_TRIP: Finding.ROUND_TRIP_NO_ANSWER,
    }.get(check, Finding.ROUND_TRIP_NO_ANSWER)


async def _notifications(
    settings: Settings,
    paths: AppPaths,
    report: Report,
    given: Secrets,
    sandbox: SandboxLink | None,
    inbox: Inbox | None,
    within_s: float,
) -> None:
    """The notification URL's rules, then a test notification through it."""
    profile = settings.profile
    if not profile.is_builtin_sandbox and settings.tunnel.mode in ("manual", "none"):
        report.add(check_notification_url(settings, None))
    if inbox is not None:
        trip = await round_trip_through(inbox, within_s)
        if report.result(CheckName.NOTIFICATION_URL) is None:
            report.add(check_notification_url(settings, inbox.notification_url))
        report.add(trip)
        return
    token = _webhook_token(given, sandbox)
    if not port_is_free(settings.listener.port):
        if report.result(CheckName.NOTIFICATION_URL) is None:
            report.add(check_notification_url(settings, None))
        report.add(await round_trip_to_running(settings, token, within_s))
        return
    if token is None:
        if report.result(CheckName.NOTIFICATION_URL) is None:
            report.add(check_notification_url(settings, None))
        report.add(
            CheckResult(CheckName.ROUND_TRIP, Outcome.SKIPPED, Finding.ROUND_TRIP_NOT_STARTED)
        )
        return
    with tempfile.TemporaryDirectory(prefix="checkout-doctor-") as scratch:
        own = _own_inbox(settings, paths, Path(scratch) / "doctor.sqlite3", token, sandbox)
        try:
            try:
                await asyncio.wait_for(own.start(), within_s)
            except TimeoutError:
                if report.result(CheckName.NOTIFICATION_URL) is None:
                    report.add(check_notification_url(settings, None))
                report.add(
                    CheckResult(
                        CheckName.ROUND_TRIP,
                        Outcome.FAILED,
                        Finding.ROUND_TRIP_NO_ANSWER,
                        {"seconds": f"{within_s:g}"},
                    )
                )
                return
            except Exception as exc:
                logger.warning("the check's own listener did not start: %s", exc)
                if report.result(CheckName.NOTIFICATION_URL) is None:
                    report.add(check_notification_url(settings, None))
                report.add(
                    CheckResult(
                        CheckName.ROUND_TRIP,
                        Outcome.FAILED,
                        Finding.ROUND_TRIP_FAILED,
                        {"reason": _self_test_error(str(exc))},
                    )
                )
                return
            trip = await round_trip_through(own, within_s)
            if report.result(CheckName.NOTIFICATION_URL) is None:
                report.add(check_notification_url(settings, own.notification_url))
            report.add(trip)
        finally:
            await own.stop()


def _webhook_token(given: Secrets, sandbox: SandboxLink | None) -> SecretStr | None:
    from checkout_desktop.secrets import KeychainUnavailable, SecretMissing, SecretName

    if sandbox is not None and given.store is None:
        return SecretStr(sandbox.info.credentials.webhook_token)
    if given.webhook_token is not None:
        return given.webhook_token
    if given.store is None:
        return None
    try:
        return given.store.get(given.profile, SecretName.WEBHOOK_TOKEN)
    except (KeychainUnavailable, SecretMissing):
        return None


def _own_inbox(
    settings: Settings,
    paths: AppPaths,
    store: Path,
    token: SecretStr,
    sandbox: SandboxLink | None,
) -> Inbox:
    """A listener (and tunnel) like the terminal's, writing to a throw-away store."""
    from checkout_desktop.domain.events import EventBus
    from checkout_desktop.inbox.service import Inbox, ListenerTls, Registration
    from checkout_desktop.sandbox.link import LOCAL_WEBHOOK_HOST, listener_certificate

    def sandbox_tls() -> ListenerTls:
        # The listener's certificate, which the sandbox's webhook sender is told to trust.
        assert sandbox is not None
        cert = listener_certificate(paths)
        sandbox.webhook_ca_file.write_bytes(cert.cert_pem)
        return ListenerTls(server=cert.server_context(), client=cert.client_context())

    async def sandbox_registrar(port: int) -> Registration:
        # As a merchant sets the panel's notification URL (the sandbox's admin endpoint).
        assert sandbox is not None
        url = f"https://{LOCAL_WEBHOOK_HOST}:{port}{settings.listener.path}"
        return Registration(url=url, token=await sandbox.set_webhook(url))

    return Inbox(
        store=store,
        listener_settings=settings.listener.model_copy(),
        token=token,
        bus=EventBus(),
        tunnel_settings=None if sandbox is not None else settings.tunnel,
        heartbeat_interval_s=3600,
        tls=None if sandbox is None else sandbox_tls,
        register=None if sandbox is None else sandbox_registrar,
    )


def remember_in_settings(paths: AppPaths) -> Remember:
    """Stores the learned shape in the settings file's profile (only when it changed)."""

    def remember(profile: str, shape: str) -> bool:
        from checkout_desktop.settings import load_settings, save_settings

        current = load_settings(paths)
        chosen = current.profiles.get(profile)
        if chosen is None or chosen.not_found_shape == shape:
            return False
        chosen.not_found_shape = shape  # type: ignore[assignment]
        save_settings(current, paths)
        logger.info("profile %s: the service says 'not found' with HTTP %s", profile, shape)
        return True

    return remember


__all__ = [
    "DEADLINE_S",
    "STEP_TIMEOUT_S",
    "Reached",
    "Target",
    "api_target",
    "check_keychain",
    "check_not_found",
    "check_notification_url",
    "check_profile",
    "check_sdk_host",
    "check_token",
    "diagnose",
    "names_charge_not_found",
    "port_is_free",
    "reach",
    "remember_in_settings",
    "sdk_target",
]
