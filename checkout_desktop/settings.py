"""Every non-secret setting in one versioned, typed model, stored as JSON in the config folder."""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from checkout_desktop.domain import documents
from checkout_desktop.domain.enums import SdkCredentialKind, TokenFieldSpelling
from checkout_desktop.domain.three_ds_policy import ThreeDsFallback, ThreeDsMode, ThreeDsPolicy
from checkout_desktop.domain.timestamps import DEFAULT_NAIVE_ZONE, zone_named
from checkout_desktop.errors import PlainError
from checkout_desktop.paths import AppPaths, NotARegularFile, read_regular_file
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words, translate

logger = logging.getLogger(__name__)

SETTINGS_VERSION = 1
BUILTIN_SANDBOX = "builtin-sandbox"

_SECRETISH = re.compile(r"(?i)(secret|password|passwd|token|bearer)")


class SettingsError(PlainError):
    """The settings file cannot be used; the message says which file and why."""

    exit_code = 2


class ProfileKind(StrEnum):
    BUILTIN_SANDBOX = "builtin-sandbox"
    SERVICE_SANDBOX = "service-sandbox"
    PRODUCTION = "production"
    CUSTOM = "custom"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


HttpsOrLoopbackUrl = Annotated[str, Field(min_length=1, max_length=2048)]


