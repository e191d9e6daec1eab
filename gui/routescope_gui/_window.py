"""The main window: prompt on top, what the routers decided below, timings in the status bar."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path

from PySide6.QtCore import QDate, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QDateEdit,
    QFileDialog,
    QGroupBox,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

import routescope
from routescope import Inspection, RoutescopeError, RulePack
from routescope.contract import RouterContext
from routescope.regress import Case, Suite

from ._contract_panel import ContractPanel
from ._editor import Legend, PromptEditor, highlights
from ._linter_panel import LinterPanel
from ._panels import ContextPanel, PlanModel, PlanView, StrategyPanel
from ._regression import RegressionView
from ._style import STYLE_SHEET
from ._tools_panel import ToolsController, ToolsPanel

__all__ = ["LiveInspector", "MainWindow"]

_DEBOUNCE_MS = 25
_BACKGROUND_CHARS = 50_000


class LiveInspector(QObject):
    """Runs `routescope.inspect` for the latest text; drops results that are no longer current.

    Signals:
        inspected: emitted with the `Inspection` of the current text.
        failed: emitted with a one-line message when the text cannot be inspected.
    """

    inspected = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rules: RulePack = routescope.default_rules()
        routescope.warm_up(self.rules)
        self.today = dt.date.today()
        self.context: RouterContext | None = None
        self._generation = 0
        self._tasks: set[asyncio.Task[None]] = set()

    def submit(self, text: str) -> None:
        """Inspect `text` now, or off the UI thread when it is large."""
        self._generation += 1
        if not text.strip():
            self.failed.emit("")
            return
        if len(text) < _BACKGROUND_CHARS:
            self._run(text, self._generation)
            return
        task = asyncio.ensure_future(self._run_in_background(text, self._generation))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _run(self, text: str, generation: int) -> None:
        try:
            result = routescope.inspect(
                text, today=self.today, rules=self.rules, context=self.context
            )
        except RoutescopeError as exc:
            self.failed.emit(str(exc))
            return
        if generation == self._generation:
            self.inspected.emit(result)

    async def _run_in_background(self, text: str, generation: int) -> None:
        try:
            result = await asyncio.to_thread(
                routescope.inspect, text, today=self.today, rules=self.rules, context=self.context
            )
        except RoutescopeError as exc:
            self.failed.emit(str(exc))
            return
        if generation == self._generation:
            self.inspected.emit(result)


class MainWindow(QMainWindow):
    """Routescope's window. Views render `Inspection`s; `LiveInspector` produces them."""

    def __init__(self, inspector: LiveInspector | None = None) -> None:
        super().__init__()
        self.setWindowTitle("Routescope")
        icon = routescope.resources_root() / "icons" / "routescope.svg"
        self.setWindowIcon(QIcon(QPixmap.fromImage(QImage.fromData(icon.read_bytes()))))
        self.setStyleSheet(STYLE_SHEET)
        self.inspector = inspector or LiveInspector(self)
        self.result: Inspection | None = None
        self._debounce = QTimer(self, singleShot=True, interval=_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.refresh)
        self._build_toolbar()
        self._build_body()
        self.inspector.inspected.connect(self._show)
        self.inspector.failed.connect(self._show_error)
        self.editor.textChanged.connect(self._debounce.start)
        self.resize(1360, 860)
        self._show(None)
        # Load the sample catalog once the event loop runs: it embeds 41 tools off the UI thread.
        sample = routescope.resources_root() / "catalog"
        QTimer.singleShot(0, lambda: self.tools_controller.load(str(sample)))

    # -- construction --------------------------------------------------------------------
    def _build_toolbar(self) -> None:
        bar = QToolBar("Settings", self)
        bar.setMovable(False)
        self.addToolBar(bar)
        bar.addWidget(QLabel(" rules: "))
        self.rules_label = QLabel(self.inspector.rules.name)
        self.rules_label.setObjectName("muted")
        bar.addWidget(self.rules_label)
        self.open_rules = QPushButton("Open rule pack…")
        self.open_rules.clicked.connect(self._choose_rules)
        bar.addWidget(self.open_rules)
        self.default_rules = QPushButton("Built-in")
        self.default_rules.clicked.connect(lambda: self.set_rules(routescope.default_rules()))
        bar.addWidget(self.default_rules)
        bar.addSeparator()
        bar.addWidget(QLabel(" today: "))
        self.today_edit = QDateEdit(self._qdate(self.inspector.today))
        self.today_edit.setCalendarPopup(True)
        self.today_edit.setDisplayFormat("yyyy-MM-dd")
        self.today_edit.dateChanged.connect(self._today_changed)
        bar.addWidget(self.today_edit)

    def _build_body(self) -> None:
        self.editor = PromptEditor()
        self.editor.setMinimumHeight(60)
        prompt_box = QGroupBox("Prompt")
        prompt_layout = QVBoxLayout(prompt_box)
        prompt_layout.addWidget(self.editor)
        prompt_layout.addWidget(Legend())

        self.context_panel = ContextPanel()
        context_box = QGroupBox("Context")
        QVBoxLayout(context_box).addWidget(self.context_panel)

        self.strategy_panel = StrategyPanel()
        self.plan_model = PlanModel(self)
        self.plan_view = PlanView(self.plan_model)
        self.json_view = QPlainTextEdit(readOnly=True)
        self.json_view.setObjectName("json")
        self.tabs = QTabWidget()
        self.tools_controller = ToolsController(self)
        self.tools_panel = ToolsPanel(self.tools_controller)
        self.linter_panel = LinterPanel()
        self.contract_panel = ContractPanel()
        self.contract_panel.context_changed.connect(self._context_changed)
        self.tabs.addTab(self.plan_view, "Plan")
        self.tabs.addTab(self.linter_panel, "Linter")
        self.tabs.addTab(self.contract_panel, "Contract")
        self.tabs.addTab(self.tools_panel, "Tools")
        self.tabs.addTab(self.json_view, "Raw JSON")
        self.tabs.currentChanged.connect(lambda _: self._show_json())
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.strategy_panel)
        right_layout.addWidget(self.tabs, 1)

        lower = QSplitter()
        lower.addWidget(context_box)
        lower.addWidget(right)
        lower.setSizes([520, 840])
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(prompt_box)
        body.addWidget(lower)
        body.setSizes([150, 710])
        self.banner = QLabel("")
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        live = QWidget()
        live.setObjectName("central")
        layout = QVBoxLayout(live)
        layout.addWidget(self.banner)
        layout.addWidget(body, 1)
        self.regression = RegressionView()
        self.regression.open_case.connect(self.open_case)
        self.views = QTabWidget()
        self.views.setDocumentMode(True)
        self.views.addTab(live, "Live")
        self.views.addTab(self.regression, "Regression")
        self.setCentralWidget(self.views)

    @staticmethod
    def _qdate(day: dt.date) -> QDate:
        return QDate(day.year, day.month, day.day)

    # -- actions -------------------------------------------------------------------------
    def set_prompt(self, text: str) -> None:
        """Replace the prompt and inspect it at once (no debounce)."""
        self.editor.setPlainText(text)
        self.refresh()

    def open_case(self, suite: Suite, case: Case) -> None:
        """Show a regression case in the live view with its exact inputs."""
        pack = case.rules_path(suite)
        if pack is not None:
            if not self.load_rules(str(pack)):
                return
        else:
            self.set_rules(routescope.default_rules())
        self.set_today(case.today or suite.today or dt.date(2026, 1, 1))
        context = json.dumps(case.context, indent=2, default=str) if case.context else ""
        self.contract_panel.context_edit.setPlainText(context)
        self.set_prompt(case.prompt)
        self.views.setCurrentIndex(0)

    def set_today(self, day: dt.date) -> None:
        self.today_edit.setDate(self._qdate(day))

    def set_rules(self, rules: RulePack) -> None:
        routescope.warm_up(rules)
        self.inspector.rules = rules
        self.rules_label.setText(f"{rules.name}  ({Path(rules.source).name})")
        self._set_banner("")
        self.refresh()

    def load_rules(self, path: str) -> bool:
        """Load a rule pack file; on error keep the current pack and say why."""
        try:
            rules = routescope.load_rules(path)
        except RoutescopeError as exc:
            self._set_banner(str(exc))
            return False
        self.set_rules(rules)
        return True

    def refresh(self) -> None:
        self._debounce.stop()
        self.inspector.submit(self.editor.toPlainText())

    def _choose_rules(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open rule pack", "", "Rule packs (*.toml)")
        if path:
            self.load_rules(path)

    def _context_changed(self, context: RouterContext | None) -> None:
        self.inspector.context = context
        self.refresh()

    def _today_changed(self, date: QDate) -> None:
        self.inspector.today = dt.date(date.year(), date.month(), date.day())
        self.refresh()

    # -- rendering -----------------------------------------------------------------------
    def _set_banner(self, message: str) -> None:
        self.banner.setText(message)
        self.banner.setToolTip(message)
        self.banner.setVisible(bool(message))

    def _show(self, result: Inspection | None) -> None:
        self.result = result
        self.editor.show_highlights(highlights(result) if result else [])
        self.context_panel.show_result(result)
        self.strategy_panel.show_result(result)
        self.plan_model.set_actions(result.actions if result else ())
        self.tools_controller.set_text(result.context.raw_text if result else "")
        self.linter_panel.show_result(result)
        self.contract_panel.show_decision(result.decision if result else None)
        self._show_json()
        if result is None:
            self.statusBar().showMessage("Type a prompt: results update as you type.")
            return
        timings = " · ".join(f"{stage} {us:,.0f} µs" for stage, us in result.timings_us.items())
        self.statusBar().showMessage(
            f"{timings}    rules: {result.rules}    today: {result.today.isoformat()}"
        )

    def _show_json(self) -> None:
        """The raw JSON, rendered only while its tab is shown: it can be megabytes."""
        if self.tabs.currentWidget() is self.json_view:
            self.json_view.setPlainText(
                self.result.model_dump_json(indent=2) if self.result else ""
            )

    def _show_error(self, message: str) -> None:
        self._show(None)
        if message:
            self.statusBar().showMessage(f"cannot inspect: {message}")
