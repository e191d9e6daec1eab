"""The live view: the prompt on top (with why the routers decided under it, and the highlight
legend); the context beside the strategy and the result tabs below; the close calls beside the
decisions they concern; a banner for a rule pack that does not validate and a demo script's
caption above. It renders the inspection it is given; a hidden tab is filled when it is shown.

A window too short for its parts (each keeps its least useful size: four rows of the tool
ranking, say) scrolls them rather than squeezing them to nothing: a result tab chosen is
brought into sight, and so is the prompt when it takes the keyboard.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ._contract_view import ContractView
from ._editor import Legend, PromptEditor, highlights
from ._linter_view import LinterView
from ._research_view import ResearchView
from ._strategy_view import StrategySlice, StrategyView
from ._toolsearch_view import ToolSearchView
from ._why_strip import CloseCallLine, WhyStrip
from ._widgets import LazyTabs

if TYPE_CHECKING:
    from routescope import Inspection
    from routescope.demo import DemoScript, DemoStep

__all__ = ["RESULT_TABS", "DemoLabel", "LiveView", "demo_caption"]

RESULT_TABS = ("Plan", "Linter", "Contract", "Tools", "Research", "Raw JSON")
"""The tabs under the strategy, in order (View ▸ Ctrl+1 … Ctrl+6)."""


def demo_caption(index: int, total: int, step: DemoStep) -> str:
    """ "Demo 3/12 · a local search" (the caption only when the step has one)."""
    caption = f" · {step.caption}" if step.caption else ""
    return f"Demo {index + 1}/{total}{caption}"


class DemoLabel(QLabel):
    """Where a demo script stands: "Demo 3/12 · caption"; hidden while no script is loaded,
    and while the prompt is not the step's (the analyst typed their own)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("demo")
        self.setVisible(False)
        self._loaded = False
        self._step_shown = True

    def show_script(self, script: DemoScript | None) -> None:
        self._loaded = script is not None
        self._step_shown = True
        self.setVisible(self._loaded)
        if script is None:
            self.setText("")
        else:
            self.setToolTip(f"{script.source}: PageDown: next prompt, PageUp: previous")

    def show_step(self, index: int, total: int, step: DemoStep) -> None:
        self.setText(demo_caption(index, total, step))

    def show_prompt_is_step(self, is_step: bool) -> None:
        """The prompt is the step's (True), or the analyst's own (False: the caption, which
        would describe another prompt, goes until a step is shown again)."""
        self._step_shown = is_step
        self.setVisible(self._loaded and is_step)