class Profile(_Strict):
    """One service environment. Secrets are never here: they live in the keychain under the name."""

    name: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")]
    label: str
    kind: ProfileKind
    base_url: HttpsOrLoopbackUrl | None = None
    auth_url: HttpsOrLoopbackUrl | None = None
    sdk_build: Literal["dev", "prod"] = "dev"
    sdk_script_url: HttpsOrLoopbackUrl | None = None
    sdk_backend_host: str | None = None
    client_id: str = ""
    merchant_document: str = ""
    token_field: TokenFieldSpelling = "temporaryCardToken"
    """The card-token field's spelling to send first; the one the service takes is kept here."""
    request_timeout_s: Annotated[float, Field(gt=0, le=120)] = 30.0
    sdk_credential: SdkCredentialKind = "transparent"
    """Which credential the card SDK is given: the panel's transparent token (`tk_…`) or the
    merchant token the docs teach (the SDK then sends bcrypt(CNPJ + token))."""
    phone_required: bool = True
    """The charge screen asks for the customer's phone (every public integration sends it)."""
    customer_email_required: bool = False
    """The service needs the customer's e-mail with every charge (optional otherwise)."""
    qr_cancel_refused: bool = False
    """The service refused to cancel an unpaid QR (it only expires): the QR screen offers no
    cancel and says the QR expires by itself."""
    customer_cnpj_refused: bool = False
    """The service refused a CNPJ as the customer's document (its documented pattern admits
    none): the charge screen asks for a CPF before a sale goes out."""
    time_zone: Annotated[str, Field(min_length=1, max_length=64)] = DEFAULT_NAIVE_ZONE
    """The zone a service timestamp without offset is read in."""

    @field_validator("time_zone")
    @classmethod
    def _zone(cls, value: str) -> str:
        zone_named(value)
        return value

    three_ds_mode: ThreeDsMode = "off"
    """When a card charge is authenticated by 3-D Secure first: off, above an amount, always."""
    three_ds_above_centavos: Annotated[int, Field(ge=0, le=100_000_000)] = 0
    """With mode "above": charges of at least this amount (centavos) go through 3DS."""
    three_ds_fallback: ThreeDsFallback = "refuse"
    """When 3DS fails, is rejected, unavailable or cancelled: refuse the card, or charge it
    without 3DS (the plain authorization)."""

    def three_ds_policy(self) -> ThreeDsPolicy:
        return ThreeDsPolicy(
            mode=self.three_ds_mode,
            above_centavos=self.three_ds_above_centavos,
            fallback=self.three_ds_fallback,
        )

    not_found_shape: Literal["404", "400"] | None = None
    """How the service says a charge does not exist, as `doctor` learned it: HTTP 404, or a
    400 whose body names the charge as not found (None: not learned yet)."""

    @field_validator("base_url", "auth_url", "sdk_script_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.rstrip("/")
        loopback = re.match(r"^http://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(/|$)", value)
        if not value.startswith("https://") and not loopback:
            raise ValueError(f"{value!r} must be an https:// address (plain http only on loopback)")
        if "?" in value or "#" in value:
            raise ValueError(f"{value!r} must not carry a query or fragment")
        return value

    @field_validator("merchant_document")
    @classmethod
    def _cnpj(cls, value: str) -> str:
        return documents.validate_cnpj(value) if value else value

    @property
    def is_builtin_sandbox(self) -> bool:
        return self.kind == ProfileKind.BUILTIN_SANDBOX


def default_profiles() -> dict[str, Profile]:
    """The environments a new install knows: the built-in sandbox first (the first-run default)."""
    return {
        BUILTIN_SANDBOX: Profile(
            name=BUILTIN_SANDBOX,
            label="Built-in sandbox (no account needed)",
            kind=ProfileKind.BUILTIN_SANDBOX,
            sdk_build="dev",
            sdk_backend_host="checkout-qa.picpay.com",
        ),
        "service-sandbox": Profile(
            name="service-sandbox",
            label="Service sandbox",
            kind=ProfileKind.SERVICE_SANDBOX,
            base_url="https://checkout-api-sandbox.picpay.com",
            auth_url="https://checkout-api-sandbox.picpay.com",
            sdk_build="dev",
            sdk_backend_host="checkout-qa.picpay.com",
        ),
        "production": Profile(
            name="production",
            label="Production",
            kind=ProfileKind.PRODUCTION,
            base_url="https://checkout-api.picpay.com",
            auth_url="https://checkout-api.picpay.com",
            sdk_build="prod",
            sdk_backend_host="checkout.picpay.com",
        ),
    }


class ListenerSettings(_Strict):
    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 8787
    path: Annotated[str, Field(pattern=r"^/[A-Za-z0-9/_\-]*$")] = "/webhooks/checkout"
    max_body_bytes: Annotated[int, Field(ge=1024, le=16 * 1024 * 1024)] = 256 * 1024
    read_timeout_s: Annotated[float, Field(gt=0, le=120)] = 10.0
    # A request's head must arrive within this time of the connection (and of the previous
    # answer on a kept-alive one); open connections are capped in total and per source, kept
    # well below the common 1,024 open-files limit.
    head_timeout_s: Annotated[float, Field(gt=0, le=120)] = 15.0
    max_connections: Annotated[int, Field(ge=4, le=4096)] = 256
    max_connections_per_source: Annotated[int, Field(ge=1, le=4096)] = 128


class TunnelSettings(_Strict):
    mode: Literal["none", "manual", "cloudflared", "ngrok"] = "none"
    public_url: str | None = None
    cloudflared_path: str = "cloudflared"
    ngrok_api_url: str = "http://127.0.0.1:4040/api/tunnels"
    heartbeat_interval_s: Annotated[float, Field(ge=5, le=3600)] = 60.0


class SandboxSettings(_Strict):
    webhook_layout: Literal["flat", "envelope", "alternate"] = "envelope"


LARGE_AMOUNT_WARNING = 5_000_00
"""The default amount (centavos) above which the charge screen asks the clerk to check it."""


class UiSettings(_Strict):
    shop_name: Annotated[str, Field(max_length=80)] = ""
    """The name receipts print; empty prints the environment's name."""
    locale: str | None = None
    supervisor_pin_hash: str | None = None
    developer_mode: bool = False
    large_amount_warning: Annotated[int, Field(ge=0, le=99_999_999_99)] = LARGE_AMOUNT_WARNING
    """Sale amounts above this many centavos are flagged on the charge screen; 0 never."""
    receipts_folder: Annotated[str, Field(max_length=4096)] | None = None
    """The folder a receipt was last saved in; the save dialog opens there."""


class QrSettings(_Strict):
    """Wallet and PIX QR charges, and the customer-facing display."""

    pix_expiration_s: Annotated[int, Field(ge=600, le=86_400)] = 600
    """How long a PIX QR may be paid; the public integration's minimum (and default) is 600."""
    customer_display: bool = False
    """Show a second window for the customer (amount, QR, paid)."""
    customer_display_screen: Annotated[str, Field(max_length=200)] | None = None
    """The screen it opens on, by name; None or a screen no longer there: the last screen."""


class Settings(_Strict):
    version: int = SETTINGS_VERSION
    active_profile: str = BUILTIN_SANDBOX
    profiles: dict[str, Profile] = Field(default_factory=default_profiles)
    listener: ListenerSettings = Field(default_factory=ListenerSettings)
    tunnel: TunnelSettings = Field(default_factory=TunnelSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    ui: UiSettings = Field(default_factory=UiSettings)
    qr: QrSettings = Field(default_factory=QrSettings)
    reconcile_interval_s: Annotated[float, Field(ge=5, le=3600)] = 60.0
    first_run_done: bool = False
    shared_store_url: Annotated[str, Field(max_length=2048)] | None = None
    """The shop's shared PostgreSQL store (postgresql://USER@HOST/DB, never a password: that
    is in the OS keychain); None keeps the store in this computer's data folder."""

    @field_validator("version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value > SETTINGS_VERSION:
            raise ValueError(
                f"settings version {value} was written by a newer checkout-desktop "
                f"(this one understands up to {SETTINGS_VERSION}); upgrade the terminal"
            )
        return value

    @property
    def profile(self) -> Profile:
        try:
            return self.profiles[self.active_profile]
        except KeyError:
            raise SettingsError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "Settings",
                        "the active profile {name} is not defined in the settings; known "
                        "profiles: {known}; choose one in Settings → Environment, or name one "
                        "with --profile NAME",
                    ),
                    name=repr(self.active_profile),
                    known=", ".join(sorted(self.profiles)),
                )
            ) from None


