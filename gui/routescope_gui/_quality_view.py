"""The Quality view: the current rule pack scored on the current judged set — per intent flag
precision, recall and F1 with their counts, macro-F1, the strategy's confusion matrix (the
linter's too where it is labelled), place-hint and entity figures — the same figures
`routescope score` prints for the set exported. Clicking a cell lists its prompts, each with
what was expected and decided and the evidence of the decision (the rule and the span that
fired); a prompt opens in the live view on its date. A vocabulary that does not fit the judged
prompts says so, and what to do.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ._html import counted
from ._style import colour
from ._widgets import enable_copy

if TYPE_CHECKING:
    from routescope.batch import VocabularyNote
    from routescope.judge import (
        Confusion,
        Evidence,
        LabelledCase,
        Miss,
        Prediction,
        Scorecard,
        SetScore,
    )

__all__ = ["NO_JUDGMENTS", "QualityView", "Scored", "figure"]

NO_JUDGMENTS = (
    "No judged prompt in this set yet. Judge prompts in the live view (right-click a row of the "
    "Context tree, or press R right / W wrong on it), from the History or Batch lists "
    "(Judge…), or import a labelled file (Judgments ▸ Import…): the pack's precision, recall "
    "and confusion on them appear here, live as the rule editor changes the pack."
)
_PICK = "Click a figure to list the prompts behind it, with the evidence of each decision."
_FLAG_HEADERS = ("Flag", "Precision", "Recall", "F1", "TP", "FP", "FN", "Labelled")
_FIGURE_HEADERS = ("Figure", "Value", "Right", "Wrong", "Labelled")
_PROMPT_HEADERS = ("Prompt", "Field", "Expected", "Decided", "Evidence")
_STRATEGIES = ("general", "local", "tech")
_CLASSES = ("guided", "semi", "vague")
_PROMPT_CHARS = 300
_FIGURES_SHARE = 0.62
"""The most of the view's height the figures take (the prompts behind them have the rest)."""
_FIGURES_ALONE = 0.82
"""…and while no figure is picked (the prompts pane has only its hint to show)."""


class Scored(Protocol):
    """What the view shows of a pack's scores on a judged set (the quality model's `Quality`)."""

    @property
    def set_name(self) -> str: ...
    @property
    def pack(self) -> str: ...
    @property
    def score(self) -> SetScore: ...
    @property
    def cases(self) -> Mapping[str, LabelledCase]: ...
    @property
    def decided(self) -> Mapping[str, Prediction]: ...
    @property
    def notes(self) -> Sequence[VocabularyNote]: ...
    @property
    def seconds(self) -> float: ...


def figure(value: float | None) -> str:
    """A ratio as the view shows it: three decimals, "—" when undefined."""
    return "—" if value is None else f"{value:.3f}"


@dataclass(frozen=True, slots=True)
class _Cell:
    """The prompts behind a figure: what they are, the field they concern, their case ids."""

    caption: str
    field: str
    ids: tuple[str, ...]


