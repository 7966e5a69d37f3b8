"""The first-contact check against the sandbox over real HTTP: the `doctor` command (a real
process, its report and JSON line, its exit code), and the checks for a real-service profile
(keychain, wrong secret, an unreachable host) run in-process against a sandbox server."""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pydantic import SecretStr

from checkout_desktop.doctor.checks import DEADLINE_S, Target, diagnose
from checkout_desktop.doctor.report import CheckName, Finding, Outcome, Report
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.paths import AppPaths, app_paths
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.secrets import SecretName, SecretStore
from checkout_desktop.settings import Profile, ProfileKind, Settings, load_settings, save_settings
from checkout_desktop.ui.doctor_cli import SANDBOX_LOG_FILE
from tests.conftest import MemoryKeyring

logger = logging.getLogger(__name__)

PROFILE = "doctor-test"
ROOT = Path(__file__).resolve().parents[2]
_JWT = re.compile(r"[\w=-]{8,}\.[\w=-]{8,}\.[\w=+/-]{8,}")


# -- helpers -----------------------------------------------------------------------------------


def doctor(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`checkout-desktop doctor ARGS` as its own process, on the instance folder `home`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), CHECKOUT_DESKTOP_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "doctor", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def json_line(stdout: str) -> dict[str, Any]:
    """The report's last line: one JSON object."""
    lines = stdout.strip().splitlines()
    assert lines, "doctor printed nothing"
    data = json.loads(lines[-1])
    assert isinstance(data, dict)
    return data


def outcomes(data: dict[str, Any]) -> dict[str, str]:
    return {check["check"]: check["outcome"] for check in data["checks"]}


def findings(data: dict[str, Any]) -> dict[str, str]:
    return {check["check"]: check["finding"] for check in data["checks"]}


@pytest_asyncio.fixture
async def server() -> AsyncIterator[SandboxServer]:
    sandbox = SandboxServer(SandboxConfig(api_port=0, sdk_port=0))
    await sandbox.start()
    try:
        yield sandbox
    finally:
        await sandbox.stop()


def service_settings(server: SandboxServer, *, client_id: str | None = None) -> Settings:
    """A real-service profile (keychain secrets) whose service is the sandbox server."""
    settings = Settings(first_run_done=True, active_profile=PROFILE)
    settings.profiles[PROFILE] = Profile(
        name=PROFILE,
        label="Doctor test",
        kind=ProfileKind.CUSTOM,
        base_url=server.api_url,
        client_id=client_id or server.credentials.client_id,
        merchant_document=server.credentials.merchant_document,
        sdk_backend_host=server.sdk_host,
    )
    settings.listener.port = 0
    return settings


def sdk_of(server: SandboxServer) -> Target:
    """The sandbox's SDK backend, reached under the SDK host's name and trusted by its key."""
    return Target(
        host=server.sdk_host,
        port=server.sdk_port,
        tls=ssl.create_default_context(cadata=server.sdk_cert_pem),
        connect_to="127.0.0.1",
        pin=server.sdk_spki_sha256_b64,
    )


def all_secrets(store: SecretStore, server: SandboxServer) -> None:
    creds = server.credentials
    store.set(PROFILE, SecretName.CLIENT_SECRET, creds.client_secret)
    store.set(PROFILE, SecretName.SDK_MERCHANT_TOKEN, creds.transparent_token)
    store.set(PROFILE, SecretName.WEBHOOK_TOKEN, creds.webhook_token)


