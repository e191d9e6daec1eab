"""The main window: it lays out the views and wires each to its feature model of the session
(`_wiring`), nothing more.

Prompt on top; the context and the strategy below; the plan, linter, contract, tools, research
and raw JSON in tabs (a hidden tab is filled when it is shown); under the prompt, why the routers
decided (the words that matter, a trace), with close calls beside their decisions; the compare,
regression and batch views beside the live one; timings in the status bar.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QDate, QSettings, Qt
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
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
    QBoxLayout,
    QDateEdit,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._batch_view import BatchView
from ._catalog_dialog import choose_catalog
from ._compare_view import CompareView
from ._contract_view import ContractView
from ._demo_model import DemoModel
from ._editor import Legend, PromptEditor, highlights
from ._help import show_about, show_help
from ._history_view import HistoryView
from ._linter_view import LinterView
from ._palette import CommandPalette, commands
from ._presenter import DemoLabel, Presenter
from ._regress_view import RegressView
from ._research_settings import ResearchSettingsDialog
from ._research_view import ResearchView
from ._rules_editor import RulesEditorView
from ._session import Session
from ._strategy_view import StrategySlice, StrategyView
from ._style import Theme
from ._toolsearch_view import ToolSearchView
from ._why_strip import CloseCallLine, WhyStrip
from ._widgets import LazyTabs, SteadyTabs, copy_selection
from ._wiring import (
    connect_batch,
    connect_compare,
    connect_demo,
    connect_history,
    connect_insight,
    connect_inspection,
    connect_regress,
    connect_research,
    connect_rules_editor,
    connect_tools,
)

if TYPE_CHECKING:
    from routescope import Inspection, Request
    from routescope.batch import PromptRef
    from routescope.history import LastSession
    from routescope.research import ResearchSettings

__all__ = ["MainWindow"]

RESULT_TABS = ("Plan", "Linter", "Contract", "Tools", "Research", "Raw JSON")
"""The tabs under the strategy, in order (View ▸ Ctrl+1 … Ctrl+6); "Regression" is Ctrl+7."""
VIEWS = ("Regression", "Batch", "Compare")
"""The views beside the live one (View ▸ Ctrl+7, Ctrl+8, Ctrl+9); Compare sits next to Live."""
HISTORY = "History"
"""The history of inspected prompts, the last view (View ▸ Ctrl+H)."""
_SETTINGS = ("Routescope", "routescope-gui")
_FIRST_SIZE = (1280, 720)
"""The largest first size: it fits a 1366×768 screen with its panels and title bar."""
_NO_PROMPT = "Type a prompt: results update as you type."
_CASE_TABS = {"strategy": "Plan", "linter": "Linter", "contract": "Contract", "tools": "Tools"}
"""The tab a regression case opens on, by its suite's router."""
_LEGEND_HEIGHT = 800
"""The least window height that shows the highlight legend under the prompt."""
_MAX_ZOOM = 16
"""The most 1-point steps the window's font grows (View ▸ Zoom in)."""


