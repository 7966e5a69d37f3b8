"""Where the terminal keeps its store: this computer, or the shop's shared database (PostgreSQL),
with its address, its password (into the keychain, never into settings) and a test button."""

from __future__ import annotations

import asyncio
import logging

from pydantic import SecretStr
from PySide6.QtCore import QCoreApplication, QEvent, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.doctor.store_check import (
    SSL_MODES,
    StoreFields,
    StoreTest,
    keep_password,
    saved_password,
    try_store,
)
from checkout_desktop.domain.store_host import host_problem
from checkout_desktop.secrets import KeychainUnavailable, SecretStore
from checkout_desktop.ui.problem_texts import keychain_text, store_host_text

logger = logging.getLogger(__name__)

_OK = "color: #1b6e2a;"
_BAD = "color: #b3261e;"


class StoreChoice(QGroupBox):
    """The store choice of Settings and of the wizard."""

    def __init__(self, secrets: SecretStore | None, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Where sales are kept"), parent)
        self.setObjectName("storeChoice")
        self._secrets = secrets
        self._test: asyncio.Future[StoreTest] | None = None
        self.local = QRadioButton(self.tr("This computer"), self)
        self.local.setObjectName("storeLocal")
        self.shared = QRadioButton(self.tr("The shop's shared database"), self)
        self.shared.setObjectName("storeShared")
        group = QButtonGroup(self)
        group.addButton(self.local)
        group.addButton(self.shared)
        self.host = QLineEdit(self)
        self.host.setObjectName("storeHost")
        self.host.setPlaceholderText(self.tr("server name or address"))
        self.port = QSpinBox(self)
        self.port.setObjectName("storePort")
        self.port.setRange(1, 65535)
        self.database = QLineEdit(self)
        self.database.setObjectName("storeDatabase")
        self.user = QLineEdit(self)
        self.user.setObjectName("storeUser")
        self.password = QLineEdit(self)
        self.password.setObjectName("storePassword")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.sslmode = QComboBox(self)
        self.sslmode.setObjectName("storeSslMode")
        for mode in SSL_MODES:
            self.sslmode.addItem(mode, mode)
        self.test_button = QPushButton(self.tr("Test the database"), self)
        self.test_button.setObjectName("storeTest")
        self.result = QLabel(self)
        self.result.setObjectName("storeResult")
        self.result.setWordWrap(True)

        self.fields = QWidget(self)
        form = QFormLayout(self.fields)
        form.addRow(self.tr("Server"), self.host)
        form.addRow(self.tr("Port"), self.port)
        form.addRow(self.tr("Database"), self.database)
        form.addRow(self.tr("User"), self.user)
        form.addRow(self.tr("Password"), self.password)
        form.addRow(self.tr("Encryption (sslmode)"), self.sslmode)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addStretch(1)
        form.addRow(test_row)
        form.addRow(self.result)
        note = QLabel(
            self.tr(
                "One database for every counter of the shop: each sees every sale and "
                "notification. The password is kept in the system's keychain. A change applies "
                "at the next start."
            ),
            self,
        )
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.local)
        layout.addWidget(self.shared)
        layout.addWidget(self.fields)
        layout.addWidget(note)
        self.local.toggled.connect(self._toggled)
        self.test_button.clicked.connect(self.test)
        self.load(None)

    def load(self, url: str | None) -> None:
        """Show a stored choice (None: this computer)."""
        fields = StoreFields.of_url(url)
        self.host.setText(fields.host)
        self.port.setValue(fields.port)
        self.database.setText(fields.database)
        self.user.setText(fields.user)
        self.sslmode.setCurrentIndex(max(self.sslmode.findData(fields.sslmode), 0))
        self.password.clear()
        self.password.setPlaceholderText(
            self.tr("kept in the keychain")
            if url and self._secrets is not None and saved_password(url, self._secrets)
            else ""
        )
        self._say("")
        (self.shared if url else self.local).setChecked(True)
        self._toggled()

    def _say(self, text: str, style: str = "", detail: str = "") -> None:
        """Show a result under the fields (its technical detail, if any, in the tooltip)."""
        self.result.setText(text)
        self.result.setStyleSheet(style)
        self.result.setToolTip(detail)
        relayout(self.result)

    def _toggled(self, *_args: object) -> None:
        # Hidden, not just disabled: the one-PC shop's screen stays short.
        self.fields.setVisible(self.shared.isChecked())

    def _fields(self) -> StoreFields:
        return StoreFields(
            host=self.host.text().strip(),
            port=self.port.value(),
            database=self.database.text().strip(),
            user=self.user.text().strip(),
            sslmode=str(self.sslmode.currentData()),
        )

    def chosen_url(self) -> tuple[str | None, list[str]]:
        """The address to keep in settings (None: this computer) and what is wrong with it."""
        if not self.shared.isChecked():
            return None, []
        fields = self._fields()
        names = {
            "host": self.tr("server"),
            "database": self.tr("database"),
            "user": self.tr("user"),
        }
        missing = [names[name] for name in fields.problems()]
        if missing:
            return None, [
                self.tr("The shop's shared database needs: {items}.").format(
                    items=", ".join(missing)
                )
            ]
        problem = host_problem(fields.host)
        if problem is not None:
            # Said in the owner's words, never repeating the field (it may hold a password).
            return None, [store_host_text(problem)]
        try:
            return fields.url(), []
        except ValueError as exc:
            return None, [
                self.tr("The database's address is not valid: {why}").format(why=str(exc))
            ]

    def keep_password(self, url: str) -> str | None:
        """Put a typed password into the keychain; an error message, or None when done."""
        typed = self.password.text()
        if not typed:
            return None
        if self._secrets is None:
            return self.tr("No keychain is available to store the secrets.")
        try:
            keep_password(url, SecretStr(typed), self._secrets)
        except KeychainUnavailable as exc:
            return keychain_text(exc)
        self.password.clear()
        self.password.setPlaceholderText(self.tr("kept in the keychain"))
        return None

    def test(self) -> None:
        """Connect with what the form holds (the typed password, else the keychain's)."""
        if self._test is not None and not self._test.done():
            return
        url, problems = self.chosen_url()
        if url is None:
            self._say(
                "\n".join(problems) or self.tr("This computer keeps the sales: nothing to test."),
                _BAD if problems else "",
            )
            return
        typed = self.password.text()
        password: SecretStr | None = SecretStr(typed) if typed else None
        if password is None and self._secrets is not None:
            password = saved_password(url, self._secrets)
        self.test_button.setEnabled(False)
        self._say(self.tr("Testing… (at most a few seconds)"))
        self._test = asyncio.ensure_future(try_store(url, password))
        self._test.add_done_callback(self._tested)

    def _tested(self, task: asyncio.Future[StoreTest]) -> None:
        self.test_button.setEnabled(True)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            logger.error("the database test failed: %s", exc)
            self._say(self.tr("The test failed: {why}").format(why=str(exc)), _BAD)
            return
        found = task.result()
        self._say(store_test_text(found), _OK if found.ok else _BAD, store_test_detail(found))


