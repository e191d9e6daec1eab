"""The History view: the entries of a real store in rows (★ pinned), the facets as filters;
searching, reopening (double-click, Enter), pinning and deleting are asked for by signals."""

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu

import routescope
from routescope.history import History
from routescope_gui._history_view import COLUMNS, HistoryView
from tests._support import TODAY
from tests.gui._support import record

PROMPTS = ("pizza near me", "How do I install FastAPI on Ubuntu?")


def _view(qtbot, tmp_path: Path) -> tuple[HistoryView, list[int]]:  # type: ignore[no-untyped-def]
    store = History.open(tmp_path / "history.sqlite3")
    ids = []
    for text in PROMPTS:
        request = routescope.Request.build(text, today=TODAY)
        entry = store.record(request, routescope.inspect(request))
        assert entry is not None
        ids.append(entry.id)
    store.pin(ids[0])
    view = HistoryView()
    qtbot.addWidget(view)
    view.show_entries(store.search(), store.facets())
    store.close()
    return view, ids


def test_rows_and_filters_show_the_store(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    view, _ids = _view(qtbot, tmp_path)
    table = view.table
    assert [table.headerItem().text(c) for c in range(len(COLUMNS))] == list(COLUMNS)
    rows = [
        [table.topLevelItem(r).text(c) for c in range(len(COLUMNS))]  # type: ignore[union-attr]
        for r in range(table.topLevelItemCount())
    ]
    assert [row[:5] for row in rows] == [
        ["", PROMPTS[1], "tech", rows[0][3], "—"],
        ["★", PROMPTS[0], "local", rows[1][3], "—"],
    ]
    assert [row[6] for row in rows] == ["1", "1"]
    strategies = [view.strategy.itemData(i) for i in range(view.strategy.count())]
    assert strategies[0] is None and sorted(strategies[1:]) == ["local", "tech"]
    assert view.status.text() == "2 prompts"


def test_search_and_filters_ask_for_a_new_list(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    view, _ids = _view(qtbot, tmp_path)
    asked = record(view.search_changed)
    view.search.setText("fast")
    view.strategy.setCurrentIndex(view.strategy.findData("tech"))
    view.pinned_only.setChecked(True)
    assert asked[-1] == ("fast", "tech", None, None, True)


def test_double_click_enter_and_the_context_menu(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    view, ids = _view(qtbot, tmp_path)
    view.show()
    opened = record(view.open_requested)
    table = view.table
    first = table.topLevelItem(0)
    assert first is not None
    table.itemDoubleClicked.emit(first, 1)
    table.setCurrentItem(table.topLevelItem(1))  # type: ignore[arg-type]
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Return)
    assert opened == [ids[1], ids[0]]
    pins = record(view.pin_requested)
    deletes = record(view.delete_requested)
    second = table.topLevelItem(1)
    assert second is not None
    position = table.visualItemRect(second).center()
    table.customContextMenuRequested.emit(position)
    menu = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible())
    actions = {action.text(): action for action in menu.actions()}
    assert list(actions) == ["Open", "Judge…", "Unpin", "Delete"]
    actions["Unpin"].trigger()
    actions["Delete"].trigger()
    menu.close()
    assert pins == [(ids[0], False)] and deletes == [ids[0]]


def test_the_note_says_why_history_is_off(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = HistoryView()
    qtbot.addWidget(view)
    view.show()
    assert not view.note.isVisible()
    view.show_note("history is off: the data folder is read-only")
    assert view.note.isVisible() and "read-only" in view.note.text()
    view.show_note(None)
    assert not view.note.isVisible()


def test_the_window_records_lists_and_reopens(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    history = window.session.history
    qtbot.waitUntil(lambda: history.store is not None, timeout=20_000)
    window.show_tab("History")
    view = window.history_view

    def newest(text: str) -> bool:
        return not history.busy and bool(view.entries) and view.entries[0].text == text

    for text in ("pizza near me", "How do I install FastAPI on Ubuntu?"):
        window.set_prompt(text)  # recorded once the prompt rests
        qtbot.waitUntil(lambda text=text: newest(text), timeout=20_000)
    assert view.entries[0].text == "How do I install FastAPI on Ubuntu?"
    pizza = next(
        view.table.topLevelItem(r)
        for r in range(view.table.topLevelItemCount())
        if view.table.topLevelItem(r).text(1) == "pizza near me"
    )
    view.table.itemDoubleClicked.emit(pizza, 1)
    assert window.views.currentWidget() is window.live
    assert window.editor.toPlainText() == "pizza near me"