class MainWindow(QMainWindow):
    """Routescope's window. The `Session`'s feature models compute; the views render what they
    report.

    Attributes:
        session: the model the views are wired to, each to its feature's model.
        editor: the prompt; strategy_view, linter_view, contract_view, toolsearch_view,
            research_view, regress_view, batch_view, compare_view: the routers' views;
            json_view: the raw inspection; why_strip: the words that matter and the trace;
            strategy_close, lint_close, tools_close: the close calls beside their decisions.
        tabs: the result tabs; views: the live, regression and batch views; splitter: the context
            beside the strategy and the tabs; body: the prompt above them.
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
        self._open_history = open_history
        self._case_before: tuple[str, Request] | None = None
        self.setWindowTitle("Routescope")
        icon = routescope.resources_root() / "icons" / "routescope.svg"
        self.setWindowIcon(QIcon(QPixmap.fromImage(QImage.fromData(icon.read_bytes()))))
        self.theme = Theme(self)
        self.session = session or Session(cache=cache, parent=self)
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_body()
        self._wire()
        self._restore_geometry()
        self._restore_splitters()
        self._restore_research_settings()
        self._base_point_size = self.font().pointSizeF()
        self._zoom_steps = 0
        self._apply_zoom(_saved_int(QSettings(*_SETTINGS).value("window/zoom")))
        # The timings sit in a permanent widget: a menu's hints (transient messages) replace
        # only the message beside it.
        self.timings_label = QLabel("")
        self.timings_label.setObjectName("timings")
        self.statusBar().addPermanentWidget(self.timings_label)
        self.statusBar().showMessage(_NO_PROMPT)
        self.editor.setFocus()
        if restore:
            self._show_last_prompt()

    # -- construction --------------------------------------------------------------------
    def _action(
        self,
        text: str,
        slot: Callable[[], object],
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        keys = QKeySequence.StandardKey
        self.open_rules_action = self._action("Open rule pack…", self._choose_rules, keys.Open)
        self.builtin_rules_action = self._action("Built-in rules", self._use_builtin_rules)
        self.edit_rules_action = self._action("Edit rule pack…", self.edit_rules, "Ctrl+E")
        self.open_catalog_action = self._action("Open catalog…", self._choose_catalog)
        self.open_suite_action = self._action("Open suite…", self._choose_suite)
        self.save_session_action = self._action("Save session…", self._choose_session_save)
        self.open_session_action = self._action("Open session…", self._choose_session_open)
        self.export_json_action = self._action(
            "Export inspection as JSON…", lambda: self._choose_export("json")
        )
        self.export_markdown_action = self._action(
            "Export inspection as Markdown…", lambda: self._choose_export("md")
        )
        self.save_case_action = self._action(
            "Save as regression case…", self._choose_regression_case
        )
        self.quit_action = self._action("Quit", self.close, "Ctrl+Q")
        self.copy_action = self._action("Copy", self.copy, keys.Copy)
        self.tab_actions = [
            self._tab_action(name, number)
            for number, name in enumerate((*RESULT_TABS, *VIEWS), start=1)
        ]
        self.history_action = self._action(HISTORY, lambda: self.show_tab(HISTORY), "Ctrl+H")
        self.research_action = self._action("Run research", self.run_research, "Ctrl+Return")
        self.research_action.setShortcuts([QKeySequence("Ctrl+Return"), QKeySequence("Ctrl+Enter")])
        self.cancel_research_action = self._action(
            "Cancel research", self.session.research.cancel, "Esc"
        )
        self.research_settings_action = self._action(
            "Research settings…", self.edit_research_settings
        )
        self.help_action = self._action("Routescope help", lambda: show_help(self), "F1")
        self.about_action = self._action("About Routescope", lambda: show_about(self))
        self.focus_prompt_action = self._action("Focus prompt", self.focus_prompt, "Ctrl+L")
        self.focus_prompt_action.setShortcuts([QKeySequence("Ctrl+L"), QKeySequence("F6")])
        self.zoom_in_action = self._action("Zoom in", lambda: self.zoom(1), "Ctrl+=")
        self.zoom_in_action.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.zoom_out_action = self._action("Zoom out", lambda: self.zoom(-1), "Ctrl+-")
        self.zoom_reset_action = self._action("Actual size", lambda: self.zoom(0), "Ctrl+0")
        self.presenter = Presenter(self, RESULT_TABS)
        self.palette_action = self._action("Command palette…", self.show_palette, "Ctrl+K")
        self.open_demo_action = self._action("Open demo script…", self._choose_demo)
        self.demo = DemoModel(self)
        self.demo_next_action = self._action("Next demo prompt", self.demo.next, "PgDown")
        self.demo_previous_action = self._action("Previous demo prompt", self.demo.previous, "PgUp")

    def _tab_action(self, name: str, number: int) -> QAction:
        def show() -> None:
            self.show_tab(name)

        return self._action(name, show, f"Ctrl+{number}")

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        for action in (
            self.open_rules_action,
            self.builtin_rules_action,
            self.edit_rules_action,
            self.open_catalog_action,
            self.open_suite_action,
        ):
            file.addAction(action)
        file.addSeparator()
        for action in (
            self.save_session_action,
            self.open_session_action,
            self.export_json_action,
            self.export_markdown_action,
            self.save_case_action,
            self.open_demo_action,
        ):
            file.addAction(action)
        file.addSeparator()
        file.addAction(self.quit_action)
        bar.addMenu("&Edit").addAction(self.copy_action)
        view = bar.addMenu("&View")
        for action in self.tab_actions:
            view.addAction(action)
        view.addAction(self.history_action)
        view.addSeparator()
        for action in (
            self.focus_prompt_action,
            self.zoom_in_action,
            self.zoom_out_action,
            self.zoom_reset_action,
        ):
            view.addAction(action)
        view.addSeparator()
        view.addAction(self.presenter.action)
        view.addMenu(self.presenter.panel_menu)
        view.addAction(self.demo_next_action)
        view.addAction(self.demo_previous_action)
        view.addAction(self.palette_action)
        # The window holds them too: their shortcuts then work while presenter mode hides the
        # menu bar (a hidden menu bar's actions take no keys).
        for entry in bar.actions():
            if isinstance(menu := entry.menu(), QMenu):
                self.addActions(menu.actions())
        research = bar.addMenu("&Research")
        for action in (
            self.research_action,
            self.cancel_research_action,
            self.research_settings_action,
        ):
            research.addAction(action)
        help_menu = bar.addMenu("&Help")
        help_menu.addAction(self.help_action)
        help_menu.addAction(self.about_action)

    def _build_toolbar(self) -> None:
        # Beside the menus rather than on a line of its own: that line goes to the results.
        self.settings_bar = bar = QWidget()
        bar.setObjectName("settingsBar")
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 0, 6, 0)
        row.addWidget(QLabel("rules:"))
        self.rules_label = QLabel("default (built-in)")
        self.rules_label.setObjectName("muted")
        row.addWidget(self.rules_label)
        for action in (self.open_rules_action, self.builtin_rules_action):
            button = QToolButton()
            button.setDefaultAction(action)
            button.setAutoRaise(True)
            row.addWidget(button)
        row.addSpacing(12)
        row.addWidget(QLabel("today:"))
        # The routers' default date is the local date too; the session's request says so
        # once it is built (the date routers see is always the request's).
        self.today_edit = QDateEdit(QDate.currentDate())
        self.today_edit.setCalendarPopup(True)
        self.today_edit.setDisplayFormat("yyyy-MM-dd")
        row.addWidget(self.today_edit)
        self.menuBar().setCornerWidget(bar, Qt.Corner.TopRightCorner)

    def _build_body(self) -> None:
        self.editor = PromptEditor()
        self.editor.setMinimumHeight(60)
        prompt_box = QGroupBox("Prompt")
        prompt_layout = QVBoxLayout(prompt_box)
        self.why_strip = WhyStrip()
        prompt_layout.addWidget(self.editor)
        prompt_layout.addWidget(self.why_strip)
        self.legend = Legend()
        prompt_layout.addWidget(self.legend)

        self.strategy_view = StrategyView()
        context_box = QGroupBox("Context")
        QVBoxLayout(context_box).addWidget(self.strategy_view.context_tree)

        self.linter_view = LinterView()
        self.contract_view = ContractView()
        self.toolsearch_view = ToolSearchView()
        self.research_view = ResearchView()
        self.json_view = QPlainTextEdit(readOnly=True)
        self.json_view.setObjectName("json")
        self.tabs = LazyTabs()
        pages: tuple[tuple[QWidget, Callable[[], None] | None], ...] = (
            (self.strategy_view.plan_table, None),
            (self.linter_view, self._show_lint),
            (self.contract_view, self._show_contract),
            (self.toolsearch_view, None),
            (self.research_view, None),
            (self.json_view, self._show_json),
        )
        for title, (page, render) in zip(RESULT_TABS, pages, strict=True):
            self.tabs.add_page(page, title, render)
        # Close calls under the decision each concerns: the strategy badge, the linter's class,
        # the tools' fit line.
        self.strategy_close = CloseCallLine(("strategy",))
        self.lint_close = CloseCallLine(("lint.query_class",))
        self.tools_close = CloseCallLine(("tools.fits", "tools.top"))
        _insert_under(self.strategy_view.decision_panel, self.strategy_close)
        _insert_under(self.linter_view, self.lint_close)
        _insert_under(
            self.toolsearch_view, self.tools_close, self.toolsearch_view.verdict.parentWidget()
        )
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.strategy_view.decision_panel)
        right_layout.addWidget(self.tabs, 1)

        self.splitter = QSplitter()
        self.splitter.setObjectName("context")
        self.splitter.addWidget(context_box)
        self.splitter.addWidget(right)
        self.splitter.setSizes([480, 800])
        self.body = body = QSplitter(Qt.Orientation.Vertical)
        self.body.setObjectName("body")
        body.addWidget(prompt_box)
        body.addWidget(self.splitter)
        body.setSizes([100, 620])
        self.banner = QLabel("")
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        self.live = QWidget()
        self.live.setObjectName("central")
        layout = QVBoxLayout(self.live)
        self.demo_label = DemoLabel()
        layout.addWidget(self.demo_label)
        layout.addWidget(self.banner)
        layout.addWidget(body, 1)
        self.regress_view = RegressView()
        self.views = SteadyTabs()
        self.views.setDocumentMode(True)
        self.views.addTab(self.live, "Live")
        self.views.addTab(self.regress_view, "Regression")
        self.batch_view = BatchView()
        self.views.addTab(self.batch_view, "Batch")
        self.compare_view = CompareView()
        self.views.insertTab(1, self.compare_view, "Compare")
        self.history_view = HistoryView()
        self.views.addTab(self.history_view, HISTORY)
        # An explicit minimum: the banner (a rule-pack error) then takes its room from the
        # body instead of growing the window past the screen (the views' own hint is ~720 px).
        self.views.setMinimumSize(480, 320)
        self.setCentralWidget(self.views)

    def _wire(self) -> None:
        session = self.session
        session.changed.connect(self._request_changed)
        self.editor.textChanged.connect(lambda: session.set_text(self.editor.toPlainText()))
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
        connect_regress(
            self.regress_view,
            session.regress,
            choose_suite=self._choose_suite,
            open_case=self._open_case,
        )
        session.regress.case_opened.connect(self._case_opened)
        connect_batch(self.batch_view, session.batch, open_prompt=self._open_batch_prompt)
        connect_compare(
            self.compare_view,
            session.compare,
            set_prompt=self.set_prompt,
            choose_rules=self._choose_rules_b,
            choose_catalog=self._choose_catalog_b,
            choose_suite=self._choose_compare_suite,
            open_case=self._open_compare_case,
        )
        connect_insight(
            session.insight,
            self.why_strip,
            self.strategy_view.context_tree,
            self.strategy_view.plan_table,
            mark=self.editor.show_marks,
            close_lines=(self.strategy_close, self.lint_close, self.tools_close),
        )
        connect_history(
            self.history_view,
            session.history,
            open_entry=self._open_history_entry,
            fail=self.statusBar().showMessage,
        )
        session.history.opened.connect(self._restore_last_session)
        session.history.failed.connect(self._restore_last_session)
        if self._open_history:
            session.history.start()
        self.rules_editor_view = RulesEditorView(self)
        connect_rules_editor(self.rules_editor_view, session.rules_editor)
        session.insight.set_enabled(True)  # the live view is shown first
        connect_demo(
            self.demo,
            self.demo_label,
            set_prompt=self._show_demo_prompt,
            fail=lambda message: self._tell("Open demo script", message),
            actions=(self.demo_next_action, self.demo_previous_action),
        )
        self.tabs.currentChanged.connect(lambda at: self.presenter.show_panel(RESULT_TABS[at]))
        self.presenter.show_panel(RESULT_TABS[0])

    # -- geometry --------------------------------------------------------------------------
    def _restore_research_settings(self) -> None:
        saved = QSettings(*_SETTINGS).value("research/settings")
        research = routescope.research
        try:
            settings = research.ResearchSettings.from_json(str(saved))
        except ValueError:  # none saved, from another version, edited by hand: the defaults
            settings = research.ResearchSettings()
        self.set_research_settings(settings)

    def _restore_geometry(self) -> None:
        saved = QSettings(*_SETTINGS).value("window/geometry")
        if isinstance(saved, QByteArray) and self.restoreGeometry(saved):
            return
        available = self.screen().availableGeometry()
        width = min(_FIRST_SIZE[0], available.width() - 40)
        height = min(_FIRST_SIZE[1], available.height() - 60)
        self.resize(width, height)
        self.move(available.center() - self.rect().center())

    def _restore_splitters(self) -> None:
        """Each named splitter where the analyst left it (a state from another layout, with
        another count of panes, is ignored by Qt and the default sizes stay)."""
        settings = QSettings(*_SETTINGS)
        for splitter in self.findChildren(QSplitter):
            saved = settings.value(f"window/splitter/{splitter.objectName()}")
            if splitter.objectName() and isinstance(saved, QByteArray):
                splitter.restoreState(saved)

    def _save_splitters(self) -> None:
        settings = QSettings(*_SETTINGS)
        for splitter in self.findChildren(QSplitter):
            if splitter.objectName():
                settings.setValue(f"window/splitter/{splitter.objectName()}", splitter.saveState())

    def resizeEvent(self, event: QResizeEvent) -> None:
        # Below 800 px the legend's line goes to the result tables (each highlight in the
        # prompt names what it is on hover).
        self.legend.setVisible(event.size().height() >= _LEGEND_HEIGHT)
        super().resizeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        QSettings(*_SETTINGS).setValue("window/geometry", self.saveGeometry())
        self._save_splitters()
        self.session.history.save_last_session(self.last_session())
        self.session.close()
        super().closeEvent(event)

    # -- actions ---------------------------------------------------------------------------
    def focus_prompt(self) -> None:
        """View ▸ Focus prompt (Ctrl+L, F6): back to the prompt from any view, tab or tree."""
        self.views.setCurrentWidget(self.live)
        self.editor.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def zoom(self, step: int) -> None:
        """View ▸ Zoom in (+1, Ctrl+=), out (-1, Ctrl+-), actual size (0, Ctrl+0): the whole
        window's font, for demos; kept for the next start."""
        self._apply_zoom(self._zoom_steps + step if step else 0)
        steps = self._zoom_steps - self.presenter.zoom_offset  # the analyst's, not the room's
        QSettings(*_SETTINGS).setValue("window/zoom", steps)

    @property
    def zoom_steps(self) -> int:
        """How many 1-point steps the window's font is above (below) its normal size."""
        return self._zoom_steps

    def _apply_zoom(self, steps: int) -> None:
        low = 1 - int(self._base_point_size) if self._base_point_size > 0 else 0
        self._zoom_steps = max(low, min(steps, _MAX_ZOOM))
        if self._base_point_size <= 0:  # a pixel-sized font: nothing to scale in points
            return
        font = self.font()
        font.setPointSizeF(self._base_point_size + self._zoom_steps)
        self.setFont(font)
        # The widgets the style sheet polished take their size from it, not from the window.
        points = self._base_point_size + self._zoom_steps
        self.theme.set_font(points if self._zoom_steps else None, points / self._base_point_size)

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
            self.views.setCurrentWidget(self.live)
        return opened

    def _choose_demo(self) -> None:
        path = self._ask_open_path("Open demo script", "Demo scripts (*.txt);;All files (*)")
        if path:
            self.open_demo(path)

    def _show_demo_prompt(self, text: str) -> None:
        self.views.setCurrentWidget(self.live)
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
            self._set_banner(str(exc))
            return False
        self._set_banner("")
        self.session.set_rules(rules)
        return True

    def set_research_settings(self, settings: ResearchSettings) -> None:
        self.research_view.show_backends(settings)
        self.session.research.set_settings(settings)

    def run_research(self) -> None:
        """Research ▸ Run (Ctrl+Enter): show the research and run it on the prompt now."""
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
        QSettings(*_SETTINGS).setValue("research/settings", settings.to_json())
        self.set_research_settings(settings)

    def _save_research_report(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Save the report (report.md, report.json)")
        if folder:
            self.session.research.save_report(Path(folder))

    def show_tab(self, name: str) -> None:
        """Bring a result tab (Plan, Linter, …), the Regression, Batch, Compare or History view
        to the front."""
        if name == "Compare":
            self.views.setCurrentWidget(self.compare_view)
            return
        if name == "Regression":
            self.views.setCurrentWidget(self.regress_view)
            return
        if name == "Batch":
            self.views.setCurrentWidget(self.batch_view)
            return
        if name == HISTORY:
            self.views.setCurrentWidget(self.history_view)
            return
        self.views.setCurrentWidget(self.live)
        self.tabs.setCurrentIndex(RESULT_TABS.index(name))

    def copy(self) -> None:
        """Edit ▸ Copy: the selection of the table or tree that has the focus, tab-separated."""
        focus = QApplication.focusWidget()
        if isinstance(focus, QAbstractItemView):
            copy_selection(focus)
        elif isinstance(focus, QPlainTextEdit | QLineEdit):
            focus.copy()

    def edit_rules(self) -> None:
        """File ▸ Edit rule pack… (Ctrl+E): the current pack's TOML, applied as it is edited."""
        self.session.rules_editor.open()
        self.rules_editor_view.show()
        self.rules_editor_view.raise_()
        self.rules_editor_view.activateWindow()

    def _use_builtin_rules(self) -> None:
        self._set_banner("")
        self.session.set_rules(routescope.RulesRef.builtin())

    def _choose_rules(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open rule pack", "", "Rule packs (*.toml)")
        if path:
            self.open_rules(path)

    def _choose_catalog(self) -> None:
        catalog = self.session.request.catalog
        sample = Path(str(routescope.resources_root() / "catalog"))
        current = Path(catalog.path) if catalog else sample
        path = choose_catalog(self, current)
        if path:
            self.open_catalog(path)

    def open_catalog(self, path: str | Path) -> None:
        """Rank the tools of a catalog (a folder of SKILL.md files or a JSON file of tools, in
        any format the core reads); the Tools tab's status names the format it found."""
        self.show_tab("Tools")
        self.session.tools.open_catalog(path)

    def _choose_suite(self) -> None:
        start = str(routescope.resources_root() / "fixtures")
        path, _ = QFileDialog.getOpenFileName(self, "Open suite", start, "Suites (*.yaml *.yml)")
        if path:
            self.show_tab("Regression")
            self.session.regress.open(path)

    def _open_case(self, case_id: str) -> None:
        """Open a regression case live, on the tab of its suite's router; the status bar says
        which of the session's settings the case's own inputs replace."""
        suite = self.session.regress.suite
        self.show_tab(_CASE_TABS.get(suite.router, "Plan") if suite else "Plan")
        self._case_before = (case_id, self.session.request)
        self.session.regress.open_case(case_id)

    def _case_opened(self, request: Request) -> None:
        """Say which of the session's inputs the case's own stand in for while it shows (its
        date, its search settings): the session's come back with the next edit."""
        if self._case_before is None:
            return
        case_id, before = self._case_before
        self._case_before = None
        changes = []
        if request.today != before.today:
            changes.append(f"today {request.today.isoformat()}")
        if request.search != before.search:
            changes.append("the suite's search settings")
        said = f" ({', '.join(changes)})" if changes else ""
        back = "; the session's come back when you edit the prompt" if changes else ""
        self.statusBar().showMessage(f"case {case_id} shown with its own inputs{said}{back}")

    def _open_batch_prompt(self, ref: PromptRef) -> None:
        self.views.setCurrentWidget(self.live)
        self.session.batch.open_prompt(ref)

    def _open_history_entry(self, entry_id: int) -> None:
        self.views.setCurrentWidget(self.live)
        self.session.history.reopen(entry_id)

    def _choose_rules_b(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Rule pack of side B", "", "Rule packs (*.toml)"
        )
        if path:
            self.session.compare.set_rules_b(path)

    def _choose_catalog_b(self) -> None:
        sample = Path(str(routescope.resources_root() / "catalog"))
        path = choose_catalog(self, sample)
        if path:
            self.session.compare.set_catalog_b(path)

    def _choose_compare_suite(self) -> None:
        start = str(routescope.resources_root() / "fixtures")
        path, _ = QFileDialog.getOpenFileName(
            self, "Run a suite under both sides", start, "Suites (*.yaml *.yml)"
        )
        if path:
            self.session.compare.run_suite(path)

    def _open_compare_case(self, case_id: str) -> None:
        self.views.setCurrentWidget(self.live)
        self.session.compare.open_case(case_id)

    def _page_changed(self) -> None:
        """Tools are ranked, the prompt researched and compared, only while someone looks."""
        self.session.compare.set_enabled(self.views.currentWidget() is self.compare_view)
        live = self.views.currentWidget() is self.live
        self.session.insight.set_enabled(live)
        page = self.tabs.currentWidget()
        self.session.tools.set_enabled(live and page is self.toolsearch_view)
        self.session.research.set_enabled(live and page is self.research_view)

    # -- the last session ------------------------------------------------------------------
    def current_tab(self) -> str:
        """The name of the view or result tab shown (as `show_tab` takes it)."""
        for name, view in (
            ("Compare", self.compare_view),
            ("Regression", self.regress_view),
            ("Batch", self.batch_view),
            (HISTORY, self.history_view),
        ):
            if self.views.currentWidget() is view:
                return name
        return RESULT_TABS[max(self.tabs.currentIndex(), 0)]

    def last_session(self) -> LastSession:
        """What the window shows, to show again at the next start."""
        from routescope.history import LastSession

        request = self.session.request
        catalog = request.catalog
        sample = str(routescope.resources_root() / "catalog")
        return LastSession(
            prompt=self.editor.toPlainText(),
            tab=self.current_tab(),
            catalog=catalog.path if catalog is not None and catalog.path != sample else None,
            rules=None if request.rules.is_builtin else request.rules.source,
            today=request.today if request.today != dt.date.today() else None,
        )

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
        if last.tab in (*RESULT_TABS, *VIEWS, HISTORY):
            self.show_tab(last.tab)

    # -- session files, exports, regression cases ------------------------------------------
    def _ask_save_path(self, title: str, filters: str, *, append: bool = False) -> str:
        """The file to write, or with `append` to add to (blank: cancelled); tests override
        it."""
        options = QFileDialog.Option.DontConfirmOverwrite if append else QFileDialog.Option(0)
        path, _ = QFileDialog.getSaveFileName(self, title, "", filters, options=options)
        return path

    def _ask_open_path(self, title: str, filters: str) -> str:
        """The file to read (blank: cancelled); tests override it."""
        path, _ = QFileDialog.getOpenFileName(self, title, "", filters)
        return path

    def _ask_case_id(self) -> str:
        """The new regression case's id (blank: cancelled); tests override it."""
        text, ok = QInputDialog.getText(self, "Save as regression case", "Case id:")
        return text.strip() if ok else ""

    def _tell(self, title: str, message: str) -> None:
        """Say something that needs reading (a failure, a session's warnings)."""
        QMessageBox.warning(self, title, message)

    def _inspected(self) -> Inspection | None:
        inspection = self.session.inspection.result
        if inspection is None:
            self._tell("Routescope", "Nothing inspected yet: type a prompt first.")
        return inspection

    def save_session(self, path: str | Path) -> bool:
        """Write the current request and its inspection to a session file."""
        from routescope.history import save_session

        inspection = self._inspected()
        if inspection is None:
            return False
        try:
            save_session(path, [(self.session.request, inspection)])
        except routescope.RoutescopeError as exc:
            self._tell("Save session", str(exc))
            return False
        self.statusBar().showMessage(f"session saved to {path}")
        return True

    def open_session(self, path: str | Path) -> list[str] | None:
        """Open a session file's first request; returns its warnings (None: not opened)."""
        from routescope.history import Fingerprints, open_session

        request = self.session.request
        try:
            opened = open_session(path, here=Fingerprints.of(request.rules, request.catalog))
        except routescope.RoutescopeError as exc:
            self._tell("Open session", str(exc))
            return None
        if not opened.entries:
            self._tell("Open session", f"{path}: the session holds no request")
            return None
        self.views.setCurrentWidget(self.live)
        self.session.open_request(opened.entries[0].request)
        if opened.warnings:
            self._tell("Open session", "\n".join(opened.warnings))
        self.statusBar().showMessage(f"session opened from {path}")
        return opened.warnings

    def export_inspection(self, path: str | Path, kind: str) -> bool:
        """Write the current inspection as JSON (`kind` "json") or Markdown ("md")."""
        from routescope.history import export_markdown, to_json

        inspection = self._inspected()
        if inspection is None:
            return False
        text = (
            to_json(inspection)
            if kind == "json"
            else export_markdown(inspection, self.session.request)
        )
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            self._tell("Export inspection", f"{path}: {exc.strerror or exc}")
            return False
        self.statusBar().showMessage(f"inspection exported to {path}")
        return True

    def save_regression_case(self, path: str | Path, case_id: str) -> bool:
        """Append the current request, its results as expectations, to a suite file."""
        from routescope.regress import append_case

        inspection = self._inspected()
        if inspection is None:
            return False
        try:
            append_case(path, case_id, self.session.request, inspection)
        except routescope.RoutescopeError as exc:
            self._tell("Save as regression case", str(exc))
            return False
        self.statusBar().showMessage(f"case {case_id} saved to {path}")
        return True

    def _choose_session_save(self) -> None:
        path = self._ask_save_path("Save session", "Sessions (*.json)")
        if path:
            self.save_session(path)

    def _choose_session_open(self) -> None:
        path = self._ask_open_path("Open session", "Sessions (*.json)")
        if path:
            self.open_session(path)

    def _choose_export(self, kind: str) -> None:
        filters = "JSON (*.json)" if kind == "json" else "Markdown (*.md)"
        path = self._ask_save_path("Export inspection", filters)
        if path:
            self.export_inspection(path, kind)

    def _choose_regression_case(self) -> None:
        if self.session.inspection.result is None:
            self._inspected()
            return
        path = self._ask_save_path("Suite to add the case to", "Suites (*.yaml *.yml)", append=True)
        if not path:
            return
        case_id = self._ask_case_id()
        if case_id:
            self.save_regression_case(path, case_id)

    # -- rendering -----------------------------------------------------------------------
    def _request_changed(self, field: str) -> None:
        """Controls follow the request when it changed elsewhere (a case opened live)."""
        request = self.session.request
        if field in ("request", "today"):
            self.set_today(request.today)
        if field in ("request", "rules"):
            name = request.rules.load().name
            source = "built-in" if request.rules.is_builtin else Path(request.rules.source).name
            self.rules_label.setText(f"{name}  ({source})")
        if field in ("request", "search"):
            self.toolsearch_view.show_settings(request.search)
        if field in ("request", "text"):
            self.compare_view.show_text_a(request.text)
        if field == "request":
            self.contract_view.show_context(request.context)
            if self.editor.toPlainText() != request.text:
                self.editor.setPlainText(request.text)

    def _set_banner(self, message: str) -> None:
        self.banner.setText(message)
        self.banner.setToolTip(message)
        self.banner.setVisible(bool(message))

    def _show_inspection(self, inspection: Inspection | None) -> None:
        self.editor.show_highlights(highlights(inspection) if inspection else [])
        self.strategy_view.show_result(StrategySlice.of(inspection) if inspection else None)
        self.tabs.invalidate()
        if inspection is None:
            self.timings_label.setText("")
            self.statusBar().showMessage(_NO_PROMPT)
            return
        timings = " · ".join(f"{stage} {us:,.0f} µs" for stage, us in inspection.timings_us.items())
        self.timings_label.setText(
            f"{timings}    rules: {inspection.rules}    today: {inspection.today.isoformat()}"
        )
        if self.statusBar().currentMessage() == _NO_PROMPT:
            self.statusBar().clearMessage()

    def _show_failure(self, message: str) -> None:
        self._show_inspection(None)
        self.statusBar().showMessage(f"cannot inspect: {message}")

    def _show_lint(self) -> None:
        inspection = self.session.inspection.result
        self.linter_view.show_result(inspection.lint if inspection else None)

    def _show_contract(self) -> None:
        model = self.session.inspection
        self.contract_view.show_result(
            model.result.decision if model.result else None,
            model.plan_progress(),
            len(model.plan_results),
        )

    def _show_json(self) -> None:
        """The raw JSON: rendered only while its tab is shown (it can be megabytes)."""
        inspection = self.session.inspection.result
        self.json_view.setPlainText(inspection.model_dump_json(indent=2) if inspection else "")


def _saved_int(value: object) -> int:
    """A number QSettings kept (an int, or its text in an INI file); 0 when there is none."""
    try:
        return int(str(value))
    except ValueError:
        return 0


def _insert_under(view: QWidget, line: QWidget, above: QWidget | None = None) -> None:
    """Put `line` in `view`'s column of widgets, under `above` (default: its first row)."""
    layout = view.layout()
    assert isinstance(layout, QBoxLayout)
    index = layout.indexOf(above) if above is not None else 0
    layout.insertWidget(max(index, 0) + 1, line)
