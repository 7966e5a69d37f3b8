"""Run the sandbox as its own process and read the one JSON line it announces itself with.

The terminal never runs the sandbox in its own process: the sandbox sees card data (it plays
the SDK's backend) and the terminal's process must never hold any.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Protocol

from checkout_desktop.sandbox.credentials import SandboxCredentials

logger = logging.getLogger(__name__)


class SandboxStartError(RuntimeError):
    """The sandbox process did not start or did not announce itself properly."""


@dataclass(frozen=True)
class SandboxInfo:
    """What the sandbox announced: where it listens and the test credentials."""

    base_url: str
    auth_url: str
    sdk_host: str
    sdk_address: str
    sdk_port: int
    sdk_spki_sha256_b64: str
    sdk_cert_pem: str
    credentials: SandboxCredentials
    admin_token: str
    raw: dict[str, Any] = field(repr=False)
    instance: str = ""
    """Which sandbox: the same across restarts that keep their charges in one state file ("" in
    the line of a sandbox from before instance ids)."""

    @property
    def api_url(self) -> str:
        return self.base_url

    @classmethod
    def from_json(cls, line: str) -> SandboxInfo:
        try:
            data = json.loads(line)
            sdk = data["sdk"]
            return cls(
                base_url=str(data["base_url"]),
                auth_url=str(data["auth_url"]),
                sdk_host=str(sdk["host"]),
                sdk_address=str(sdk["address"]),
                sdk_port=int(sdk["port"]),
                sdk_spki_sha256_b64=str(sdk["spki_sha256"]),
                sdk_cert_pem=str(sdk["cert_pem"]),
                credentials=SandboxCredentials.from_json(data["credentials"]),
                admin_token=str(data["admin_token"]),
                raw=data,
                instance=str(data.get("instance", "")),
            )
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise SandboxStartError(
                f"the sandbox's announcement is not the expected JSON line ({type(exc).__name__})"
            ) from None


class SdkMapping(Protocol):
    """Anything that says where the SDK backend host lives (SandboxInfo, SandboxServer)."""

    @property
    def sdk_host(self) -> str: ...

    @property
    def sdk_address(self) -> str: ...

    @property
    def sdk_port(self) -> int: ...

    @property
    def sdk_spki_sha256_b64(self) -> str: ...


def _target(info: SdkMapping) -> str:
    address = info.sdk_address
    return f"[{address}]:{info.sdk_port}" if ":" in address else f"{address}:{info.sdk_port}"


def chromium_flag_list(info: SdkMapping) -> list[str]:
    """The Chromium switches that send the SDK's backend host to the sandbox, as argv items.

    Only the sandbox's own certificate (by its public key) is accepted despite not chaining to
    a trusted root; every other site keeps full certificate checks.
    """
    return [
        f"--host-resolver-rules=MAP {info.sdk_host} {_target(info)}",
        f"--ignore-certificate-errors-spki-list={info.sdk_spki_sha256_b64}",
    ]


def chromium_flags(info: SdkMapping) -> str:
    """The same switches as one string, for QTWEBENGINE_CHROMIUM_FLAGS."""
    return (
        f'--host-resolver-rules="MAP {info.sdk_host} {_target(info)}" '
        f"--ignore-certificate-errors-spki-list={info.sdk_spki_sha256_b64}"
    )


def sandbox_command() -> list[str]:
    """How to start the sandbox from this interpreter (or from a frozen bundle)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "sandbox"]
    return [sys.executable, "-m", "checkout_desktop.sandbox"]


class SandboxProcess:
    """A running sandbox process; `stop()` ends it (SIGTERM, then kill after a timeout)."""

    def __init__(self, popen: subprocess.Popen[bytes], info: SandboxInfo) -> None:
        self.popen = popen
        self.info = info

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, timeout: float = 5.0) -> int:
        """Terminate and wait; returns the exit code (negative: killed by that signal)."""
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                logger.warning("the sandbox (pid %d) ignored SIGTERM; killing it", self.pid)
                self.popen.kill()
                self.popen.wait(timeout=timeout)
        if self.popen.stdin is not None:
            self.popen.stdin.close()
        code = self.popen.returncode
        assert code is not None
        return code

    def __enter__(self) -> SandboxProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _pump(stream: IO[bytes], first_line: Future[bytes]) -> None:
    """Hand over the first line, then keep draining so the child never blocks on a full pipe."""
    try:
        first_line.set_result(stream.readline())
        while stream.read(65536):
            pass
    except (OSError, ValueError):
        if not first_line.done():
            first_line.set_result(b"")
    finally:
        stream.close()


