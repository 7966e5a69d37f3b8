"""The command line speaks the owner's language: pt-BR help, argparse words and errors.

In process, every translation the pt_BR catalogue holds comes back marked ⟦…⟧ (pseudo.py): the
help of the command line and of each command, and a sample of the errors an owner or an
installer meets, must hold no word that is neither marked nor data (option names, metavars,
choices, command and profile names, paths, what the test typed, technical names). Then the real
console script, in a pt_BR system or with pt_BR in the settings, prints Portuguese.
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTranslator
from PySide6.QtWidgets import QApplication

from checkout_desktop import cli
from checkout_desktop.paths import app_paths
from checkout_desktop.sandbox import SDK_HOST
from checkout_desktop.sandbox.faults import CLI_FAULT_NAMES
from checkout_desktop.sandbox.variants import VARIANT_NAMES
from checkout_desktop.settings import Settings, save_settings
from checkout_desktop.ui import cli_language
from checkout_desktop.ui.i18n import CATALOG, translations_dir
from tests.gui.pseudo import MarkingTranslator, untranslated
from tests.log_support import release_log_files  # noqa: F401 - applies to every test here

logger = logging.getLogger(__name__)

TECHNICAL = (
    "checkout-desktop",
    "PostgreSQL",
    "JSON",
    "JSONL",
    "CSV",
    "SDK",
    "REST",
    "HTTPS",
    "HTTP",
    "IPv4",
    "PEM",
    "TLS",
    "SIGTERM",
    "Ctrl-C",
    "ISO",
    "UTC",
    "SHA-256",
    "Checkout",
    "Transparente",
    "CHECKOUT_DESKTOP_HOME",
    "stdout",
    "stderr",
    "chmod",
    "TransactionUpdateMessage",
    "PAYMENT",
    "USER@HOST[:PORT]/DATABASE[?sslmode=verify-full]",
    "postgresql://USER@HOST/DATABASE",
    "sslmode",
    SDK_HOST,
)

PROFILES = ("builtin-sandbox", "service-sandbox", "production")


@pytest.fixture
def marked(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The command line worded through the marking translator, wide enough not to wrap."""
    monkeypatch.setenv("COLUMNS", "1000")
    ours = QTranslator()
    assert ours.load(f"{CATALOG}_pt_BR", str(translations_dir()))
    marking = MarkingTranslator([ours])
    monkeypatch.setattr(cli_language, "catalogue", lambda: marking)
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    try:
        yield
    finally:
        cli_language.remove()


@pytest.fixture(autouse=True)
def _application_first(qapp: QApplication) -> None:
    """The session's QApplication exists before an in-process doctor asks for one: the doctor
    then uses it instead of leaving a bare QCoreApplication, on which later tests' windows and
    `run`'s start-up dialog could not be made."""


def parser_words() -> list[str]:
    """Option strings, metavars, choices and command names of the whole command line."""
    words: set[str] = {*cli.SUBCOMMANDS, *CLI_FAULT_NAMES, *VARIANT_NAMES}
    pending = [cli.build_parser()]
    while pending:
        parser = pending.pop()
        words.add(parser.prog)
        words.update(parser.prog.split())
        for action in parser._actions:
            words.update(action.option_strings)
            if isinstance(action.metavar, str):
                words.add(action.metavar)
            words.add(action.dest.upper())
            if isinstance(action, argparse._SubParsersAction):
                words.update(action.choices)
                pending.extend(action.choices.values())
            elif action.choices:
                words.update(str(c) for c in action.choices)
            if action.default not in (None, False, argparse.SUPPRESS) and not isinstance(
                action.default, list
            ):
                words.add(str(action.default))
    return sorted(words)


