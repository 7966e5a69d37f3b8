"""A sandbox service of the default variants on loopback, as a fixture: a test module takes
it with `from tests.integration.sandbox_support import sandbox` (a module that needs another
sandbox — a slower card, faster notifications — defines its own `sandbox` fixture instead).
Not a conftest: the sandbox tests' own `sandbox` (`pytest_plugins`) must not be overridden."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer


@pytest_asyncio.fixture
async def sandbox() -> AsyncIterator[SandboxServer]:
    server = SandboxServer(SandboxConfig(api_port=0, sdk_port=0))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
