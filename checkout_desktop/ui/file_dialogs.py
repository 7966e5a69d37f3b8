"""The save dialog for receipts and reports, with every label in the terminal's language.

Qt's own Portuguese catalogue (qtbase_pt_BR, loaded by `ui.i18n`) leaves "Look in:" and "Files
of type:" of its file dialog in English, so the labels are set here from our catalogue.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QWidget

logger = logging.getLogger(__name__)


def pdf_save_dialog(parent: QWidget, title: str, start: str) -> QFileDialog:
    """A save dialog for one PDF, starting at `start` (a folder or a suggested file)."""
    dialog = QFileDialog(
        parent, title, start, QCoreApplication.translate("FileDialog", "PDF (*.pdf)")
    )
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setDefaultSuffix("pdf")
    labels = {
        QFileDialog.DialogLabel.LookIn: QCoreApplication.translate("FileDialog", "Look in:"),
        QFileDialog.DialogLabel.FileName: QCoreApplication.translate("FileDialog", "File name:"),
        QFileDialog.DialogLabel.FileType: QCoreApplication.translate(
            "FileDialog", "Files of type:"
        ),
        QFileDialog.DialogLabel.Accept: QCoreApplication.translate("FileDialog", "Save"),
        QFileDialog.DialogLabel.Reject: QCoreApplication.translate("FileDialog", "Cancel"),
    }
    for which, text in labels.items():
        dialog.setLabelText(which, text)
    return dialog


__all__ = ["pdf_save_dialog"]