def _item(text: str, tip: str = "", *, right: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
    if tip:
        item.setToolTip(tip)
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def _table(headers: Sequence[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().setDefaultSectionSize(24)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setMinimumSectionSize(44)
    # A table of figures is as large as its cells: no scroll bars, no blank space.
    table.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    enable_copy(table)
    return table


def _box(title: str, *widgets: QWidget) -> QGroupBox:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    for widget in widgets:
        layout.addWidget(widget)
    layout.addStretch(1)
    return box


def _fit_height(table: QTableWidget) -> None:
    """A table of figures measured again for its new rows."""
    table.resizeColumnsToContents()
    table.updateGeometry()


def _evidence_text(evidence: Sequence[Evidence]) -> str:
    parts = []
    for item in evidence:
        where = f" “{item.text}” @{item.start}–{item.end}" if item.end > item.start else ""
        reason = f": {item.text}" if item.end <= item.start and item.text else ""
        parts.append(f"{item.rule}{where}{reason}")
    return "; ".join(parts)


def _shown(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "none"
    return str(value) if value != "" else "none"


class QualityView(QWidget):
    """A pack's figures on a judged set, and the prompts behind the one picked.

    Attributes:
        result: the scores shown (None: none); title, status, notes: the header's lines;
        flags, strategy, linter, figures: the tables of figures; prompts: the prompts of the
        figure picked, under `caption`; macro: the macro-F1 line; part: the part of a split
        set whose figures are shown (hidden for a set without parts).

    Signals:
        open_prompt_requested: emitted with a labelled case to open in the live view.
        suggestions_requested: the Suggestions… button.
    """

    open_prompt_requested = Signal(object)
    suggestions_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Scored | None = None
        self._cells: dict[tuple[int, int, int], _Cell] = {}
        self._misses: dict[tuple[str, str], Miss] = {}
        self._listed: list[tuple[LabelledCase, str]] = []
        self._picking = False  # a figure is picked: its prompts are listed
        self._picked: QTableWidget | None = None
        self.title = QLabel("")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.status = QLabel("")
        self.status.setObjectName("muted")
        self.suggest_button = QPushButton("Suggestions…")
        self.suggest_button.setToolTip(
            "pack edits this set's errors suggest, each with its measured gain"
        )
        self.suggest_button.clicked.connect(self.suggestions_requested)
        self.notes = QLabel("")
        self.notes.setObjectName("caption")
        self.notes.setWordWrap(True)
        self.notes.setVisible(False)
        self.hint = QLabel(NO_JUDGMENTS)
        self.hint.setObjectName("batchHint")
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
        self._build_tables()
        self.part_label = QLabel("figures of the")
        self.part = QComboBox()
        self.part.setToolTip("a split set's figures on the whole set or on one of its parts")
        self.part.currentIndexChanged.connect(lambda _index: self._part_chosen())
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.part_label)
        header.addWidget(self.part)
        header.addWidget(self.status)
        header.addWidget(self.suggest_button)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.notes)
        layout.addWidget(self.hint, 1)
        layout.addWidget(self.body, 1)
        self.show_result(None)

    def _build_tables(self) -> None:
        self.flags = _table(_FLAG_HEADERS)
        self.macro = QLabel("")
        self.macro.setTextFormat(Qt.TextFormat.RichText)
        flag_box = _box("Intent flags", self.flags, self.macro)
        self.strategy = _table(("labelled ↓ decided →", *_STRATEGIES))
        self.strategy_accuracy = QLabel("")
        self.strategy_box = _box("Strategy", self.strategy, self.strategy_accuracy)
        self.linter = _table(("labelled ↓ decided →", *_CLASSES))
        self.linter_accuracy = QLabel("")
        self.linter_box = _box("Linter class", self.linter, self.linter_accuracy)
        self.figures = _table(_FIGURE_HEADERS)
        figure_box = _box("Place, entities and more", self.figures)
        top = QWidget()
        self._flag_box = flag_box
        grid = QGridLayout(top)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(flag_box, 0, 0)
        grid.addWidget(self.strategy_box, 0, 1)
        grid.addWidget(figure_box, 1, 0)
        grid.addWidget(self.linter_box, 1, 1)
        grid.setColumnStretch(2, 1)
        top.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        scroll = QScrollArea()
        scroll.setObjectName("qualityFigures")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setWidget(top)
        self._figures_area = scroll
        self.caption = QLabel(_PICK)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.prompts = _table(_PROMPT_HEADERS)
        self.prompts.setSizeAdjustPolicy(QAbstractScrollArea.SizeAdjustPolicy.AdjustIgnored)
        self.prompts.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        for policy in (
            self.prompts.setHorizontalScrollBarPolicy,
            self.prompts.setVerticalScrollBarPolicy,
        ):
            policy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.prompts.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        prompt_header = self.prompts.horizontalHeader()
        prompt_header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        prompt_header.setStretchLastSection(True)
        self.prompts.setColumnWidth(0, 340)
        self.prompts.setColumnWidth(1, 110)
        self.prompts.setColumnWidth(2, 120)
        self.prompts.setColumnWidth(3, 120)
        self.prompts.cellActivated.connect(self._open_row)
        self.prompts.cellDoubleClicked.connect(self._open_row)
        prompt_box = QGroupBox("Prompts")
        prompt_layout = QVBoxLayout(prompt_box)
        prompt_layout.addWidget(self.caption)
        prompt_layout.addWidget(self.prompts, 1)
        self.body = QSplitter(Qt.Orientation.Vertical)
        self.body.addWidget(scroll)
        self.body.addWidget(prompt_box)
        self.body.setStretchFactor(0, 0)
        self.body.setStretchFactor(1, 1)
        self.body.setChildrenCollapsible(False)
        self._dragged = False
        """Whether the analyst moved the split: it stays where they put it."""
        self.body.splitterMoved.connect(lambda *_args: setattr(self, "_dragged", True))
        for table in (self.flags, self.strategy, self.linter, self.figures):
            table.currentCellChanged.connect(
                lambda row, column, _r, _c, table=table: self._pick(table, row, column)
            )
            table.cellClicked.connect(
                lambda row, column, table=table: self._pick(table, row, column)
            )

    # -- rendering -------------------------------------------------------------------------
    def show_scoring(self, set_name: str) -> None:
        self.status.setText(f"scoring «{set_name}»…")

    def show_error(self, message: str) -> None:
        self.status.setText(f"cannot score: {message}")

    def show_set(self, set_name: str, prompts: int) -> None:
        """The judged set the view scores (before its scores come)."""
        if self.result is None or self.result.set_name != set_name:
            self._title(set_name, None, prompts)

    def _title(self, set_name: str, pack: str | None, prompts: int) -> None:
        on = f" under the pack <b>{html.escape(pack)}</b>" if pack else ""
        self.title.setText(
            f"Judged set <b>«{html.escape(set_name)}»</b> · {counted(prompts, 'prompt')}{on}"
        )

    def show_result(self, result: Scored | None) -> None:
        """Show `result` (None: no judged prompt)."""
        self.result = result
        self._cells = {}
        has = result is not None
        self.hint.setVisible(not has)
        self.body.setVisible(has)
        self.suggest_button.setEnabled(has)
        if result is None:
            self.status.setText("")
            self.notes.setVisible(False)
            self.part.setVisible(False)
            self.part_label.setVisible(False)
            self._list(_Cell(_PICK, "", ()))
            return
        self._show_parts(result.score)
        card = self.card()
        self._misses = {(miss.case, miss.field): miss for miss in card.misses}
        self._title(result.set_name, result.pack, result.score.whole.cases)
        took = result.seconds
        self.status.setText(
            f"scored in {took * 1000:.0f} ms" if took < 1 else f"scored in {took:.1f} s"
        )
        self._show_notes(result.notes)
        self._fill_flags()
        self._fill_matrix(self.strategy, card.strategy, _STRATEGIES, "strategy")
        self.strategy_accuracy.setText(
            f"accuracy {figure(card.strategy.accuracy)} · {card.strategy.labelled} labelled"
        )
        self.linter_box.setVisible(card.linter.labelled > 0)
        self._fill_matrix(self.linter, card.linter, _CLASSES, "linter_class")
        self.linter_accuracy.setText(
            f"accuracy {figure(card.linter.accuracy)} · {card.linter.labelled} labelled"
        )
        self._fill_figures()
        self._relist()
        self._fit_split()

    def _fit_split(self) -> None:
        """The figures get the height they need (up to `_FIGURES_SHARE` of the view, or
        `_FIGURES_ALONE` while no figure is picked), the prompts the rest."""
        total = sum(self.body.sizes())
        if total <= 0 or self._dragged:
            return
        widget = self._figures_area.widget()
        wanted = widget.sizeHint().height() + 4 if widget is not None else 0
        room = round(total * (_FIGURES_SHARE if self._picking else _FIGURES_ALONE))
        if wanted > room:  # short of room: cut under the first row of figures (it scrolls)
            boxes = (self._flag_box, self.strategy_box)
            first = max(box.sizeHint().height() for box in boxes) + 4
            wanted = first if first <= room else room
        self.body.setSizes([wanted, total - wanted])

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit_split()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._dragged and event.size().height() != event.oldSize().height():
            self._fit_split()  # (a dock opened under the view: the figures keep their share)

    def card(self) -> Scorecard:
        """The scorecard shown: the whole set's, or the part's chosen."""
        assert self.result is not None
        score = self.result.score
        chosen = self.part.currentData()
        return score.parts.get(chosen, score.whole) if isinstance(chosen, str) else score.whole

    def _show_parts(self, score: SetScore) -> None:
        """A split set's parts to choose from (hidden for a set without parts)."""
        chosen = self.part.currentData()
        self.part.blockSignals(True)
        self.part.clear()
        self.part.addItem(f"whole set ({score.whole.cases})", None)
        for name, card in score.parts.items():
            self.part.addItem(f"{name} part ({card.cases})", name)
        index = self.part.findData(chosen) if chosen is not None else 0
        self.part.setCurrentIndex(max(index, 0))
        self.part.blockSignals(False)
        self.part.setVisible(bool(score.parts))
        self.part_label.setVisible(bool(score.parts))

    def _part_chosen(self) -> None:
        if self.result is not None:
            self.show_result(self.result)

    def _show_notes(self, notes: Sequence[VocabularyNote]) -> None:
        lines = []
        for note in notes:
            advice = note.advice
            if note.kind == "linter":
                advice = "point [linter] anchors at your codebase (strong_anchors, weak_anchors)"
            lines.append(f"⚠ {note.message}: {advice}")
        self.notes.setText("\n".join(lines))
        self.notes.setToolTip("\n".join(note.text() for note in notes))
        self.notes.setVisible(bool(lines))

    def _cell(self, table: QTableWidget, row: int, column: int, cell: _Cell) -> None:
        self._cells[(id(table), row, column)] = cell

    def _fill_flags(self) -> None:
        assert self.result is not None
        card = self.card()
        table = self.flags
        table.setRowCount(0)
        for name, flag in card.flags.items():
            row = table.rowCount()
            table.insertRow(row)
            counts = (flag.tp, flag.fp, flag.fn)
            texts = [
                figure(flag.precision),
                figure(flag.recall),
                figure(flag.f1),
                *(str(len(ids)) for ids in counts),
                str(flag.labelled),
            ]
            table.setItem(row, 0, _item(name))
            for column, text in enumerate(texts, 1):
                table.setItem(row, column, _item(text, right=True))
            for column, (what, ids) in enumerate(
                (
                    ("decided on (true and false positives)", flag.tp + flag.fp),
                    ("labelled on (found and missed)", flag.tp + flag.fn),
                    ("decided wrong (false positives and negatives)", flag.fp + flag.fn),
                    ("true positives: labelled on, decided on", flag.tp),
                    ("false positives: labelled off, decided on", flag.fp),
                    ("false negatives: labelled on, decided off", flag.fn),
                    ("labelled", flag.tp + flag.fp + flag.fn + flag.tn),
                ),
                1,
            ):
                self._cell(table, row, column, _Cell(f"{name}: {what}", name, tuple(ids)))
            for column, ids in ((5, flag.fp), (6, flag.fn)):
                if ids:
                    item = table.item(row, column)
                    assert item is not None
                    item.setForeground(QBrush(colour("bad")))
            if not flag.labelled:
                for column in range(len(_FLAG_HEADERS)):
                    item = table.item(row, column)
                    assert item is not None
                    item.setForeground(QBrush(colour("faint")))
                    item.setToolTip(f"no judged prompt labels {name}")
        _fit_height(table)
        macro = card.macro_f1
        scored = sum(1 for flag in card.flags.values() if flag.f1 is not None)
        self.macro.setText(
            f"macro-F1 <b>{figure(macro)}</b> over the {counted(scored, 'flag')} with an F1"
        )

    def _fill_matrix(
        self, table: QTableWidget, confusion: Confusion, classes: Sequence[str], field: str
    ) -> None:
        table.setRowCount(0)
        for expected in classes:
            row = table.rowCount()
            table.insertRow(row)
            table.setItem(row, 0, _item(expected))
            for column, got in enumerate(classes, 1):
                ids = confusion.cells.get((expected, got), [])
                item = _item(str(len(ids)), right=True)
                if ids:
                    fill, ink = ("hit", "hit_text") if expected == got else ("miss", "miss_text")
                    item.setBackground(QBrush(colour(fill)))
                    item.setForeground(QBrush(colour(ink)))
                table.setItem(row, column, item)
                what = "right" if expected == got else "wrong"
                self._cell(
                    table,
                    row,
                    column,
                    _Cell(
                        f"{field}: labelled {expected}, decided {got} ({what})", field, tuple(ids)
                    ),
                )
        _fit_height(table)

    def _fill_figures(self) -> None:
        assert self.result is not None
        card = self.card()
        table = self.figures
        table.setRowCount(0)
        rows: list[tuple[str, str, list[str], list[str], str, str]] = []
        for label, accuracy, field in (
            ("place hint", card.place, "place_hint"),
            ("no place where none is named", card.place_spurious, "place_hint"),
            ("agent", card.agent, "agent"),
            ("mode", card.mode, "mode"),
            ("top tool", card.top_tool, "top_tool"),
        ):
            count = len(accuracy.right) + len(accuracy.wrong)
            if count:
                rows.append(
                    (
                        label,
                        figure(accuracy.accuracy),
                        accuracy.right,
                        accuracy.wrong,
                        str(count),
                        field,
                    )
                )
        entities = card.entities
        if entities.cases:
            bad = {i for ids in (*entities.junk.values(), *entities.missed.values()) for i in ids}
            labelled = [i for i in self.result.cases if self._labels_entities(i)]
            wrong = [i for i in labelled if i in bad]
            right = [i for i in labelled if i not in bad]
            rows.append(
                (
                    "entities",
                    f"P {figure(entities.precision)} · R {figure(entities.recall)}",
                    right,
                    wrong,
                    str(entities.cases),
                    "entities",
                )
            )
        for label, value, right, wrong, judged, field in rows:
            row = table.rowCount()
            table.insertRow(row)
            texts = (label, value, str(len(right)), str(len(wrong)), judged)
            for column, text in enumerate(texts):
                table.setItem(row, column, _item(text, right=column > 0))
            if wrong:
                item = table.item(row, 3)
                assert item is not None
                item.setForeground(QBrush(colour("bad")))
            for column, (what, ids) in enumerate(
                (("wrong", wrong), ("wrong", wrong), ("right", right), ("wrong", wrong))
            ):
                self._cell(table, row, column, _Cell(f"{label}: {what}", field, tuple(ids)))
            self._cell(table, row, 4, _Cell(f"{label}: labelled", field, tuple(right + wrong)))
        if entities.cases:
            tip = (
                f"entity names: {entities.tp} right, {entities.fp} decided but not labelled, "
                f"{entities.fn} labelled but not found"
            )
            for column in range(len(_FIGURE_HEADERS)):
                item = table.item(table.rowCount() - 1, column)
                assert item is not None
                item.setToolTip(tip)
        _fit_height(table)

    def _labels_entities(self, case_id: str) -> bool:
        assert self.result is not None
        return self.result.cases[case_id].labels.entities is not None

    # -- the prompts of a figure -------------------------------------------------------------
    def _pick(self, table: QTableWidget, row: int, column: int) -> None:
        cell = self._cells.get((id(table), row, column))
        if cell is not None:
            self._picked = table
            for other in (self.flags, self.strategy, self.linter, self.figures):
                if other is not table:
                    other.clearSelection()
            self._list(cell)

    def pick(self, table: QTableWidget, row: int, column: int) -> None:
        """List the prompts behind a figure (as a click on it does)."""
        table.setCurrentCell(row, column)
        self._pick(table, row, column)

    def _relist(self) -> None:
        """After new scores: the figure picked keeps its place (its prompts are listed again)."""
        table = self._picked
        if table is not None and (table.currentRow(), table.currentColumn()) != (-1, -1):
            self._pick(table, table.currentRow(), table.currentColumn())
            return
        self._list(_Cell(_PICK, "", ()))

    def _list(self, cell: _Cell) -> None:
        result = self.result
        table = self.prompts
        table.setRowCount(0)
        self._listed = []
        if self._picking != bool(cell.field):
            self._picking = bool(cell.field)
            self._fit_split()  # (the prompts' pane grows when there are prompts to list)
        if result is None or not cell.field:
            self.caption.setText(cell.caption)
            return
        count = len(cell.ids)
        self.caption.setText(
            f"<b>{html.escape(cell.caption)}</b> · {counted(count, 'prompt')}"
            + ("" if not count else " · double-click one to open it live")
        )
        for case_id in cell.ids:
            case = result.cases.get(case_id)
            decided = result.decided.get(case_id)
            if case is None or decided is None:
                continue
            self._add_prompt(case, decided, cell.field)

    def _add_prompt(self, case: LabelledCase, decided: Prediction, field: str) -> None:
        from routescope.judge import decided_value, expected_value

        table = self.prompts
        row = table.rowCount()
        table.insertRow(row)
        self._listed.append((case, field))
        miss = self._misses.get((case.id, field))
        evidence = miss.evidence if miss is not None else decided.evidence.get(field, ())
        why = _evidence_text(evidence) or ("no rule fired" if miss else "")
        prompt = " ".join(case.prompt.split())
        shown = prompt if len(prompt) <= _PROMPT_CHARS else prompt[: _PROMPT_CHARS - 1] + "…"
        expected = expected_value(case, field)
        got = decided_value(decided, field)
        if miss is not None and field == "entities":
            expected = f"missing: {_shown(miss.expected)}"
            got = f"not labelled: {_shown(miss.got)}"
        cells = (
            (shown, f"{case.id} · today {case.today.isoformat()}\n{case.prompt[:2000]}"),
            (field, ""),
            (_shown(expected), ""),
            (_shown(got), ""),
            (why, why),
        )
        for column, (text, tip) in enumerate(cells):
            table.setItem(row, column, _item(text, tip))
        mark = table.item(row, 3)
        assert mark is not None
        fill, ink = ("miss", "miss_text") if miss is not None else ("hit", "hit_text")
        mark.setBackground(QBrush(colour(fill)))
        mark.setForeground(QBrush(colour(ink)))
        mark.setText(("✗ " if miss is not None else "✓ ") + mark.text())

    def listed(self) -> list[tuple[LabelledCase, str]]:
        """The prompts listed now, each with the field it is listed for."""
        return list(self._listed)

    def _open_row(self, row: int, _column: int) -> None:
        if 0 <= row < len(self._listed):
            self.open_prompt_requested.emit(self._listed[row][0])
