"""The terminal's main window: it composes panels and holds no business logic."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from checkout_desktop.settings import Settings


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.setWindowTitle("checkout-desktop")
        self.resize(1100, 720)
        profile = settings.profile
        body = QWidget(self)
        layout = QVBoxLayout(body)
        self.environment_label = QLabel(f"Environment: {profile.label}", body)
        self.environment_label.setObjectName("environmentLabel")
        layout.addWidget(self.environment_label)
        layout.addStretch(1)
        self.setCentralWidget(body)
        self.statusBar().showMessage(f"Environment: {profile.label}")
