"""The command line: --help lists the subcommands that exist, --version works."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from checkout_desktop import __version__
from checkout_desktop.cli import SUBCOMMANDS, build_parser, main


def _listed_commands(help_text: str) -> dict[str, str]:
    """The subcommands --help lists, each with its one-line help: the entries under COMMAND."""
    block = help_text.split("positional arguments:", 1)[1].split("options:", 1)[0]
    return dict(re.findall(r"^ {4}(\w+) +(\S.*)$", block, re.MULTILINE))


def test_help_lists_every_subcommand(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Wide enough that no help line wraps.
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert _listed_commands(out) == {name: text for name, (_m, text) in SUBCOMMANDS.items()}


def test_the_listing_check_sees_a_missing_command() -> None:
    # "run" is a word of the other commands' help too: only the listing's own entry counts.
    listing = (
        "positional arguments:\n  COMMAND\n"
        "    sandbox   run the built-in sandbox service standalone\n"
        "    listen    run the webhook inbox without the window\n\noptions:\n"
    )
    assert "run" in listing
    assert "run" not in _listed_commands(listing)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"checkout-desktop {__version__}"


def test_every_subcommand_has_help() -> None:
    parser = build_parser()
    for name in SUBCOMMANDS:
        with pytest.raises(SystemExit) as info:
            parser.parse_args([name, "--help"])
        assert info.value.code == 0


def test_console_script_runs_without_qt() -> None:
    code = (
        "import sys; from checkout_desktop.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'PySide6' not in sys.modules, 'help imported Qt'"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "usage: checkout-desktop" in result.stdout


def test_unknown_option_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--no-such-flag"])
    assert info.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err
