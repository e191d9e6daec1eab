import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import QSettings, QStandardPaths, Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

import routescope
from routescope_gui import MainWindow, Session
from routescope_gui._style import palette
from tests._support import TODAY


@pytest.fixture(autouse=True, scope="session")
def _settings_are_temporary(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The window's QSettings (its geometry) go to a temporary folder, whatever Qt would pick
    (tests/conftest.py already points the XDG folders of every process at one)."""
    folder = tmp_path_factory.mktemp("settings")
    QStandardPaths.setTestModeEnabled(True)
    for settings_format in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(settings_format, QSettings.Scope.UserScope, str(folder))


@pytest.fixture(autouse=True)
def _no_modifier_held_after(qapp: QApplication) -> Iterator[None]:
    """No test leaves a modifier key held for the next. A key click with Shift sends its
    release with Shift too, so Qt goes on believing Shift is down, and a later
    `selectRow` extends the selection instead of replacing it; a release of the key itself
    clears it."""
    yield
    if QGuiApplication.keyboardModifiers() != Qt.KeyboardModifier.NoModifier:
        widget = QWidget()
        widget.show()
        QTest.keyRelease(widget, Qt.Key.Key_Shift, Qt.KeyboardModifier.NoModifier)
        widget.close()
        widget.deleteLater()


@pytest.fixture(scope="session")
def tool_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One temporary folder of tool indexes and vectors, shared by the run's engines."""
    return tmp_path_factory.mktemp("toolsearch")


@pytest.fixture
def dark(qapp: QApplication) -> Iterator[None]:
    """The dark scheme's palette for the application (the one a dark theme sets) during the
    test; the palette it had after."""
    QGuiApplication.setPalette(palette("dark"))
    yield
    QGuiApplication.setPalette(QPalette())


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync loop marked running, so the session's background work runs under qtbot's
    waits (which spin the Qt event loop)."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    for task in [t for t in asyncio.all_tasks(loop) if not t.done()]:
        task.cancel()
    for _ in range(3):
        qapp.processEvents()
    asyncio.events._set_running_loop(None)
    loop._QEventLoop__is_running = False  # the flag `already_running` set
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def session(qtbot, qloop, tool_cache: Path) -> Session:  # type: ignore[no-untyped-def]
    """A session on the tests' date, its tool search cached in a temporary folder."""
    return Session(routescope.Request.build("", today=TODAY), cache=tool_cache)


@pytest.fixture
def window(qtbot, qloop, tool_cache: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    """The window, shown, on the tests' date. Unsaved rule pack edits are discarded when it
    closes (a test that asks the question answers it itself)."""
    win = MainWindow(cache=tool_cache)
    win.dialogs.unsaved_rules = lambda _pack: "discard"  # type: ignore[method-assign]
    qtbot.addWidget(win)
    win.set_today(TODAY)
    win.show()
    return win