@pytest.fixture
def silent_host() -> Iterator[int]:
    """A port that accepts connections and never says a word (a black-holed service)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(64)
        yield holder.getsockname()[1]


# -- the command against the built-in sandbox --------------------------------------------------


@pytest.mark.slow
def test_doctor_on_the_builtin_sandbox_is_green_in_portuguese(checkout_home: Path) -> None:
    paths = app_paths(str(checkout_home)).ensure()
    settings = Settings()
    settings.listener.port = 0
    settings.ui.locale = "pt_BR"
    save_settings(settings, paths)

    result = doctor(checkout_home)

    assert result.returncode == 0, result.stdout + result.stderr
    data = json_line(result.stdout)
    assert data["can_charge"] is True
    assert data["exit_code"] == 0
    assert set(outcomes(data).values()) == {"ok"}, data
    assert set(outcomes(data)) == {c.value for c in CheckName}
    assert data["not_found_shape"] in ("404", "400")
    token = next(c for c in data["checks"] if c["check"] == "token")
    assert token["facts"]["expires_in"] > 0
    assert "merchant-document" in token["facts"]["fields"]
    # The plain report, in the terminal's language, above the JSON line.
    text = result.stdout.strip().splitlines()[:-1]
    assert text[0].startswith("Verificação de conexão")
    assert text[-1] == "Este terminal pode cobrar. Tudo funciona."
    assert len([line for line in text if line.startswith("✔ ")]) == len(CheckName)
    # The learned shape is kept in the profile.
    assert load_settings(paths).profile.not_found_shape == data["not_found_shape"]
    # No secret on the way out: neither an access token nor the client secret.
    assert not _JWT.search(result.stdout + result.stderr)
    assert "sandbox_client_secret" not in result.stdout + result.stderr


@pytest.mark.slow
def test_doctor_speaks_english_when_asked(checkout_home: Path) -> None:
    paths = app_paths(str(checkout_home)).ensure()
    settings = Settings()
    settings.listener.port = 0
    save_settings(settings, paths)
    result = doctor(checkout_home, "--language", "en", "--no-save")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "This terminal can charge. Everything works." in result.stdout
    assert load_settings(paths).profile.not_found_shape is None


def test_the_builtin_sandboxs_log_goes_to_the_log_folder_unless_verbose(
    checkout_home: Path,
) -> None:
    """A plain doctor prints its report and nothing else: the sandbox's log lines (English,
    for a technician) go to the log folder, and on the console only with -v."""
    paths = app_paths(str(checkout_home)).ensure()
    settings = Settings()
    settings.listener.port = 0
    save_settings(settings, paths)
    result = doctor(checkout_home, "--no-save")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    kept = (paths.log_dir / SANDBOX_LOG_FILE).read_text(encoding="utf-8")
    assert " INFO checkout_desktop.sandbox" in kept, kept
    assert (paths.log_dir / SANDBOX_LOG_FILE).stat().st_mode & 0o077 == 0
    env = dict(os.environ, PYTHONPATH=str(ROOT), CHECKOUT_DESKTOP_HOME=str(checkout_home))
    verbose = subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "-v", "doctor", "--no-save"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert verbose.returncode == 0, verbose.stdout + verbose.stderr
    assert " INFO checkout_desktop.sandbox" in verbose.stderr, verbose.stderr


def test_an_unknown_profile_is_a_plain_option_error(checkout_home: Path) -> None:
    result = doctor(checkout_home, "--profile", "nope")
    assert result.returncode == 2
    assert "there is no profile 'nope'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_secret_file_others_can_read_is_refused(checkout_home: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("abc\n")
    secret.chmod(0o644)
    result = doctor(checkout_home, "--client-secret-file", str(secret))
    assert result.returncode == 2
    assert "--client-secret-file" in result.stderr and "chmod 600" in result.stderr
    assert "Traceback" not in result.stderr


# -- the command against an unreachable service ------------------------------------------------


def test_doctor_against_an_unreachable_host_fails_fast_with_a_plain_message(
    checkout_home: Path, silent_host: int, tmp_path: Path
) -> None:
    paths = app_paths(str(checkout_home)).ensure()
    settings = Settings(first_run_done=True, active_profile="production")
    production = settings.profiles["production"]
    production.base_url = production.auth_url = f"https://localhost:{silent_host}"
    production.client_id = "shop-client"
    production.merchant_document = "12345678000195"
    production.sdk_backend_host = "localhost"  # nothing answers on its port 443 here
    settings.listener.port = 0
    settings.ui.locale = "pt_BR"
    save_settings(settings, paths)
    secret = tmp_path / "secret"
    secret.write_text("shop_secret_1\n")
    secret.chmod(0o600)

    result = doctor(checkout_home, "--client-secret-file", str(secret), "--token-file", str(secret))

    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    data = json_line(result.stdout)
    assert data["can_charge"] is False
    # The doctor gave up by its own bound (a few seconds), not by the host hanging up.
    assert data["deadline_s"] <= DEADLINE_S < 10
    assert outcomes(data)["token"] == "failed"
    assert outcomes(data)["not-found"] == "skipped"
    assert outcomes(data)["sdk-host"] == "failed"
    text = "\n".join(result.stdout.strip().splitlines()[:-1])
    assert "✘ Token de acesso:" in text
    assert "Este terminal ainda não pode cobrar" in text


# -- the checks of a real-service profile, in-process ------------------------------------------


def _paths(tmp_path: Path) -> AppPaths:
    return AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()


@pytest.mark.asyncio
async def test_a_complete_service_profile_can_charge(server: SandboxServer, tmp_path: Path) -> None:
    store = SecretStore(MemoryKeyring())
    all_secrets(store, server)
    learned: list[tuple[str, str]] = []

    def remember(profile: str, shape: str) -> bool:
        learned.append((profile, shape))
        return True

    report = await diagnose(
        service_settings(server),
        _paths(tmp_path),
        secrets=store,
        sdk=sdk_of(server),
        remember=remember,
    )
    by_check = {r.check: r for r in report.results}
    assert report.can_charge, [r.english() for r in report.results]
    assert report.exit_code == 0
    for check in (CheckName.PROFILE, CheckName.KEYCHAIN, CheckName.TOKEN, CheckName.SDK_HOST):
        assert by_check[check].outcome == Outcome.OK, by_check[check].english()
    assert by_check[CheckName.NOT_FOUND].outcome == Outcome.OK
    assert learned == [(PROFILE, report.not_found_shape)]
    assert report.remembered
    # No tunnel: the service cannot deliver, said as a warning; the listener works locally.
    assert by_check[CheckName.NOTIFICATION_URL].finding == Finding.URL_NO_TUNNEL
    assert by_check[CheckName.ROUND_TRIP].finding == Finding.ROUND_TRIP_LOCAL_ONLY
    assert not report.notifications_work


@pytest.mark.asyncio
async def test_missing_keychain_entries_are_named_and_block_charging(
    server: SandboxServer, tmp_path: Path
) -> None:
    store = SecretStore(MemoryKeyring())
    store.set(PROFILE, SecretName.CLIENT_SECRET, server.credentials.client_secret)
    report = await diagnose(
        service_settings(server), _paths(tmp_path), secrets=store, sdk=sdk_of(server)
    )
    keychain = report.result(CheckName.KEYCHAIN)
    assert keychain is not None
    assert keychain.outcome == Outcome.FAILED
    assert keychain.args["missing"] == ("sdk_merchant_token", "webhook_token")
    # What can be checked still is: the client secret is there, so the token is asked for.
    token = report.result(CheckName.TOKEN)
    assert token is not None and token.outcome == Outcome.OK
    # Without a webhook token there is nothing to sign a test notification with.
    trip = report.result(CheckName.ROUND_TRIP)
    assert trip is not None and trip.outcome == Outcome.SKIPPED
    assert not report.can_charge
    assert report.exit_code == 1


@pytest.mark.asyncio
async def test_a_wrong_client_secret_is_reported_by_the_token_check(
    server: SandboxServer, tmp_path: Path
) -> None:
    store = SecretStore(MemoryKeyring())
    all_secrets(store, server)
    report = await diagnose(
        service_settings(server),
        _paths(tmp_path),
        secrets=store,
        sdk=sdk_of(server),
        client_secret=SecretStr("wrong_secret_value"),
    )
    token = report.result(CheckName.TOKEN)
    assert token is not None
    assert token.outcome == Outcome.FAILED
    assert token.finding == Finding.TOKEN_FAILED
    reason = token.args["reason"]
    assert getattr(reason, "code", None) == ReasonCode.CREDENTIALS_REFUSED
    found = report.result(CheckName.NOT_FOUND)
    assert found is not None and found.outcome == Outcome.SKIPPED
    assert report.exit_code == 1
    assert "wrong_secret_value" not in json.dumps(report.to_json())


@pytest.mark.asyncio
async def test_a_client_id_the_service_does_not_know(server: SandboxServer, tmp_path: Path) -> None:
    store = SecretStore(MemoryKeyring())
    all_secrets(store, server)
    report = await diagnose(
        service_settings(server, client_id="someone-else"),
        _paths(tmp_path),
        secrets=store,
        sdk=sdk_of(server),
    )
    token = report.result(CheckName.TOKEN)
    assert token is not None and token.outcome == Outcome.FAILED
    assert report.exit_code == 1


@pytest.mark.asyncio
async def test_an_unreachable_service_fails_within_the_deadline(
    silent_host: int, tmp_path: Path
) -> None:
    settings = Settings(first_run_done=True, active_profile="production")
    production = settings.profiles["production"]
    production.base_url = production.auth_url = f"https://localhost:{silent_host}"
    production.client_id = "shop-client"
    production.merchant_document = "12345678000195"
    settings.listener.port = 0
    store = SecretStore(MemoryKeyring())
    store.set("production", SecretName.CLIENT_SECRET, "shop_secret_1")
    store.set("production", SecretName.SDK_MERCHANT_TOKEN, "tk_shop")
    store.set("production", SecretName.WEBHOOK_TOKEN, "hook_token_1")
    silent_sdk = Target("localhost", silent_host, ssl.create_default_context())
    report = await diagnose(
        settings,
        _paths(tmp_path),
        secrets=store,
        sdk=silent_sdk,
        deadline_s=2.0,
        step_timeout_s=1.0,
    )
    token = report.result(CheckName.TOKEN)
    assert token is not None and token.outcome == Outcome.FAILED
    sdk = report.result(CheckName.SDK_HOST)
    assert sdk is not None and sdk.finding == Finding.SDK_NO_ANSWER
    assert report.exit_code == 1
    assert report.deadline_s == 2.0


@pytest.mark.asyncio
async def test_a_refused_port_is_said_plainly(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]  # bound, not listening: connections are refused
        settings = Settings(first_run_done=True, active_profile="production")
        production = settings.profiles["production"]
        production.base_url = production.auth_url = f"https://localhost:{port}"
        production.client_id = "shop-client"
        production.merchant_document = "12345678000195"
        settings.listener.port = 0
        store = SecretStore(MemoryKeyring())
        store.set("production", SecretName.CLIENT_SECRET, "shop_secret_1")
        report = await diagnose(
            settings,
            _paths(tmp_path),
            secrets=store,
            sdk=Target("localhost", port, ssl.create_default_context()),
        )
    token = report.result(CheckName.TOKEN)
    assert token is not None and token.outcome == Outcome.FAILED
    assert getattr(token.args["reason"], "code", None) == ReasonCode.TOKEN_SERVER_UNREACHABLE
    sdk = report.result(CheckName.SDK_HOST)
    assert sdk is not None and sdk.finding == Finding.SDK_CONNECT_FAILED


def _shape(report: Report) -> str | None:
    found = report.result(CheckName.NOT_FOUND)
    assert found is not None
    return found.facts.get("shape")
