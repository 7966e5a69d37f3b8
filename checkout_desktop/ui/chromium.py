"""Chromium command-line flags for the embedded web view, decided once at start-up per profile."""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
import shlex
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from checkout_desktop.settings import Profile

if TYPE_CHECKING:
    from checkout_desktop.sandbox.link import SdkEndpoint
    from checkout_desktop.settings import Settings

logger = logging.getLogger(__name__)

FLAGS_ENV = "QTWEBENGINE_CHROMIUM_FLAGS"
REMOTE_DEBUGGING_ENV = "QTWEBENGINE_REMOTE_DEBUGGING"
DISABLE_SANDBOX_ENV = "QTWEBENGINE_DISABLE_SANDBOX"

# Flags that would weaken TLS, the same-origin policy or the resolver if they came in from the
# environment: the terminal decides these itself (and only for the built-in sandbox).
_REFUSED_INHERITED = frozenset(
    {
        "--ignore-certificate-errors",
        "--ignore-certificate-errors-spki-list",
        "--host-resolver-rules",
        "--host-rules",
        "--disable-web-security",
        "--allow-running-insecure-content",
        "--unsafely-treat-insecure-origin-as-secure",
        "--disable-site-isolation-trials",
        "--load-extension",
        "--user-data-dir",
    }
)
# Remote debugging exposes every page (and what is typed into it): developer mode only.
_DEVELOPER_ONLY = frozenset({"--remote-debugging-port", "--remote-debugging-pipe"})
_NO_SANDBOX = "--no-sandbox"

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*$")


# The flags QtWebEngine read when it started in this process (None: not started yet).
_engine_flags: str | None = None


class ChromiumFlagsError(ValueError):
    """The flags cannot be decided as asked; the message says which input is wrong."""


@dataclass(frozen=True)
class HostMapping:
    """Send the SDK's backend host to a local HTTPS server whose key alone is trusted for it.

    Used only for the built-in sandbox: `spki_sha256_b64` is the base64 SHA-256 of the sandbox
    certificate's SubjectPublicKeyInfo, so Chromium accepts that one key and no other.
    """

    host: str
    port: int
    spki_sha256_b64: str

    def __post_init__(self) -> None:
        if not _HOST.match(self.host):
            raise ChromiumFlagsError(f"{self.host!r} is not a host name")
        if not 1 <= self.port <= 65535:
            raise ChromiumFlagsError(f"port {self.port} is outside 1–65535")
        try:
            digest = base64.b64decode(self.spki_sha256_b64, validate=True)
        except (binascii.Error, ValueError):
            raise ChromiumFlagsError("the SPKI hash is not base64") from None
        if len(digest) != 32:
            raise ChromiumFlagsError(
                f"the SPKI hash must be a SHA-256 (32 bytes); it decodes to {len(digest)} bytes"
            )


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _flag_name(flag: str) -> str:
    return flag.split("=", 1)[0]


def _quote(flag: str) -> str:
    # Qt splits QTWEBENGINE_CHROMIUM_FLAGS like a shell command line: a value with spaces
    # (the resolver rules) must be quoted or it becomes several arguments.
    name, sep, value = flag.partition("=")
    if sep and (" " in value or "," in value):
        return f'{name}="{value}"'
    return flag


