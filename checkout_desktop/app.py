"""Composition root of `checkout-desktop run`: its arguments, and the order things start in.

1. settings and logging; one window per instance folder (a second launch raises the first and
   exits: `ui/single_instance.py`); for the built-in sandbox, the sandbox process is launched
   first of all (it starts on the other core while this one loads the rest; `sandbox/link.py`);
2. the self-test, or the window on the one qasync loop (`ui/loop.py`), whose start-up order —
   wizard, Chromium's flags, card page, core, inbox — is `ui/launch.py`'s;
3. the headless core itself (store, bus, gateway, inbox) is `terminal.py`'s.

Heavy modules are imported where they are first needed, so this module itself loads quickly.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING

from checkout_desktop.errors import PlainError
from checkout_desktop.texts import translate

if TYPE_CHECKING:
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox.link import EarlySandbox
    from checkout_desktop.ui.single_instance import InstanceGuard

logger = logging.getLogger(__name__)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        metavar=translate("Placeholder", "NAME"),
        help=translate("RunCommand", "use this environment profile instead of the saved one"),
    )
    parser.add_argument(
        "--developer",
        action="store_true",
        help=translate("RunCommand", "allow the web view's developer tools"),
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help=translate(
            "RunCommand",
            "start offscreen on the built-in sandbox, charge a test card end to end, print a "
            "one-line verdict with each step's time, and exit 0 (pass) or 1 (fail)",
        ),
    )
    parser.add_argument(
        "--listener-port",
        type=int,
        metavar=translate("Placeholder", "PORT"),
        help=translate(
            "RunCommand",
            "listen for notifications on this port for this run (0: any free port)",
        ),
    )


class RunOptionError(PlainError):
    """An option of `run` the settings cannot honour: said on the command line that gave it."""

    exit_code = 2


class NoDisplayError(PlainError):
    """No screen to show the window on (over SSH, from a service): one sentence, exit 1."""

    exit_code = 1


def run(args: argparse.Namespace) -> int:
    try:
        return _run_command(args)
    except (RunOptionError, NoDisplayError):
        raise  # typed on a command line, or no screen for a dialog: cli.py prints it
    except PlainError as exc:
        # A broken store, settings file or instance folder: said in a dialog as well, since a
        # window started from a menu has no terminal to print to (cli.py prints and exits).
        if not args.self_test:
            from checkout_desktop.paths import app_paths
            from checkout_desktop.ui.startup_problem import show_startup_problem

            try:
                paths = app_paths(args.data_dir)
            except Exception:  # the dialog names the files only when the folders are known
                paths = None
            show_startup_problem(exc, paths)
        raise


def _run_command(args: argparse.Namespace) -> int:
    # Nothing here imports Qt before the built-in sandbox is launched: importing PySide6 takes
    # ~65 ms of this core, time in which the sandbox starts on the other.
    from checkout_desktop.logsetup import setup_logging
    from checkout_desktop.paths import app_paths
    from checkout_desktop.sandbox.link import launch_sandbox, wants_builtin_sandbox

    paths = app_paths(args.data_dir).ensure()
    setup_logging(paths.log_dir, level=logging.DEBUG if args.verbose else logging.INFO)
    if args.listener_port is not None and not 0 <= args.listener_port <= 65535:
        message = translate("RunCommand", "port {port} is outside 0–65535").format(
            port=args.listener_port
        )
        print(f"checkout-desktop: {message}", file=sys.stderr)
        return 2
    if args.profile:
        # Checked before the display, the instance folder and the sandbox: a mistyped option
        # is said as such, wherever the command runs.
        _check_profile(paths, args.profile)
    if not args.self_test:
        from checkout_desktop.ui.display import display_missing

        if display_missing():
            raise NoDisplayError(_no_display_sentence())
    instance = None
    if not args.self_test:
        from checkout_desktop.ui.single_instance import InstanceGuard, announce_running

        instance = InstanceGuard(paths.data_dir)
        if not instance.acquire():
            # A second window on one store would run a second inbox and reconciler on it.
            return announce_running(instance, paths)
    # First of all, so that it starts on the other core while this one loads everything else.
    early = None
    if not args.self_test and wants_builtin_sandbox(paths, args.profile):
        early = launch_sandbox(paths)
    try:
        from checkout_desktop.ui.feature_scan import make_feature_scan_cheap

        # Before the window's modules and its core are imported after Qt (see feature_scan.py).
        make_feature_scan_cheap()
        return _run(args, paths, early, instance)
    except BaseException:
        if early is not None:
            early.cancel()
        raise


def _no_display_sentence() -> str:
    import os

    display = os.environ.get("DISPLAY", "")
    if display:
        return translate(
            "RunCommand",
            "the screen {display} does not answer (its X server is not running: the desktop "
            "session ended, or an SSH connection that carried it closed); start the terminal in "
            "the shop's desktop session, or check the connection without a window with "
            "`checkout-desktop doctor`",
        ).format(display=display)
    return translate(
        "RunCommand",
        "there is no screen to open the terminal's window on (no DISPLAY or "
        "WAYLAND_DISPLAY: a session over SSH or a system service?); start it in "
        "the shop's desktop session, or check the connection without a window "
        "with `checkout-desktop doctor`",
    )


def _check_profile(paths: AppPaths, name: str) -> None:
    from checkout_desktop.settings import load_settings, unknown_profile

    profiles = load_settings(paths).profiles
    if name not in profiles:
        raise RunOptionError(unknown_profile(name, profiles))


def _run(
    args: argparse.Namespace,
    paths: AppPaths,
    early: EarlySandbox | None,
    instance: InstanceGuard | None,
) -> int:
    from checkout_desktop.settings import SettingsError, load_settings

    try:
        settings = load_settings(paths)
        if args.profile:
            settings.active_profile = args.profile
        _ = settings.profile
    except SettingsError:
        if early is not None:
            early.cancel()
        # `run` shows it in a dialog; the command line prints it and exits 2.
        raise
    if early is not None and not (settings.first_run_done and settings.profile.is_builtin_sandbox):
        early.cancel()
        early = None
    if args.self_test:
        from checkout_desktop.ui.selftest import run_self_test

        return run_self_test(listener_port=args.listener_port)

    from checkout_desktop.ui import loop
    from checkout_desktop.ui.launch import run_window

    return loop.run(
        run_window(
            settings,
            paths,
            developer=args.developer,
            listener_port=args.listener_port,
            early=early,
            instance=instance,
            store_url=getattr(args, "store", None),
        )
    )
