"""The main window: it lays out the views and wires each to its feature model of the session
(`_wiring`), nothing more.

The live view (`_live_view`: the prompt, why the routers decided, the context, the strategy and
the result tabs), with the compare, regression, batch and history views beside it; the menus
and the rules-and-date bar (`_menus`); timings in the status bar. File dialogs are `_dialogs`';
what is kept between starts is `_window_state`'s; files are written and read by the models.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QDate, QEvent, QObject, Qt
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QGuiApplication,
    QIcon,
    QImage,
    QKeySequence,
    QPixmap,
    QResizeEvent,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._demo_model import DemoModel
from ._dialogs import Dialogs
from ._editor import Legend
from ._external import EXTERNAL, Externals
from ._file_intents import FileIntents
from ._find_bar import Findable, FindBar
from ._help import show_about, show_help
from ._judging import QUALITY, Judging
from ._live_view import RESULT_TABS, LiveView
from ._menus import Entry, MenuSpec, SettingsBar, fill_menus, make_action
from ._palette import CommandPalette, commands
from ._presenter import Presenter, PresenterParts
from ._research_settings import ResearchSettingsDialog
from ._rules_editor import RulesEditorDock, RulesEditorView
from ._session import Session
from ._style import Theme
from ._timing_bar import TimingBar
from ._view_intents import ViewIntents, sample_catalog
from ._view_tabs import HISTORY, VIEWS, ViewTabs
from ._widgets import copy_selection
from ._window_state import (
    Zoom,
    restore_layout,
    save_layout,
    save_research_settings,
    saved_research_settings,
)
from ._wiring import (
    connect_batch,
    connect_compare,
    connect_demo,
    connect_files,
    connect_history,
    connect_insight,
    connect_inspection,
    connect_regress,
    connect_research,
    connect_rules_editor,
    connect_tools,
)

if TYPE_CHECKING:
    from routescope import Inspection
    from routescope.research import ResearchSettings

__all__ = ["EXTERNAL", "HISTORY", "RESULT_TABS", "VIEWS", "MainWindow"]


def _findable(widget: QWidget) -> bool:
    """A table, tree or list, or a read-only text panel (the prompt is not one)."""
    if isinstance(widget, QPlainTextEdit):
        return widget.isReadOnly()
    return isinstance(widget, QAbstractItemView)


_NO_PROMPT = "Type a prompt: results update as you type."
_LEGEND_HEIGHT = 800
"""The least window height that shows the highlight legend under the prompt."""
_RULES_DOCK_SHARE, _RULES_DOCK_LEAST = 0.3, 300
"""The rule pack editor's width when it opens: this share of the window, at least this."""