def unknown_profile(name: str, profiles: Iterable[str]) -> str:
    """The owner's words for a profile name the settings do not define."""
    return translate("Settings", "there is no profile {name}; known profiles: {known}").format(
        name=repr(name), known=", ".join(sorted(profiles))
    )


def _migrate(raw: dict[str, object]) -> dict[str, object]:
    """Bring an older file up to SETTINGS_VERSION (version 1 is the first)."""
    raw.setdefault("version", SETTINGS_VERSION)
    return raw


MAX_SETTINGS_BYTES = 1024 * 1024
"""A settings file is a few kilobytes; anything this large is not one."""
MAX_SETTINGS_DEPTH = 32


def _read_regular_file(target: Path) -> bytes | None:
    """The file's bytes, None when it does not exist; only a regular file of bounded size is
    read (a FIFO or a device would block start-up or never end)."""
    try:
        data = read_regular_file(target, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return None
    except NotARegularFile:
        raise SettingsError(
            Words(
                QT_TRANSLATE_NOOP(
                    "Settings",
                    "settings file {path} is not a regular file; move it away and start "
                    "again (the defaults are used when the file is missing)",
                ),
                path=target,
            )
        ) from None
    except OSError as exc:
        raise SettingsError(_cannot_read(target, exc.strerror)) from None
    if len(data) > MAX_SETTINGS_BYTES:
        raise SettingsError(
            Words(
                QT_TRANSLATE_NOOP(
                    "Settings",
                    "settings file {path} is larger than settings can be ({limit} bytes); "
                    "move it away and start again",
                ),
                path=target,
                limit=MAX_SETTINGS_BYTES,
            )
        )
    return data


def _too_deep(data: bytes) -> bool:
    if data.count(b"[") + data.count(b"{") <= MAX_SETTINGS_DEPTH:
        return False
    depth = 0
    inside = escaped = False
    for byte in data:
        if inside:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                inside = False
        elif byte == 0x22:
            inside = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_SETTINGS_DEPTH:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def _cannot_read(target: Path, why: object) -> Words:
    return Words(
        QT_TRANSLATE_NOOP("Settings", "cannot read settings file {path}: {why}"),
        path=target,
        why=why,
    )


def _not_json(target: Path, detail: object) -> Words:
    """Not JSON; what the parser said follows, as it said it (a technician's detail)."""
    return Words(
        QT_TRANSLATE_NOOP(
            "Settings", "cannot read settings file {path}, it is not valid JSON: {detail}"
        ),
        path=target,
        detail=detail,
    )


def _not_valid(target: Path, details: object) -> Words:
    """Settings the model refuses; its own words (field: problem) follow as they are."""
    return Words(
        QT_TRANSLATE_NOOP("Settings", "settings file {path} is not valid: {details}"),
        path=target,
        details=details,
    )


def load_settings(paths: AppPaths) -> Settings:
    """Read the settings file; a missing file gives the defaults, a broken one a clear error
    that names the file."""
    target = paths.settings_file
    data = _read_regular_file(target)
    if data is None:
        return Settings()
    if _too_deep(data):
        raise SettingsError(
            Words(
                QT_TRANSLATE_NOOP(
                    "Settings",
                    "settings file {path} nests more than {depth} levels deep; it is not a "
                    "settings file",
                ),
                path=target,
                depth=MAX_SETTINGS_DEPTH,
            )
        )
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise SettingsError(
            Words(
                QT_TRANSLATE_NOOP("Settings", "settings file {path} is not UTF-8 text"), path=target
            )
        ) from None
    except json.JSONDecodeError as exc:
        raise SettingsError(_not_json(target, exc)) from None
    except (ValueError, RecursionError) as exc:
        # json.loads refuses integers beyond Python's digit limit with a bare ValueError.
        raise SettingsError(_not_json(target, exc)) from None
    if not isinstance(raw, dict):
        raise SettingsError(
            Words(
                QT_TRANSLATE_NOOP("Settings", "settings file {path} does not hold a JSON object"),
                path=target,
            )
        )
    try:
        return Settings.model_validate(_migrate(raw))
    except ValidationError as exc:
        details = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
            for err in exc.errors(include_input=False, include_url=False)[:10]
        )
        raise SettingsError(_not_valid(target, details)) from None
    except (ValueError, RecursionError) as exc:
        raise SettingsError(_not_valid(target, exc)) from None


def save_settings(settings: Settings, paths: AppPaths) -> Path:
    """Write atomically (temp file, fsync, rename) with owner-only permissions."""
    paths.ensure()
    target = paths.settings_file
    text = settings.model_dump_json(indent=2)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
