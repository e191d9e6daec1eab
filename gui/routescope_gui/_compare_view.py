"""The compare view: A (the live prompt) and B side by side — another prompt, or the same
prompt under another rule pack or catalog — and what differs between them: the headline
decisions with the changed ones highlighted, the intent flags that flipped with the words that
set them, the planned queries with their changed words marked, the contract's plan and the
tool ranks with their movement; a regression suite run under both sides, the cases that
differ listed (double-click one to open it live); and two routers — external ones, or one
against a built-in decision — on the prompts and over a set (`_compare_routers`). Mirrors
`routescope.compare`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from ._compare_result import ComparisonPage
from ._compare_routers import RoutersPage
from ._compare_sides import CompareSides
from ._compare_suite import SuitePage

if TYPE_CHECKING:
    from routescope.compare import Comparison, SuiteComparison

__all__ = ["CompareView"]


class CompareView(QWidget):
    """Renders A and B and their `Comparison`, and a `SuiteComparison`; asks for the rest.

    The sides sit over two pages, this prompt's comparison and the suite's; the sides'
    controls sit in the corner of the pages' tab bar.

    Attributes:
        result: the comparison shown (None: none); suite_result: the suite comparison shown;
            sides, result_page, suite_page, routers_page (two routers, built-in or external,
            on the prompts and over a set): the parts (their widgets are named here too:
            a_editor, status, queries, suite_cases, …).

    Signals:
        text_a_edited: emitted with A's prompt when it is edited here (it is the live prompt).
        text_b_edited: emitted with B's prompt as it is edited.
        mode_changed: emitted with what B changes ("prompt", "rules" or "catalog").
        rank_tools_changed: emitted when "rank tools" is ticked or unticked.
        rules_b_requested: the analyst asks to choose B's rule pack.
        catalog_b_requested: the analyst asks to choose B's catalog.
        suite_requested: the analyst asks to run a suite under both sides.
        open_case_requested: emitted with a suite case's id to open it in the live view.
    """

    text_a_edited = Signal(str)
    text_b_edited = Signal(str)
    mode_changed = Signal(str)
    rank_tools_changed = Signal(bool)
    rules_b_requested = Signal()
    catalog_b_requested = Signal()
    suite_requested = Signal()
    open_case_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Comparison | None = None
        self.sides = CompareSides()
        self.result_page = ComparisonPage()
        self.suite_page = SuitePage()
        self.routers_page = RoutersPage()
        self._forward_signals()
        self.pages = QTabWidget()
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.result_page, "This prompt")
        self.pages.addTab(self.suite_page, "Suite under both sides")
        self.pages.addTab(self.routers_page, "Routers")
        self.pages.setCornerWidget(self.sides.controls, Qt.Corner.TopRightCorner)
        # (rank tools and a suite under both packs: not the Routers page's, which has its own)
        self.pages.currentChanged.connect(
            lambda _index: self.sides.controls.setVisible(
                self.pages.currentWidget() is not self.routers_page
            )
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.sides)
        layout.addWidget(self.pages, 1)
        self._name_parts()

    def _forward_signals(self) -> None:
        sides = self.sides
        for mine, theirs in (
            (self.text_a_edited, sides.text_a_edited),
            (self.text_b_edited, sides.text_b_edited),
            (self.mode_changed, sides.mode_changed),
            (self.rank_tools_changed, sides.rank_tools_changed),
            (self.rules_b_requested, sides.rules_b_requested),
            (self.catalog_b_requested, sides.catalog_b_requested),
            (self.suite_requested, sides.suite_requested),
            (self.open_case_requested, self.suite_page.open_case_requested),
        ):
            theirs.connect(mine)

    def _name_parts(self) -> None:
        """Name the parts' widgets on the view, where the window and the tests reach them."""
        sides, page, suite = self.sides, self.result_page, self.suite_page
        self.a_editor, self.b_editor, self.mode = sides.a_editor, sides.b_editor, sides.mode
        self.a_caption, self.b_caption = sides.a_caption, sides.b_caption
        self.b_file, self.b_stack = sides.b_file, sides.b_stack
        self.rank_tools, self.suite_button = sides.rank_tools, sides.suite_button
        self.controls = sides.controls
        self.summary, self.status, self.outcome = page.summary, page.status, page.outcome
        self.queries, self.changes, self.split = page.queries, page.changes, page.split
        self.tools, self.tools_note = page.tools, page.tools_note
        self.suite_summary, self.suite_cases = suite.suite_summary, suite.suite_cases
        self.suite_detail, self.open_case_button = suite.suite_detail, suite.open_case_button

    @property
    def suite_result(self) -> SuiteComparison | None:
        return self.suite_page.suite_result

    # -- side A and side B -----------------------------------------------------------------
    def show_text_a(self, text: str) -> None:
        """The live prompt changed elsewhere: A follows it (once the view is shown)."""
        self.sides.show_text_a(text)

    def showEvent(self, event: QShowEvent) -> None:
        self.sides.follow_text_a()
        super().showEvent(event)

    def set_text_b(self, text: str) -> None:
        """Compare A with another prompt, as if it had been typed as B."""
        self.sides.set_text_b(text)

    def show_b_source(self, mode: str, name: str) -> None:
        """B's rule pack or catalog was chosen."""
        self.sides.show_b_source(mode, name)

    def show_loading(self, name: str) -> None:
        self.result_page.show_loading(name)

    # -- the comparison ----------------------------------------------------------------------
    def show_result(self, comparison: Comparison | None) -> None:
        self.result = comparison
        self.result_page.show_result(comparison)
        self.sides.show_comparison(comparison)

    def show_error(self, message: str) -> None:
        self.result_page.show_error(message)

    def changed_columns(self) -> list[str]:
        """The outcome columns highlighted as changed (their `Decisions` field names)."""
        return self.result_page.changed_columns()

    # -- a suite under both sides ------------------------------------------------------------
    def show_suite_running(self, name: str) -> None:
        self.pages.setCurrentWidget(self.suite_page)
        self.suite_page.show_running(name)

    def show_suite(self, result: SuiteComparison) -> None:
        self.pages.setCurrentWidget(self.suite_page)
        self.suite_page.show_suite(result)

    def show_suite_error(self, message: str) -> None:
        self.pages.setCurrentWidget(self.suite_page)
        self.suite_page.show_error(message)
