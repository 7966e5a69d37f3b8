"""`checkout-desktop --self-test` as a user runs it, and the wizard's connection test."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import qasync

from checkout_desktop.paths import AppPaths
from checkout_desktop.settings import Settings
from checkout_desktop.ui.connection_test import ConnectionTest, port_is_free

logger = logging.getLogger(__name__)

VERDICT = re.compile(
    r"^self-test PASS: sandbox [\d.]+ s · core [\d.]+ s · card page [\d.]+ s · tokenize [\d.]+ s"
    r" · charge [\d.]+ s · notification [\d.]+ s · 3DS frictionless [\d.]+ s"
    r" · 3DS challenge [\d.]+ s · pix [\d.]+ s · pix paid [\d.]+ s · total [\d.]+ s"
    r" — charge selftest-\d+ PAID, notified through the inbox; 3DS charges"
    r" selftest-3ds-3063-\d+ and selftest-3ds-3220-\d+ \(challenge answered on the bank's page\)"
    r" PAID; PIX selftest-pix-\d+ paid by the simulated customer, notified through the inbox$"
)


@pytest.mark.webengine
@pytest.mark.slow
def test_self_test_passes_offscreen_without_a_keychain(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["CHECKOUT_DESKTOP_HOME"] = str(tmp_path / "home")
    # No session bus: the self-test must not need a keychain.
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    result = subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "--self-test"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 0, (result.stdout, result.stderr[-3000:])
    assert len(lines) == 1, lines
    assert VERDICT.match(lines[0]), lines[0]
    # The shop's own instance folder is untouched: the self-test works in a temporary one.
    assert not (tmp_path / "home" / "data" / "checkout.sqlite3").exists()
    # The test card typed into the page never shows up in what the terminal printed.
    output = result.stdout + result.stderr
    for number in ("4111111111111111", "4000000000003063", "4000000000003220"):
        assert number not in output
        assert " ".join(number[i : i + 4] for i in range(0, 16, 4)) not in output


def test_self_test_refuses_a_bad_port(tmp_path: Path) -> None:
    env = dict(os.environ, CHECKOUT_DESKTOP_HOME=str(tmp_path / "home"))
    result = subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "--self-test", "--listener-port", "70000"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "outside 0–65535" in result.stderr


def test_connection_test_runs_the_first_contact_check(
    tmp_path: Path, qloop: qasync.QEventLoop, arun: Callable[..., Any]
) -> None:
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "l").ensure()
    settings = Settings()
    settings.listener.port = 0
    tester = ConnectionTest(paths)
    try:
        results = arun(tester(settings), timeout=30_000)
        names = [(r.name, r.ok) for r in results]
        assert ("Access token", True) in names, results
        assert ("Charge queries", True) in names, results
        trip = [r for r in results if r.name == "Test notification"]
        assert trip and trip[0].ok, results
        # Arrived through the URL the sandbox delivers to: a green tick, no warning.
        assert trip[0].detail.endswith("arrived")
        assert not any(r.warning for r in results), results
        assert tester.report is not None and tester.report.can_charge
        # The learned "not found" shape went into the settings being chosen.
        assert settings.profile.not_found_shape == tester.report.not_found_shape
        # The sandbox started for the test is kept for the terminal's first start.
        assert tester.sandbox is not None and tester.sandbox.process is not None
        assert tester.sandbox.process.alive()
    finally:
        tester.release()
    assert tester.sandbox is None


def test_connection_test_reports_a_taken_port(
    tmp_path: Path, qloop: qasync.QEventLoop, arun: Callable[..., Any]
) -> None:
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        assert not port_is_free(port)
        settings = Settings()
        settings.listener.port = port
        paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "l").ensure()
        tester = ConnectionTest(paths)
        try:
            results = arun(tester(settings), timeout=30_000)
        finally:
            tester.release()
    trip = [r for r in results if r.name == "Test notification"]
    assert trip and trip[0].warning, results
    assert f"port {port} is in use" in trip[0].detail


def test_connection_test_for_a_real_profile_without_secrets_says_what_is_missing(
    tmp_path: Path, qloop: qasync.QEventLoop, arun: Callable[..., Any], memory_keyring: Any
) -> None:
    from checkout_desktop.secrets import SecretStore

    settings = Settings(active_profile="service-sandbox")
    settings.listener.port = 0
    settings.profiles["service-sandbox"].client_id = "my-client"
    settings.profiles["service-sandbox"].merchant_document = "12345678000195"
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "l").ensure()
    tester = ConnectionTest(paths, secrets=SecretStore(memory_keyring))
    results = arun(tester(settings), timeout=30_000)
    keychain = [r for r in results if r.name == "Keychain"]
    assert keychain and not keychain[0].ok
    for secret in ("client secret", "card SDK token", "webhook token"):
        assert secret in keychain[0].detail
    assert "Settings → Credentials" in keychain[0].detail
    token = [r for r in results if r.name == "Access token"]
    assert token and not token[0].ok
    assert "client secret" in token[0].detail
