import datetime as dt
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPoint, QSettings, Qt
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QListView,
    QMenu,
    QMessageBox,
    QTreeWidgetItemIterator,
)

import routescope
from routescope_gui import MainWindow
from routescope_gui._catalog_dialog import CatalogDialog
from routescope_gui._help import HelpDialog
from routescope_gui._inspection_model import BACKGROUND_CHARS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def tree_texts(window: MainWindow) -> list[str]:
    texts = []
    iterator = QTreeWidgetItemIterator(window.strategy_view.context_tree)
    while item := iterator.value():
        texts.append(" | ".join(item.text(c) for c in range(3)))
        iterator += 1
    return texts


def test_typing_updates_every_panel(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    prompt = "How do I install FastAPI on Ubuntu?"
    qtbot.keyClicks(window.editor, prompt)
    qtbot.waitUntil(
        lambda: (
            window.session.inspection.result is not None
            and window.session.inspection.result.context.raw_text == prompt
        )
    )
    assert any("FastAPI" in t and "CamelCase" in t for t in tree_texts(window))
    assert window.strategy_view.decision_panel.badge.text() == "TECH"
    assert window.strategy_view.plan_table.plan_model.rowCount() == 2
    # Highlights in the editor, with the evidence as tooltip text.
    assert {h.label for h in window.editor.spans_at(prompt.index("FastAPI"))} == {"entity"}
    assert {h.label for h in window.editor.spans_at(prompt.index("install"))} == {"tech"}
    assert len(window.editor.extraSelections()) == 3
    status = window.timings_label.text()
    assert status.startswith("total ") and "µs" in status and "today: 2026-02-05" in status
    assert "extract" in window.timings_label.toolTip()
    # the stages' shares in the bar beside it, each stage's µs in its tooltip
    bar = window.timing_bar
    assert bar.isVisible() and [name for name, _us, _share in bar.shares] == [
        "extract",
        "route",
        "plan",
        "sanitize",
        "lint",
        "decide",
        "task",
    ]
    assert abs(sum(share for _name, _us, share in bar.shares) - 1) < 1e-9
    assert "extract" in bar.toolTip() and "%" in bar.toolTip()


def test_results_follow_every_edit(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("history of jazz")
    badge = window.strategy_view.decision_panel.badge
    assert badge.text() == "GENERAL"
    window.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(window.editor, " near me")
    qtbot.waitUntil(lambda: badge.text() == "LOCAL")
    window.editor.selectAll()
    qtbot.keyClick(window.editor, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: window.session.inspection.result is None)
    assert window.strategy_view.plan_table.plan_model.rowCount() == 0
    assert window.editor.extraSelections() == []
    assert window.statusBar().currentMessage().startswith("Type a prompt")
    assert window.timings_label.text() == "" and not window.timing_bar.isVisible()


def test_hidden_tabs_are_filled_when_shown(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("config")
    assert window.linter_view.badge.text() == "—" and window.json_view.toPlainText() == ""
    window.show_tab("Linter")
    assert window.linter_view.badge.text() == "VAGUE"
    assert {h.label for h in window.editor.spans_at(0)} == {"anchor"}
    window.show_tab("Raw JSON")
    assert '"query_class": "vague"' in window.json_view.toPlainText()
    with qtbot.waitSignal(window.session.inspection.inspected):  # a shown tab follows the prompt
        window.set_prompt("pizza near me")
    assert '"strategy": "local"' in window.json_view.toPlainText()


def test_today_control_reaches_the_router(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("latest news")
    with qtbot.waitSignal(window.session.inspection.inspected):
        window.set_today(dt.date(2030, 7, 4))
    assert window.session.request.today == dt.date(2030, 7, 4)
    inspection = window.session.inspection.result
    assert (
        inspection is not None and inspection.actions[0].query == "latest news as of July 4, 2030"
    )


def test_rule_pack_from_a_file(qtbot, tmp_path: Path, window) -> None:  # type: ignore[no-untyped-def]
    text = (routescope.resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")
    good = tmp_path / "mine.toml"
    good.write_text(
        text.replace('name = "default"', 'name = "mine"').replace(
            '"gaming engine"', '"free download"'
        ),
        encoding="utf-8",
    )
    window.set_prompt("free download of vlc")
    with qtbot.waitSignal(window.session.inspection.inspected):
        assert window.open_rules(good)
    inspection = window.session.inspection.result
    assert inspection is not None and inspection.rules == "mine"
    assert inspection.actions[0].query == "of vlc"
    assert window.rules_label.text() == "mine  (mine.toml)"
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [\n", encoding="utf-8")
    assert not window.open_rules(bad)
    assert window.banner.isVisibleTo(window) and "bad.toml" in window.banner.text()
    assert window.session.request.rules.load().name == "mine"
    window.builtin_rules_action.trigger()
    assert not window.banner.isVisibleTo(window)
    assert window.rules_label.text() == "default  (built-in)"


def test_highlights_land_on_the_right_characters_after_emoji(window) -> None:  # type: ignore[no-untyped-def]
    prompt = "🚀🚀 install FastAPI"
    window.set_prompt(prompt)
    texts = {s.cursor.selectedText() for s in window.editor.extraSelections()}
    assert {"install", "FastAPI"} <= texts


def test_a_large_paste_is_inspected_off_the_ui_thread(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    prompt = "install FastAPI now " * (BACKGROUND_CHARS // 10)
    with qtbot.waitSignal(window.session.inspection.inspected, timeout=20_000):
        window.set_prompt(prompt)
    assert window.session.inspection.result is not None
    assert window.session.inspection.result.context.raw_text == window.editor.toPlainText()


def test_contract_tab_steps_through_the_plan(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("Lend 100 USDC on Kamino")
    window.show_tab("Contract")
    view = window.contract_view
    assert view.decision is not None and view.decision.mode == "execute"
    assert view.step_label.text() == "next: wallet_connect"
    for _ in range(3):
        view.step_button.click()
    assert view.step_label.text() == "done — tool plan complete"
    assert not view.step_button.isEnabled()
    view.reset_button.click()
    assert view.step_label.text() == "next: wallet_connect"


def test_contract_context_is_editable_and_validated(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("try again")
    window.show_tab("Contract")
    view = window.contract_view
    view.context_edit.setPlainText('{"last_action": {"tool": 5}}')
    assert "not used" in view.context_status.text()
    assert window.session.request.context is None
    context = (
        '{"last_action": {"tool": "lend_execute", "args": {"amount": 1}, "status": "cancelled"}}'
    )
    with qtbot.waitSignal(window.session.inspection.inspected):
        view.context_edit.setPlainText(context)
    assert window.session.request.context is not None
    decision = window.session.inspection.result.decision  # type: ignore[union-attr]
    assert decision is not None and decision.tool_plan[-1].tool == "lend_execute"
    assert view.decision == decision and window.editor.toPlainText() == "try again"


def test_the_tools_tab_loads_the_engine_only_when_first_shown(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("find files named config.yaml")
    assert window.session.tools.engine is None
    with qtbot.waitSignal(window.session.tools.ranked, timeout=120_000):
        window.show_tab("Tools")
    view = window.toolsearch_view
    top = view.table.topLevelItem(0)
    assert top is not None and top.text(1) == "files.find"
    assert "tools from catalog" in view.status.text() and view.pin.count() > 40
    with qtbot.waitSignal(window.session.tools.ranked, timeout=20_000) as blocker:
        view.fusion.setCurrentText("canonical")
    # The RRF k slider shows for the canonical fusion, inside the settings drawer.
    assert blocker.args[0].fusion == "canonical" and view.rrf_box.isVisibleTo(view.drawer)
    with qtbot.waitSignal(window.session.tools.ranked, timeout=20_000):
        view.rrf.setValue(5)
    assert window.session.request.search.rrf_k == 5
    with qtbot.waitSignal(window.session.tools.ranked, timeout=20_000) as blocker:
        view.threshold.setValue(90)
    assert window.session.request.search.fit_threshold == 0.9
    assert blocker.args[0].fits is False and "No tool fits" in view.verdict.text()
    with qtbot.waitSignal(window.session.tools.explained, timeout=20_000):
        view.pin.setCurrentText("git.status")
    assert "filter excludes" in view.pin_text.text()
    window.show_tab("Plan")  # hidden: typing does not rank
    window.set_prompt("what changed in my repo")
    qtbot.waitUntil(lambda: not window.session.busy)
    assert view.result is not None and view.result.query == "find files named config.yaml"
    with qtbot.waitSignal(window.session.tools.ranked, timeout=20_000):
        window.show_tab("Tools")
    assert view.result is not None and view.result.query == "what changed in my repo"


def highlight(qtbot, dialog: CatalogDialog, name: str) -> None:  # type: ignore[no-untyped-def]
    """Move the dialog's list to the entry `name` of the folder shown, as a click would."""
    view = dialog.findChild(QListView, "listView")
    assert view is not None
    model, root = view.model(), view.rootIndex()

    def entry() -> QModelIndex | None:
        names = (model.index(row, 0, root) for row in range(model.rowCount(root)))
        return next((index for index in names if index.data() == name), None)

    qtbot.waitUntil(lambda: entry() is not None)  # the folder is read in the background
    view.setCurrentIndex(entry())


def test_the_catalog_dialog_opens_a_json_file_or_a_folder(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    dialog = CatalogDialog(window, EXAMPLES / "catalogs" / "openai-tools.json")
    qtbot.addWidget(dialog)
    dialog.show()
    highlight(qtbot, dialog, "mcp-tools-list.json")
    assert dialog.fileMode() == QFileDialog.FileMode.ExistingFile
    dialog.accept()
    assert dialog.chosen() == str(EXAMPLES / "catalogs" / "mcp-tools-list.json")
    dialog = CatalogDialog(window, EXAMPLES / "catalogs")
    qtbot.addWidget(dialog)
    dialog.show()
    highlight(qtbot, dialog, "skills")
    assert dialog.fileMode() == QFileDialog.FileMode.Directory
    dialog.accept()
    assert dialog.chosen() == str(EXAMPLES / "skills")


def test_open_catalog_names_the_format_and_ranks(qtbot, window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    chosen = str(EXAMPLES / "catalogs" / "anthropic-tools.json")
    monkeypatch.setattr(window.dialogs, "catalog", lambda _current: chosen)
    window.set_prompt("merge the approved pull request")
    with qtbot.waitSignal(window.session.tools.ranked, timeout=120_000):
        window.open_catalog_action.trigger()
    view = window.toolsearch_view
    assert window.tabs.currentWidget() is view
    assert "5 tools from anthropic-tools.json · anthropic format" in view.status.text()
    assert view.status.toolTip().startswith("format anthropic: ")
    top = view.table.topLevelItem(0)
    assert top is not None and top.text(1) == "merge_pull_request"


def test_menus_name_every_action_with_its_shortcut(window) -> None:  # type: ignore[no-untyped-def]
    menus = {
        action.text(): [a.text() for a in action.menu().actions() if a.text()]
        for action in window.menuBar().actions()
    }
    assert menus == {
        "&File": [
            "Open rule pack…",
            "Built-in rules",
            "Built-in refined rules",
            "Built-in refined-semantic rules",
            "Edit rule pack…",
            "Open catalog…",
            "Open suite…",
            "Open routers file…",
            "Save session…",
            "Open session…",
            "Export inspection as JSON…",
            "Export inspection as Markdown…",
            "Save as regression case…",
            "Open demo script…",
            "Quit",
        ],
        "&Edit": ["Copy", "Copy as command line", "Find in panel…"],
        "&View": [
            "Plan",
            "Linter",
            "Contract",
            "Tools",
            "Research",
            "Raw JSON",
            "External",
            "Regression",
            "Batch",
            "Compare",
            "History",
            "Focus prompt",
            "Zoom in",
            "Zoom out",
            "Actual size",
            "Presenter",
            "Presenter panel",
            "Next demo prompt",
            "Previous demo prompt",
            "Command palette…",
        ],
        "&Research": ["Run research", "Cancel research", "Research settings…"],
        "&Judgments": [
            window.judging.menu.current_action.text(),  # "Judging into «judged» (N prompts)"
            "New judged set…",
            "Switch to",
            "Merge into another set…",
            "Import labelled file…",
            "Export as labelled set…",
            "Quality",
            "Suggestions…",
        ],
        "&Help": ["Routescope help", "About Routescope"],
    }
    shortcuts = {
        window.open_rules_action: "Ctrl+O",
        window.quit_action: "Ctrl+Q",
        window.copy_action: "Ctrl+C",
        window.copy_command_action: "Ctrl+Shift+C",
        window.find_action: "Ctrl+F",
        window.help_action: "F1",
        window.tab_actions[1]: "Ctrl+2",
        window.research_action: "Ctrl+Return",
        window.cancel_research_action: "Esc",
        window.focus_prompt_action: "Ctrl+L",
        window.zoom_in_action: "Ctrl+=",
        window.zoom_out_action: "Ctrl+-",
        window.zoom_reset_action: "Ctrl+0",
        window.presenter.action: "F11",
        window.palette_action: "Ctrl+K",
        window.demo_next_action: "PgDown",
        window.demo_previous_action: "PgUp",
    }
    for action, keys in shortcuts.items():
        assert action.shortcut().toString() == keys
    window.tab_actions[6].trigger()
    assert window.views.currentWidget() is window.regress_view
    window.tab_actions[2].trigger()
    assert window.tabs.currentWidget() is window.contract_view


def test_copy_puts_the_selected_rows_on_the_clipboard(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("How do I install FastAPI on Ubuntu?")
    table = window.strategy_view.plan_table
    table.selectAll()
    table.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table)
    qtbot.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    lines = QGuiApplication.clipboard().text().splitlines()
    assert len(lines) == 2 and lines[0].split("\t")[:3] == ["1", "1", "tech.docs"]
    tree = window.strategy_view.context_tree
    tree.clearSelection()
    entities = tree.topLevelItem(0)
    assert entities is not None
    entities.setSelected(True)
    entities.child(0).setSelected(True)  # type: ignore[union-attr]
    tree.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tree)
    window.copy_action.trigger()
    first = entities.child(0)
    assert first is not None
    assert QGuiApplication.clipboard().text().splitlines() == [
        "Entities\t2 found\tbest first",
        f"1. ★\tFastAPI\t{first.text(2)}",
    ]


def test_every_table_and_tree_offers_copy_in_its_context_menu(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.set_prompt("pizza near me")
    tree = window.strategy_view.context_tree
    tree.topLevelItem(1).setSelected(True)  # type: ignore[union-attr]
    tree.customContextMenuRequested.emit(QPoint(5, 5))
    menu = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible())
    copy = menu.actions()[0]  # (then the row's judging)
    assert copy.text().startswith("Copy")
    copy.trigger()
    menu.close()
    assert QGuiApplication.clipboard().text().startswith("Place hint\t")
    views = [
        window.strategy_view.plan_table,
        window.linter_view.anchors,
        window.contract_view.tree,
        window.toolsearch_view.table,
        window.regress_view.cases,
        window.regress_view.diffs,
        window.regress_view.matrix,
    ]
    assert all(v.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu for v in views)


def test_help_and_about(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.help_action.trigger()
    window.about_action.trigger()
    boxes = {w.windowTitle(): w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog)}
    help_box, about_box = boxes["Routescope help"], boxes["About Routescope"]
    assert isinstance(help_box, HelpDialog) and "Ctrl+C" in help_box.text()
    assert isinstance(about_box, QMessageBox)
    about = about_box.text()
    assert routescope.__version__ in about and "MIT" in about and "Qt 6." in about
    for box in boxes.values():
        box.close()


def test_the_prompt_has_the_focus_at_start(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.editor)


def test_the_first_size_fits_the_screen_and_the_geometry_is_remembered(qtbot, qloop) -> None:  # type: ignore[no-untyped-def]
    QSettings("Routescope", "routescope-gui").remove("window/geometry")
    first = MainWindow()
    qtbot.addWidget(first)
    available = first.screen().availableGeometry()
    assert first.width() <= min(1280, available.width())
    assert first.height() <= min(720, available.height())
    first.resize(700, 500)
    first.close()
    second = MainWindow()
    qtbot.addWidget(second)
    assert (second.width(), second.height()) == (700, 500)


def test_copy_as_command_line_reproduces_the_live_view(  # type: ignore[no-untyped-def]
    qtbot, window, tmp_path, capsys
) -> None:
    """Ctrl+Shift+C: the copied `routescope inspect …` line, split as a shell does and run,
    gives the live view's inspection — prompt, date, rule pack, context, search settings."""
    import json
    import shlex

    from routescope.cli import main as routescope_main
    from routescope.contract import parse_context
    from routescope.toolsearch import SearchSettings

    pack = tmp_path / "my pack.toml"
    text = routescope.RulesRef.builtin().text.replace('name = "default"', 'name = "mine"', 1)
    pack.write_text(text, encoding="utf-8")
    assert window.open_rules(pack)
    window.session.set_context(
        parse_context({"last_action": {"tool": "lend_execute", "status": "cancelled"}})
    )
    window.session.set_search(SearchSettings(fusion="canonical"))
    window.set_prompt("Try again with 100 USDC — it's 'safe'?\nthanks")
    qtbot.waitUntil(lambda: window.session.inspection.result is not None)
    window.activateWindow()
    window.editor.setFocus()
    qtbot.waitUntil(lambda: window.editor.hasFocus())
    qtbot.keyClick(
        window.editor,
        Qt.Key.Key_C,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    line = QGuiApplication.clipboard().text()
    assert line.startswith("routescope inspect 'Try again") and "--no-tools" in line
    assert window.statusBar().currentMessage() == (
        "copied: routescope inspect … --today 2026-02-05 --rules … --context … "
        "--no-tools --search …"
    )
    words = shlex.split(line)
    capsys.readouterr()
    assert routescope_main(["inspect", "--json", *words[2:]]) == 0
    printed = json.loads(capsys.readouterr().out)
    live = window.session.inspection.result
    assert live is not None and live.decision is not None
    shown = json.loads(routescope.inspection_json(live))
    for data in (printed, shown):
        data.pop("timings_us")
    assert printed == shown and printed["rules"] == "mine"
    assert printed["decision"]["agent"] == live.decision.agent


def test_the_semantic_pack_votes_off_the_ui_thread_and_shows_why(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.semantic_rules_action.trigger()
    assert window.session.request.rules.load().name == "refined-semantic"
    with qtbot.waitSignal(window.session.inspection.inspected, timeout=60_000):
        window.set_prompt("get current observable value")
    qtbot.waitUntil(lambda: not window.session.busy, timeout=60_000)
    result = window.session.inspection.result
    assert result is not None and result.strategy == "tech"
    assert window.strategy_view.decision_panel.badge.text() == "TECH"
    row = window.strategy_view.context_tree.row("tech")
    assert row is not None and row.text(1) == "● on"
    assert row.text(2).startswith("vote: 5 of the 7 nearest public-tune examples are tech")
    tip = row.toolTip(2)
    assert "✓ 1.00  get current observable value" in tip


def test_the_refined_pack_is_one_menu_entry_away(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.refined_rules_action.trigger()
    assert window.session.request.rules.load().name == "refined"
    window.builtin_rules_action.trigger()
    assert window.session.request.rules.is_builtin
