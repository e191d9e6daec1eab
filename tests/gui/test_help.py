"""The help (F1) scrolls inside a window that fits the screen it opens on."""

from PySide6.QtWidgets import QApplication, QWidget

from routescope_gui._help import HelpDialog, show_help


def test_the_help_fits_the_screen_and_scrolls(qtbot) -> None:  # type: ignore[no-untyped-def]
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    dialog = show_help(parent)
    qtbot.waitExposed(dialog)
    room = (parent.screen() or QApplication.primaryScreen()).availableGeometry()
    assert isinstance(dialog, HelpDialog) and dialog.isVisible() and not dialog.isModal()
    assert dialog.height() <= room.height() and dialog.width() <= room.width()
    assert dialog.maximumHeight() <= room.height()
    bar = dialog.browser.verticalScrollBar()
    assert bar.maximum() > 0  # longer than the window: it scrolls
    close = dialog.buttons.buttons()[0]
    assert close.isVisible() and dialog.rect().contains(close.geometry())  # Close in sight
    assert "Ctrl+1 … Ctrl+6" in dialog.browser.toPlainText()
    dialog.buttons.rejected.emit()
    qtbot.waitUntil(lambda: not dialog.isVisible())
