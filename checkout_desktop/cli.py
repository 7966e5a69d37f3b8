"""The `checkout-desktop` command: the terminal window by default, and its subcommands."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Protocol, cast

from checkout_desktop import __version__
from checkout_desktop.errors import PlainError
from checkout_desktop.texts import QT_TRANSLATE_NOOP, shown, translate


class Subcommand(Protocol):
    """A subcommand module: it declares its arguments and runs with them, returning an exit code."""

    def configure(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


# Modules are imported only when the command line is parsed, and the ones that need Qt import
# it only inside `run`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "run": (
        "checkout_desktop.app",
        QT_TRANSLATE_NOOP("CommandLine", "open the terminal window (the default)"),
    ),
    "sandbox": (
        "checkout_desktop.sandbox.cli",
        QT_TRANSLATE_NOOP("CommandLine", "run the built-in sandbox service standalone"),
    ),
    "listen": (
        "checkout_desktop.listen",
        QT_TRANSLATE_NOOP("CommandLine", "run the webhook inbox without the window"),
    ),
    "events": (
        "checkout_desktop.inbox.cli_events",
        QT_TRANSLATE_NOOP("CommandLine", "export stored webhook deliveries"),
    ),
    "store": (
        "checkout_desktop.store.postgres.cli",
        QT_TRANSLATE_NOOP(
            "CommandLine",
            "the shared PostgreSQL store: its password in the keychain, a check, moving a shop in",
        ),
    ),
    "doctor": (
        "checkout_desktop.ui.doctor_cli",
        QT_TRANSLATE_NOOP(
            "CommandLine",
            "check the connection to the service without charging (exit 0: the terminal can "
            "charge)",
        ),
    ),
}
"""name → (module implementing `configure` and `run`, one-line help in English; `build_parser`
shows it in the owner's language)."""
# Commands that work on the shared store named by --store; the others use the embedded one.
STORE_COMMANDS = frozenset({"run", "listen", "store", "events"})


def _load(module_name: str) -> Subcommand:
    return cast(Subcommand, importlib.import_module(module_name))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `only`, just that subcommand's module is loaded.

    Every subcommand is listed either way; loading one module instead of all of them keeps
    the others' imports (the sandbox's and the inbox's web stacks) out of the terminal's start.
    """
    parser = argparse.ArgumentParser(
        prog="checkout-desktop",
        description=translate(
            "CommandLine", "A card-payment terminal for a small shop (Checkout Transparente)."
        ),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"checkout-desktop {__version__}",
        help=translate("CommandLine", "show the version and exit"),
    )
    parser.add_argument(
        "--data-dir",
        metavar=translate("Placeholder", "DIR"),
        help=translate(
            "CommandLine",
            "keep settings, store and logs under DIR (default: $CHECKOUT_DESKTOP_HOME or the "
            "platform's folders)",
        ),
    )
    parser.add_argument(
        "--store",
        metavar=translate("Placeholder", "URL"),
        help=translate(
            "CommandLine",
            "the shop's shared PostgreSQL store, {url} (no password: it is kept in the OS "
            "keychain, see `store password`); default: the embedded store in the data folder",
        ).format(url="postgresql://USER@HOST[:PORT]/DATABASE[?sslmode=verify-full]"),
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help=translate("CommandLine", "log debug detail")
    )
    sub = parser.add_subparsers(dest="command", metavar=translate("Placeholder", "COMMAND"))
    for name, (module_name, english) in SUBCOMMANDS.items():
        help_text = translate("CommandLine", english)
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if only is None or only == name:
            _load(module_name).configure(command_parser)
        command_parser.set_defaults(_module=module_name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # At its first model pydantic looks for plugins in every installed package's metadata
    # (≈ 13 ms of start-up CPU, before the window); checkout-desktop uses none. The sandbox
    # process inherits this. A setting already made wins.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    arguments = list(sys.argv[1:] if argv is None else argv)
    spoken = _speak_the_owners_language(arguments)
    try:
        return _main(arguments)
    finally:
        if spoken:
            from checkout_desktop.ui.cli_language import remove

            remove()


def _main(arguments: list[str]) -> int:
    # Flags of the default command (e.g. `--self-test`) work without naming `run`.
    if not any(a in SUBCOMMANDS for a in arguments) and not {"-h", "--help", "--version"} & set(
        arguments
    ):
        arguments = [*_leading_globals(arguments), "run", *_trailing(arguments)]
    rest = _trailing(arguments)
    parser = build_parser(rest[0] if rest and rest[0] in SUBCOMMANDS else None)
    args = parser.parse_args(arguments)
    module_name = getattr(args, "_module", None)
    if module_name is None:
        parser.print_help()
        return 2
    if args.store and args.command not in STORE_COMMANDS:
        # Until every command reads the shared store, one that cannot must say so rather
        # than quietly work on this computer's embedded store.
        message = translate(
            "CommandLine",
            "--store is not supported by this command yet (it works with: {commands})",
        ).format(commands=", ".join(sorted(STORE_COMMANDS)))
        print(f"checkout-desktop {args.command or 'run'}: {message}", file=sys.stderr)
        return 2
    try:
        return _load(module_name).run(args)
    except PlainError as exc:
        # A broken store, settings file or instance folder: the message says what to do, and
        # the exit code says which (see the README); a traceback would only hide it.
        command = "" if args.command in (None, "run") else f" {args.command}"
        print(f"checkout-desktop{command}: {shown(exc)}", file=sys.stderr)
        return exc.exit_code


def _speak_the_owners_language(arguments: list[str]) -> bool:
    """Help, argparse's words and the commands' messages in the settings' or the system's
    language, before anything is parsed (QtCore is loaded only for Portuguese)."""
    from checkout_desktop.ui.cli_language import install

    data_dir = None
    leading = _leading_globals(arguments)
    for i, item in enumerate(leading):
        if item == "--data-dir" and i + 1 < len(leading):
            data_dir = leading[i + 1]
        elif item.startswith("--data-dir="):
            data_dir = item.split("=", 1)[1]
    return install(data_dir)


_GLOBALS_WITH_VALUE = {"--data-dir", "--store"}
_GLOBAL_FLAGS = {"-v", "--verbose"}


def _split_globals(arguments: list[str]) -> tuple[list[str], list[str]]:
    leading: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(arguments):
        item = arguments[i]
        if item in _GLOBALS_WITH_VALUE and i + 1 < len(arguments):
            leading += [item, arguments[i + 1]]
            i += 2
            continue
        if item in _GLOBAL_FLAGS or any(item.startswith(g + "=") for g in _GLOBALS_WITH_VALUE):
            leading.append(item)
        else:
            rest.append(item)
        i += 1
    return leading, rest


def _leading_globals(arguments: list[str]) -> list[str]:
    return _split_globals(arguments)[0]


def _trailing(arguments: list[str]) -> list[str]:
    return _split_globals(arguments)[1]


if __name__ == "__main__":
    raise SystemExit(main())