def main_output(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def english(text: str, *data: str) -> list[str]:
    return untranslated(text, [*TECHNICAL, *parser_words(), *data])


@pytest.mark.parametrize("command", [[], *([name] for name in cli.SUBCOMMANDS)])
def test_every_help_is_in_portuguese(
    command: list[str], marked: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = main_output([*command, "--help"], capsys)
    assert code == 0, out
    assert "⟦" in out
    assert english(out) == [], out
    if command == ["store"]:
        for action in ("password", "check", "migrate"):
            code, out = main_output(["store", action, "--help"], capsys)
            assert code == 0, out
            assert english(out) == [], out


def test_the_errors_an_owner_meets_are_in_portuguese(
    tmp_path: Path, marked: None, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "shop"
    data = str(home)
    save_settings(Settings(), app_paths(data).ensure())
    missing = str(tmp_path / "nonexist")
    cases = [
        (["--no-such-flag"], 2),
        (["events", "--format", "xml"], 2),
        (["listen", "--port", "many"], 2),
        (["store"], 2),
        (["--data-dir", data, "doctor", "--profile", "producao"], 2),
        (["--data-dir", data, "doctor", "--client-secret-file", missing], 2),
        (["--data-dir", data, "doctor", "--token-file", missing], 2),
        (["--data-dir", data, "events", "--since", "ontem"], 2),
        (["--data-dir", data, "events"], 1),
        (["--data-dir", data, "store", "check"], 2),
        (["--data-dir", data, "listen", "--host", "0.0.0.0"], 2),
        (["--data-dir", data, "listen", "--token-file", missing], 2),
        (["--data-dir", data, "doctor", "--store", "postgresql://x@y/z"], 2),
        (["--data-dir", data, "run", "--listener-port", "70000"], 2),
    ]
    found = {}
    for argv, expected in cases:
        code, out = main_output(argv, capsys)
        assert code == expected, (argv, out)
        left = english(out, data, missing, *PROFILES, "producao", "ontem", "xml", "many", "0.0.0.0")
        if left:
            found[" ".join(argv)] = (left, out)
    assert found == {}


def _console(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "import sys; from checkout_desktop.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
        timeout=60,
    )


def _environment(**language: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(language, COLUMNS="200")
    return env


def test_the_console_script_speaks_the_system_language(tmp_path: Path) -> None:
    env = _environment(LANG="pt_BR.UTF-8")
    shown = _console(["--help"], env, tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("uso: checkout-desktop"), shown.stdout
    assert "usage:" not in shown.stdout
    refused = _console(["events", "--format", "xml"], env, tmp_path)
    assert refused.returncode == 2
    assert "checkout-desktop events: erro:" in refused.stderr, refused.stderr
    assert "invalid choice" not in refused.stderr
    english = _console(["--help"], _environment(LANG="C.UTF-8"), tmp_path)
    assert english.stdout.startswith("usage: checkout-desktop"), english.stdout


def test_the_settings_language_wins_over_the_system(tmp_path: Path) -> None:
    home = tmp_path / "shop"
    paths = app_paths(str(home)).ensure()
    settings = Settings()
    settings.ui.locale = "pt_BR"
    save_settings(settings, paths)
    shown = _console(["--data-dir", str(home), "--help"], _environment(LANG="C.UTF-8"), tmp_path)
    assert shown.stdout.startswith("uso:"), shown.stdout
    settings.ui.locale = "en"
    save_settings(settings, paths)
    shown = _console(
        ["--data-dir", str(home), "--help"], _environment(LANG="pt_BR.UTF-8"), tmp_path
    )
    assert shown.stdout.startswith("usage:"), shown.stdout
    # Unreadable settings: the system decides.
    paths.settings_file.write_text("{not json", encoding="utf-8")
    shown = _console(
        ["--data-dir", str(home), "--help"], _environment(LANG="pt_BR.UTF-8"), tmp_path
    )
    assert shown.stdout.startswith("uso:"), shown.stdout


def _after_marks(text: str) -> list[str]:
    """What follows the last marked part of each line: a value a sentence quotes as it was
    said (a server's, a parser's or the OS's words), data for the check."""
    return [line.rsplit("⟧", 1)[1] for line in text.splitlines() if "⟧" in line]


@pytest.fixture
def no_keychain() -> Iterator[None]:
    import keyring
    import keyring.backends.fail

    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)


def test_what_keeps_a_command_from_starting_is_said_in_portuguese(
    tmp_path: Path, marked: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Settings, store, keychain, folder and sandbox problems: a translated sentence, and what
    a server, a parser or the OS said after it as they said it."""

    def shop(name: str, settings: bytes | None = None, store: bytes | None = None) -> str:
        paths = app_paths(tmp_path / name).ensure()
        if settings is not None:
            paths.settings_file.write_bytes(settings)
        if store is not None:
            paths.database_file.write_bytes(store)
        return str(tmp_path / name)

    not_utf8 = shop("not-utf8", settings=b'{"ui": "\xff"}')
    not_object = shop("not-object", settings=b"[1]")
    not_json = shop("not-json", settings=b"{not json")
    gone = shop("gone")
    save_settings(Settings(active_profile="gone"), app_paths(gone))
    foreign = shop("foreign", store=b"this is not a database, it is a text file" * 50)
    open_folder = shop("open")
    os.chmod(open_folder, 0o777)  # noqa: S103 - the folder the terminal must refuse
    a_file = tmp_path / "a-file"
    a_file.mkdir(mode=0o700)
    (a_file / "config").write_text("not a folder")
    missing = str(tmp_path / "nonexist")
    unreachable = "postgresql://owner@127.0.0.1:1/shop"
    cases_argv = [
        (["--data-dir", not_utf8, "doctor"], 2),
        (["--data-dir", not_object, "doctor"], 2),
        (["--data-dir", not_json, "doctor"], 2),
        (["--data-dir", gone, "doctor"], 2),
        (["--data-dir", foreign, "events"], 3),
        (["--data-dir", open_folder, "listen"], 2),
        (["--data-dir", str(a_file), "listen"], 2),
        (["--data-dir", gone, "--store", unreachable, "store", "check"], 3),
        (["--data-dir", gone, "--store", unreachable + "?foo=1", "store", "check"], 2),
        (["sandbox", "--fault", "no-such-fault"], 2),
        (["sandbox", "--variant", "no-such-variant"], 2),
        (["sandbox", "--webhook-token-file", missing], 2),
        (["sandbox", "--port", "70000"], 2),
    ]
    found = {}
    for argv, expected in cases_argv:
        code, out = main_output(argv, capsys)
        assert code == expected, (argv, out)
        paths = re.findall(re.escape(str(tmp_path)) + r"[^\s⟦⟧,;]*", out)
        # A sandbox setting's own name (api_port) is technical, as in its README.
        data = [*argv, *paths, *PROFILES, "gone", "foo", "owner", "shop", "api_port"]
        data += _after_marks(out)
        left = english(out, *data)
        if left:
            found[" ".join(argv)] = (left, out)
    assert found == {}


def test_no_keychain_is_said_in_portuguese(
    tmp_path: Path, marked: None, no_keychain: None, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "shop")
    save_settings(Settings(active_profile="service-sandbox"), app_paths(home).ensure())
    code, out = main_output(["--data-dir", home, "listen"], capsys)
    assert code == 2, out
    # The technical detail (in brackets) names the keychain's backend, a Python class.
    assert english(out, home, "keyring.backends.fail.Keyring") == [], out


def test_a_terminal_already_running_on_the_folder_is_said_in_portuguese(
    tmp_path: Path, marked: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second `run` on a folder another terminal holds, which does not answer its bell."""
    from checkout_desktop.paths import hold_data_folder, let_go_of_data_folder

    home = tmp_path / "shop"
    paths = app_paths(home).ensure()
    save_settings(Settings(), paths)
    held = hold_data_folder(paths.data_dir)
    assert held is not None
    try:
        code, out = main_output(["--data-dir", str(home), "run"], capsys)
    finally:
        let_go_of_data_folder(held)
    assert code == 1, out
    assert "⟦" in out, out
    assert english(out, str(paths.data_dir), str(os.getpid())) == [], out


def test_a_data_folder_that_cannot_hold_the_lock_is_said_in_portuguese(
    tmp_path: Path, marked: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from checkout_desktop.paths import INSTANCE_LOCK_FILE

    home = tmp_path / "shop"
    paths = app_paths(home).ensure()
    save_settings(Settings(), paths)
    (paths.data_dir / INSTANCE_LOCK_FILE).mkdir()  # the lock file cannot be opened
    code, out = main_output(["--data-dir", str(home), "run"], capsys)
    assert code == 2, out
    assert "⟦" in out, out
    # What the OS said is a value of the sentence, as it said it.
    assert english(out, str(paths.data_dir), os.strerror(errno.EISDIR)) == [], out


def _parsers(root: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found, pending = [], [root]
    while pending:
        parser = pending.pop()
        found.append(parser)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                pending.extend(action.choices.values())
    return found


def _placeholders(root: argparse.ArgumentParser) -> dict[tuple[str, str], str]:
    """(parser, option or dest) → the placeholder its usage shows for the value it takes."""
    shown: dict[tuple[str, str], str] = {}
    for parser in _parsers(root):
        for action in parser._actions:
            if action.nargs == 0 or isinstance(action, argparse._HelpAction):
                continue
            if (
                action.metavar is None
                and action.choices
                and not isinstance(action, argparse._SubParsersAction)
            ):
                continue  # its choices are shown, data
            if isinstance(action.metavar, str):
                placeholder = action.metavar
            elif action.option_strings:
                placeholder = action.dest.upper()
            else:
                placeholder = action.dest
            shown[(parser.prog, action.dest)] = placeholder
    return shown


def test_every_placeholder_is_in_portuguese(marked: None) -> None:
    """DIR, FILE, COMMAND, NAME…: the usage's placeholders pass through the catalogue."""
    assert cli_language.install(None)
    left = {key: p for key, p in _placeholders(cli.build_parser()).items() if "⟦" not in p}
    assert left == {}


def test_the_help_names_the_placeholders_the_usage_shows(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A help text that names its value (e.g. 'under DIR') names it as the usage does."""
    english = _placeholders(cli.build_parser())
    monkeypatch.setenv("COLUMNS", "1000")
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    try:
        assert cli_language.install(None)
        portuguese = _placeholders(cli.build_parser())
    finally:
        cli_language.remove()
    changed = {english[key] for key in english if portuguese.get(key) != english[key]}
    assert {"DIR", "FILE", "COMMAND", "NAME", "ACTION"} <= changed
    assert portuguese[("checkout-desktop", "data_dir")] == "PASTA"
    found = {}
    for command in ([], *([name] for name in cli.SUBCOMMANDS), ["store", "migrate"]):
        _, out = main_output([*command, "--help"], capsys)
        # An address's form (postgresql://USER@HOST[:PORT]/…) is technical, as it is written.
        text = re.sub(r"\S+://\S+", " ", out)
        words = set(re.findall(r"[A-Z][A-Z_]+(?:\[?=[A-Z]+\]?)?", text))
        if words & changed:
            found[" ".join(command)] = (sorted(words & changed), out)
    assert found == {}
