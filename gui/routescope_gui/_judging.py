"""The window's judging, wired in one place so the window only calls `Judging(window)`: the live
view's judge (an Expected column in the Context tree, the judge bar under it), Judge… from the
History and Batch lists (a dialog with the same judging), the Judgments menu, the Quality view
(a tab after the others: the pack scored on the current judged set, live as the pack changes,
scored only while it is shown), the Suggestions list docked beside the rule pack editor (its
Apply makes the edit in the editor's text), and what each says in the status bar.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QBoxLayout

import routescope

from ._judge_controls import ContextJudge, JudgeBar, ask_text
from ._judge_dialog import JudgeDialog
from ._judgments_menu import JudgmentsAsks, JudgmentsMenu
from ._quality_view import QualityView
from ._suggestions_view import SuggestionsDock, SuggestionsView

if TYPE_CHECKING:
    from routescope import Inspection, Request
    from routescope.judge import LabelledCase, PackEdit

    from ._window import MainWindow

__all__ = ["QUALITY", "Judging"]

_DOCK_SHARE, _DOCK_LEAST = 0.34, 200
"""The suggestions' height when they open: this share of the window, at least this."""
QUALITY = "Quality"
"""The Quality view's tab (Judgments ▸ Quality, Ctrl+Shift+Q)."""


