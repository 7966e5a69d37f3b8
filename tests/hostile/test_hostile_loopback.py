"""One loopback rule for every way the inbox starts: the listener itself, `listen`, the window.

The window once bound whatever host its settings named ("0.0.0.0" listened on every
interface); only `listen` checked. The rule now lives in the listener, so every path meets it.
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest
from pydantic import SecretStr

from checkout_desktop import cli
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import ListenerState, ListenerStateChanged
from checkout_desktop.inbox.listener import ListenerError, WebhookListener, check_bind_host
from checkout_desktop.inbox.writer import InboxWriter
from checkout_desktop.settings import ListenerSettings
from tests.log_support import release_log_files  # noqa: F401 - applies to every test here

TOKEN = "whk_loopback_0123456789abcdef"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost", "[::1]"])
def test_loopback_hosts_pass(host: str) -> None:
    check_bind_host(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "192.168.0.10", "shop.example"])
def test_other_hosts_are_refused_plainly(host: str) -> None:
    with pytest.raises(ListenerError, match=r"this machine only.*--allow-remote"):
        check_bind_host(host)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.expected_errors("the webhook listener did not start")
@pytest.mark.asyncio
async def test_the_listener_the_window_builds_refuses_every_interface(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The window builds a WebhookListener from its settings; the rule is in the listener."""
    bus = EventBus()
    states: list[ListenerStateChanged] = []
    bus.subscribe(ListenerStateChanged, states.append)
    port = _free_port()
    writer = InboxWriter(tmp_path / "store.sqlite3")
    listener = WebhookListener(
        ListenerSettings(host="0.0.0.0", port=port),
        token=SecretStr(TOKEN),
        writer=writer,
        bus=bus,
    )
    with caplog.at_level(logging.ERROR), pytest.raises(ListenerError, match="this machine only"):
        await listener.start()
    assert not listener.running
    assert not writer.running
    assert states[-1].state == ListenerState.FAILED
    assert "this machine only" in caplog.text  # the window's log says why
    # Nothing was bound: the port is still free on every interface.
    with socket.socket() as probe:
        probe.bind(("0.0.0.0", port))


@pytest.mark.asyncio
async def test_allow_remote_binds_and_warns(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    writer = InboxWriter(tmp_path / "store.sqlite3")
    listener = WebhookListener(
        ListenerSettings(host="0.0.0.0", port=0),
        token=SecretStr(TOKEN),
        writer=writer,
        allow_remote=True,
    )
    with caplog.at_level(logging.WARNING):
        await listener.start()
    try:
        assert listener.running
        assert "reachable from other machines" in caplog.text
    finally:
        await listener.stop()


def _token_file(tmp_path: Path) -> Path:
    path = tmp_path / "webhook.token"
    path.write_text(TOKEN)
    path.chmod(0o600)
    return path


def test_listen_refuses_a_remote_host_from_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True, mode=0o700)
    (home / "config" / "settings.json").write_text('{"listener": {"host": "0.0.0.0", "port": 0}}')
    code = cli.main(["--data-dir", str(home), "listen", "--token-file", str(_token_file(tmp_path))])
    assert code == 2
    err = capsys.readouterr().err
    assert "this machine only" in err
    assert "Traceback" not in err


def test_listen_help_documents_allow_remote(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["listen", "--help"])
    assert "--allow-remote" in capsys.readouterr().out


@pytest.mark.expected_errors("the webhook listener did not start")
@pytest.mark.asyncio
async def test_the_inbox_service_of_the_window_and_listen_refuses_too(tmp_path: Path) -> None:
    """The window and `listen` both start the inbox through inbox.service.Inbox."""
    from checkout_desktop.inbox.service import Inbox

    inbox = Inbox(
        store=tmp_path / "store.sqlite3",
        listener_settings=ListenerSettings(host="0.0.0.0", port=0),
        token=SecretStr(TOKEN),
        bus=EventBus(),
        tunnel_settings=None,
        heartbeat_interval_s=60.0,
    )
    try:
        with pytest.raises(ListenerError, match="this machine only"):
            await inbox.start()
        assert inbox.listener is not None and not inbox.listener.running
        assert inbox.health is None  # nothing else started
    finally:
        await inbox.stop()