class MainWindow(QMainWindow):
    """Routescope's window. The `Session`'s feature models compute; the views render what they
    report.

    Attributes:
        session: the model the views are wired to, each to its feature's model.
        live: the live view; editor, why_strip, legend, strategy_view, linter_view,
            contract_view, toolsearch_view, research_view, json_view, tabs, strategy_close,
            lint_close, tools_close, splitter, body, banner, demo_label: its parts.
        regress_view, batch_view, compare_view, history_view: the views beside it; views: the
            tabs of all of them.
        dialogs: the questions the window asks (files, a case id) and its messages.
    """

    def __init__(
        self,
        session: Session | None = None,
        *,
        cache: Path | None = None,
        restore: bool = False,
        open_history: bool = True,
    ) -> None:
        """`cache` is the tool-search cache folder of the session made here when none is
        given (default: the user's cache folder); `restore`: show the last session again (its
        prompt, tab, catalog, rules and date) once the history store is open; `open_history`:
        open the store now (`routescope-gui` opens it once the window is painted: its imports
        would slow the first paint down)."""
        super().__init__()
        self._restore = restore
        self.restores_last_session = restore
        """Whether the window came up to show the last session (and its routers file) again."""
        self._open_history = open_history
        self._rules_shown = "default"
        self._width_before_dock = 0
        self._before_dock: list[tuple[QSplitter, QByteArray]] = []
        self._context_gave_way = False
        """The Context pane is hidden while the rule editor is docked (`_give_way_to_dock`)."""
        self.setWindowTitle("Routescope")
        icon = routescope.resources_root() / "icons" / "routescope.svg"
        self.setWindowIcon(QIcon(QPixmap.fromImage(QImage.fromData(icon.read_bytes()))))
        self.theme = Theme(self)
        self.session = session or Session(cache=cache, parent=self)
        self.dialogs = Dialogs(self)
        say = self.statusBar().showMessage
        self.files = FileIntents(self.session, self.dialogs, show_live=self._show_live, say=say)
        self.asks = ViewIntents(
            self.session, self.dialogs, show_tab=self.show_tab, show_live=self._show_live, say=say
        )
        self._build_actions()
        self.settings_bar = SettingsBar((self.open_rules_action, self.builtin_rules_action))
        self.settings_bar.place(self)
        self.rules_label, self.today_edit = (
            self.settings_bar.rules_label,
            self.settings_bar.today_edit,
        )
        self._build_views()
        self._build_menus()
        self._wire()
        restore_layout(self)
        self.set_research_settings(saved_research_settings())
        self.zoom_state.apply(Zoom.saved())
        # The timings sit in a permanent widget: a menu's hints (transient messages) replace
        # only the message beside it.
        self.timing_bar = TimingBar()
        self.timing_bar.setVisible(False)
        self.timings_label = QLabel("")
        self.timings_label.setObjectName("timings")
        self.statusBar().addPermanentWidget(self.timing_bar)
        self.statusBar().addPermanentWidget(self.timings_label)
        self.statusBar().showMessage(_NO_PROMPT)
        self.editor.setFocus()
        if restore:
            self._show_last_prompt()

    # -- construction --------------------------------------------------------------------
    def _build_actions(self) -> None:
        keys, act = QKeySequence.StandardKey, make_action
        self.open_rules_action = act(self, "Open rule pack…", self._choose_rules, keys.Open)
        self.builtin_rules_action = act(self, "Built-in rules", self._use_builtin_rules)
        self.refined_rules_action = act(
            self, "Built-in refined rules", lambda: self._use_named_rules("refined")
        )
        self.semantic_rules_action = act(
            self,
            "Built-in refined-semantic rules",
            lambda: self._use_named_rules("refined-semantic"),
        )
        self.edit_rules_action = act(self, "Edit rule pack…", self.edit_rules, "Ctrl+E")
        self.open_catalog_action = act(self, "Open catalog…", self._choose_catalog)
        self.open_suite_action = act(self, "Open suite…", self.asks.choose_suite)
        files = self.files
        self.save_session_action = act(self, "Save session…", files.choose_session_save)
        self.open_session_action = act(self, "Open session…", files.choose_session_open)
        self.export_json_action = act(
            self, "Export inspection as JSON…", lambda: files.choose_export("json")
        )
        self.export_markdown_action = act(
            self, "Export inspection as Markdown…", lambda: files.choose_export("md")
        )
        self.save_case_action = act(self, "Save as regression case…", files.choose_case)
        self.quit_action = act(self, "Quit", self.close, "Ctrl+Q")
        self.copy_action = act(self, "Copy", self.copy, keys.Copy)
        self.find_action = act(self, "Find in panel…", self.find_in_panel, keys.Find)
        self.copy_command_action = act(
            self, "Copy as command line", self.copy_command_line, "Ctrl+Shift+C"
        )
        self.tab_actions = [
            self._tab_action(name, number)
            for number, name in enumerate((*RESULT_TABS, *VIEWS), start=1)
        ]
        self.history_action = act(self, HISTORY, lambda: self.show_tab(HISTORY), "Ctrl+H")
        self.research_action = act(
            self, "Run research", self.run_research, "Ctrl+Return", "Ctrl+Enter"
        )
        self.cancel_research_action = act(
            self, "Cancel research", self.session.research.cancel, "Esc"
        )
        self.research_settings_action = act(self, "Research settings…", self.edit_research_settings)
        self.help_action = act(self, "Routescope help", lambda: show_help(self), "F1")
        self.about_action = act(self, "About Routescope", lambda: show_about(self))
        self.focus_prompt_action = act(self, "Focus prompt", self.focus_prompt, "Ctrl+L", "F6")
        self.zoom_in_action = act(self, "Zoom in", lambda: self.zoom(1), "Ctrl+=", "Ctrl++")
        self.zoom_out_action = act(self, "Zoom out", lambda: self.zoom(-1), "Ctrl+-")
        self.zoom_reset_action = act(self, "Actual size", lambda: self.zoom(0), "Ctrl+0")
        self.palette_action = act(self, "Command palette…", self.show_palette, "Ctrl+K")
        self.open_demo_action = act(self, "Open demo script…", self._choose_demo)
        self.demo = DemoModel(self)
        self.demo_next_action = act(self, "Next demo prompt", self.demo.next, "PgDown")
        self.demo_previous_action = act(self, "Previous demo prompt", self.demo.previous, "PgUp")

    def _tab_action(self, name: str, number: int) -> QAction:
        def show() -> None:
            self.show_tab(name)

        return make_action(self, name, show, f"Ctrl+{number}")

    def _build_views(self) -> None:
        self.live = live = LiveView(render_contract=self._show_contract)
        self.editor, self.why_strip, self.legend = live.editor, live.why_strip, live.legend
        self.strategy_view, self.linter_view = live.strategy_view, live.linter_view
        self.contract_view, self.toolsearch_view = live.contract_view, live.toolsearch_view
        self.research_view, self.json_view, self.tabs = (
            live.research_view,
            live.json_view,
            live.tabs,
        )
        self.strategy_close, self.lint_close = live.strategy_close, live.lint_close
        self.tools_close, self.splitter, self.body = live.tools_close, live.splitter, live.body
        self.banner, self.demo_label = live.banner, live.demo_label
        self.views = views = ViewTabs(live)
        self.regress_view, self.batch_view = views.regress_view, views.batch_view
        self.compare_view, self.history_view = views.compare_view, views.history_view
        self.find_bar = FindBar()
        self.find_bar.closed.connect(self._found)
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(views, 1)
        column.addWidget(self.find_bar)
        self.setCentralWidget(central)
        self.zoom_state = Zoom(self, self.theme)
        self.presenter = Presenter(
            PresenterParts(
                window=self,
                live=self.live,
                body=self.body,
                hidden=self._presenter_hides,
                cancel_research=self.cancel_research_action,
                zoom=self.zoom_state,
                theme=self.theme,
                show_tab=self.show_tab,
                show_live=self._show_live,
                prompt=self.editor,
            ),
            RESULT_TABS,
        )

    def _show_live(self) -> None:
        self.views.setCurrentWidget(self.live)

    def _presenter_hides(self) -> list[QWidget]:
        # (the rules and date bar sits in the menu bar's corner: hidden with it)
        context = self.splitter.widget(0)  # the Context pane
        assert context is not None
        hidden: list[QWidget] = [self.menuBar(), self.statusBar(), context, self.why_strip]
        hidden.append(self.strategy_view.decision_panel.task)  # (the badge's detail: room for type)
        return [*hidden, self.views.tabBar(), *self.findChildren(Legend), self.rules_dock]

    def _build_menus(self) -> None:
        file: list[Entry] = [
            self.open_rules_action,
            self.builtin_rules_action,
            self.refined_rules_action,
            self.semantic_rules_action,
        ]
        file += [self.edit_rules_action, self.open_catalog_action, self.open_suite_action, None]
        file += [self.save_session_action, self.open_session_action, self.export_json_action]
        file += [self.export_markdown_action, self.save_case_action, self.open_demo_action]
        view: list[Entry] = [*self.tab_actions, self.history_action, None]
        view += [self.focus_prompt_action, self.zoom_in_action, self.zoom_out_action]
        view += [self.zoom_reset_action, None, self.presenter.action, self.presenter.panel_menu]
        view += [self.demo_next_action, self.demo_previous_action, self.palette_action]
        research = [self.research_action, self.cancel_research_action]
        menus: list[MenuSpec] = [
            ("&File", [*file, None, self.quit_action]),
            ("&Edit", [self.copy_action, self.copy_command_action, self.find_action]),
            ("&View", view),
            ("&Research", [*research, self.research_settings_action]),
            ("&Help", [self.help_action, self.about_action]),
        ]
        fill_menus(self, menus)

    def _wire(self) -> None:
        session = self.session
        session.changed.connect(self._request_changed)
        self.editor.textChanged.connect(lambda: session.set_text(self.editor.toPlainText()))
        self.editor.installEventFilter(self)
        self.today_edit.dateChanged.connect(
            lambda date: session.set_today(dt.date(date.year(), date.month(), date.day()))
        )
        self.tabs.currentChanged.connect(self._page_changed)
        self.views.currentChanged.connect(self._page_changed)
        connect_inspection(
            session.inspection,
            session,
            self.contract_view,
            show=self._show_inspection,
            fail=self._show_failure,
            show_plan=self._show_contract,
        )
        connect_tools(
            self.toolsearch_view, session.tools, session, choose_catalog=self._choose_catalog
        )
        connect_research(
            self.research_view,
            session.research,
            run=self.run_research,
            edit_settings=self.edit_research_settings,
            save=self._save_research_report,
        )
        asks = self.asks
        connect_regress(
            self.regress_view,
            session.regress,
            choose_suite=asks.choose_suite,
            open_case=asks.open_case,
        )
        connect_batch(self.batch_view, session.batch, open_prompt=asks.open_batch_prompt)
        connect_compare(
            self.compare_view,
            session.compare,
            set_prompt=self.set_prompt,
            choose_rules=asks.choose_rules_b,
            choose_catalog=asks.choose_catalog_b,
            choose_suite=asks.choose_compare_suite,
            open_case=asks.open_compare_case,
        )
        connect_insight(
            session.insight,
            self.why_strip,
            self.strategy_view.context_tree,
            self.strategy_view.plan_table,
            mark=self.editor.show_marks,
            close_lines=(self.strategy_close, self.lint_close, self.tools_close),
        )
        say = self.statusBar().showMessage
        connect_history(
            self.history_view, session.history, open_entry=asks.open_history_entry, fail=say
        )
        connect_files(session, self.files)
        session.history.opened.connect(self._restore_last_session)
        session.history.failed.connect(self._restore_last_session)
        if self._open_history:
            session.history.start()
        self.rules_editor_view = RulesEditorView()
        self.rules_dock = RulesEditorDock(self.rules_editor_view, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.rules_dock)
        self.rules_dock.hide()
        self.rules_dock.close_requested.connect(self.close_rules_editor)
        connect_rules_editor(self.rules_editor_view, session.rules_editor)
        session.rules_editor.saved.connect(self._show_rules)
        self.judging = Judging(self)  # judgments, the Quality view, suggestions
        session.insight.set_enabled(True)  # the live view is shown first
        connect_demo(
            self.demo,
            self.demo_label,
            set_prompt=self._show_demo_prompt,
            prompt_changed=self.editor.textChanged,
            prompt=self.editor.toPlainText,
            fail=lambda message: self.dialogs.tell("Open demo script", message),
            actions=(self.demo_next_action, self.demo_previous_action),
        )
        self.externals = Externals(self)  # the External panel, its routers file, compare
        self.tabs.currentChanged.connect(
            lambda at: self.presenter.show_panel(self.live.tab_names[at])
        )
        self.presenter.show_panel(RESULT_TABS[0])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.editor and event.type() == QEvent.Type.FocusOut:
            self.session.history.commit()  # the prompt was left: it is the one settled on
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        # Below 800 px the legend's line goes to the result tables (each highlight in the
        # prompt names what it is on hover).
        self.legend.setVisible(event.size().height() >= _LEGEND_HEIGHT)
        super().resizeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._settle_rule_edits():
            event.ignore()
            return
        if not self.rules_dock.isHidden():
            self._hide_rules_dock()  # the layout kept is the panels' own
        save_layout(self)
        self.session.history.save_last_session(self.editor.toPlainText(), self.current_tab())
        self.session.close()
        super().closeEvent(event)

    # -- actions ---------------------------------------------------------------------------
    def focus_prompt(self) -> None:
        """View ▸ Focus prompt (Ctrl+L, F6): back to the prompt from any view, tab or tree."""
        self._show_live()
        self.editor.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def zoom(self, step: int) -> None:
        """View ▸ Zoom in (+1, Ctrl+=), out (-1, Ctrl+-), actual size (0, Ctrl+0): the whole
        window's font, for demos; kept for the next start."""
        self.zoom_state.apply(self.zoom_state.steps + step if step else 0)
        Zoom.save(self.zoom_state.steps - self.presenter.zoom_offset)  # the analyst's

    @property
    def zoom_steps(self) -> int:
        """How many 1-point steps the window's font is above (below) its normal size."""
        return self.zoom_state.steps

    def show_palette(self) -> CommandPalette:
        """View ▸ Command palette (Ctrl+K): every action by its menu path and shortcut."""
        found = commands(self.menuBar(), self.actions(), skip=[self.palette_action])
        palette = CommandPalette(self, found)
        palette.popup()
        return palette

    def open_demo(self, path: str | Path) -> bool:
        """File ▸ Open demo script…: prompts to step through with PageDown / PageUp (one per
        line, `# caption` above); shows the first one."""
        opened = self.demo.open(path)
        if opened:
            self._show_live()
        return opened

    def _choose_demo(self) -> None:
        path = self.dialogs.open_path("Open demo script", "Demo scripts (*.txt);;All files (*)")
        if path:
            self.open_demo(path)

    def _show_demo_prompt(self, text: str) -> None:
        self._show_live()
        self.set_prompt(text)

    def set_prompt(self, text: str) -> None:
        """Replace the prompt, as if it had been typed."""
        self.editor.setPlainText(text)

    def set_today(self, day: dt.date) -> None:
        self.today_edit.setDate(QDate(day.year, day.month, day.day))

    def open_rules(self, path: str | Path) -> bool:
        """Use a rule pack file; when it does not validate, keep the current pack and say why."""
        try:
            rules = routescope.RulesRef.from_path(path)
        except routescope.RoutescopeError as exc:
            self.live.show_banner(str(exc))
            return False
        self.live.show_banner("")
        self.session.set_rules(rules)
        return True

    def set_research_settings(self, settings: ResearchSettings) -> None:
        self.research_view.show_backends(settings)
        self.session.research.set_settings(settings)

    def run_research(self) -> None:
        """Research ▸ Run (Ctrl+Enter): show the research and run it on the prompt now (the
        prompt is recorded in the history now, settled or not)."""
        self.session.history.commit()
        self.show_tab("Research")
        self.session.research.run()

    def edit_research_settings(self) -> None:
        """Research ▸ Settings…: providers, model and keys; kept for the next start."""
        research = self.session.research
        current = research.settings or routescope.research.ResearchSettings()
        dialog = ResearchSettingsDialog(current, research.key_store(), self)
        if dialog.exec() != ResearchSettingsDialog.DialogCode.Accepted:
            return
        settings = dialog.settings()
        save_research_settings(settings)
        self.set_research_settings(settings)

    def _save_research_report(self) -> None:
        folder = self.dialogs.folder("Save the report (report.md, report.json)")
        if folder:
            self.session.research.save_report(Path(folder))

    def show_tab(self, name: str) -> None:
        """Bring a result tab (Plan, Linter, …), the Regression, Batch, Compare or History view
        to the front."""
        if not self.views.show_view(name):
            self._show_live()
            self.tabs.setCurrentIndex(self.live.tab_names.index(name))

    def current_tab(self) -> str:
        """The name of the view or result tab shown (as `show_tab` takes it)."""
        return self.views.shown_view() or self.live.tab_names[max(self.tabs.currentIndex(), 0)]

    def copy(self) -> None:
        """Edit ▸ Copy: the selection of the table or tree that has the focus, tab-separated."""
        focus = QApplication.focusWidget()
        if isinstance(focus, QAbstractItemView):
            copy_selection(focus)
        elif isinstance(focus, QPlainTextEdit | QLineEdit):
            focus.copy()

    def copy_command_line(self) -> str:
        """Edit ▸ Copy as command line (Ctrl+Shift+C): the `routescope inspect …` line that
        routes the prompt as the live view does (its date, rule pack file, context, catalog and
        search settings), quoted for a shell; what it cannot carry is said. Returns it."""
        request = self.session.request
        if not request.text.strip():
            self.statusBar().showMessage("nothing to copy: type a prompt first")
            return ""
        from routescope.cli import command_line

        line = command_line(request)
        QGuiApplication.clipboard().setText(line.text)
        said = "; ".join(line.caveats)
        # The line's shape (its long values elided: the status line is short); all of it is
        # on the clipboard.
        shape = " ".join(
            word if word.startswith("-") or len(word) <= 12 else "…" for word in line.argv
        )
        self.statusBar().showMessage(
            f"command line copied — but {said}" if said else f"copied: {shape}"
        )
        return line.text

    def find_in_panel(self) -> None:
        """Edit ▸ Find in panel (Ctrl+F): filter the rows of the table or tree in focus — from
        the prompt, the result tab's — or find in a text panel (Raw JSON)."""
        found = self._find_target()
        if found is not None:
            self.find_bar.open_on(*found)

    def _find_target(self) -> tuple[Findable, str] | None:
        widget = QApplication.focusWidget()
        while widget is not None and widget is not self:
            if _findable(widget) and widget.isVisible():
                return widget, self._panel_name(widget)  # type: ignore[return-value]
            widget = widget.parentWidget()
        live = self.views.currentWidget() is self.live
        page = self.tabs.currentWidget() if live else self.views.currentWidget()
        if page is None:
            return None
        shown = [
            view
            for view in (
                page,
                *page.findChildren(QAbstractItemView),
                *page.findChildren(QPlainTextEdit),
            )
            if _findable(view) and view.isVisible()
        ]
        if not shown:
            return None
        largest = max(shown, key=lambda view: view.width() * view.height())
        return largest, self._panel_name(largest)  # type: ignore[return-value]

    def _panel_name(self, view: QWidget) -> str:
        if view is self.strategy_view.context_tree:
            return "Context"
        return self.current_tab()

    def _found(self) -> None:
        """The find bar closed: the focus goes back where it was found."""
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def edit_rules(self) -> None:
        """File ▸ Edit rule pack… (Ctrl+E): the current pack's TOML, applied as it is edited,
        docked beside the results it changes (already open: it gets the focus)."""
        dock = self.rules_dock
        if dock.isHidden():
            self.session.rules_editor.open()
            self._width_before_dock = self.width()
            # The panels give the editor room: their splitters' shares come back when it goes.
            self._before_dock = [(splitter, splitter.saveState()) for splitter in self._splitters]
            dock.show()
            if not dock.isFloating():
                width = max(_RULES_DOCK_LEAST, round(self.width() * _RULES_DOCK_SHARE))
                self.resizeDocks([dock], [width], Qt.Orientation.Horizontal)
                self._context_gave_way = self._give_way_to_dock()
        dock.raise_()
        self.rules_editor_view.text_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def close_rules_editor(self) -> bool:
        """Esc in the rule pack editor, or its close button: unsaved edits are saved or
        discarded first (the analyst is asked); False when the analyst chose to go on."""
        if self.rules_dock.isHidden():
            return True
        if not self._settle_rule_edits():
            return False
        self.session.rules_editor.close()
        self._hide_rules_dock()
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def _give_way_to_dock(self) -> bool:
        """In a window too narrow for the Context pane, the result tabs and the editor side by
        side (1024 px), the Context pane gives way while the editor is docked, rather than the
        live view scrolling sideways: True when it did (it comes back with the panels' split
        when the editor goes)."""
        layout = self.layout()
        if layout is not None:
            layout.activate()
        room = self.live.body_scroll.viewport().width()
        if self.body.minimumSizeHint().width() <= room:
            return False
        context = self.splitter.widget(0)
        assert context is not None
        context.hide()
        return True

    @property
    def _splitters(self) -> tuple[QSplitter, ...]:
        return (self.splitter, self.body)

    def _hide_rules_dock(self) -> None:
        """The editor goes; the panels get their width back, split as before it came, and a
        window the editor had to widen (no wider than it needed) its width."""
        needed = self.minimumSizeHint().width()
        self.rules_dock.hide()
        if self._context_gave_way:
            context = self.splitter.widget(0)
            assert context is not None
            context.show()
            self._context_gave_way = False
        layout = self.layout()
        if layout is not None:
            layout.activate()  # the live view has its width back now, not at the next pass
        before = self._width_before_dock
        if before < self.width() <= needed and not self.isMaximized() and not self.isFullScreen():
            self.resize(before, self.height())
            if layout is not None:
                layout.activate()
        for splitter, state in self._before_dock:
            splitter.restoreState(state)
        self._before_dock = []

    def _settle_rule_edits(self) -> bool:
        """Unsaved edits of the rule pack are live: ask whether to save them or to discard
        them (the saved pack comes back); False when the analyst cancels (or a save failed,
        its reason in the editor)."""
        model = self.session.rules_editor
        if self.rules_dock.isHidden() or not model.dirty:
            return True
        answer = self.dialogs.unsaved_rules(self.session.request.rules.load().name)
        if answer == "discard":
            model.revert()
            return True
        if answer == "cancel":
            return False
        path = None
        if model.needs_path:
            path = self.dialogs.save_path("Save rule pack as", "Rule packs (*.toml)")
            if not path:
                return False
        return model.save(path)

    def _use_builtin_rules(self) -> None:
        self._use_named_rules("default")

    def _use_named_rules(self, name: str) -> None:
        """A pack shipped with Routescope: `default` (the seeds), `refined` or `refined-semantic`
        (issue 26)."""
        if not self._settle_rule_edits():
            return
        self.live.show_banner("")
        self.session.set_rules(routescope.RulesRef.named(name))

    def _choose_rules(self) -> None:
        if not self._settle_rule_edits():
            return
        path = self.dialogs.open_path("Open rule pack", "Rule packs (*.toml)")
        if path:
            self.open_rules(path)

    def _choose_catalog(self) -> None:
        catalog = self.session.request.catalog
        path = self.dialogs.catalog(Path(catalog.path) if catalog else sample_catalog())
        if path:
            self.open_catalog(path)

    def open_catalog(self, path: str | Path) -> None:
        """Rank the tools of a catalog (a folder of SKILL.md files or a JSON file of tools, in
        any format the core reads); the Tools tab's status names the format it found."""
        self.show_tab("Tools")
        self.session.tools.open_catalog(path)

    def _page_changed(self) -> None:
        """Tools are ranked, the prompt researched and compared, only while someone looks;
        the prompt as it stands goes to the history."""
        self.session.history.commit()
        self.session.compare.set_enabled(self.views.currentWidget() is self.compare_view)
        live = self.views.currentWidget() is self.live
        self.session.insight.set_enabled(live)
        page = self.tabs.currentWidget()
        self.session.tools.set_enabled(live and page is self.toolsearch_view)
        self.session.research.set_enabled(live and page is self.research_view)

    # -- the last session ------------------------------------------------------------------
    def _show_last_prompt(self) -> None:
        """The last session's prompt at once, before the routers load: its results, rules,
        catalog, date and tab follow when the history store is open."""
        prompt = self.session.history.peek_last_prompt()
        if prompt:
            self.editor.blockSignals(True)
            self.editor.setPlainText(prompt)
            self.editor.blockSignals(False)
            self.editor.moveCursor(QTextCursor.MoveOperation.End)

    def _restore_last_session(self, _note: object = None) -> None:
        """The history store is open (or failed to): show what the window showed when it last
        closed."""
        if not self._restore:
            return
        self._restore = False
        last = self.session.history.last_session()
        if last is None:  # (the prompt shown early, if any, is inspected as it stands)
            self.session.set_text(self.editor.toPlainText())
            return
        if last.rules:
            self.open_rules(last.rules)
        if last.today is not None:
            self.set_today(last.today)
        if last.catalog and Path(last.catalog).exists():
            self.session.tools.open_catalog(last.catalog)
        shown = self.editor.toPlainText()
        if last.prompt and not shown:
            self.set_prompt(last.prompt)
        elif shown == last.prompt:  # shown before the first paint, not inspected yet
            self.session.set_text(shown)
        if last.tab in (*self.live.tab_names, *VIEWS, HISTORY, QUALITY):
            self.show_tab(last.tab)

    # -- rendering -----------------------------------------------------------------------
    def _request_changed(self, field: str) -> None:
        """Controls follow the request when it changed elsewhere (a case opened live)."""
        request = self.session.request
        if field in ("request", "today"):
            self.set_today(request.today)
        if field in ("request", "rules"):
            self._show_rules()
            editor = self.session.rules_editor
            following = not self.rules_dock.isHidden() and not editor.dirty
            if following and not editor.shows(request.rules):
                editor.open()  # the editor follows a pack opened elsewhere
        if field in ("request", "search"):
            self.toolsearch_view.show_settings(request.search)
        if field in ("request", "text"):
            self.compare_view.show_text_a(request.text)
        if field == "request":
            self.contract_view.show_context(request.context)
            if self.editor.toPlainText() != request.text:
                self.editor.setPlainText(request.text)

    def _show_rules(self, *_saved: object) -> None:
        """The pack in use beside the menus: its name and file, `*` while it is an edit not
        saved."""
        rules = self.session.request.rules
        editor = self.session.rules_editor
        edited = editor.unsaved(rules)
        name = rules.load().name + ("*" if edited else "")
        builtin = rules.is_builtin or (edited and editor.is_builtin)
        source = "built-in" if builtin else Path(rules.source).name
        note = ", edited" if edited else ""
        where = "the built-in pack" if builtin else rules.source
        tooltip = f"rule pack «{rules.load().name}» from {where}"
        if edited:
            tooltip += "\nedited in the rule pack editor and not saved (Esc there: save or discard)"
        self.settings_bar.show_rules(f"{name}  ({source}{note})", tooltip)
        self._rules_shown = name

    def _show_inspection(self, inspection: Inspection | None) -> None:
        self.live.show_inspection(inspection)
        self.timing_bar.show_timings(inspection.timings_us if inspection else None)
        self.timing_bar.setVisible(inspection is not None)
        if inspection is None:
            self.timings_label.setText("")
            self.statusBar().showMessage(_NO_PROMPT)
            return
        # The stages' µs and shares are the bar's (and its tooltip's): the line keeps its room
        # for the messages beside it.
        total = inspection.timings_us.get("total", sum(inspection.timings_us.values()))
        self.timings_label.setText(
            f"total {total:,.0f} µs    rules: {self._rules_shown}    "
            f"today: {inspection.today.isoformat()}"
        )
        self.timings_label.setToolTip(
            " · ".join(f"{stage} {us:,.0f} µs" for stage, us in inspection.timings_us.items())
        )
        if self.statusBar().currentMessage() == _NO_PROMPT:
            self.statusBar().clearMessage()

    def _show_failure(self, message: str) -> None:
        self._show_inspection(None)
        self.statusBar().showMessage(f"cannot inspect: {message}")

    def _show_contract(self) -> None:
        model = self.session.inspection
        self.contract_view.show_result(
            model.result.decision if model.result else None,
            model.plan_progress(),
            len(model.plan_results),
        )
