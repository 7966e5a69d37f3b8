"""`checkout-desktop sandbox`: run the built-in sandbox standalone and announce it on stdout."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import os
import signal
import socket
import sys
import threading
from pathlib import Path

from checkout_desktop.logsetup import register_secret, setup_logging
from checkout_desktop.sandbox import SDK_HOST
from checkout_desktop.sandbox.errors import SandboxConfigError
from checkout_desktop.sandbox.faults import CLI_FAULT_NAMES, FaultSettingError, parse_cli_faults
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.sandbox.variants import VARIANT_NAMES, VariantError, parse_cli_variants
from checkout_desktop.sandbox.webhooks import WEBHOOK_LAYOUTS
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words, shown, translate

logger = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_BAD_SETTINGS = 2


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = translate(
        "SandboxCommand",
        "Run the built-in sandbox (token server, charge API, card SDK backend, webhook sender). "
        "It prints one JSON line on stdout (addresses, SDK host mapping, test credentials), "
        "then serves until SIGTERM or Ctrl-C. Logs go to stderr.",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        metavar=translate("Placeholder", "ADDRESS"),
        help=translate("SandboxCommand", "address to listen on (127.0.0.1)"),
    )
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        metavar=translate("Placeholder", "PORT"),
        help=translate("SandboxCommand", "port of the REST API and token endpoint (0: any)"),
    )
    parser.add_argument(
        "--sdk-port",
        type=int,
        default=0,
        metavar=translate("Placeholder", "PORT"),
        help=translate("SandboxCommand", "HTTPS port of the SDK backend"),
    )
    parser.add_argument(
        "--sdk-fd",
        type=int,
        metavar=translate("Placeholder", "FD"),
        help=translate(
            "SandboxCommand",
            "serve the SDK backend on this inherited, already listening loopback socket "
            "instead of binding --sdk-port (the starting process then knows the port beforehand)",
        ),
    )
    parser.add_argument(
        "--sdk-host",
        default=SDK_HOST,
        metavar=translate("Placeholder", "HOST"),
        help=translate("SandboxCommand", "host the SDK build calls (default {host})").format(
            host=SDK_HOST
        ),
    )
    parser.add_argument(
        "--sdk-cert-dir",
        type=Path,
        metavar=translate("Placeholder", "DIR"),
        help=translate(
            "SandboxCommand",
            "keep the SDK backend's certificate and key in DIR, so its pin stays the same "
            "across runs (default: a new certificate each run, key only in memory)",
        ),
    )
    parser.add_argument(
        "--state-file",
        type=Path,
        metavar=translate("Placeholder", "FILE"),
        help=translate(
            "SandboxCommand",
            "keep the charges in FILE, so a restarted sandbox still knows them (and announces "
            "the same instance id); default: in memory only, gone when it stops",
        ),
    )
    parser.add_argument(
        "--webhook-url",
        metavar=translate("Placeholder", "URL"),
        help=translate("SandboxCommand", "notification URL (HTTPS, no query, no IPv4)"),
    )
    parser.add_argument(
        "--webhook-token-file",
        type=Path,
        metavar=translate("Placeholder", "FILE"),
        help=translate(
            "SandboxCommand", "file holding the webhook token sent in the Authorization header"
        ),
    )
    parser.add_argument(
        "--webhook-ca",
        type=Path,
        metavar=translate("Placeholder", "PEM"),
        help=translate("SandboxCommand", "CA certificate(s) the sender trusts"),
    )
    parser.add_argument(
        "--webhook-layout",
        choices=WEBHOOK_LAYOUTS,
        default="envelope",
        help=translate(
            "SandboxCommand",
            "charge notification body: flat (layout A), envelope (layout B) or alternate",
        ),
    )
    parser.add_argument(
        "--token-lifetime",
        type=float,
        default=300.0,
        metavar=translate("Placeholder", "S"),
        help=translate("SandboxCommand", "access token life (300)"),
    )
    parser.add_argument(
        "--card-token-lifetime",
        type=float,
        default=900.0,
        metavar=translate("Placeholder", "S"),
        help=translate("SandboxCommand", "temporary card token life (900)"),
    )
    parser.add_argument(
        "--slow-card-delay",
        type=float,
        default=35.0,
        metavar=translate("Placeholder", "S"),
        help=translate("SandboxCommand", "how long the slow test card's reply takes (35)"),
    )
    parser.add_argument(
        "--qr-autopay",
        type=float,
        default=None,
        metavar=translate("Placeholder", "S"),
        help=translate(
            "SandboxCommand",
            "a simulated customer pays every wallet and PIX QR S seconds after it is made",
        ),
    )
    parser.add_argument(
        "--webhook-timeout",
        type=float,
        default=10.0,
        metavar=translate("Placeholder", "S"),
        help=translate("SandboxCommand", "per attempt (10)"),
    )
    parser.add_argument(
        "--webhook-attempts",
        type=int,
        default=5,
        metavar=translate("Placeholder", "N"),
        help=translate("SandboxCommand", "attempts per notification"),
    )
    parser.add_argument(
        "--webhook-backoff",
        type=float,
        default=1.0,
        metavar=translate("Placeholder", "S"),
        help=translate("SandboxCommand", "first retry pause, doubled each retry (1)"),
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar=translate("Placeholder", "NAME[=VALUE]"),
        help=translate("SandboxCommand", "inject a fault; repeatable. Names: {names}").format(
            names=", ".join(CLI_FAULT_NAMES)
        ),
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar=translate("Placeholder", "NAME=VALUE"),
        help=translate(
            "SandboxCommand",
            "play one answer to an open question about the real service; repeatable. "
            "Names: {names} (values in the README)",
        ).format(names=", ".join(VARIANT_NAMES)),
    )
    parser.add_argument(
        "--exit-with-parent",
        action="store_true",
        help=translate(
            "SandboxCommand",
            "exit when stdin closes (the process that started the sandbox went away)",
        ),
    )


def build_config(args: argparse.Namespace) -> SandboxConfig:
    """The server settings from the command line; SandboxConfigError on a bad value."""
    try:
        faults = parse_cli_faults(list(args.fault))
    except FaultSettingError as exc:
        raise SandboxConfigError(exc.words or str(exc)) from None
    try:
        variants = parse_cli_variants(list(getattr(args, "variant", None) or []))
    except VariantError as exc:
        raise SandboxConfigError(exc.words or str(exc)) from None
    webhook_token = None
    if args.webhook_token_file is not None:
        try:
            webhook_token = args.webhook_token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise SandboxConfigError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "SandboxCommand", "cannot read the webhook token file {path}: {why}"
                    ),
                    path=args.webhook_token_file,
                    why=exc.strerror,
                )
            ) from None
        except UnicodeDecodeError:
            raise SandboxConfigError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "SandboxCommand", "the webhook token file {path} is not UTF-8 text"
                    ),
                    path=args.webhook_token_file,
                )
            ) from None
        if not webhook_token:
            raise SandboxConfigError(
                Words(
                    QT_TRANSLATE_NOOP("SandboxCommand", "the webhook token file {path} is empty"),
                    path=args.webhook_token_file,
                )
            )
        register_secret(webhook_token)
    sdk_socket = None
    if args.sdk_fd is not None:
        if args.sdk_port:
            raise SandboxConfigError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "SandboxCommand", "--sdk-fd and --sdk-port exclude each other"
                    )
                )
            )
        sdk_socket = inherited_socket(args.sdk_fd)
    config = SandboxConfig(
        host=args.host,
        api_port=args.port,
        sdk_port=args.sdk_port,
        sdk_socket=sdk_socket,
        sdk_host=args.sdk_host,
        sdk_cert_dir=args.sdk_cert_dir,
        token_lifetime_s=args.token_lifetime,
        card_token_lifetime_s=args.card_token_lifetime,
        slow_card_delay_s=args.slow_card_delay,
        qr_autopay_s=args.qr_autopay,
        webhook_url=args.webhook_url,
        webhook_token=webhook_token,
        webhook_ca_file=args.webhook_ca,
        webhook_layout=args.webhook_layout,
        webhook_timeout_s=args.webhook_timeout,
        webhook_max_attempts=args.webhook_attempts,
        webhook_backoff_s=args.webhook_backoff,
        faults=faults,
        variants=variants,
        state_file=args.state_file,
    )
    config.check()
    return config


def inherited_socket(fd: int) -> socket.socket:
    """The listening TCP socket on a loopback address behind descriptor `fd`."""
    if fd < 0:
        raise SandboxConfigError(
            Words(
                QT_TRANSLATE_NOOP(
                    "SandboxCommand", "--sdk-fd must be a file descriptor number, not {fd}"
                ),
                fd=fd,
            )
        )
    try:
        sock = socket.socket(fileno=fd)
    except OSError as exc:
        raise SandboxConfigError(
            Words(
                QT_TRANSLATE_NOOP(
                    "SandboxCommand", "descriptor {fd} (--sdk-fd) is not an open socket ({why})"
                ),
                fd=fd,
                why=exc.strerror or exc,
            )
        ) from None
    try:
        listening = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
        address = str(sock.getsockname()[0])
    except OSError as exc:
        sock.detach()
        raise SandboxConfigError(
            Words(
                QT_TRANSLATE_NOOP(
                    "SandboxCommand", "descriptor {fd} (--sdk-fd) is not a usable socket ({why})"
                ),
                fd=fd,
                why=exc.strerror or exc,
            )
        ) from None
    problem = None
    if sock.family not in (socket.AF_INET, socket.AF_INET6) or sock.type != socket.SOCK_STREAM:
        problem = QT_TRANSLATE_NOOP(
            "SandboxCommand", "descriptor {fd} (--sdk-fd) is not a TCP socket"
        )
    elif not listening:
        problem = QT_TRANSLATE_NOOP("SandboxCommand", "descriptor {fd} (--sdk-fd) is not listening")
    elif not ipaddress.ip_address(address).is_loopback:
        problem = QT_TRANSLATE_NOOP(
            "SandboxCommand",
            "descriptor {fd} (--sdk-fd) listens on {address}, not on a loopback address",
        )
    if problem is not None:
        sock.detach()
        raise SandboxConfigError(Words(problem, fd=fd, address=address))
    return sock


async def serve(config: SandboxConfig, *, exit_with_parent: bool = False) -> int:
    """Start, announce on stdout, serve until a stop signal, stop."""
    server = SandboxServer(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):
            # Windows has no loop signal handlers; Ctrl-C still raises KeyboardInterrupt there.
            signal.signal(signum, lambda *_: loop.call_soon_threadsafe(stop.set))
    if exit_with_parent:
        threading.Thread(
            target=_watch_stdin, args=(loop, stop), name="sandbox-parent-watch", daemon=True
        ).start()
    await server.start()
    try:
        sys.stdout.write(json.dumps(server.info(), separators=(",", ":")) + "\n")
        sys.stdout.flush()
        await stop.wait()
        logger.info("stop requested")
    finally:
        await server.stop()
    return EXIT_OK


def _watch_stdin(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    # os.read on the raw descriptor, not sys.stdin.buffer: a daemon thread still blocked inside
    # the buffered reader at interpreter shutdown aborts the process (_enter_buffered_busy).
    try:
        fd = sys.stdin.fileno()
        while os.read(fd, 4096):
            pass
    except (OSError, ValueError):
        pass
    loop.call_soon_threadsafe(stop.set)


def run(args: argparse.Namespace) -> int:
    verbose = bool(getattr(args, "verbose", False))
    setup_logging(None, level=logging.DEBUG if verbose else logging.INFO, console=True)
    try:
        config = build_config(args)
    except SandboxConfigError as exc:
        print(f"checkout-desktop sandbox: {shown(exc)}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    try:
        return asyncio.run(serve(config, exit_with_parent=bool(args.exit_with_parent)))
    except SandboxConfigError as exc:
        print(f"checkout-desktop sandbox: {shown(exc)}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    except KeyboardInterrupt:
        return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m checkout_desktop.sandbox")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail")
    configure(parser)
    return run(parser.parse_args(argv))
