"""Reading the service's reply bodies, which are not always the JSON the docs promise."""

from __future__ import annotations

from typing import Any

import httpx


def json_object(response: httpx.Response) -> dict[str, Any] | None:
    """The reply's JSON object, or None when the body is not one (HTML page, empty, array)."""
    try:
        value = response.json()
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