class Judging(QObject):
    """The judging parts of a window.

    Attributes:
        model: the session's `JudgeModel`; bar: the judge bar under the Context tree;
        live: the live view's `ContextJudge`; dialog: the Judge… dialog (made on first use);
        quality_view: the Quality tab; suggestions_view, suggestions_dock: the suggestions;
        menu: the Judgments menu; ask: asks a line of text (tests replace it, and the menu's
        `asks`).
    """

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        session = window.session
        self.model = session.judge
        self.ask = ask_text(window)
        self.bar = JudgeBar()
        context_box = window.splitter.widget(0)  # the Context pane: the bar goes under the tree
        assert context_box is not None
        layout = context_box.layout()
        assert isinstance(layout, QBoxLayout)
        layout.addWidget(self.bar)
        self.live = ContextJudge(
            window.strategy_view.context_tree,
            self.bar,
            self.model,
            ask=lambda *question: self.ask(*question),
            parent=self,
        )
        self.dialog: JudgeDialog | None = None
        self.model.judged.connect(self._judged)
        self.model.set_changed.connect(lambda _name: self._refresh())
        self.model.sets_changed.connect(lambda _sets, _current: self._refresh())
        session.inspection.inspected.connect(self._inspected)
        session.inspection.failed.connect(lambda _message: self.live.show_subject(None))
        say = window.statusBar().showMessage
        self.model.done.connect(say)
        self.model.failed.connect(say)
        self._build_quality()
        self._build_suggestions()
        self._build_menu()
        window.history_view.judge_requested.connect(self.judge_history_entry)
        window.batch_view.judge_requested.connect(session.batch.judge_prompt)
        session.batch.prompt_judged.connect(lambda request: self.judge_request(request, "a batch"))

    def _build_quality(self) -> None:
        window, session = self.window, self.window.session
        self.quality_view = view = QualityView()
        window.views.add_view(QUALITY, view)
        quality = session.quality
        quality.scoring.connect(view.show_scoring)
        quality.scored.connect(view.show_result)
        quality.failed.connect(view.show_error)
        self.model.sets_changed.connect(
            lambda _sets, current: view.show_set(current, self.model.size)
        )
        view.open_prompt_requested.connect(self.open_case)
        window.views.currentChanged.connect(
            lambda _index: quality.set_enabled(window.views.currentWidget() is view)
        )
        view.show_set(self.model.current, self.model.size)

    def _build_suggestions(self) -> None:
        window, session = self.window, self.window.session
        self.suggestions_view = view = SuggestionsView()
        self.suggestions_dock = dock = SuggestionsDock(view, window)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        dock.hide()
        model = session.suggestions
        model.suggesting.connect(view.show_suggesting)
        model.suggested.connect(view.show_result)
        model.failed.connect(view.show_error)
        view.refresh_requested.connect(model.refresh)
        view.apply_requested.connect(self.apply_edit)
        dock.visibilityChanged.connect(lambda _shown: model.set_enabled(not dock.isHidden()))
        self.quality_view.suggestions_requested.connect(self.show_suggestions)

    def show_suggestions(self) -> None:
        """Judgments ▸ Suggestions… (Ctrl+Shift+G): the list, beside the rule pack editor."""
        dock, window = self.suggestions_dock, self.window
        if dock.isHidden():
            dock.show()
            if not dock.isFloating():
                height = max(_DOCK_LEAST, round(window.height() * _DOCK_SHARE))
                window.resizeDocks([dock], [height], Qt.Orientation.Vertical)
        dock.raise_()
        window.session.suggestions.set_enabled(True)

    def apply_edit(self, edit: PackEdit) -> bool:
        """Make a suggested edit in the rule pack editor's text (opened on the current pack
        when it is closed), as an edit the analyst could undo; the editor then validates,
        applies and counts it as it does any edit. False (and why, in the list) when the
        editor's text is not a valid pack."""
        window = self.window
        editor = window.session.rules_editor
        if not window.rules_editor_view.isVisible():
            window.edit_rules()
        text_edit = window.rules_editor_view.text_edit
        try:
            edited = edit.apply_text(text_edit.toPlainText(), editor.source or "<editor>")
        except routescope.RoutescopeError as exc:
            self.suggestions_view.show_applied(f"cannot apply: {exc}")
            return False
        cursor = text_edit.textCursor()
        cursor.beginEditBlock()
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.insertText(edited)  # (one step of the editor's undo)
        cursor.endEditBlock()
        self.suggestions_view.show_applied(
            f"applied: {edit.describe()} — the editor counts the regression cases it changes"
        )
        return True

    def _build_menu(self) -> None:
        window, model = self.window, self.model
        self.menu = menu = JudgmentsMenu(JudgmentsAsks.modal(window), window)
        bar = window.menuBar()
        menus = [action for action in bar.actions() if action.menu() is not None]
        bar.insertMenu(menus[-1], menu)  # before Help
        window.addActions([a for a in menu.actions() if a.menu() is None and a.isEnabled()])
        menu.set_requested.connect(model.use_set)
        menu.merge_requested.connect(model.merge_into)
        menu.import_requested.connect(model.import_file)
        menu.export_requested.connect(model.export)
        menu.quality_requested.connect(lambda: window.show_tab(QUALITY))
        menu.suggestions_requested.connect(self.show_suggestions)
        model.sets_changed.connect(menu.show_sets)
        model.set_changed.connect(lambda _name: menu.show_sets(model.sets, model.current))
        menu.show_sets(model.sets, model.current)

    def open_case(self, case: LabelledCase) -> None:
        """A judged prompt in the live view, on its date (with its context), to judge again."""
        from routescope.contract import RouterContext

        session = self.window.session
        context = RouterContext.model_validate(case.context) if case.context else None
        session.open_request(
            session.request.replace(text=case.prompt, today=case.today, context=context)
        )
        self.window.show_tab("Plan")

    def _judges(self) -> list[ContextJudge]:
        return [self.live] + ([self.dialog.judge] if self.dialog is not None else [])

    def _judged(self, prompt: str, today: dt.date) -> None:
        for judge in self._judges():
            judge.judged(prompt, today)

    def _refresh(self) -> None:
        for judge in self._judges():
            judge.refresh()

    def _inspected(self, inspection: Inspection | None) -> None:
        self.live.show_inspection(self.window.session.request, inspection)

    # -- Judge… ------------------------------------------------------------------------------
    def judge_request(self, request: Request, where: str) -> JudgeDialog:
        """Judge `request`'s prompt in the Judge… dialog (`where` it comes from)."""
        dialog = self.dialog
        if dialog is None:
            dialog = self.dialog = JudgeDialog(
                self.model, lambda *question: self.ask(*question), self.window
            )
            self.model.decided.connect(dialog.show_decision)
        dialog.judge_request(request, where)
        self.model.decide(request)
        return dialog

    def judge_history_entry(self, entry_id: int) -> None:
        """Judge a prompt of the history, on its date, with the pack it was inspected with."""
        request = self.model.entry_request(entry_id)
        if request is not None:
            self.judge_request(request, "the history")
