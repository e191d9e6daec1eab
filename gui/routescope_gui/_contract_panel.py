"""The Contract tab: the decision as a tree or raw JSON, guardrail events, an editable context
and a step-through of the tool plan with `prepare_step`."""

from __future__ import annotations

import json

from pydantic import ValidationError
from PySide6.QtCore import Signal
from PySide6.QtGui import QBrush, QColor
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

from routescope.contract import RouterContext, RouterDecision, StepResult, prepare_step

__all__ = ["ContractPanel"]

_CONTEXT_HINT = json.dumps(
    {
        "last_action": {"tool": "lend_execute", "args": {"amount": 100}, "status": "cancelled"},
        "preferences": {"stablecoinOnly": True},
    },
    indent=2,
)


class ContractPanel(QWidget):
    """Renders a `RouterDecision`; edits the `RouterContext` the next decision will use.

    Signals:
        context_changed: emitted with the new `RouterContext` (or None) when the edited JSON
            validates.
    """

    context_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.decision: RouterDecision | None = None
        self._results: list[StepResult] = []
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Decision", "Value"])
        self.tree.setAlternatingRowColors(True)
        self.raw = QPlainTextEdit(readOnly=True)
        self.raw.setObjectName("json")
        self.views = QStackedWidget()
        self.views.addWidget(self.tree)
        self.views.addWidget(self.raw)
        self.raw_toggle = QCheckBox("raw JSON")
        self.raw_toggle.toggled.connect(lambda on: self.views.setCurrentIndex(1 if on else 0))
        self.step_button = QPushButton("Step ▶")
        self.step_button.clicked.connect(self.step)
        self.reset_button = QPushButton("Reset")
        self.reset_button.clicked.connect(self.reset_steps)
        self.step_label = QLabel("")
        self.step_label.setObjectName("muted")
        controls = QHBoxLayout()
        for widget in (self.raw_toggle, self.step_button, self.reset_button):
            controls.addWidget(widget)
        controls.addWidget(self.step_label, 1)

        self.context_edit = QPlainTextEdit()
        self.context_edit.setPlaceholderText("router context as JSON, e.g.\n" + _CONTEXT_HINT)
        self.context_edit.textChanged.connect(self._context_edited)
        self.context_status = QLabel("no context: the decision sees the text alone")
        self.context_status.setObjectName("muted")
        self.context_status.setWordWrap(True)
        context_box = QWidget()
        context_layout = QVBoxLayout(context_box)
        context_layout.setContentsMargins(0, 0, 0, 0)
        context_layout.addWidget(QLabel("Context (last action, selection, preferences)"))
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

    def _context_edited(self) -> None:
        raw = self.context_edit.toPlainText().strip()
        if not raw:
            self.context_status.setText("no context: the decision sees the text alone")
            self.context_changed.emit(None)
            return
        try:
            context = RouterContext.model_validate_json(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "JSON"
            self.context_status.setText(
                f"<span style='color:#c62828'>not used — {where}: {first['msg']}</span>"
            )
            return
        self.context_status.setText("context valid: used for the decision")
        self.context_changed.emit(context)

    def show_decision(self, decision: RouterDecision | None) -> None:
        self.decision = decision
        self._results = []
        self.raw.setPlainText(
            decision.model_dump_json(indent=2) if decision else "contract disabled"
        )
        self._render()

    def reset_steps(self) -> None:
        self._results = []
        self._render()

    def step(self) -> None:
        """Run the next planned step (as if it succeeded) and show where the plan stands."""
        if self.decision is None:
            return
        next_step = prepare_step(self.decision, self._results)
        if next_step.next is not None:
            self._results.append(StepResult(tool=next_step.next.tool, args=next_step.next.args))
        self._render()

    def _render(self) -> None:
        self.tree.clear()
        decision = self.decision
        if decision is None:
            self.step_label.setText("")
            return
        for name, value in (
            ("agent", decision.agent),
            ("mode", decision.mode),
            ("ui", decision.ui),
            ("stop condition", decision.stop_condition),
            ("layout", " → ".join(decision.layout)),
            ("source", decision.source),
        ):
            QTreeWidgetItem(self.tree, [name, value])
        plan = QTreeWidgetItem(self.tree, ["tool plan", f"{len(decision.tool_plan)} steps"])
        for index, call in enumerate(decision.tool_plan):
            done = index < len(self._results)
            item = QTreeWidgetItem(
                plan, [f"{'✓' if done else '·'} {index + 1}. {call.tool}", json.dumps(call.args)]
            )
            if done:
                item.setForeground(0, QBrush(QColor("#2e7d32")))
        why = QTreeWidgetItem(self.tree, ["rules fired", str(len(decision.rules_fired))])
        for hit in decision.rules_fired:
            where = f" @{hit.start}–{hit.end}" if hit.start is not None else ""
            QTreeWidgetItem(why, [hit.rule, f"“{hit.text}”{where}" if hit.text else ""])
        guards = QTreeWidgetItem(self.tree, ["guardrails", str(len(decision.guardrails)) or "none"])
        for event in decision.guardrails:
            item = QTreeWidgetItem(guards, [event.rule, event.detail])
            item.setForeground(0, QBrush(QColor("#8d6e00")))
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)
        state = prepare_step(decision, self._results)
        self.step_label.setText(
            f"next: {state.next.tool}" if state.next else f"done — {state.reason}"
        )
        self.step_button.setEnabled(not state.done)
