"""The main window's place on a shop screen: inside the available area, whatever its size.

Shop PCs often have 1366×768 or 1024×768 screens, where a window opened at its comfortable size
(1240×780) would hide its status bar (environment, inbox health, "a charge is in progress")
below the screen's edge. So the window opens at its comfortable size only where that fits;
elsewhere it fills the available area (maximised, and sized and placed so even without a window
manager nothing lies off-screen), and tall panels scroll instead of growing the window.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

COMFORTABLE = QSize(1240, 780)
"""The size the window is laid out for."""

# What a window manager adds around the client area (title bar and borders), allowed for before
# the frame exists: a window whose frame would not fit is maximised instead.
_FRAME_ALLOWANCE = QSize(16, 40)


def available_area(window: QWidget) -> QRect:
    """The part of the window's screen (or the primary one) not taken by panels and docks."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1024, 768)


def place_on_screen(window: QWidget, available: QRect | None = None) -> bool:
    """Size and place `window` inside `available` before it is shown; True when maximised."""
    area = available if available is not None else available_area(window)
    wanted = COMFORTABLE + _FRAME_ALLOWANCE
    if wanted.width() <= area.width() and wanted.height() <= area.height():
        window.resize(COMFORTABLE)
        frame = QRect(0, 0, wanted.width(), wanted.height())
        frame.moveCenter(area.center())
        window.move(frame.topLeft())
        return False
    # Without a window manager "maximised" does nothing, so the size and place say it too.
    window.resize(area.size())
    window.move(area.topLeft())
    window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
    return True


def place_beside(window: QWidget, other: QWidget, gap: int = 16) -> None:
    """Move `window` (about to be shown) where it does not cover `other`: to its left, else
    to its right, else below or above it, inside the screen's available area."""
    area = available_area(other)
    size = window.frameGeometry().size().expandedTo(window.sizeHint() + _FRAME_ALLOWANCE)
    covered = other.frameGeometry()
    top = max(area.top(), min(covered.top(), area.bottom() - size.height()))
    left = max(area.left(), min(covered.left(), area.right() - size.width()))
    for x, y in (
        (covered.left() - gap - size.width(), top),
        (covered.right() + gap, top),
        (left, covered.bottom() + gap),
        (left, covered.top() - gap - size.height()),
    ):
        if area.contains(QRect(x, y, size.width(), size.height())):
            window.move(x, y)
            return
    # No room on any side: the screen's corner that hides the least of it.
    window.move(area.topLeft())


def bring_to_front(window: QWidget) -> None:
    """Show `window` above the others, un-minimised but otherwise as it was (maximised stays)."""
    state = window.windowState() & ~Qt.WindowState.WindowMinimized
    window.setWindowState(state | Qt.WindowState.WindowActive)
    window.show()
    window.raise_()
    window.activateWindow()


def scrollable(
    content: QWidget, parent: QWidget | None = None, *, keep_width: bool = False
) -> QScrollArea:
    """`content` in a frameless scroll area, so a small screen scrolls it instead of cutting it.

    With `keep_width` the area never gets narrower than the content needs: it scrolls only
    vertically, and its neighbours in the layout give way instead (a form cut at its right
    edge hides the ends of its fields).
    """
    area = QScrollArea(parent)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(content)
    if keep_width:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scrollbar = area.verticalScrollBar().sizeHint().width()
        area.setMinimumWidth(content.minimumSizeHint().width() + scrollbar)
    else:
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
    return area
