"""Where the terminal keeps its settings, database and logs on this machine."""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from checkout_desktop.errors import PlainError
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words

APP_NAME = "checkout-desktop"
HOME_ENV = "CHECKOUT_DESKTOP_HOME"


_POSIX = os.name == "posix"
"""Owner-only modes are enforced where files have POSIX modes (not on Windows)."""


class InstanceFolderError(PlainError):
    """An instance folder others could change; the message says how to fix it."""

    exit_code = 2


def secure_folder(folder: Path) -> None:
    """Make a folder of the instance owner-only: create it 0700, tighten one this user owns,
    refuse one that other users can write to (they could swap the files inside)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not _POSIX:
        return
    info = folder.stat()
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022:
        raise InstanceFolderError(
            Words(
                QT_TRANSLATE_NOOP(
                    "Paths",
                    "the folder {folder} can be changed by other users (mode {mode}); make it "
                    "yours alone with `chmod 700 {folder}` and start again",
                ),
                folder=folder,
                mode=f"{mode:03o}",
            )
        )
    if info.st_uid != os.getuid():
        raise InstanceFolderError(
            Words(
                QT_TRANSLATE_NOOP(
                    "Paths",
                    "the folder {folder} belongs to another user; use a folder of your own "
                    "(--data-dir or CHECKOUT_DESKTOP_HOME)",
                ),
                folder=folder,
            )
        )
    if mode & 0o077:
        os.chmod(folder, mode & 0o700)


def tighten(path: Path) -> None:
    """Make a file the terminal owns owner-only, never loosening it and never following a link.

    A symlink (its target is someone else's file), a file of another user, and a file already
    stricter than 0600 (a deliberately read-only 0400 store) are left as they are.

    Safe on a file this process holds locks on (the store, its -wal and -shm): where the
    system allows it the file is reached through a path-only descriptor, whose close leaves
    the process's POSIX locks alone; an ordinary descriptor's close would release them all.
    """
    if not _POSIX:
        return
    path_only = getattr(os, "O_PATH", 0)
    if path_only and os.path.isdir("/proc/self/fd"):
        _tighten_through_path_only(path, path_only)
    elif os.chmod in os.supports_follow_symlinks:
        _tighten_without_following(path)
    else:
        _tighten_through_descriptor(path)


def _owner_only(info: os.stat_result) -> int | None:
    """The mode to set, or None when the file is to be left as it is."""
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and mode & 0o077:
        return mode & 0o700
    return None


def _tighten_through_path_only(path: Path, path_only: int) -> None:
    try:
        # The checks and the change run on the opened file itself: a file swapped for a
        # symlink in between is not followed (O_NOFOLLOW), so only this file can change.
        fd = os.open(path, path_only | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        wanted = _owner_only(os.fstat(fd))
        if wanted is not None:
            # A path-only descriptor cannot be chmodded directly; its /proc entry reaches the
            # very file it holds.
            os.chmod(f"/proc/self/fd/{fd}", wanted)
    finally:
        os.close(fd)


def _tighten_without_following(path: Path) -> None:
    try:
        wanted = _owner_only(os.lstat(path))
        if wanted is not None:
            os.chmod(path, wanted, follow_symlinks=False)
    except OSError:
        return


def _tighten_through_descriptor(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        wanted = _owner_only(os.fstat(fd))
        if wanted is not None:
            os.fchmod(fd, wanted)
    finally:
        os.close(fd)


class NotARegularFile(OSError):
    """A path that names a FIFO, a device or a folder where a file was expected."""


def read_regular_file(path: Path, limit: int) -> bytes:
    """At most `limit` + 1 bytes of a regular file. FileNotFoundError when it is missing,
    NotARegularFile for anything else (opening a FIFO never waits for a writer)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotARegularFile(f"{path} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit + 1)
    finally:
        os.close(fd)


INSTANCE_LOCK_FILE = "terminal.lock"
"""In the data folder: its user's lock (`flock`), held by the terminal window for as long as it
runs (`ui/single_instance.py`) and by `store migrate` while it copies the folder's store."""


def hold_data_folder(data_dir: Path) -> int | None:
    """Take the data folder's lock for this process: the descriptor that holds it (give it to
    `let_go_of_data_folder`), or None when another process holds it. The kernel drops the lock
    when the process ends, crash included. Raises OSError when the lock file cannot be opened."""
    import fcntl

    fd = os.open(data_dir / INSTANCE_LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def let_go_of_data_folder(fd: int) -> None:
    import contextlib
    import fcntl

    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


def data_folder_holder(data_dir: Path) -> int | None:
    """The pid written by the process that holds the data folder, when it can be read."""
    try:
        text = (data_dir / INSTANCE_LOCK_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


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
        """Create the folders owner-only (0700), tighten ones this user owns, and refuse
        folders other users can write to, a file where a folder should be, and a folder that
        cannot be made (InstanceFolderError, with how to fix it)."""
        folders = (self.config_dir, self.data_dir, self.log_dir)
        parents = {f.parent for f in folders}
        # One instance folder holds all three ($CHECKOUT_DESKTOP_HOME, --data-dir).
        chain = (parents.pop(), *folders) if len(parents) == 1 else folders
        for folder in chain:
            try:
                secure_folder(folder)
            except (NotADirectoryError, FileExistsError):
                raise InstanceFolderError(
                    Words(
                        QT_TRANSLATE_NOOP(
                            "Paths",
                            "{file} is a file where the terminal keeps a folder (its settings, "
                            "store and logs); choose another folder with --data-dir or "
                            "CHECKOUT_DESKTOP_HOME, or move the file away, and start again",
                        ),
                        file=_file_in_the_way(folder),
                    )
                ) from None
            except OSError as exc:
                raise InstanceFolderError(
                    Words(
                        QT_TRANSLATE_NOOP(
                            "Paths",
                            "cannot create the folder {folder} ({reason}); choose a folder of "
                            "your own with --data-dir or CHECKOUT_DESKTOP_HOME and start again",
                        ),
                        folder=folder,
                        reason=exc.strerror or exc,
                    )
                ) from None
        return self


def _file_in_the_way(folder: Path) -> Path:
    """The file that stands where `folder` or one of the folders above it should be."""
    for candidate in (folder, *folder.parents):
        if candidate.exists() or candidate.is_symlink():
            return folder if candidate.is_dir() else candidate
    return folder


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