class LiveView(QWidget):
    """The prompt and every router's result for it.

    Attributes:
        editor: the prompt; why_strip: the words that matter and the trace; legend: what the
            highlights mean; strategy_view, linter_view, contract_view, toolsearch_view,
            research_view: the routers' views; json_view: the raw inspection; tabs: the result
            tabs (tab_names: their names); strategy_close, lint_close, tools_close: the close
            calls beside their decisions; splitter: the context beside the strategy and the
            tabs; body: the prompt above them; body_scroll: the body's scroll area (it scrolls
            in a window too short for it); banner: a rule pack's error; demo_label: where a
            demo script stands.
    """

    def __init__(self, render_contract: Callable[[], None]) -> None:
        """`render_contract` fills the Contract tab (the plan's step-through is the model's)."""
        super().__init__()
        self.setObjectName("central")
        self._inspection: Inspection | None = None
        prompt_box = self._build_prompt()
        self.strategy_view = StrategyView()
        # Made in the order they were always made: the keyboard focus moves in this order.
        context_box = QGroupBox("Context")
        QVBoxLayout(context_box).addWidget(self.strategy_view.context_tree)
        self.linter_view = LinterView()
        self.contract_view = ContractView()
        self.toolsearch_view = ToolSearchView()
        self.research_view = ResearchView()
        self.json_view = QPlainTextEdit(readOnly=True)
        self.json_view.setObjectName("json")
        self._build_tabs(render_contract)
        self._build_close_lines()
        self._build_splitters(prompt_box, context_box)
        self.banner = QLabel("")
        self.banner.setObjectName("banner")
        self.banner.setWordWrap(True)
        self.banner.setVisible(False)
        self.demo_label = DemoLabel()
        layout = QVBoxLayout(self)
        layout.addWidget(self.demo_label)
        layout.addWidget(self.banner)
        layout.addWidget(self.body_scroll, 1)

    def _build_prompt(self) -> QGroupBox:
        self.editor = PromptEditor()
        self.editor.setMinimumHeight(60)
        prompt_box = QGroupBox("Prompt")
        prompt_layout = QVBoxLayout(prompt_box)
        self.why_strip = WhyStrip()
        prompt_layout.addWidget(self.editor)
        prompt_layout.addWidget(self.why_strip)
        self.legend = Legend()
        prompt_layout.addWidget(self.legend)
        return prompt_box

    def _build_tabs(self, render_contract: Callable[[], None]) -> None:
        self.tabs = LazyTabs()
        pages: tuple[tuple[QWidget, Callable[[], None] | None], ...] = (
            (self.strategy_view.plan_table, None),
            (self.linter_view, self._show_lint),
            (self.contract_view, render_contract),
            (self.toolsearch_view, None),
            (self.research_view, None),
            (self.json_view, self._show_json),
        )
        self.tab_names: list[str] = []
        """The result tabs' names, in order: `RESULT_TABS`, then those added (`add_tab`)."""
        for title, (page, render) in zip(RESULT_TABS, pages, strict=True):
            self.add_tab(title, page, render)

    def add_tab(self, title: str, page: QWidget, render: Callable[[], None] | None = None) -> None:
        """One more result tab, after the others (the window shows it by `title`)."""
        self.tabs.add_page(page, title, render)
        self.tab_names.append(title)

    def _build_close_lines(self) -> None:
        """Close calls under the decision each concerns: the strategy badge, the linter's
        class, the tools' fit line."""
        self.strategy_close = CloseCallLine(("strategy",))
        self.lint_close = CloseCallLine(("lint.query_class",))
        self.tools_close = CloseCallLine(("tools.fits", "tools.top"))
        _insert_under(self.strategy_view.decision_panel, self.strategy_close)
        _insert_under(self.linter_view, self.lint_close)
        _insert_under(
            self.toolsearch_view, self.tools_close, self.toolsearch_view.verdict.parentWidget()
        )

    def _build_splitters(self, prompt_box: QWidget, context_box: QWidget) -> None:
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
        self.body = QSplitter(Qt.Orientation.Vertical)
        self.body.setObjectName("body")
        self.body.addWidget(prompt_box)
        self.body.addWidget(self.splitter)
        self.body.setSizes([100, 620])
        self.body_scroll = QScrollArea()
        self.body_scroll.setObjectName("bodyScroll")
        self.body_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.body_scroll.setWidgetResizable(True)  # the body fills it, down to its least size
        self.body_scroll.setWidget(self.body)
        self._brought_in: QWidget | None = None
        self.tabs.currentChanged.connect(lambda _index: self._bring_in(self.tabs))
        self.editor.installEventFilter(self)
        self.body.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.editor and event.type() == QEvent.Type.FocusIn:
            prompt_box = self.editor.parentWidget()
            self._bring_in(prompt_box if prompt_box is not None else self.editor)
        elif watched is self.body and _taller(event) and self._brought_in is not None:
            brought = self._brought_in  # (once the scroll area knows the body's new height)
            QTimer.singleShot(0, lambda: self._bring_in(brought))
        return super().eventFilter(watched, event)

    def _bring_in(self, widget: QWidget) -> None:
        """Scroll `widget` into sight (nothing to do in a window tall enough for the body); again
        when the body grows taller (a tab's least rows made room for)."""
        self._brought_in = widget
        if self.body_scroll.verticalScrollBar().maximum() > 0:
            self.body_scroll.ensureWidgetVisible(widget, 0, 0)

    # -- rendering -----------------------------------------------------------------------
    def show_inspection(self, inspection: Inspection | None) -> None:
        """The prompt's highlights and the strategy now; the result tab shown, and the others
        when they are shown."""
        self._inspection = inspection
        self.editor.show_highlights(highlights(inspection) if inspection else [])
        self.strategy_view.show_result(StrategySlice.of(inspection) if inspection else None)
        self.tabs.invalidate()

    def show_banner(self, message: str) -> None:
        """A rule pack's error above the prompt ("": none)."""
        self.banner.setText(message)
        self.banner.setToolTip(message)
        self.banner.setVisible(bool(message))

    def _show_lint(self) -> None:
        inspection = self._inspection
        self.linter_view.show_result(inspection.lint if inspection else None)

    def _show_json(self) -> None:
        """The raw JSON: rendered only while its tab is shown (it can be megabytes)."""
        inspection = self._inspection
        self.json_view.setPlainText(inspection.model_dump_json(indent=2) if inspection else "")


def _insert_under(view: QWidget, line: QWidget, above: QWidget | None = None) -> None:
    """Put `line` in `view`'s column of widgets, under `above` (default: its first row)."""
    layout = view.layout()
    assert isinstance(layout, QBoxLayout)
    index = layout.indexOf(above) if above is not None else 0
    layout.insertWidget(max(index, 0) + 1, line)


def _taller(event: QEvent) -> bool:
    """A resize that made a widget taller (a tab's least rows made room for in the body)."""
    return isinstance(event, QResizeEvent) and event.size().height() > event.oldSize().height()
