"""The terminal's start-up order: the early sandbox launch, its SDK mapping, the deferred inbox."""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path

import pytest

from checkout_desktop.domain.inbox_events import ListenerState, ListenerStateChanged
from checkout_desktop.domain.start_problems import StartProblemKind
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox import SDK_HOST, certs
from checkout_desktop.sandbox import link as sandbox_link
from checkout_desktop.settings import (
    BUILTIN_SANDBOX,
    ProfileKind,
    Settings,
    SettingsError,
    load_settings,
    save_settings,
)
from checkout_desktop.terminal import Terminal

logger = logging.getLogger(__name__)


def _paths(tmp_path: Path) -> AppPaths:
    root = tmp_path / "home"
    return AppPaths(root / "config", root / "data", root / "logs").ensure()


def _validated_choice(paths: AppPaths, profile: str | None) -> bool:
    """What the settings model says: first run done and the chosen profile is the sandbox."""
    try:
        settings = load_settings(paths)
        if profile:
            settings.active_profile = profile
        return settings.first_run_done and settings.profile.is_builtin_sandbox
    except SettingsError:
        return False


def test_the_quick_look_spells_the_sandbox_as_the_settings_do() -> None:
    assert sandbox_link.BUILTIN_SANDBOX_NAME == BUILTIN_SANDBOX == ProfileKind.BUILTIN_SANDBOX.value


@pytest.mark.parametrize(
    ("saved", "profile"),
    [
        (None, None),
        (Settings(), None),
        (Settings(first_run_done=True), None),
        (Settings(first_run_done=True), "production"),
        (Settings(first_run_done=True, active_profile="production"), None),
        (Settings(first_run_done=True, active_profile="production"), BUILTIN_SANDBOX),
        (Settings(first_run_done=True), "no-such-profile"),
    ],
)
def test_the_quick_look_agrees_with_the_validated_settings(
    tmp_path: Path, saved: Settings | None, profile: str | None
) -> None:
    paths = _paths(tmp_path)
    if saved is not None:
        save_settings(saved, paths)
    assert sandbox_link.wants_builtin_sandbox(paths, profile) == _validated_choice(paths, profile)


def test_the_quick_look_follows_a_renamed_sandbox_profile(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    settings = Settings(first_run_done=True)
    copy = settings.profiles[BUILTIN_SANDBOX].model_copy(update={"name": "shop-test"})
    settings.profiles["shop-test"] = copy
    settings.active_profile = "shop-test"
    save_settings(settings, paths)
    assert sandbox_link.wants_builtin_sandbox(paths, None) is True
    assert _validated_choice(paths, None) is True


@pytest.mark.parametrize("text", ["{not json", "[]", '{"first_run_done": "yes"}', "\udcff"])
def test_the_quick_look_says_no_to_an_unreadable_file(tmp_path: Path, text: str) -> None:
    paths = _paths(tmp_path)
    paths.settings_file.write_text(text, encoding="utf-8", errors="surrogateescape")
    assert sandbox_link.wants_builtin_sandbox(paths, None) is False


def test_the_first_start_has_nothing_to_launch_early(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    assert sandbox_link.launch_sandbox(paths) is None


@pytest.mark.asyncio
async def test_an_early_sandbox_serves_the_mapping_told_before_it_was_up(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    # A first start in order leaves the kept SDK certificate and the webhook CA file behind.
    first = await asyncio.to_thread(sandbox_link.start_sandbox, paths)
    first_pin = first.info.sdk_spki_sha256_b64
    first.stop()
    early = sandbox_link.launch_sandbox(paths)
    assert early is not None
    mapping = early.sdk_endpoint()
    assert mapping is not None
    assert (mapping.host, mapping.spki_sha256_b64) == (SDK_HOST, first_pin)
    link = await early.link()
    try:
        info = link.info
        assert (info.sdk_host, info.sdk_port, info.sdk_spki_sha256_b64) == (
            mapping.host,
            mapping.port,
            mapping.spki_sha256_b64,
        )
        assert link.webhook_ca_file == paths.data_dir / sandbox_link.SANDBOX_WEBHOOK_CA
    finally:
        link.stop()


@pytest.mark.asyncio
async def test_an_early_sandbox_that_serves_another_key_is_refused(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    first = await asyncio.to_thread(sandbox_link.start_sandbox, paths)
    first.stop()
    early = sandbox_link.launch_sandbox(paths)
    assert early is not None
    mapping = early.sdk_endpoint()
    assert mapping is not None
    other = certs.generate(SDK_HOST).spki_sha256_b64
    early._endpoint = sandbox_link.SdkEndpoint(mapping.host, mapping.port, other)
    with pytest.raises(sandbox_link.SandboxLinkError, match="renewed its SDK certificate"):
        await early.link()
    assert early.launch.popen.poll() is not None


def test_no_early_mapping_without_a_kept_certificate(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    (paths.data_dir / sandbox_link.SANDBOX_WEBHOOK_CA).write_bytes(
        sandbox_link.listener_certificate(paths).cert_pem
    )
    early = sandbox_link.launch_sandbox(paths)
    assert early is not None
    try:
        # The sandbox makes its certificate itself: the pin is known only from it.
        assert early.sdk_endpoint() is None
    finally:
        early.cancel()
    assert early.launch.popen.wait(timeout=10) is not None


@pytest.mark.asyncio
async def test_the_core_can_start_before_its_inbox(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    settings = Settings(first_run_done=True)
    link = await asyncio.to_thread(sandbox_link.start_sandbox, paths)
    terminal = await Terminal.start(
        settings, paths, sandbox=link, listener_port=0, defer_inbox=True
    )
    try:
        assert terminal.inbox.listener is None
        assert terminal.notification_url is None
        states = [e for e in terminal.current_state() if isinstance(e, ListenerStateChanged)]
        assert [s.state for s in states] == [ListenerState.STARTING]
        token = await terminal.tokens.token()
        assert token.value.get_secret_value()
        assert token.generation == 1
        await terminal.start_inbox()
        assert terminal.inbox.listener is not None
        assert terminal.inbox.listener.running
        assert terminal.inbox.health is not None
        states = [e for e in terminal.current_state() if isinstance(e, ListenerStateChanged)]
        assert [s.state for s in states] == [ListenerState.LISTENING]
        # The sandbox now delivers to this listener (the admin call went through the core's
        # one HTTP client).
        assert terminal.notification_url is not None
        assert str(terminal.inbox.listener.port) in terminal.notification_url
        with pytest.raises(RuntimeError, match="already been started"):
            await terminal.start_inbox()
    finally:
        await terminal.stop()
        link.stop()


@pytest.mark.asyncio
@pytest.mark.expected_errors("the webhook listener did not start")
async def test_a_taken_listener_port_is_a_problem_of_its_own_kind(tmp_path: Path) -> None:
    """The window words a start's problem from its kind, never from the core's English."""
    paths = _paths(tmp_path)
    settings = Settings(first_run_done=True)
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    port = holder.getsockname()[1]
    link = await asyncio.to_thread(sandbox_link.start_sandbox, paths)
    try:
        terminal = await Terminal.start(settings, paths, sandbox=link, listener_port=port)
        try:
            assert [problem.kind for problem in terminal.problems] == [
                StartProblemKind.LISTENER_PORT_TAKEN
            ]
            assert f"127.0.0.1:{port}" in terminal.problems[0].detail
            # Charging goes on: the core has its token.
            token = await terminal.tokens.token()
            assert token.value.get_secret_value()
        finally:
            await terminal.stop()
    finally:
        link.stop()
        holder.close()