def decide_flags(
    profile: Profile,
    *,
    mapping: HostMapping | None = None,
    developer: bool = False,
    inherited: str = "",
    as_root: bool | None = None,
    isolate_network: bool | None = None,
) -> list[str]:
    """The Chromium flags for this run.

    - `--no-sandbox` only when running as root (Chromium refuses to start otherwise);
    - for the built-in sandbox, the SDK host mapped to the local sandbox and its key trusted;
      every other host name then fails to resolve (`isolate_network`, on by default there), so
      a card typed into a sandbox terminal can reach nothing but the sandbox;
    - flags inherited from the environment that weaken TLS or the resolver are dropped, and
      remote debugging is kept only in developer mode.
    """
    root = running_as_root() if as_root is None else as_root
    try:
        inherited_flags = shlex.split(inherited)
    except ValueError as exc:
        raise ChromiumFlagsError(f"{FLAGS_ENV} cannot be parsed ({exc})") from None
    flags: list[str] = []
    for flag in inherited_flags:
        name = _flag_name(flag)
        if name in _REFUSED_INHERITED:
            logger.warning(
                "dropped the Chromium flag %s from %s: the terminal sets it", name, FLAGS_ENV
            )
            continue
        if name in _DEVELOPER_ONLY and not developer:
            logger.warning("dropped the Chromium flag %s: it needs developer mode", name)
            continue
        if name == _NO_SANDBOX:
            continue
        flags.append(flag)
    if root:
        flags.insert(0, _NO_SANDBOX)
    elif _NO_SANDBOX in inherited_flags:
        if developer:
            flags.insert(0, _NO_SANDBOX)
        else:
            logger.warning("dropped --no-sandbox: Chromium's sandbox stays on unless run as root")

    if profile.is_builtin_sandbox:
        if mapping is None:
            raise ChromiumFlagsError(
                f"profile {profile.name!r} is the built-in sandbox: the SDK host mapping "
                "(sandbox host, port and key hash) is needed before the web view starts"
            )
        expected = profile.sdk_backend_host
        if expected and mapping.host.lower() != expected.lower():
            raise ChromiumFlagsError(
                f"the sandbox serves the SDK backend as {mapping.host!r} but profile "
                f"{profile.name!r} expects {expected!r}"
            )
        rules = [f"MAP {mapping.host} 127.0.0.1:{mapping.port}"]
        if isolate_network is None or isolate_network:
            rules += ["MAP * ~NOTFOUND", "EXCLUDE localhost", "EXCLUDE 127.0.0.1"]
        flags.append(f"--host-resolver-rules={', '.join(rules)}")
        flags.append(f"--ignore-certificate-errors-spki-list={mapping.spki_sha256_b64}")
    elif mapping is not None:
        raise ChromiumFlagsError(
            f"profile {profile.name!r} talks to the real service: a local host mapping and a "
            "trusted local key are only for the built-in sandbox"
        )
    return flags


def apply_flags(
    profile: Profile,
    *,
    mapping: HostMapping | None = None,
    developer: bool = False,
    environ: MutableMapping[str, str] | None = None,
    as_root: bool | None = None,
    isolate_network: bool | None = None,
) -> list[str]:
    """Decide the flags and write them where QtWebEngine reads them.

    Call this before the first QtWebEngine profile, page or view exists: Chromium reads its
    command line once per process.
    """
    env: MutableMapping[str, str] = os.environ if environ is None else environ
    root = running_as_root() if as_root is None else as_root
    inherited = env.get(FLAGS_ENV, "")
    flags = decide_flags(
        profile,
        mapping=mapping,
        developer=developer,
        inherited=inherited,
        as_root=root,
        isolate_network=isolate_network,
    )
    value = " ".join(_quote(flag) for flag in flags)
    if env is os.environ and _engine_flags is not None and value != _engine_flags:
        # Setting them now would change nothing but the environment, and the web view would
        # keep calling wherever the old flags send it (a stopped sandbox, say).
        raise ChromiumFlagsError(
            "QtWebEngine has already started in this process with other Chromium flags; they "
            "cannot change until the terminal restarts"
        )
    env[FLAGS_ENV] = value
    if not developer and env.pop(REMOTE_DEBUGGING_ENV, None) is not None:
        logger.warning("ignored %s: remote debugging needs developer mode", REMOTE_DEBUGGING_ENV)
    if not root and not developer and env.pop(DISABLE_SANDBOX_ENV, None) is not None:
        logger.warning(
            "ignored %s: Chromium's sandbox stays on unless run as root", DISABLE_SANDBOX_ENV
        )
    logger.info(
        "Chromium flags for profile %s: %s",
        profile.name,
        " ".join(_flag_name(flag) for flag in flags) or "(none)",
    )
    return flags


def note_engine_starting() -> None:
    """Record the flags QtWebEngine reads now; called before the first profile is created."""
    global _engine_flags
    if _engine_flags is None:
        _engine_flags = os.environ.get(FLAGS_ENV, "")


def engine_flags() -> str | None:
    """The flags QtWebEngine started with in this process, or None if it has not started."""
    return _engine_flags


def apply_profile_flags(
    settings: Settings, sdk: SdkEndpoint | None, *, developer: bool = False
) -> list[str]:
    """Apply the flags for the active profile; `sdk` is the built-in sandbox's SDK endpoint.

    The terminal, the self-test and the screenshots script start QtWebEngine this one way.
    """
    mapping = None if sdk is None else HostMapping(sdk.host, sdk.port, sdk.spki_sha256_b64)
    return apply_flags(settings.profile, mapping=mapping, developer=developer)
