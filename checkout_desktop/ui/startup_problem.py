"""The window's way of saying why the terminal cannot start: one dialog, in the screen's language,
that says what is wrong and what to do (the start's own English words as a technical detail)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

if TYPE_CHECKING:
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.ui.i18n import Translations

logger = logging.getLogger(__name__)

# Platforms with no screen to show a dialog on (tests, CI, a service): the message then goes
# to standard error only, where the command line prints it anyway.
_HEADLESS = frozenset({"offscreen", "minimal"})


def install_startup_language(paths: AppPaths | None) -> Translations:
    """Install the language the window would speak, before a start-up problem is said."""
    from checkout_desktop.ui.i18n import install_settings_language

    return install_settings_language(paths)


def startup_problem_text(problem: BaseException, paths: AppPaths | None = None) -> str:
    """What keeps the terminal from starting, and what to do, in the screen's language."""
    from checkout_desktop.doctor import store_check as errors
    from checkout_desktop.doctor.store_check import SharedStoreError, StoreAddressError
    from checkout_desktop.paths import InstanceFolderError
    from checkout_desktop.sandbox.link import SandboxLinkError
    from checkout_desktop.settings import SettingsError
    from checkout_desktop.ui.single_instance import InstanceFolderNotWritable

    settings_file = "" if paths is None else str(paths.settings_file)
    database_file = "" if paths is None else str(paths.database_file)
    data_dir = "" if paths is None else str(paths.data_dir)
    if isinstance(problem, SharedStoreError | StoreAddressError):
        return store_problem_text(problem)
    if isinstance(problem, SandboxLinkError):
        return QCoreApplication.translate(
            "StartupProblem",
            "The built-in sandbox (the training service this computer runs) did not start. "
            "Start the terminal again; if it fails again, the technical detail below says why.",
        )
    if isinstance(problem, SettingsError):
        return QCoreApplication.translate(
            "StartupProblem",
            "The settings file {file} cannot be read: it is damaged, or was changed by hand. "
            "Move it to another folder (the terminal then starts with its setup, as on its "
            "first day) or put back a good copy, then start again.",
        ).format(file=settings_file)
    if isinstance(problem, InstanceFolderNotWritable):
        return QCoreApplication.translate(
            "StartupProblem",
            "The terminal cannot write in its data folder {folder}. Make it writable by this "
            "user, or start with another folder (--data-dir), then start again.",
        ).format(folder=data_dir)
    if isinstance(problem, InstanceFolderError):
        return QCoreApplication.translate(
            "StartupProblem",
            "A folder of the terminal cannot be used as it is: other users can change it, it "
            "belongs to another user, or a file stands where the folder should be. Make the "
            "folder named below yours alone (on Linux: chmod 700 and the folder), or start "
            "with another folder (--data-dir), then start again.",
        )
    if isinstance(problem, errors.StoreCorrupt):
        return QCoreApplication.translate(
            "StartupProblem",
            "The sales file {file} is damaged (it failed its integrity check) and was left as "
            "it is. Close every checkout-desktop, move the file (with its -wal and -shm files) "
            "to another folder to keep for support, then start again with a new, empty file.",
        ).format(file=database_file)
    if isinstance(problem, errors.ForeignStore):
        return QCoreApplication.translate(
            "StartupProblem",
            "The file {file} is not a sales file of checkout-desktop (it is another program's, "
            "or not a database) and was left untouched. Move it to another folder, then start "
            "again.",
        ).format(file=database_file)
    if isinstance(problem, errors.SchemaTooNew):
        return QCoreApplication.translate(
            "StartupProblem",
            "The sales file {file} was written by a newer checkout-desktop: install that "
            "version, or a newer one.",
        ).format(file=database_file)
    if isinstance(problem, errors.StoreNotWritable):
        return QCoreApplication.translate(
            "StartupProblem",
            "The sales file {file} or its folder cannot be written. Make both writable by this "
            "user, or start with another folder (--data-dir).",
        ).format(file=database_file)
    if isinstance(problem, errors.StoreError):
        return QCoreApplication.translate(
            "StartupProblem",
            "The sales file {file} cannot be opened (the disk may be full, or something else "
            "stands in its place). Free some space or check the folder, then start again.",
        ).format(file=database_file)
    return QCoreApplication.translate(
        "StartupProblem",
        "The technical detail below says what keeps it from starting, and how to fix it.",
    )


