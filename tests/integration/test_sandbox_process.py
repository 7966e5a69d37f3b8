"""The sandbox as its own process: the announcement line, signals, settings, logs on stderr."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from checkout_desktop.domain.wire import TokenResponse
from checkout_desktop.sandbox.certs import KEY_FILE
from checkout_desktop.sandbox.credentials import SandboxCredentials
from checkout_desktop.sandbox.process import (
    SandboxInfo,
    SandboxProcess,
    SandboxStartError,
    chromium_flag_list,
    chromium_flags,
    launch_sandbox_process,
    sandbox_command,
    start_sandbox_process,
)
from tests.integration.test_sandbox_fixtures import WebhookReceiver, card_body, charge_body

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

logger = logging.getLogger(__name__)

FAST = ["--slow-card-delay", "0.2", "--webhook-backoff", "0.05"]


def sdk_client(info: SandboxInfo) -> httpx.Client:
    import ssl

    context = ssl.create_default_context(cadata=info.sdk_cert_pem)
    return httpx.Client(verify=context, timeout=10)


def tokenize(info: SandboxInfo, number: str, cvv: str) -> str:
    with sdk_client(info) as client:
        reply = client.post(
            f"https://{info.sdk_address}:{info.sdk_port}/payment/v2/temporary/card",
            json=card_body(number, cvv=cvv),
            headers={
                "Host": info.sdk_host,
                "Authorization": info.credentials.transparent_token,
                "MerchantCredential": info.credentials.merchant_document,
            },
            extensions={"sni_hostname": info.sdk_host},
        )
    assert reply.status_code == 200, reply.text
    token = reply.json()["cardToken"]
    assert isinstance(token, str)
    return token


def access_token(info: SandboxInfo) -> str:
    creds = info.credentials
    reply = httpx.post(
        info.auth_url + "/oauth2/token",
        json={
            "grant_type": "client_credentials",
            "client_id": creds.client_id,
            "client_secret": creds.client_secret,
        },
    )
    assert reply.status_code == 200, reply.text
    return TokenResponse.model_validate(reply.json()).access_token.get_secret_value()


def authorize(info: SandboxInfo, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        info.base_url + "/api/v1/charge/authorization",
        json=body,
        headers={"Authorization": f"Bearer {access_token(info)}"},
        timeout=10,
    )


def test_a_charge_through_the_subprocess_and_clean_stop(tmp_path: Path) -> None:
    stderr_path = tmp_path / "sandbox.stderr"
    with stderr_path.open("wb") as stderr:
        process = start_sandbox_process([*FAST, "-v"], stderr=stderr)
        try:
            info = process.info
            assert info.base_url == info.auth_url
            assert re.fullmatch(r"http://127\.0\.0\.1:\d+", info.base_url)
            assert info.sdk_host == "checkout-qa.picpay.com"
            assert info.credentials == SandboxCredentials()
            token = tokenize(info, "4111111111111111", "739")
            reply = authorize(info, charge_body(token))
            assert reply.status_code == 200
            assert reply.json()["chargeStatus"] == "PAID"
        finally:
            code = process.stop()
    assert code == 0
    log = stderr_path.read_text(encoding="utf-8")
    assert "sandbox running" in log
    assert "sandbox stopped" in log
    assert "temporary card token issued" in log
    assert "4111111111111111" not in log
    # Each line's timestamp is left out: its milliseconds may read 739 too.
    assert not re.search(r"\b739\b", re.sub(r"^\S+ \S+ ", "", log, flags=re.MULTILINE))
    assert info.credentials.client_secret not in log


def test_stdout_carries_exactly_one_json_line() -> None:
    popen = subprocess.Popen(
        [*sandbox_command(), *FAST],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    assert popen.stdout is not None
    first = popen.stdout.readline()
    popen.send_signal(signal.SIGINT)
    rest, _ = popen.communicate(timeout=15)
    assert popen.returncode == 0
    assert rest == b""
    data = json.loads(first)
    assert data["service"] == "checkout-desktop-sandbox"
    assert set(data) >= {"base_url", "auth_url", "sdk", "credentials", "admin_token"}
    assert set(data["sdk"]) == {"host", "address", "port", "spki_sha256", "cert_pem"}
    assert set(data["credentials"]) == {
        "client_id",
        "client_secret",
        "merchant_document",
        "transparent_token",
        "webhook_token",
        "merchant_token",
    }
    # The variants in force, every one named, at the defaults the evidence suggests.
    assert data["variants"] == {
        "token-field": "temporatyCardToken",
        "not-found": "400",
        "require": "phone,device",
        "customer-document": "any",
        "timestamps": "offset",
        "envelope-id": "notification",
        "sdk-credential": "both",
        "partial-refund": "PARTIAL",
        "query-content-type": "required",
        "three-ds-card": "token",
        "three-ds-reply": "plain",
        "three-ds-notification": "sent",
        "qr-unpaid": "PENDING",
        "wallet-paid": "AUTHORIZED",
        "qr-expired": "expired-canceled",
        "qr-cancel": "refund",
        "qr-image": "as-sources",
    }


def test_the_checkout_desktop_sandbox_subcommand() -> None:
    command = [
        sys.executable,
        "-c",
        "from checkout_desktop.cli import main; raise SystemExit(main())",
        "sandbox",
        *FAST,
    ]
    popen = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    assert popen.stdout is not None
    info = SandboxInfo.from_json(popen.stdout.readline().decode())
    process = SandboxProcess(popen, info)  # type: ignore[arg-type]
    try:
        assert access_token(info)
    finally:
        assert process.stop() == 0
        popen.stdout.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--webhook-url", "http://localhost/hook"], "must use HTTPS"),
        (["--webhook-url", "https://127.0.0.1/hook"], "IPv4"),
        (["--fault", "gremlins"], "unknown fault 'gremlins'"),
        (["--fault", "error-rate=2"], "error_rate must be between 0 and 1"),
        (["--fault", "latency"], "needs a value"),
        (["--variant", "not-found=410"], "not-found='410' is not a value it takes; use 400|404"),
        (["--variant", "gremlins=on"], "unknown variant(s) gremlins"),
        (["--variant", "require"], "needs a value"),
        (["--webhook-token-file", "/nonexistent/token"], "cannot read the webhook token file"),
        (["--webhook-ca", "/nonexistent/ca.pem"], "does not exist"),
        (["--token-lifetime", "0"], "token_lifetime_s must be above 0"),
        (["--port", "70000"], "api_port must be between 0 and 65535"),
    ],
)
def test_bad_settings_exit_2_with_a_message(args: list[str], message: str) -> None:
    result = subprocess.run(
        [*sandbox_command(), *args], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr


def test_start_error_when_the_process_exits_early() -> None:
    with pytest.raises(SandboxStartError, match=r"exited \(code 2\)"):
        start_sandbox_process(["--fault", "nonsense"], stderr=subprocess.DEVNULL)


def test_start_error_when_the_port_is_taken() -> None:
    first = start_sandbox_process(FAST, stderr=subprocess.DEVNULL)
    try:
        port = first.info.base_url.rsplit(":", 1)[1]
        with pytest.raises(SandboxStartError, match="exited"):
            start_sandbox_process(["--port", port], stderr=subprocess.DEVNULL)
    finally:
        first.stop()


def test_exit_with_parent_stops_when_stdin_closes() -> None:
    process = start_sandbox_process(FAST, stderr=subprocess.DEVNULL, exit_with_parent=True)
    assert process.alive()
    assert process.popen.stdin is not None
    process.popen.stdin.close()
    assert process.popen.wait(timeout=15) == 0


def test_a_sandbox_ignoring_sigterm_is_killed() -> None:
    process = start_sandbox_process(FAST, stderr=subprocess.DEVNULL)
    # Stand-in for a stuck sandbox: stop it so SIGTERM cannot be acted on.
    os.kill(process.pid, signal.SIGSTOP)
    code = process.stop(timeout=0.5)
    assert code == -signal.SIGKILL


def test_cert_dir_keeps_the_pin_across_runs(tmp_path: Path) -> None:
    cert_dir = tmp_path / "certs"
    pins = []
    for _ in range(2):
        with start_sandbox_process(
            [*FAST, "--sdk-cert-dir", str(cert_dir)], stderr=subprocess.DEVNULL
        ) as process:
            pins.append(process.info.sdk_spki_sha256_b64)
    assert pins[0] == pins[1]
    assert (cert_dir / KEY_FILE).stat().st_mode & 0o777 == 0o600
    with start_sandbox_process(FAST, stderr=subprocess.DEVNULL) as process:
        assert process.info.sdk_spki_sha256_b64 != pins[0]


def test_chromium_flags_map_the_sdk_host() -> None:
    with start_sandbox_process(FAST, stderr=subprocess.DEVNULL) as process:
        info = process.info
        flags = chromium_flags(info)
        assert flags == (
            f'--host-resolver-rules="MAP checkout-qa.picpay.com 127.0.0.1:{info.sdk_port}" '
            f"--ignore-certificate-errors-spki-list={info.sdk_spki_sha256_b64}"
        )
        assert chromium_flag_list(info) == [
            f"--host-resolver-rules=MAP checkout-qa.picpay.com 127.0.0.1:{info.sdk_port}",
            f"--ignore-certificate-errors-spki-list={info.sdk_spki_sha256_b64}",
        ]


@pytest.mark.asyncio
async def test_webhook_settings_from_the_command_line(
    receiver: WebhookReceiver, tmp_path: Path
) -> None:
    token_file = tmp_path / "webhook-token"
    token_file.write_text("cli_webhook_token_42\n", encoding="utf-8")
    stderr_path = tmp_path / "stderr"
    args = [
        *FAST,
        "--webhook-url",
        receiver.url,
        "--webhook-token-file",
        str(token_file),
        "--webhook-ca",
        receiver.ca_file,
        "--webhook-layout",
        "flat",
    ]
    with stderr_path.open("wb") as stderr:
        process = await asyncio.to_thread(start_sandbox_process, args, stderr=stderr)
        try:
            info = process.info
            assert info.credentials.webhook_token == "cli_webhook_token_42"
            for number in ("4000000000000002", "4111111111111111"):
                token = await asyncio.to_thread(tokenize, info, number, "739")
                await asyncio.to_thread(authorize, info, charge_body(token))
            deliveries = await receiver.wait_for(2)
        finally:
            await asyncio.to_thread(process.stop)
    assert [d.headers["Authorization"] for d in deliveries] == ["cli_webhook_token_42"] * 2
    assert sorted(d.body.get("status") or d.body["data"]["status"] for d in deliveries) == [
        "DENIED",
        "PAID",
    ]
    assert "cli_webhook_token_42" not in stderr_path.read_text(encoding="utf-8")


def test_variant_flags_are_announced_and_reach_the_server() -> None:
    with start_sandbox_process(
        [
            *FAST,
            "--variant",
            "not-found=404",
            "--variant",
            "require=none",
            "--variant",
            "token-field=both",
        ],
        stderr=subprocess.DEVNULL,
    ) as process:
        announced = process.info.raw["variants"]
        assert announced["not-found"] == "404"
        assert announced["require"] == "none"
        assert announced["token-field"] == "both"
        assert announced["timestamps"] == "offset"
        admin = {"X-Sandbox-Admin-Token": process.info.admin_token}
        url = process.info.base_url + "/_sandbox/variants"
        assert httpx.get(url, headers=admin).json() == announced
        missing = httpx.get(
            process.info.base_url + "/api/v1/charge/nothing-here",
            headers={
                "Authorization": f"Bearer {access_token(process.info)}",
                "Content-Type": "application/json",
            },
        )
        assert missing.status_code == 404
        assert missing.json()["businessCode"] == "CHARGE_NOT_FOUND"


def test_fault_flags_reach_the_server() -> None:
    with start_sandbox_process(
        [*FAST, "--fault", "error-rate=1", "--fault", "webhook-duplicate"],
        stderr=subprocess.DEVNULL,
    ) as process:
        reply = httpx.post(process.info.auth_url + "/oauth2/token", json={})
        assert reply.status_code == 500
        faults = httpx.get(
            process.info.base_url + "/_sandbox/faults",
            headers={"X-Sandbox-Admin-Token": process.info.admin_token},
        ).json()
        assert faults["error_rate"] == 1.0
        assert faults["webhook_duplicate"] is True


def _listening_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock


def test_the_sdk_backend_serves_on_an_inherited_socket() -> None:
    with _listening_socket() as sock:
        port = sock.getsockname()[1]
        fd = sock.fileno()
        launch = launch_sandbox_process(
            [*FAST, "--sdk-fd", str(fd)], stderr=subprocess.DEVNULL, pass_fds=(fd,)
        )
        with launch.wait() as process:
            sock.close()
            info = process.info
            assert (info.sdk_address, info.sdk_port) == ("127.0.0.1", port)
            assert tokenize(info, "4111111111111111", "739")


@pytest.mark.asyncio
async def test_the_announcement_can_be_awaited() -> None:
    launch = launch_sandbox_process(FAST, stderr=subprocess.DEVNULL)
    process = await launch.announced()
    try:
        assert process.info.sdk_host == "checkout-qa.picpay.com"
        assert await launch.announced() is process
        assert launch.wait() is process
    finally:
        await asyncio.to_thread(process.stop)


@pytest.mark.asyncio
async def test_a_silent_sandbox_is_ended_after_the_timeout() -> None:
    # No interpreter starts, let alone announces, within 10 ms.
    launch = launch_sandbox_process(FAST, 0.01, stderr=subprocess.DEVNULL)
    with pytest.raises(SandboxStartError, match=r"did not announce itself within 0\.01 s"):
        await launch.announced()
    assert launch.popen.poll() is not None


def _run_with_fd(args: list[str], fd: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*sandbox_command(), *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        pass_fds=(fd,),
    )


def test_a_bad_inherited_socket_exits_2_with_a_message(tmp_path: Path) -> None:
    with (tmp_path / "not-a-socket").open("wb") as handle:
        result = _run_with_fd(["--sdk-fd", str(handle.fileno())], handle.fileno())
    assert result.returncode == 2
    assert "(--sdk-fd) is not an open socket" in result.stderr
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as idle:
        idle.bind(("127.0.0.1", 0))
        result = _run_with_fd(["--sdk-fd", str(idle.fileno())], idle.fileno())
    assert result.returncode == 2
    assert "(--sdk-fd) is not listening" in result.stderr
    with _listening_socket() as sock:
        result = _run_with_fd(["--sdk-fd", str(sock.fileno()), "--sdk-port", "8443"], sock.fileno())
    assert result.returncode == 2
    assert "--sdk-fd and --sdk-port exclude each other" in result.stderr
    assert result.stdout == ""
