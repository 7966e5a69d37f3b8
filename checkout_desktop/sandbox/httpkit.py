"""HTTP plumbing of the sandbox's apps: JSON bodies, error replies, a crash-proof middleware."""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

logger = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Renderer = Callable[[web.Request, int, str], dict[str, Any]]
"""Turns (request, status, message) into the error body of the app's style."""


class HttpError(Exception):
    """An error status with a ready JSON body; raised by handlers, sent by the middleware."""

    def __init__(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.body = body
        self.headers = headers or {}


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    return web.Response(
        text=json.dumps(body, ensure_ascii=False, separators=(",", ":")),
        status=status,
        content_type="application/json",
        charset="utf-8",
        headers=headers,
    )


class BodyProblem(ValueError):
    """Why a request body is not a JSON object: the message is safe to show (no body content)."""


async def read_json_object(request: web.Request) -> dict[str, Any]:
    """The request body as a JSON object, or BodyProblem saying what is wrong with it.

    aiohttp raises HTTPRequestEntityTooLarge itself when the body exceeds client_max_size; the
    middleware turns that into a JSON 413.
    """
    raw = await request.read()
    if not raw.strip():
        raise BodyProblem("the request body is empty; a JSON object is required")
    try:
        value = json.loads(raw)
    except UnicodeDecodeError:
        raise BodyProblem("the request body is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        # Position only: the message must not echo body content (it may hold card data).
        raise BodyProblem(
            f"the request body is not valid JSON (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise BodyProblem("the request body is nested too deeply") from None
    if not isinstance(value, dict):
        raise BodyProblem(f"the request body must be a JSON object, not {_json_kind(value)}")
    return value


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null"


def _where(exc: BaseException) -> str:
    """File and line of each frame, without the exception's message (which may hold input)."""
    frames = traceback.extract_tb(exc.__traceback__)
    return " <- ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}" for f in frames[::-1])


def error_middleware(render: Renderer, app_name: str) -> Any:
    """Every failure becomes a JSON reply; nothing a client sends can crash the server."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except HttpError as exc:
            response = json_response(exc.body, exc.status, exc.headers)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            message = exc.reason
            if exc.status == 413:
                message = "the request body is too large"
            elif exc.status == 404:
                message = f"no such path: {request.method} {request.path}"
            elif exc.status == 405:
                message = f"method {request.method} is not allowed on {request.path}"
            headers = {k: v for k, v in exc.headers.items() if k.lower() == "allow"}
            response = json_response(render(request, exc.status, message), exc.status, headers)
        except ConnectionResetError:
            # The client hung up before its request was read (a timeout on its side): nothing
            # failed here, and the reply goes nowhere.
            logger.info(
                "%s: the client went away during %s %s", app_name, request.method, request.path
            )
            message = "the connection closed before the request was read"
            response = json_response(render(request, 400, message), 400)
        except Exception as exc:
            # Never log the exception's text or the body: either may carry card data.
            logger.error(
                "%s: unexpected %s handling %s %s at %s",
                app_name,
                type(exc).__name__,
                request.method,
                request.path,
                _where(exc),
            )
            response = json_response(render(request, 500, "internal error in the sandbox"), 500)
        logger.debug("%s: %s %s -> %d", app_name, request.method, request.path, response.status)
        return response

    return middleware


def after_each_request(action: Callable[[], None]) -> Any:
    """Run `action` when a request has been handled, before its reply is sent (even a failed
    one: a handler may change something before it fails)."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        finally:
            action()

    return middleware
