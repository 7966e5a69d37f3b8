"""Linux packaging pieces: the desktop entry validates, install.sh installs and removes cleanly."""

from __future__ import annotations

import configparser
import logging
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = ROOT / "packaging" / "linux" / "checkout-desktop.desktop"
INSTALL = ROOT / "packaging" / "linux" / "install.sh"
ICON = ROOT / "resources" / "icons" / "checkout-desktop.svg"
NAME = "checkout-desktop"


def _entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser["Desktop Entry"]


def _validate(path: Path) -> None:
    tool = shutil.which("desktop-file-validate")
    # A skip here would pass on every machine that lacks the tool, CI's included: setup.sh
    # installs it, so its absence is a broken environment.
    assert tool is not None, (
        "desktop-file-validate is not installed (Debian: desktop-file-utils; scripts/setup.sh "
        "installs it)"
    )
    result = subprocess.run([tool, str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_desktop_entry_validates() -> None:
    _validate(DESKTOP)


def test_desktop_entry_starts_the_installed_command_with_the_shipped_icon() -> None:
    entry = _entry(DESKTOP)
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    assert entry["Type"] == "Application"
    assert entry["Exec"] == NAME and NAME in scripts
    assert entry["Terminal"] == "false"
    assert entry["Icon"] == ICON.stem and ICON.is_file()
    assert entry["Name"] == "Checkout Desktop"
    assert "GenericName[pt_BR]" in entry and "Comment[pt_BR]" in entry


@pytest.fixture
def fake_bundle(tmp_path: Path) -> Path:
    """An unpacked tarball's layout, with a shell script standing in for the frozen program."""
    bundle = tmp_path / "unpacked" / NAME
    (bundle / "_internal").mkdir(parents=True)
    program = bundle / NAME
    program.write_text('#!/bin/sh\necho bundle-ran "$@"\n', encoding="utf-8")
    program.chmod(0o755)
    (bundle / "share/applications").mkdir(parents=True)
    shutil.copy(DESKTOP, bundle / "share/applications" / DESKTOP.name)
    (bundle / "share/icons/hicolor/scalable/apps").mkdir(parents=True)
    shutil.copy(ICON, bundle / "share/icons/hicolor/scalable/apps" / ICON.name)
    (bundle / "share/icons/hicolor/48x48/apps").mkdir(parents=True)
    (bundle / "share/icons/hicolor/48x48/apps" / f"{NAME}.png").write_bytes(b"\x89PNG fake")
    shutil.copy(INSTALL, bundle / "install.sh")
    return bundle


def _install(bundle: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(bundle.parent)}
    return subprocess.run(
        ["bash", str(bundle / "install.sh"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_install_sh_installs_a_menu_entry_that_names_the_program_by_full_path(
    fake_bundle: Path, tmp_path: Path
) -> None:
    prefix = tmp_path / "pre fix"  # a space, as in a home folder named after a person
    result = _install(fake_bundle, "--prefix", str(prefix))
    assert result.returncode == 0, result.stderr

    app = prefix / "lib" / NAME
    assert (app / NAME).is_file() and (app / "_internal").is_dir()
    assert not (app / "install.sh").exists() and not (app / "share").exists()
    entry_file = prefix / "share/applications" / DESKTOP.name
    entry = _entry(entry_file)
    assert entry["Exec"] == f'"{app / NAME}"'
    assert entry["TryExec"] == str(app / NAME)
    assert (prefix / "share/icons/hicolor/scalable/apps" / ICON.name).read_bytes() == (
        ICON.read_bytes()
    )
    assert (prefix / "share/icons/hicolor/48x48/apps" / f"{NAME}.png").is_file()
    _validate(entry_file)

    ran = subprocess.run(
        [str(prefix / "bin" / NAME), "--version"], capture_output=True, text=True, check=False
    )
    assert ran.stdout.strip() == "bundle-ran --version"


def test_install_sh_upgrades_in_place_and_uninstalls_only_its_own_files(
    fake_bundle: Path, tmp_path: Path
) -> None:
    prefix = tmp_path / "prefix"
    (prefix / "share/applications").mkdir(parents=True)
    other = prefix / "share/applications/other.desktop"
    other.write_text("[Desktop Entry]\n", encoding="utf-8")
    assert _install(fake_bundle, f"--prefix={prefix}").returncode == 0
    (fake_bundle / "_internal" / "new-in-v2").write_text("2", encoding="utf-8")
    assert _install(fake_bundle, "--prefix", str(prefix)).returncode == 0
    assert (prefix / "lib" / NAME / "_internal" / "new-in-v2").is_file()
    assert not [p for p in (prefix / "lib").iterdir() if p.name.startswith(".")]

    result = _install(fake_bundle, "--prefix", str(prefix), "--uninstall")
    assert result.returncode == 0, result.stderr
    assert not (prefix / "lib" / NAME).exists()
    assert not (prefix / "bin" / NAME).exists()
    assert not (prefix / "share/applications" / DESKTOP.name).exists()
    assert not list((prefix / "share/icons").rglob(f"{NAME}.*"))
    assert other.is_file()


def test_install_sh_never_replaces_a_folder_that_is_not_a_bundle(
    fake_bundle: Path, tmp_path: Path
) -> None:
    prefix = tmp_path / "prefix"
    foreign = prefix / "lib" / NAME
    foreign.mkdir(parents=True)
    (foreign / "precious.txt").write_text("keep me", encoding="utf-8")
    for args in (("--prefix", str(prefix)), ("--prefix", str(prefix), "--uninstall")):
        result = _install(fake_bundle, *args)
        assert result.returncode != 0
        assert "is not a checkout-desktop bundle" in result.stderr
    assert (foreign / "precious.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--prefix", "/tmp/a$b"), "must not contain"),
        (("--prefix",), "--prefix needs a folder"),
        (("--bogus",), "unknown argument: --bogus"),
    ],
)
def test_install_sh_rejects_bad_arguments_with_a_clear_message(
    fake_bundle: Path, args: tuple[str, ...], message: str
) -> None:
    result = _install(fake_bundle, *args)
    assert result.returncode != 0
    assert message in result.stderr
