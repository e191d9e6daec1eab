"""Judging a decision where it is shown: an Expected column in the Context tree (shown while the
prompt is judged) and a bar under it. Each row of the tree (an intent flag, the place hint, an
entity) is marked right or wrong from its context menu or its key — R right, W wrong, Y/N
expected on/off, E (F2) edit the expected place, X strike an entity, A add one, Del forget the
label — and the bar sets the expected strategy and linter class. What was expected is shown
beside what was decided: a mismatch is marked ✗ on the miss colour, with the evidence of the
decision in its tooltip.

The verdicts are the judge's (`routescope.judge.verdicts`): the same ones the Quality view and
`routescope score` count. Judgments go to the current judged set (`JudgeModel`).
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QBrush, QKeyEvent
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QPushButton,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._html import counted
from ._menus import ElidedLabel
from ._style import colour, css

if TYPE_CHECKING:
    from routescope import Inspection, Request
    from routescope.judge import Evidence, Labels, Miss, Prediction

    from ._strategy_view import ContextTree

__all__ = [
    "EXPECTED",
    "AskText",
    "ContextJudge",
    "JudgeBar",
    "Judgments",
    "Subject",
    "ask_text",
    "judging_key",
    "mark_expected",
]

EXPECTED = 3
"""The Context tree's column of expected values (shown between Value and Evidence)."""
_MAX_ENTITIES = 6
_STRATEGIES = ("general", "local", "tech")
_CLASSES = ("guided", "semi", "vague")
_NOT_JUDGED = "not judged — right-click it, or press R (right) or W (wrong)"
_KEYS = "R right · W wrong · Y/N on/off · E place · X strike · A add entity · Del forget"

_EXPECTED_WIDTH = 88
"""The widest the Expected column grows (its texts are short; its tooltips say it all)."""

AskText = Callable[[str, str, str], "str | None"]
"""Asks for a line of text: (title, label, text shown at first) → the answer, None: cancelled."""


class Judgments(Protocol):
    """What judging needs of the judged sets (the `JudgeModel` is one)."""

    @property
    def current(self) -> str: ...

    @property
    def size(self) -> int: ...

    def judgment(self, prompt: str, today: dt.date) -> Labels | None: ...

    def judge(
        self,
        prompt: str,
        today: dt.date,
        fields: Mapping[str, object],
        context: Mapping[str, Any] | None = None,
    ) -> bool: ...

    def forget(self, prompt: str, today: dt.date) -> None: ...


def ask_text(parent: QWidget) -> AskText:
    """A modal one-line question over `parent` (tests replace it)."""

    def ask(title: str, label: str, text: str) -> str | None:
        answer, ok = QInputDialog.getText(parent, title, label, text=text)
        return answer if ok else None

    return ask


@dataclass(frozen=True, slots=True)
class Subject:
    """The prompt being judged and what the routers decided about it."""

    prompt: str
    today: dt.date
    context: Mapping[str, Any] | None
    decided: Prediction

    @classmethod
    def of(cls, request: Request, inspection: Inspection) -> Subject:
        from routescope.judge import prediction_of_inspection

        context = request.context
        return cls(
            request.text,
            request.today,
            context.model_dump(mode="json", exclude_defaults=True) if context else None,
            prediction_of_inspection(inspection),
        )


def _evidence_lines(evidence: tuple[Evidence, ...]) -> list[str]:
    lines = []
    for item in evidence[:6]:
        where = f" “{item.text}” @{item.start}–{item.end}" if item.end > item.start else ""
        lines.append(f"{item.rule}{where}")
    if len(evidence) > 6:
        lines.append(f"(+{len(evidence) - 6} more)")
    return lines


def _why(miss: Miss, expected: str, decided: str) -> str:
    lines = [f"expected {expected}; decided {decided}", "decided by:"]
    lines += [f"  {line}" for line in _evidence_lines(miss.evidence)] or ["  no rule fired"]
    return "\n".join(lines)


def _on(value: object) -> str:
    return "on" if value else "off"


def _place(value: object) -> str:
    return "none" if value in (None, "") else str(value)


_FIELD_NAMES = {"place_hint": "place hint", "linter_class": "linter class", "top_tool": "top tool"}