def relayout(widget: QWidget) -> None:
    """Lay `widget`'s ancestors out again after its text changed: a word-wrapped label nested
    in forms inside a scroll area otherwise keeps the height of its previous text, cut through
    its first and last lines (its height for its width changed, not its size hint, and the
    outer forms keep their children's places)."""

    def invalidate() -> None:
        parent: QWidget | None = widget
        while parent is not None:
            layout = parent.layout()
            if layout is not None:
                layout.invalidate()
            if isinstance(parent, QScrollArea):
                # It fits its widget to the widget's height for its width on a layout request.
                QCoreApplication.postEvent(parent, QEvent(QEvent.Type.LayoutRequest))
            parent = parent.parentWidget()

    invalidate()
    # Once more when the inner forms have laid the new text out (they do on their next turn).
    QTimer.singleShot(0, widget, invalidate)


def store_test_detail(found: StoreTest) -> str:
    """The technical detail of a failed test (the store's own words, for a tooltip or the log;
    empty when there is none)."""
    if found.ok or not found.detail:
        return ""
    return QCoreApplication.translate("StoreChoice", "Technical detail: {detail}").format(
        detail=found.detail
    )


def store_test_text(found: StoreTest) -> str:
    """What a test of the shared store found, in the screen's language (the technical detail,
    meant for the command line, is `store_test_detail`'s)."""
    if found.ok:
        text = QCoreApplication.translate("StoreChoice", "Connected: PostgreSQL {version}.").format(
            version=found.server_version
        )
        if not found.schema_version:
            text += " " + QCoreApplication.translate(
                "StoreChoice", "The database is empty: this terminal prepares it at its next start."
            )
        if not found.tls:
            text += " " + QCoreApplication.translate(
                "StoreChoice", "The connection is not encrypted; across a network use verify-full."
            )
        return text
    messages = {
        "unreachable": QCoreApplication.translate(
            "StoreChoice",
            "The server does not answer: check the server's name and port, that it is running, "
            "and that the network or a firewall lets this computer through.",
        ),
        "credentials": QCoreApplication.translate(
            "StoreChoice", "The server refused the login: check the user and the password."
        ),
        "password_missing": QCoreApplication.translate(
            "StoreChoice", "The server asks for a password: type it in Password."
        ),
        "no_database": QCoreApplication.translate(
            "StoreChoice", "The server has no database with this name: create it first."
        ),
        "tls": QCoreApplication.translate(
            "StoreChoice",
            "The encrypted connection failed: check sslmode and the server's certificate.",
        ),
        "schema_newer": QCoreApplication.translate(
            "StoreChoice",
            "This database was prepared by a newer checkout-desktop: upgrade this terminal first.",
        ),
        "foreign": QCoreApplication.translate(
            "StoreChoice", "This database holds another program's tables: use an empty database."
        ),
        "address": QCoreApplication.translate(
            "StoreChoice", "The database's address is not valid."
        ),
    }
    return messages.get(
        found.problem or "",
        QCoreApplication.translate("StoreChoice", "The server refused the request."),
    )


__all__ = ["StoreChoice", "relayout", "store_test_detail", "store_test_text"]