def store_problem_text(cause: BaseException) -> str:
    """What keeps the shared store from being used, and what to do, in the screen's language."""
    from PySide6.QtCore import QCoreApplication

    from checkout_desktop.doctor.store_check import (
        SharedStoreError,
        StoreAddressError,
        StoreProblem,
    )
    from checkout_desktop.secrets import KeychainUnavailable
    from checkout_desktop.ui.problem_texts import keychain_text

    if isinstance(cause, KeychainUnavailable):
        return keychain_text(cause)
    if isinstance(cause, StoreAddressError):
        return QCoreApplication.translate(
            "Launch", "The shared database's address is not valid: choose the store again."
        )
    if not isinstance(cause, SharedStoreError):
        return QCoreApplication.translate("Launch", "The database server refused the connection.")
    address = cause.address
    words = {"user": address.user, "database": address.dbname, "server": address.host}
    texts = {
        StoreProblem.CREDENTIALS: QCoreApplication.translate(
            "Launch",
            "The database server refused the login of “{user}” to “{database}”: the password "
            "kept on this computer is wrong, or the user may not log in.",
        ),
        StoreProblem.PASSWORD_MISSING: QCoreApplication.translate(
            "Launch",
            "The database server asks for a password, and this computer's keychain keeps none "
            "for “{user}” on “{database}”.",
        ),
        StoreProblem.UNREACHABLE: QCoreApplication.translate(
            "Launch",
            "The database server {server} does not answer: check that it is on and that this "
            "computer reaches it (network, firewall), then start again.",
        ),
        StoreProblem.NO_DATABASE: QCoreApplication.translate(
            "Launch",
            "The database server {server} has no database named “{database}”: create it, or "
            "choose another one in the setup.",
        ),
        StoreProblem.TLS: QCoreApplication.translate(
            "StoreChoice",
            "The encrypted connection failed: check sslmode and the server's certificate.",
        ),
        StoreProblem.SCHEMA_NEWER: QCoreApplication.translate(
            "StoreChoice",
            "This database was prepared by a newer checkout-desktop: upgrade this terminal first.",
        ),
        StoreProblem.FOREIGN: QCoreApplication.translate(
            "StoreChoice", "This database holds another program's tables: use an empty database."
        ),
    }
    text = texts.get(
        cause.problem,
        QCoreApplication.translate("Launch", "The database server refused the connection."),
    ).format(**words)
    if cause.problem in (StoreProblem.CREDENTIALS, StoreProblem.PASSWORD_MISSING):
        text += "\n\n" + QCoreApplication.translate(
            "Launch",
            "To set the password, open the setup and type it in Password, or run this "
            "command in a terminal:\n{command}",
        ).format(command=f"checkout-desktop --store {address.url()} store password")
    return text


def startup_problem_box(problem: BaseException, paths: AppPaths | None = None) -> QMessageBox:
    """The dialog for `problem`, built in the installed language (not shown yet)."""
    box = QMessageBox()
    box.setObjectName("startupProblem")
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle("checkout-desktop")  # the product's name, the same in every language
    box.setText(QCoreApplication.translate("StartupProblem", "The terminal cannot start."))
    box.setInformativeText(startup_problem_text(problem, paths))
    box.setDetailedText(
        QCoreApplication.translate("Launch", "Technical detail: {detail}").format(detail=problem)
    )
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    return box


def show_startup_problem(problem: BaseException, paths: AppPaths | None = None) -> bool:
    """Show `problem` (a broken store, settings file or folder) in a modal dialog, in the
    settings' or the system's language, before the terminal exits; returns whether a dialog
    was shown."""
    from checkout_desktop.ui.display import display_missing

    if QApplication.instance() is None and display_missing():
        return False  # Qt would abort the process: the command line prints the problem
    app = QApplication.instance() or QApplication([])
    if QGuiApplication.platformName() in _HEADLESS:
        return False
    translations = install_startup_language(paths)
    box = startup_problem_box(problem, paths)
    box.exec()
    translations.remove()
    del app
    return True


__all__ = [
    "install_startup_language",
    "show_startup_problem",
    "startup_problem_box",
    "startup_problem_text",
    "store_problem_text",
]
