"""Suite-wide test setup: offscreen Qt, one instance folder per test, keychain fixtures, and
the strictness every test gets: a logged error it did not declare fails it, and so does an
exception in an event handler."""

from __future__ import annotations

import gc
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.compat import properties

from checkout_desktop.domain.events import EventBus
from checkout_desktop.logsetup import RedactingFormatter
from tests.pg_fixtures import (  # noqa: F401 - fixtures for PostgreSQL tests
    pg_server,
    pg_url,
    shop_store,
)

logger = logging.getLogger(__name__)

# Qt reads these when the first QApplication starts, so they must be set at import time,
# before pytest-qt creates one. Chromium refuses to run as root without --no-sandbox.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox")

REQUIRE_KEYCHAIN_ENV = "CHECKOUT_DESKTOP_REQUIRE_KEYCHAIN"
_KEYRING_PASSWORD = "checkout-desktop-test"
_BUS_ENV = ("DBUS_SESSION_BUS_ADDRESS", "XDG_DATA_HOME", "XDG_RUNTIME_DIR")


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that lives in a dict, for tests that need secrets but not a real keychain."""

    @properties.classproperty
    def priority(cls) -> float:
        # Never viable on its own: keyring's automatic backend choice must not pick a
        # plaintext store. Tests install it explicitly through the memory_keyring fixture.
        raise RuntimeError("MemoryKeyring is for tests only; install it with keyring.set_keyring")

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def __str__(self) -> str:
        # The base class's __str__ reads priority, which deliberately raises.
        return "tests.conftest.MemoryKeyring (in memory)"

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        try:
            del self.entries[(service, username)]
        except KeyError:
            raise keyring.errors.PasswordDeleteError(
                f"no secret stored for {username!r} on {service!r}"
            ) from None


@pytest.fixture(scope="session", autouse=True)
def _no_collection_off_the_main_thread() -> Iterator[None]:
    """The suite's version of ui.gc_guard: cycles are collected between tests, on this thread.

    Tests run helper threads (the sandbox output pump, the inbox writer, import workers) beside
    Qt objects left by earlier tests; a collection triggered on such a thread can free a
    QObject there, and Qt then fires one of its timers on freed memory (a crash seen in
    QTimerInfoList::activateTimers). So automatic collection is off for the whole session.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    if was_enabled:
        gc.enable()


@pytest.fixture(autouse=True)
def _collect_between_tests() -> Iterator[None]:
    yield
    thresholds = gc.get_threshold()
    due = None
    for generation, (count, threshold) in enumerate(zip(gc.get_count(), thresholds, strict=True)):
        if threshold and count > threshold:
            due = generation
        else:
            break
    if due is not None:
        gc.collect(due)


class _ErrorRecorder(logging.Handler):
    """Keeps the ERROR (and worse) records the terminal's loggers emit during one test."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def _fail_on_unexpected_error_logs(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test fails when `checkout_desktop.*` logs an ERROR it did not declare.

    A test that provokes errors says which with `@pytest.mark.expected_errors(pattern, ...)`:
    regular expressions searched in each record's message. Errors from the terminal are
    otherwise easy to miss, since the code goes on after logging them.
    """
    recorder = _ErrorRecorder()
    terminal_logger = logging.getLogger("checkout_desktop")
    terminal_logger.addHandler(recorder)
    try:
        yield
    finally:
        terminal_logger.removeHandler(recorder)
    marker = request.node.get_closest_marker("expected_errors")
    patterns = [re.compile(p) for p in marker.args] if marker is not None else []
    if marker is not None and not patterns:
        pytest.fail("expected_errors needs at least one pattern of the expected messages")
    unexpected = [
        record
        for record in recorder.records
        if not any(p.search(record.getMessage()) for p in patterns)
    ]
    if unexpected:
        formatter = RedactingFormatter("%(levelname)s %(name)s: %(message)s")
        shown = "\n".join(formatter.format(record) for record in unexpected)
        pytest.fail(
            f"checkout_desktop logged {len(unexpected)} error(s) this test did not expect "
            f"(declare them with @pytest.mark.expected_errors):\n{shown}",
            pytrace=False,
        )


@pytest.fixture(scope="session", autouse=True)
def _event_handlers_raise() -> Iterator[None]:
    """Under test, an exception in an event handler propagates to the publisher (in the
    terminal it is logged and the other handlers run)."""
    EventBus.reraise_handler_errors = True
    yield
    EventBus.reraise_handler_errors = False