class SandboxLaunch:
    """A sandbox process started but maybe not yet announced: wait for it blocking or async.

    Starting it apart from waiting lets the caller do its own start-up meanwhile: the sandbox
    is a second process, so it starts on another core.
    """

    def __init__(self, popen: subprocess.Popen[bytes], timeout: float) -> None:
        self.popen = popen
        self.timeout = timeout
        self._first_line: Future[bytes] = Future()
        self._process: SandboxProcess | None = None
        assert popen.stdout is not None
        threading.Thread(
            target=_pump,
            args=(popen.stdout, self._first_line),
            name="sandbox-stdout",
            daemon=True,
        ).start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def wait(self) -> SandboxProcess:
        """Block until the announcement; SandboxStartError if it does not come in time."""
        if self._process is None:
            try:
                line = self._first_line.result(timeout=self.timeout)
            except TimeoutError:
                line = None
            self._process = self._announced(line)
        return self._process

    async def announced(self) -> SandboxProcess:
        """Wait for the announcement without blocking the event loop."""
        if self._process is None:
            try:
                # Shielded: a timeout must not cancel the future the reader thread will set.
                line: bytes | None = await asyncio.wait_for(
                    asyncio.shield(asyncio.wrap_future(self._first_line)), self.timeout
                )
            except TimeoutError:
                line = None
            if self._process is None:
                self._process = self._announced(line)
        return self._process

    def _announced(self, line: bytes | None) -> SandboxProcess:
        if line is None:
            _end(self.popen)
            raise SandboxStartError(
                f"the sandbox did not announce itself within {self.timeout:g} s"
            )
        if not line.strip():
            code = _end(self.popen)
            raise SandboxStartError(
                f"the sandbox exited (code {code}) before announcing itself; see its error output"
            )
        try:
            info = SandboxInfo.from_json(line.decode("utf-8", errors="replace"))
        except SandboxStartError:
            _end(self.popen)
            raise
        logger.info("sandbox process %d ready at %s", self.popen.pid, info.base_url)
        return SandboxProcess(self.popen, info)

    def cancel(self) -> None:
        """End the process (announced or not)."""
        _end(self.popen)


def launch_sandbox_process(
    args: Sequence[str] = (),
    timeout: float = 20.0,
    *,
    stderr: int | IO[Any] | None = None,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
    exit_with_parent: bool = False,
    pass_fds: Sequence[int] = (),
) -> SandboxLaunch:
    """Start `python -m checkout_desktop.sandbox ARGS`; its announcement is awaited later.

    `stderr` goes where the caller says (inherited by default; the sandbox logs there, redacted).
    With `exit_with_parent`, the sandbox exits when this process goes away (its stdin closes).
    `pass_fds` are descriptors the sandbox inherits (a listening socket for `--sdk-fd`).
    """
    command = [*sandbox_command(), *args]
    if exit_with_parent:
        command.append("--exit-with-parent")
    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    popen = subprocess.Popen(
        command,
        stdin=subprocess.PIPE if exit_with_parent else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=child_env,
        cwd=cwd,
        pass_fds=tuple(pass_fds),
    )
    return SandboxLaunch(popen, timeout)


def start_sandbox_process(
    args: Sequence[str] = (),
    timeout: float = 20.0,
    *,
    stderr: int | IO[Any] | None = None,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
    exit_with_parent: bool = False,
) -> SandboxProcess:
    """Start `python -m checkout_desktop.sandbox ARGS` and wait for its announcement line.

    `stderr` goes where the caller says (inherited by default; the sandbox logs there, redacted).
    With `exit_with_parent`, the sandbox exits when this process goes away (its stdin closes).
    """
    return launch_sandbox_process(
        args, timeout, stderr=stderr, env=env, cwd=cwd, exit_with_parent=exit_with_parent
    ).wait()


def _end(popen: subprocess.Popen[bytes]) -> int:
    if popen.poll() is None:
        popen.terminate()
        try:
            popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            popen.kill()
            popen.wait(timeout=5)
    if popen.stdin is not None:
        popen.stdin.close()
    return popen.returncode
