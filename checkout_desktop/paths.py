"""Where the terminal keeps its settings, database and logs on this machine."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "checkout-desktop"
HOME_ENV = "CHECKOUT_DESKTOP_HOME"


@dataclass(frozen=True)
class AppPaths:
    """The folders of one terminal instance."""

    config_dir: Path
    data_dir: Path
    log_dir: Path

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def database_file(self) -> Path:
        return self.data_dir / "checkout.sqlite3"

    def ensure(self) -> AppPaths:
        for folder in (self.config_dir, self.data_dir, self.log_dir):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self


def app_paths(home: str | os.PathLike[str] | None = None) -> AppPaths:
    """Resolve the folders: an explicit home, then $CHECKOUT_DESKTOP_HOME, then the OS's."""
    chosen = home if home is not None else os.environ.get(HOME_ENV)
    if chosen:
        root = Path(chosen).expanduser().resolve()
        return AppPaths(config_dir=root / "config", data_dir=root / "data", log_dir=root / "logs")
    return AppPaths(
        config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        log_dir=Path(platformdirs.user_log_dir(APP_NAME, appauthor=False)),
    )


def resources_dir() -> Path:
    """The `resources/` folder: beside the package in a source tree, inside a frozen bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def sdk_script(build: str) -> Path:
    """The published SDK's script for a profile's build ("dev" or "prod"), installed by setup."""
    package = {"dev": "checkout-transparent-dev", "prod": "checkout-transparent"}[build]
    return resources_dir() / "sdk" / "node_modules" / package / "dist" / "pp-transparent.js"
