"""A window with a history store of its own, for the tests that judge: their judged sets (and
the set the window judges into, kept in the store's state) never reach the other tests'
windows, which share one history."""

from __future__ import annotations

from pathlib import Path

import pytest

import routescope
from routescope_gui import MainWindow, Session
from tests._support import TODAY


@pytest.fixture(name="window")
def own_window(qtbot, qloop, tool_cache: Path, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    """The window, shown, on the tests' date, its history in `tmp_path`."""
    session = Session(
        routescope.Request.build("", today=TODAY),
        cache=tool_cache,
        history=tmp_path / "history.sqlite3",
    )
    win = MainWindow(session)
    qtbot.addWidget(win)
    win.set_today(TODAY)
    win.show()
    return win
