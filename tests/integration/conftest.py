"""What the integration tests share: a sandbox service of the default variants on loopback.

A test module that needs another sandbox (a slower card, faster notifications) defines its own
`sandbox` fixture, which takes the place of this one.
"""

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