@pytest.fixture
def tolerant_event_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests of the bus's own isolation: a failing handler is logged, as in the terminal."""
    monkeypatch.setattr(EventBus, "reraise_handler_errors", False)


@pytest.fixture(autouse=True)
def checkout_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Give every test its own instance folder, so no test touches the user's real settings."""
    home = tmp_path / "checkout-home"
    home.mkdir()
    monkeypatch.setenv("CHECKOUT_DESKTOP_HOME", str(home))
    return home


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Install an in-memory keyring backend for one test and put the previous one back after."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def _keychain_required() -> bool:
    return os.environ.get(REQUIRE_KEYCHAIN_ENV) == "1"


def _no_keychain(reason: str) -> None:
    """Skip keychain tests, or fail them when the test command promised a keychain."""
    if _keychain_required():
        pytest.fail(f"{REQUIRE_KEYCHAIN_ENV}=1 but no Secret Service keychain: {reason}")
    pytest.skip(f"no Secret Service keychain: {reason}")


def _secret_service_problem() -> str | None:
    """Why the Secret Service backend is unusable on the current session bus, or None."""
    from keyring.backends import SecretService

    try:
        SecretService.Keyring.priority  # noqa: B018 - reading it runs keyring's viability check
    except RuntimeError as exc:
        return str(exc)
    return None


def _stop_bus(bus: subprocess.Popen[str]) -> None:
    """Stop a private dbus-daemon; gnome-keyring-daemon exits by itself when its bus goes."""
    bus.terminate()
    bus.wait(timeout=10)
    if bus.stdout is not None:
        bus.stdout.close()


def _start_private_keychain(workdir: Path) -> subprocess.Popen[str]:
    """Start a private D-Bus session bus with an unlocked gnome-keyring on it.

    Copies the bus address and XDG folders into os.environ, as the keyring library and
    gnome-keyring find each other only through them.
    """
    for binary in ("dbus-daemon", "gnome-keyring-daemon"):
        if shutil.which(binary) is None:
            _no_keychain(f"{binary} is not installed (Debian: apt-get install dbus gnome-keyring)")
    data_home = workdir / "data"
    runtime_dir = workdir / "runtime"
    data_home.mkdir(mode=0o700)
    runtime_dir.mkdir(mode=0o700)
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert bus.stdout is not None
    address = bus.stdout.readline().strip()
    if not address:
        _stop_bus(bus)
        _no_keychain("dbus-daemon exited without printing its address")
    env = dict(os.environ)
    env.update(
        DBUS_SESSION_BUS_ADDRESS=address,
        XDG_DATA_HOME=str(data_home),
        XDG_RUNTIME_DIR=str(runtime_dir),
    )
    unlocked = subprocess.run(
        ["gnome-keyring-daemon", "--unlock", "--components=secrets"],
        input=_KEYRING_PASSWORD,
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    if unlocked.returncode != 0:
        _stop_bus(bus)
        _no_keychain(f"gnome-keyring-daemon failed: {unlocked.stderr.strip()}")
    for name in _BUS_ENV:
        os.environ[name] = env[name]
    logger.info("started a private keychain on %s", address)
    return bus


@pytest.fixture(scope="session")
def real_keyring(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[keyring.backend.KeyringBackend]:
    """A real Secret Service keychain, installed as the keyring library's backend.

    Uses the session bus when it already offers one (the test command starts a private
    one); otherwise starts a private D-Bus + gnome-keyring for this session. Skips when
    neither is possible, and fails instead when CHECKOUT_DESKTOP_REQUIRE_KEYCHAIN=1.
    """
    from keyring.backends import SecretService

    saved_env = {name: os.environ.get(name) for name in _BUS_ENV}
    previous = keyring.get_keyring()
    bus: subprocess.Popen[str] | None = None
    problem = (
        _secret_service_problem()
        if os.environ.get("DBUS_SESSION_BUS_ADDRESS")
        else "no D-Bus session bus"
    )
    if problem is not None:
        logger.info("session bus has no usable Secret Service (%s); starting one", problem)
        bus = _start_private_keychain(tmp_path_factory.mktemp("keychain"))
        problem = _secret_service_problem()
    try:
        if problem is not None:
            _no_keychain(problem)
        backend = SecretService.Keyring()
        keyring.set_keyring(backend)
        yield backend
    finally:
        keyring.set_keyring(previous)
        if bus is not None:
            _stop_bus(bus)
            # Restore exactly: a variable that was unset before must be unset again.
            for name, value in saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
