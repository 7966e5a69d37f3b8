"""The pieces every supervisor-PIN dialog is built from: the hidden PIN field, the red line
that says what went wrong, and OK/Cancel wired to the dialog. One place, so the refund and
capture dialog, the dialog that ends an unresolved charge and Settings' PIN prompt behave alike.
"""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QLineEdit, QWidget

ERROR_STYLE = "color: #b3261e;"
"""The colour of a line that says what went wrong."""

PIN_MAX_LENGTH = 8


def pin_edit(parent: QWidget, object_name: str) -> QLineEdit:
    """A PIN field: typed hidden, as long as a PIN may be."""
    edit = QLineEdit(parent)
    edit.setObjectName(object_name)
    edit.setEchoMode(QLineEdit.EchoMode.Password)
    edit.setMaxLength(PIN_MAX_LENGTH)
    return edit


def error_line(parent: QWidget, object_name: str) -> QLabel:
    """The dialog's red line for what went wrong (empty until something does)."""
    label = QLabel(parent)
    label.setObjectName(object_name)
    label.setStyleSheet(ERROR_STYLE)
    label.setWordWrap(True)
    return label


def ok_cancel(dialog: QDialog) -> QDialogButtonBox:
    """OK and Cancel, wired to the dialog's accept and reject."""
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog
    )
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons


__all__ = ["ERROR_STYLE", "PIN_MAX_LENGTH", "error_line", "ok_cancel", "pin_edit"]
