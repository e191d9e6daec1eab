"""The router contract's view: the decision as a tree or raw JSON, the rules that fired, every
guardrail that changed the plan, a step-through of the tool plan, and the editable context the
next decision will use. Mirrors `routescope.contract`."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._html import counted
from ._style import colour, css
from ._widgets import enable_copy, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.contract import PlanProgress, RouterContext, RouterDecision

__all__ = ["ContractView"]

_CONTEXT_HINT = json.dumps(
    {
        "last_action": {"tool": "lend_execute", "args": {"amount": 100}, "status": "cancelled"},
        "preferences": {"stablecoinOnly": True},
    },
    indent=2,
)
_NO_CONTEXT = "no context: the decision sees the text alone"
_FIELDS = ("agent", "mode", "ui", "stop condition", "layout", "source")


class ContractView(QWidget):
    """Renders one `RouterDecision` and where its plan stands; edits the `RouterContext`.

    Signals:
        context_changed: emitted with the edited `RouterContext` (None when the editor is
            empty) each time the JSON validates.
        step_requested: the analyst asks to run the plan's next step (as if it succeeded).
        reset_requested: the analyst asks to start the plan over.
    """

    context_changed = Signal(object)
    step_requested = Signal()
    reset_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.decision: RouterDecision | None = None
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Decision", "Value"])
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        enable_copy(self.tree)
        self._rows: dict[str, QTreeWidgetItem] = {}
        self.raw = QPlainTextEdit(readOnly=True)
        self.raw.setObjectName("json")
        self.views = QStackedWidget()
        self.views.addWidget(self.tree)
        self.views.addWidget(self.raw)
        self.raw_toggle = QCheckBox("raw JSON")
        self.raw_toggle.toggled.connect(self._toggle_raw)
        self.step_button = QPushButton("Step ▶")
        self.step_button.setToolTip("run the plan's next step, as if it succeeded")
        self.step_button.clicked.connect(self.step_requested)
        self.reset_button = QPushButton("Reset")
        self.reset_button.clicked.connect(self.reset_requested)
        self.step_label = QLabel("")
        self.step_label.setObjectName("muted")
        self.step_label.setWordWrap(True)  # (a long tool name must not widen the window)
        controls = QHBoxLayout()
        for widget in (self.raw_toggle, self.step_button, self.reset_button):
            controls.addWidget(widget)
        controls.addWidget(self.step_label, 1)

        self.context_edit = QPlainTextEdit()
        self.context_edit.setPlaceholderText("router context as JSON, e.g.\n" + _CONTEXT_HINT)
        self.context_edit.textChanged.connect(self._context_edited)
        self.context_status = QLabel(_NO_CONTEXT)
        self.context_status.setObjectName("muted")
        self.context_status.setWordWrap(True)
        context_box = QWidget()
        context_layout = QVBoxLayout(context_box)
        context_layout.setContentsMargins(0, 0, 0, 0)
        title = QLabel("Context (last action, selection, preferences)")
        title.setWordWrap(True)
        context_layout.addWidget(title)
        context_layout.addWidget(self.context_edit, 1)
        context_layout.addWidget(self.context_status)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(controls)
        left_layout.addWidget(self.views, 1)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(context_box)
        split.setSizes([600, 300])
        QVBoxLayout(self).addWidget(split)
        self.show_result(None)

    # -- the context editor ----------------------------------------------------------------
    def show_context(self, context: RouterContext | None) -> None:
        """Put a context in the editor (a case opened in the live view)."""
        data = (
            context.model_dump(mode="json", by_alias=True, exclude_none=True) if context else None
        )
        self.context_edit.setPlainText(json.dumps(data, indent=2) if data else "")

    def _context_edited(self) -> None:
        raw = self.context_edit.toPlainText().strip()
        if not raw:
            self.context_status.setText(_NO_CONTEXT)
            self.context_changed.emit(None)
            return
        try:
            context = routescope.contract.parse_context(raw, "JSON")
        except routescope.ContextError as exc:
            self.context_status.setText(
                f"<span style='color:{css('bad')}'>not used — {html.escape(str(exc))}</span>"
            )
            return
        self.context_status.setText("context valid: used for the decision")
        self.context_changed.emit(context)

    # -- the decision ----------------------------------------------------------------------
    def show_result(
        self, decision: RouterDecision | None, step: PlanProgress | None = None, done: int = 0
    ) -> None:
        """Show a decision, and where its plan stands: `step` is what runs next, after the
        first `done` steps."""
        self.decision = decision
        if self.raw_toggle.isChecked():
            self._show_raw()
        self.step_label.setText(_where_the_plan_stands(step))
        self.step_button.setEnabled(step is not None and not step.done)
        if decision is None:
            ensure_children(self.tree, 0)
            self._rows = {}
            return
        if not self._rows:
            self._build()
        values = (
            decision.agent,
            decision.mode,
            decision.ui,
            decision.stop_condition,
            " → ".join(decision.layout),
            decision.source,
        )
        for name, value in zip(_FIELDS, values, strict=True):
            fill_row(self._rows[name], [name, value])
        self._show_plan(decision, done)
        self._show_rules(decision)

    def _build(self) -> None:
        names = [*_FIELDS, "tool plan", "rules fired", "guardrails"]
        for name, row in zip(names, ensure_children(self.tree, len(names)), strict=True):
            self._rows[name] = row
        self.tree.expandAll()

    def _show_plan(self, decision: RouterDecision, done: int) -> None:
        parent = self._rows["tool plan"]
        steps = len(decision.tool_plan)
        fill_row(parent, ["tool plan", counted(steps, "step")])
        rows = ensure_children(parent, len(decision.tool_plan))
        for index, (row, call) in enumerate(zip(rows, decision.tool_plan, strict=True)):
            finished = index < done
            fill_row(
                row, [f"{'✓' if finished else '·'} {index + 1}. {call.tool}", json.dumps(call.args)]
            )
            row.setData(0, Qt.ItemDataRole.ForegroundRole, colour("good") if finished else None)
        self.tree.resizeColumnToContents(0)

    def _show_rules(self, decision: RouterDecision) -> None:
        fired = self._rows["rules fired"]
        fill_row(fired, ["rules fired", str(len(decision.rules_fired))])
        for row, hit in zip(
            ensure_children(fired, len(decision.rules_fired)), decision.rules_fired, strict=True
        ):
            where = f" @{hit.start}–{hit.end}" if hit.start is not None else ""
            fill_row(row, [hit.rule, f"“{hit.text}”{where}" if hit.text else ""])
        guards = self._rows["guardrails"]
        fill_row(
            guards, ["guardrails", str(len(decision.guardrails)) if decision.guardrails else "none"]
        )
        for row, event in zip(
            ensure_children(guards, len(decision.guardrails)), decision.guardrails, strict=True
        ):
            fill_row(row, [event.rule, event.detail])
            row.setData(0, Qt.ItemDataRole.ForegroundRole, colour("warn_ink"))

    def _toggle_raw(self, on: bool) -> None:
        self.views.setCurrentIndex(1 if on else 0)
        if on:
            self._show_raw()

    def _show_raw(self) -> None:
        """The decision as JSON, rendered only while the raw view is chosen."""
        self.raw.setPlainText(
            self.decision.model_dump_json(indent=2)
            if self.decision
            else "no decision: no prompt yet, or the rule pack disables the contract"
        )


def _where_the_plan_stands(step: PlanProgress | None) -> str:
    if step is None:
        return ""
    return f"next: {step.next.tool}" if step.next else f"done — {step.reason}"