class JudgeBar(QWidget):
    """The judged set judgments go to, the expected strategy and linter class (each beside
    what was decided), what is right and wrong, and buttons to judge everything as decided
    or forget the judgment.

    Signals:
        strategy_chosen: emitted with the expected strategy (None: not judged).
        linter_chosen: emitted with the expected linter class (None: not judged).
        all_right_requested: ✓ All as decided.
        forget_requested: Forget (the prompt's judgment).
    """

    strategy_chosen = Signal(object)
    linter_chosen = Signal(object)
    all_right_requested = Signal()
    forget_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("judgeBar")
        # (a long set name is elided: the Context pane keeps its width)
        self.set_label = ElidedLabel("", max_width=300, min_chars=14)
        self.set_label.setObjectName("muted")
        self.all_right = QPushButton("✓ All as decided")
        self.all_right.setToolTip(
            "judge every flag, the place hint and the entities as the routers decided them "
            "(then correct what is wrong)"
        )
        self.forget = QPushButton("Forget")
        self.forget.setToolTip("forget this prompt's judgment in the judged set")
        self.strategy = self._combo(_STRATEGIES)
        self.linter = self._combo(_CLASSES)
        self.linter.setToolTip(
            "label the linter's class only for prompts that search a codebase (labelling guide)"
        )
        self.strategy_mark = QLabel("")
        self.linter_mark = QLabel("")
        for mark in (self.strategy_mark, self.linter_mark):
            mark.setTextFormat(Qt.TextFormat.RichText)
        self.summary = QLabel("")
        self.summary.setObjectName("muted")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.set_label, 1)
        top.addWidget(self.all_right)
        top.addWidget(self.forget)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        for row, (name, combo, mark) in enumerate(
            (
                ("strategy", self.strategy, self.strategy_mark),
                ("linter class", self.linter, self.linter_mark),
            )
        ):
            label = QLabel(name)
            label.setToolTip(f"the expected {name}, beside what was decided")
            grid.addWidget(label, row, 0)
            grid.addWidget(combo, row, 1)
            grid.addWidget(mark, row, 2)
        grid.setColumnStretch(2, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(3)
        layout.addLayout(top)
        layout.addLayout(grid)
        layout.addWidget(self.summary)
        self.strategy.activated.connect(lambda _i: self.strategy_chosen.emit(self._chosen(0)))
        self.linter.activated.connect(lambda _i: self.linter_chosen.emit(self._chosen(1)))
        self.all_right.clicked.connect(self.all_right_requested)
        self.forget.clicked.connect(self.forget_requested)
        self.show_subject(False)

    @staticmethod
    def _combo(values: tuple[str, ...]) -> QComboBox:
        combo = QComboBox()
        combo.addItem("—", None)
        for value in values:
            combo.addItem(value, value)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        return combo

    def _chosen(self, which: int) -> object:
        return (self.strategy, self.linter)[which].currentData()

    def show_set(self, name: str, prompts: int) -> None:
        text = f"«{name}» · {prompts} judged"
        self.set_label.setText(text)
        self.set_label.setToolTip(
            f"judgments go to the judged set «{name}» of the history "
            f"({counted(prompts, 'prompt')}): "
            "Judgments ▸ to make, switch, merge, import or export sets"
        )

    def show_subject(self, shown: bool) -> None:
        """Enable the controls while a prompt is shown."""
        for widget in (self.all_right, self.forget, self.strategy, self.linter):
            widget.setEnabled(shown)
        if not shown:
            self.summary.setText("")
            self.strategy_mark.setText("")
            self.linter_mark.setText("")

    def show_choice(self, combo: QComboBox, value: str | None, derived: str | None) -> None:
        combo.setItemText(0, f"flags: {derived}" if derived else "—")
        combo.setItemData(
            0,
            f"not judged: the flags judged make it {derived}" if derived else "not judged",
            Qt.ItemDataRole.ToolTipRole,
        )
        index = combo.findData(value) if value is not None else 0
        combo.setCurrentIndex(max(index, 0))

    def show_mark(self, mark: QLabel, decided: str, miss: Miss | None, judged: bool) -> None:
        """`decided` beside the expected value: ✓ on the hit colour, ✗ on the miss colour
        (the decision's evidence in the tooltip), or plain when not judged."""
        if not judged:
            mark.setText(
                f"<span style='color:{css('muted')}'>decided {html.escape(decided)}</span>"
            )
            mark.setToolTip("")
            return
        role = "bad" if miss else "good"
        sign = "✗" if miss else "✓"
        mark.setText(
            f"<span style='color:{css(role)}; font-weight:600'>{sign} decided "
            f"{html.escape(decided)}</span>"
        )
        mark.setToolTip(
            _why(miss, str(miss.expected), str(miss.got)) if miss else "right: as expected"
        )

    def show_summary(self, verdicts: Mapping[str, Miss | None]) -> None:
        if not verdicts:
            self.summary.setText(f"Not judged yet. On a row of the tree: {_KEYS}.")
            self.summary.setToolTip("")
            return
        wrong = [name for name, miss in verdicts.items() if miss is not None]
        right = len(verdicts) - len(wrong)
        text = f"<span style='color:{css('good')}'>✓ {right} right</span>"
        if wrong:
            text += (
                f" · <span style='color:{css('bad')}; font-weight:600'>✗ {len(wrong)} wrong: "
                f"{html.escape(', '.join(_FIELD_NAMES.get(w, w) for w in wrong))}</span>"
            )
        self.summary.setText(text)
        self.summary.setToolTip(_KEYS)


class ContextJudge(QObject):
    """Judging the subject shown in a Context tree, into the current judged set. The owner
    calls `refresh` when the judgments change (another prompt judged, another set).

    Attributes:
        subject: the prompt judged and its decision (None: nothing shown).
        verdicts: each labelled field and its `Miss` (None: right), as last shown.
    """

    def __init__(
        self,
        tree: ContextTree,
        bar: JudgeBar,
        judgments: Judgments,
        *,
        ask: AskText,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent or tree)
        self.tree = tree
        self.bar = bar
        self.model = judgments
        self.ask = ask
        self.subject: Subject | None = None
        self.verdicts: dict[str, Miss | None] = {}
        tree.setColumnCount(EXPECTED + 1)
        header_item = tree.headerItem()
        header_item.setText(EXPECTED, "Expected")
        header_item.setToolTip(EXPECTED, f"the judged value of each row: {_KEYS}")
        header = tree.header()
        header.moveSection(header.visualIndex(EXPECTED), 2)  # before Evidence, which stretches
        header.setSectionResizeMode(EXPECTED, QHeaderView.ResizeMode.Interactive)
        tree.menu_entries = self._menu_entries
        tree.installEventFilter(self)
        bar.strategy_chosen.connect(lambda value: self._judge({"strategy": value}))
        bar.linter_chosen.connect(lambda value: self._judge({"linter_class": value}))
        bar.all_right_requested.connect(self.all_as_decided)
        bar.forget_requested.connect(self.forget)
        self._fit_expected()
        self._show_set()

    def _fit_expected(self) -> None:
        """The Expected column as wide as its texts, up to `_EXPECTED_WIDTH`."""
        tree, header = self.tree, self.tree.header()
        wanted = max(tree.sizeHintForColumn(EXPECTED), header.sectionSizeHint(EXPECTED))
        width = min(wanted, _EXPECTED_WIDTH)
        if header.sectionSize(EXPECTED) != width:
            header.resizeSection(EXPECTED, width)

    # -- what is shown ---------------------------------------------------------------------
    def show_subject(self, subject: Subject | None) -> None:
        """Judge this prompt now (None: nothing is shown)."""
        self.subject = subject
        self.refresh()

    def show_inspection(self, request: Request, inspection: Inspection | None) -> None:
        self.show_subject(Subject.of(request, inspection) if inspection is not None else None)

    def labels(self) -> Labels | None:
        subject = self.subject
        return None if subject is None else self.model.judgment(subject.prompt, subject.today)

    def judged(self, prompt: str, today: dt.date) -> None:
        """`prompt` was judged (on `today`): shown again if it is the subject."""
        subject = self.subject
        if subject is not None and (subject.prompt, subject.today) == (prompt, today):
            self.refresh()

    def _show_set(self) -> None:
        self.bar.show_set(self.model.current, self.model.size)

    def refresh(self) -> None:
        """Show the judgment of the subject beside its decision."""
        from routescope.judge import LabelledCase, Labels, verdicts

        self._show_set()
        subject = self.subject
        self.bar.show_subject(subject is not None)
        judged = self.labels()
        # The Expected column shows while the prompt is judged: a narrow Context pane keeps
        # its Evidence column in sight otherwise (the bar says how to judge).
        self.tree.setColumnHidden(EXPECTED, judged is None)
        if subject is None:
            self.verdicts = {}
            return
        labels = judged or Labels()
        case = LabelledCase("shown", subject.prompt, labels, subject.today)
        self.verdicts = verdicts(case, subject.decided)
        self._fill_tree(labels)
        decided = subject.decided
        bar = self.bar
        derived = None if labels.strategy else labels.expected_strategy()
        bar.show_choice(bar.strategy, labels.strategy, derived)
        bar.show_choice(bar.linter, labels.linter_class, None)
        bar.show_mark(
            bar.strategy_mark,
            decided.strategy,
            self.verdicts.get("strategy"),
            "strategy" in self.verdicts,
        )
        bar.show_mark(
            bar.linter_mark,
            decided.linter_class,
            self.verdicts.get("linter_class"),
            "linter_class" in self.verdicts,
        )
        bar.show_summary(self.verdicts)

    def _fill_tree(self, labels: Labels) -> None:
        tree = self.tree
        subject = self.subject
        assert subject is not None
        for name in routescope.strategy.INTENTS:
            row = tree.row(name)
            if row is None:
                continue
            expected = labels.flag(name)
            if name not in self.verdicts or expected is None:
                mark_expected(row, "", _NOT_JUDGED, None)
                continue
            miss = self.verdicts[name]
            tip = _why(miss, _on(expected), _on(subject.decided.flags[name])) if miss else ""
            mark_expected(
                row, _on(expected), tip or f"right: {name} is {_on(expected)}", miss is None
            )
        self._fill_place(labels)
        self._fill_entities(labels)
        self._fit_expected()

    def _fill_place(self, labels: Labels) -> None:
        row = self.tree.row("place")
        subject = self.subject
        if row is None or subject is None:
            return
        if "place_hint" not in self.verdicts or labels.place_hint is None:
            mark_expected(row, "", _NOT_JUDGED + "; E: the expected place", None)
            return
        miss = self.verdicts["place_hint"]
        expected = _place(labels.place_hint)
        tip = (
            _why(miss, expected, _place(subject.decided.place_hint))
            if miss
            else f"right: {expected}"
        )
        mark_expected(row, expected, tip, miss is None)

    def _fill_entities(self, labels: Labels) -> None:
        from routescope.judge import normal_form

        parent = self.tree.row("entities")
        if parent is None:
            return
        children = [parent.child(i) for i in range(parent.childCount())]
        expected = labels.entities
        if expected is None:
            mark_expected(parent, "", _NOT_JUDGED + "; A: add an entity", None)
            for child in children:
                if child is not None:
                    mark_expected(
                        child, "", _NOT_JUDGED + "; X: strike it" if child.text(0) else "", None
                    )
            return
        wanted = {normal_form(name) for name in expected}
        decided = {normal_form(name) for name in self._decided_entities()}
        missing = [name for name in expected if normal_form(name) not in decided]
        miss = self.verdicts.get("entities")
        text = f"{len(missing)} missed" if missing else f"{len(expected)} named"
        tip = f"expected: {', '.join(expected) or 'none'}"
        if missing:
            tip += f"\nnot found: {', '.join(missing)}"
        if miss is not None:
            tip += "\n" + _why(miss, f"{len(expected)} entities", "the ones listed")
        mark_expected(parent, text, tip, miss is None)
        for child in children:
            if child is None or not child.text(0):
                if child is not None:
                    mark_expected(child, "", "", None)
                continue
            right = normal_form(child.text(1)) in wanted
            mark_expected(
                child,
                "yes" if right else "struck",
                "right: an entity the labels name"
                if right
                else f"wrong: “{child.text(1)}” is not an entity the labels name (struck)",
                right,
            )

    def _decided_entities(self) -> tuple[str, ...]:
        return () if self.subject is None else self.subject.decided.entities

    # -- judging ---------------------------------------------------------------------------
    def _judge(self, fields: Mapping[str, object]) -> None:
        subject = self.subject
        if subject is None:
            return
        clear = routescope.history.CLEAR
        given = {name: clear if value is None else value for name, value in fields.items()}
        self.model.judge(subject.prompt, subject.today, given, subject.context)

    def set_flag(self, name: str, value: bool | None) -> None:
        self._judge({name: value})

    def flag_right(self, name: str, right: bool = True) -> None:
        subject = self.subject
        if subject is not None:
            decided = subject.decided.flags[name]  # type: ignore[index]
            self.set_flag(name, decided if right else not decided)

    def place_right(self) -> None:
        subject = self.subject
        if subject is not None:
            self._judge({"place_hint": subject.decided.place_hint or ""})

    def edit_place(self) -> None:
        subject = self.subject
        if subject is None:
            return
        labels = self.labels()
        shown = labels.place_hint if labels and labels.place_hint is not None else None
        start = shown if shown is not None else (subject.decided.place_hint or "")
        answer = self.ask(
            "Expected place",
            "The place the local need is bound to, as written (blank: none is named):",
            start,
        )
        if answer is not None:
            self._judge({"place_hint": " ".join(answer.split())})

    def _expected_entities(self) -> list[str]:
        labels = self.labels()
        if labels is not None and labels.entities is not None:
            return list(labels.entities)
        return list(self._decided_entities()[:_MAX_ENTITIES])

    def strike_entity(self, name: str) -> None:
        from routescope.judge import normal_form

        kept = [e for e in self._expected_entities() if normal_form(e) != normal_form(name)]
        self._judge({"entities": kept})

    def keep_entity(self, name: str) -> None:
        from routescope.judge import normal_form

        names = self._expected_entities()
        if normal_form(name) not in {normal_form(e) for e in names}:
            names.append(name)
        self._judge({"entities": names})

    def add_entity(self) -> None:
        answer = self.ask("Add an entity", "A named thing a search should anchor on:", "")
        if answer and answer.strip():
            self.keep_entity(" ".join(answer.split()))

    def entities_right(self) -> None:
        self._judge({"entities": list(self._decided_entities()[:_MAX_ENTITIES])})

    def all_as_decided(self) -> None:
        """Judge every flag, the place and the entities as decided (the strategy follows
        from the flags)."""
        subject = self.subject
        if subject is None:
            return
        decided = subject.decided
        fields: dict[str, object] = {name: on for name, on in decided.flags.items()}
        fields["place_hint"] = decided.place_hint or ""
        fields["entities"] = list(decided.entities[:_MAX_ENTITIES])
        self._judge(fields)

    def forget(self) -> None:
        subject = self.subject
        if subject is not None:
            self.model.forget(subject.prompt, subject.today)

    # -- rows, keys and menus ----------------------------------------------------------------
    def row_kind(self, item: QTreeWidgetItem | None) -> tuple[str, str]:
        """What a row judges: ("flag", name), ("place", ""), ("entities", ""),
        ("entity", its text) or ("", "")."""
        tree = self.tree
        if item is None:
            return "", ""
        for name in routescope.strategy.INTENTS:
            if item is tree.row(name):
                return "flag", name
        if item is tree.row("place"):
            return "place", ""
        entities = tree.row("entities")
        if item is entities:
            return "entities", ""
        if entities is not None and item.parent() is entities and item.text(0):
            return "entity", item.text(1)
        return "", ""

    def actions_for(
        self, item: QTreeWidgetItem | None
    ) -> list[tuple[str, str, Callable[[], None]]]:
        """The judging actions of a row: (text, key, what it does)."""
        kind, name = self.row_kind(item)
        subject = self.subject
        if subject is None:
            return []
        found: list[tuple[str, str, Callable[[], None]]] = []
        if kind == "flag":
            on = subject.decided.flags[name]  # type: ignore[index]
            found += [
                (f"✓ Right: {name} is {_on(on)}", "R", lambda: self.flag_right(name)),
                (
                    f"✗ Wrong: {name} should be {_on(not on)}",
                    "W",
                    lambda: self.flag_right(name, False),
                ),
                (f"Expected {name} on", "Y", lambda: self.set_flag(name, True)),
                (f"Expected {name} off", "N", lambda: self.set_flag(name, False)),
                (f"Forget the {name} label", "Del", lambda: self.set_flag(name, None)),
            ]
        elif kind == "place":
            found += [
                (f"✓ Right: {_place(subject.decided.place_hint)}", "R", self.place_right),
                ("Expected place…", "E", self.edit_place),
                ("✗ No place is named", "N", lambda: self._judge({"place_hint": ""})),
                ("Forget the place label", "Del", lambda: self._judge({"place_hint": None})),
            ]
        elif kind in ("entity", "entities"):
            if kind == "entity":
                found += [
                    (f"✓ Right: “{name}” is an entity", "R", lambda: self.keep_entity(name)),
                    (f"✗ Strike “{name}”: not an entity", "X", lambda: self.strike_entity(name)),
                ]
            else:
                found.append(("✓ Right: the entities as found", "R", self.entities_right))
            found += [
                ("Add an entity…", "A", self.add_entity),
                ("Forget the entities label", "Del", lambda: self._judge({"entities": None})),
            ]
        found += [
            ("✓ All as decided", "", self.all_as_decided),
            ("Forget this prompt's judgment", "", self.forget),
        ]
        return found

    def menu_for(self, item: QTreeWidgetItem | None) -> QMenu:
        """A menu of the row's judging actions alone."""
        menu = QMenu(self.tree)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._fill_menu(menu, item)
        return menu

    def _menu_entries(self, menu: QMenu, index: QModelIndex) -> None:
        """The tree's context menu: its Copy, then the row's judging actions."""
        if self.subject is None:
            return
        menu.addSeparator()
        self._fill_menu(menu, self.tree.itemFromIndex(index) if index.isValid() else None)

    def _fill_menu(self, menu: QMenu, item: QTreeWidgetItem | None) -> None:
        actions = self.actions_for(item)
        for number, (text, key, act) in enumerate(actions):
            if number == len(actions) - 2 and number:
                menu.addSeparator()
            action = menu.addAction(f"{text}\t{key}" if key else text)
            action.triggered.connect(act)

    def press(self, item: QTreeWidgetItem | None, key: str) -> bool:
        """Do what `key` does on a row (as its menu says); False: nothing."""
        aliases = {"Delete": "Del", "Backspace": "Del", "Insert": "A", "F2": "E"}
        key = aliases.get(key, key)
        for _text, shown, act in self.actions_for(item):
            if shown == key:
                act()
                return True
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tree and isinstance(event, QKeyEvent):
            key = judging_key(event)
            if key and event.type() == QEvent.Type.KeyPress:
                return self.press(self.tree.currentItem(), key)
            if key and event.type() == QEvent.Type.ShortcutOverride:
                kind, _name = self.row_kind(self.tree.currentItem())
                if kind:
                    event.accept()  # the row's key, not a shortcut of the window
                    return True
        return super().eventFilter(watched, event)


_KEY_NAMES = {
    Qt.Key.Key_R: "R",
    Qt.Key.Key_W: "W",
    Qt.Key.Key_Y: "Y",
    Qt.Key.Key_N: "N",
    Qt.Key.Key_E: "E",
    Qt.Key.Key_X: "X",
    Qt.Key.Key_A: "A",
    Qt.Key.Key_Delete: "Delete",
    Qt.Key.Key_Backspace: "Backspace",
    Qt.Key.Key_Insert: "Insert",
    Qt.Key.Key_F2: "F2",
}


def judging_key(event: QKeyEvent) -> str:
    """The judging key pressed (no modifier but Shift or the keypad's), or ""."""
    plain = Qt.KeyboardModifier.KeypadModifier | Qt.KeyboardModifier.ShiftModifier
    if event.modifiers() & ~plain:
        return ""
    return _KEY_NAMES.get(Qt.Key(event.key()), "")


def mark_expected(
    row: QTreeWidgetItem, text: str, tip: str, right: bool | None, column: int = EXPECTED
) -> None:
    """Fill a row's Expected cell (`column`): ✓ on the hit colour, ✗ on the miss colour, or
    plain."""
    sign = "" if right is None or not text else ("✓ " if right else "✗ ")
    row.setText(column, sign + text)
    row.setToolTip(column, tip)
    if right is None or not text:
        row.setData(column, Qt.ItemDataRole.BackgroundRole, None)
        row.setData(column, Qt.ItemDataRole.ForegroundRole, None)
        return
    fill, ink = ("hit", "hit_text") if right else ("miss", "miss_text")
    row.setData(column, Qt.ItemDataRole.BackgroundRole, QBrush(colour(fill)))
    row.setData(column, Qt.ItemDataRole.ForegroundRole, QBrush(colour(ink)))
