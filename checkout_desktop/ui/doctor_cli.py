"""`checkout-desktop doctor`: the first-contact check from the command line, in the UI's language.

Prints a plain report (one line per check and a verdict) in the terminal's language, then one
JSON line for scripts, and exits 0 only when the terminal can charge. It never sends a charge.
The texts go through Qt's translation on a QCoreApplication (no window), so the command and the
"Test connection" buttons say the same words; Qt is imported only when the command runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import SecretStr

    from checkout_desktop.doctor.report import Report
    from checkout_desktop.listen import SecretFileKind
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.settings import Settings

logger = logging.getLogger(__name__)

EXIT_CAN_CHARGE = 0
EXIT_CANNOT_CHARGE = 1
EXIT_BAD_OPTIONS = 2


def _option_error(message: str) -> Exception:
    from checkout_desktop.errors import PlainError

    class DoctorOptionError(PlainError):
        exit_code = EXIT_BAD_OPTIONS

    return DoctorOptionError(message)


def configure(parser: argparse.ArgumentParser) -> None:
    from checkout_desktop.texts import translate

    parser.add_argument(
        "--profile",
        metavar=translate("Placeholder", "NAME"),
        help=translate(
            "DoctorCommand",
            "check this profile instead of the active one (see Settings → Environment)",
        ),
    )
    parser.add_argument(
        "--client-secret-file",
        metavar=translate("Placeholder", "FILE"),
        help=translate(
            "DoctorCommand",
            "read the API client secret from FILE instead of the keychain (owner-only file, "
            "chmod 600), to run without anyone at the keyboard",
        ),
    )
    parser.add_argument(
        "--token-file",
        metavar=translate("Placeholder", "FILE"),
        help=translate(
            "DoctorCommand",
            "read the webhook token from FILE instead of the keychain (owner-only file, chmod 600)",
        ),
    )
    parser.add_argument(
        "--language",
        metavar=translate("Placeholder", "LANG"),
        help=translate(
            "DoctorCommand",
            "language of the report: pt_BR or en (default: the terminal's, from its settings "
            "or the system)",
        ),
    )
    parser.add_argument(
        "--no-save",
        action="store_true",
        help=translate(
            "DoctorCommand", "do not store the learned 'not found' shape in the profile"
        ),
    )


def _secret_file(path: str | None, kind: SecretFileKind) -> SecretStr | None:
    from checkout_desktop.listen import TokenFileError, read_token_file

    if not path:
        return None
    try:
        return read_token_file(Path(path), kind)
    except TokenFileError as exc:
        raise _option_error(f"{kind.option}: {exc}") from None


def _chosen_settings(paths: AppPaths, profile: str | None) -> Settings:
    from checkout_desktop.settings import load_settings, unknown_profile

    settings = load_settings(paths)
    if profile:
        if profile not in settings.profiles:
            raise _option_error(unknown_profile(profile, settings.profiles))
        settings.active_profile = profile
    return settings


def run(args: argparse.Namespace) -> int:
    from checkout_desktop.logsetup import setup_logging
    from checkout_desktop.paths import app_paths

    paths = app_paths(args.data_dir).ensure()
    # The report is the command's output; the log keeps the detail (on the console with -v).
    setup_logging(
        paths.log_dir,
        level=logging.DEBUG if args.verbose else logging.INFO,
        console=bool(args.verbose),
    )
    from checkout_desktop.listen import SecretFileKind

    settings = _chosen_settings(paths, args.profile)
    client_secret = _secret_file(args.client_secret_file, SecretFileKind.CLIENT_SECRET)
    webhook_token = _secret_file(args.token_file, SecretFileKind.WEBHOOK_TOKEN)

    from PySide6.QtCore import QCoreApplication

    from checkout_desktop.ui.i18n import TranslationError, Translations, choose_locale

    app = QCoreApplication.instance() or QCoreApplication(["checkout-desktop"])
    translations = Translations()
    try:
        translations.install(choose_locale(args.language or settings.ui.locale))
    except TranslationError as exc:
        print(f"checkout-desktop doctor: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTIONS
    try:
        report = asyncio.run(
            _diagnose(
                settings,
                paths,
                client_secret=client_secret,
                webhook_token=webhook_token,
                save=not args.no_save,
                verbose=bool(args.verbose),
            )
        )
        print_report(report)
    finally:
        translations.remove()
        del app
    return report.exit_code


async def _diagnose(
    settings: Settings,
    paths: AppPaths,
    *,
    client_secret: SecretStr | None,
    webhook_token: SecretStr | None,
    save: bool,
    verbose: bool = False,
) -> Report:
    from checkout_desktop.doctor.checks import diagnose, remember_in_settings
    from checkout_desktop.sandbox.link import SandboxLink, SandboxLinkError, start_sandbox

    sandbox: SandboxLink | None = None
    if settings.profile.is_builtin_sandbox:
        with _sandbox_log(paths, verbose) as log:
            try:
                sandbox = start_sandbox(paths, stderr=log)
            except SandboxLinkError as exc:
                where = "" if log is None else f" (its log: {log.name})"
                logger.error("%s%s", exc, where)
    try:
        return await diagnose(
            settings,
            paths,
            sandbox=sandbox,
            client_secret=client_secret,
            webhook_token=webhook_token,
            remember=remember_in_settings(paths) if save else None,
        )
    finally:
        if sandbox is not None:
            sandbox.stop()


SANDBOX_LOG_FILE = "doctor-sandbox.log"
"""In the log folder: the built-in sandbox's log lines from the latest doctor run."""


@contextlib.contextmanager
def _sandbox_log(paths: AppPaths, verbose: bool) -> Iterator[IO[bytes] | None]:
    """Where the built-in sandbox logs: the console with -v (like the doctor's own log), else
    an owner-only file in the log folder; the report stays the only thing the owner reads.
    The sandbox keeps its own copy of the descriptor, so this one is closed at once."""
    from checkout_desktop.paths import tighten

    if verbose:
        yield None
        return
    target = paths.log_dir / SANDBOX_LOG_FILE
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        # As the doctor's own log does then: the console rather than nowhere.
        logger.warning("cannot write the sandbox's log in %s (%s)", target, exc.strerror or exc)
        yield None
        return
    tighten(target)
    with os.fdopen(fd, "wb") as log:
        yield log


def print_report(report: Report) -> None:
    """The plain report in the UI's language, then the JSON line (always last)."""
    from checkout_desktop.ui.doctor_text import report_lines

    for line in report_lines(report):
        print(line)
    print(json.dumps(report.to_json(), ensure_ascii=False, sort_keys=False), flush=True)


__all__ = ["EXIT_BAD_OPTIONS", "EXIT_CANNOT_CHARGE", "EXIT_CAN_CHARGE", "configure", "run"]
