"""Why this decision: a strip under the prompt that marks the words whose removal flips a
decision (hover one: which decisions flip, and to what; click any word: where it flows), the
trace of the entity clicked, and close-call lines placed beside the decisions they concern.
Mirrors `routescope.compare` (`counterfactuals`, `trace`, `close_calls`).

The words work from the keyboard too: Tab reaches them (after the prompt), ←/→ (Home, End)
pick a word and say what removing it flips, Enter or Space traces it, Esc clears the trace."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QCursor, QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from ._editor import Highlight
from ._style import css, text_colour

if TYPE_CHECKING:
    from routescope.compare import CloseCall, Counterfactuals, Flip, TextSpan, Trace, WordEffect

__all__ = [
    "CLOSE_CALL_NAMES",
    "DECISION_NAMES",
    "CloseCallLine",
    "WhyStrip",
    "flip_text",
    "marked_html",
]

DECISION_NAMES = {
    "strategy": "strategy",
    "lint_class": "linter class",
    "agent": "contract agent",
    "mode": "contract mode",
    "task_route": "task route",
    "top_tool": "top tool",
    "tool_fit": "tool fit",
}
"""How the decisions a counterfactual watches are named on screen."""
CLOSE_CALL_NAMES = {
    "strategy": "strategy",
    "lint.query_class": "linter class",
    "tools.fits": "tool fit",
    "tools.top": "top tool",
}
_DECISION_ROLES = {
    "strategy": "why_strategy",
    "lint_class": "why_lint",
    "agent": "why_contract",
    "mode": "why_contract",
    "task_route": "why_task",
    "top_tool": "why_tool",
    "tool_fit": "why_tool",
}
"""Decision -> the theme's role (its fill; `<role>_text` its text) of a word whose removal
flips it (the first decision it flips)."""
_FULL_WORDS = 16
"""Prompts of up to this many words are shown whole; longer ones around the words that matter
(the strip is one line: what does not fit is cut at the right edge)."""
_AROUND = 2
"""Words kept on each side of a word that matters in a long prompt."""
_SUMMARY_FLIPS = 3
_SPACES = re.compile(r"\s+")
_NO_PROMPT = "type a prompt: the words whose removal flips a decision are marked here"
_WORKING = "working out which words flip a decision…"


def flip_text(flip: Flip) -> str:
    """`strategy local → general`."""
    name = DECISION_NAMES.get(flip.decision, flip.decision)
    return f"{name} {flip.before or '—'} → {flip.after or '—'}"


def marked_html(text: str, spans: Iterable[TextSpan], style: str) -> str:
    """`text` as HTML with the characters of `spans` (offsets into `text`) in a `<span>` of
    `style`; spans that do not match the text (a stale result) or overlap are left out."""
    parts: list[str] = []
    at = 0
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        if span.start < at or span.end > len(text) or text[span.start : span.end] != span.value:
            continue
        parts.append(html.escape(text[at : span.start]))
        parts.append(f'<span style="{style}">{html.escape(text[span.start : span.end])}</span>')
        at = span.end
    parts.append(html.escape(text[at:]))
    return "".join(parts)


def _counted(result: Counterfactuals) -> str:
    """The words tried, as a count: "7 words", or "the first 200 words (of 315)" of a prompt
    longer than the limit (both sides of the strip count the same words)."""
    tried, total = len(result.words), result.words_total
    noun = "word" if tried == 1 else "words"
    return f"the first {tried:,} {noun} (of {total:,})" if total > tried else f"{tried:,} {noun}"


def _verdict(result: Counterfactuals) -> str:
    """What a result without a word that flips says (or why no word could be tried)."""
    if not result.words:
        return "; ".join(result.notes) or "no word to try"
    return f"none of {_counted(result)} flips a decision"


def _flips(result: Counterfactuals) -> list[tuple[str, str]]:
    """Each distinct flip the words make, as (decision's name, `flip_text`), in text order."""
    found: dict[tuple[str, str], None] = {}
    for effect in result.flipping():
        for flip in effect.flips:
            found.setdefault((DECISION_NAMES.get(flip.decision, flip.decision), flip_text(flip)))
    return list(found)


def _word_tip(effect: WordEffect) -> str:
    if not effect.flips:
        return f"removing “{effect.word}” flips nothing — click to trace where it flows"
    lines = [f"without “{effect.word}”:"] + [f"  {flip_text(flip)}" for flip in effect.flips]
    return "\n".join([*lines, "click to trace where it flows"])


def _shown(words: Sequence[WordEffect]) -> set[int]:
    """The words a strip shows: all of a short prompt; of a long one, those that matter with a
    few words on each side."""
    if len(words) <= _FULL_WORDS:
        return set(range(len(words)))
    shown: set[int] = set()
    for index, effect in enumerate(words):
        if effect.flips:
            shown.update(range(max(0, index - _AROUND), min(len(words), index + _AROUND + 1)))
    return shown


class WhyStrip(QWidget):
    """One line of the prompt's words, those whose removal flips a decision marked; the trace
    of the entity clicked below it.

    It shows a result only for the prompt it was worked out for: once the prompt changes
    (`mark_stale`) the words of the old one go, "working out…" stands in their place, and a
    result for any other prompt than the new one is dropped.

    Attributes:
        result: the `Counterfactuals` shown (None: none, or being worked out); trace: the
            `Trace` shown (None: none); working: whether the words are being worked out.

    Signals:
        trace_requested: emitted with a word clicked (a trace of it is wanted; "" clears).
        marks_changed: emitted with (layer, the `Highlight`s to mark in the prompt, the prompt
            they point into): layer "why" for the words that matter, "trace" for a trace.
    """

    trace_requested = Signal(str)
    marks_changed = Signal(str, object, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Counterfactuals | None = None
        self.trace: Trace | None = None
        self.working = False
        self.current: int | None = None
        """The word picked from the keyboard (its index among the words tried; None: none)."""
        self._awaited: str | None = None
        """The prompt announced last (`mark_stale`): only its results are shown (None: any)."""
        caption = QLabel("why:")
        caption.setObjectName("muted")
        caption.setToolTip(
            "Each word removed in turn, every router run again: the marked words flip a "
            "decision. Hover one to see what flips; click any word to trace where it flows."
        )
        self.words = QLabel(_NO_PROMPT)
        self.words.setObjectName("muted")
        self.words.setTextFormat(Qt.TextFormat.RichText)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.words.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.words.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # ←/→ pick a word, Enter traces
        self.words.setContentsMargins(3, 2, 3, 2)  # (room for the focus ring)
        self.words.setAccessibleName("why: the words of the prompt")
        self.words.installEventFilter(self)
        self.words.linkActivated.connect(self._activate)
        self.words.linkHovered.connect(self._hover)
        self.summary = QLabel("")
        self.summary.setObjectName("muted")
        for label in (caption, self.summary):  # on the words' line (their margins: the ring's)
            label.setContentsMargins(0, 2, 0, 2)
        self.close_summary = QLabel("")
        self.close_summary.setObjectName("closeSummary")  # (coloured by the theme's sheet)
        self.close_summary.setVisible(False)
        self.trace_line = QLabel("")
        self.trace_line.setTextFormat(Qt.TextFormat.RichText)
        self.trace_line.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.trace_line.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.trace_line.linkActivated.connect(lambda _href: self.trace_requested.emit(""))
        self.trace_line.setVisible(False)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(caption, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.words, 1)
        row.addWidget(self.summary, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.close_summary, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.trace_line)

    # -- the words ---------------------------------------------------------------------------
    def show_result(self, result: Counterfactuals | None) -> None:
        """Show the words of `result` (None: a blank prompt), unless it was worked out for
        another prompt than the one awaited (a late result of an older prompt: dropped)."""
        if result is not None and self._awaited is not None and result.text != self._awaited:
            return
        self.result = result
        self.working = False
        if result is None or self.current not in _shown(result.words):
            self.current = None  # (a word is kept only while the new result shows it)
        if result is None:
            self.words.setText(_NO_PROMPT)
            self._set_summary("", "")
            self.marks_changed.emit("why", [], "")
            return
        words = self._words_html(result)
        self.words.setText(words or html.escape(_verdict(result)))
        self._set_summary(
            self._summary(result) if words else "",
            "\n".join([*(text for _name, text in _flips(result)), *result.notes]),
        )
        marks = [Highlight(w.start, w.end, "flip", _word_tip(w)) for w in result.words if w.flips]
        self.marks_changed.emit("why", marks, result.text)

    def mark_stale(self, prompt: str | None = None) -> None:
        """The prompt changed to `prompt` (None: not known): the words shown were another
        prompt's, so they go until the new prompt's result comes."""
        self._awaited = prompt
        self.result = None
        self.current = None
        self.working = True
        self.words.setText(html.escape(_WORKING))
        self._set_summary("", "")
        self.marks_changed.emit("why", [], "")

    def show_error(self, message: str) -> None:
        self.result = None
        self.working = False
        self.words.setText(html.escape(f"cannot say why: {message}"))
        self._set_summary("", "")

    def _set_summary(self, text: str, tip: str) -> None:
        self.summary.setText(text)
        self.summary.setToolTip(tip)

    def tooltip_for(self, index: int) -> str:
        """The tooltip of the `index`-th word tried (what hovering it shows)."""
        if self.result is None or not 0 <= index < len(self.result.words):
            return ""
        return _word_tip(self.result.words[index])

    def click(self, index: int) -> None:
        """Click the `index`-th word tried (as a link would)."""
        self._activate(f"w:{index}")

    # -- the keyboard ------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.words:
            if isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
                return self._key(event)
            if event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
                self._show_current(event.type() == QEvent.Type.FocusIn)
        return super().eventFilter(watched, event)

    def _key(self, event: QKeyEvent) -> bool:
        """←/→, Home, End pick a word; Enter or Space traces it; Esc clears the trace."""
        key = event.key()
        if key == Qt.Key.Key_Escape and self.trace is not None:
            self.trace_requested.emit("")
            return True
        shown = sorted(_shown(self.result.words)) if self.result is not None else []
        if not shown:
            return False
        at = shown.index(self.current) if self.current in shown else None
        moves = {
            Qt.Key.Key_Left: 0 if at is None else max(at - 1, 0),
            Qt.Key.Key_Right: 0 if at is None else min(at + 1, len(shown) - 1),
            Qt.Key.Key_Home: 0,
            Qt.Key.Key_End: len(shown) - 1,
        }
        if key in moves:
            self.current = shown[moves[Qt.Key(key)]]
            self._show_current(True)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and at is not None:
            self.click(shown[at])
            return True
        return False

    def _show_current(self, focused: bool) -> None:
        """Mark the word picked while the words have the focus (the first that matters when
        none is), and say what removing it flips."""
        result = self.result
        if result is None:
            return
        if focused and self.current is None:
            shown = sorted(_shown(result.words))
            flipping = [i for i in shown if result.words[i].flips]
            self.current = next(iter(flipping or shown), None)
        self.words.setText(self._words_html(result) or html.escape(_verdict(result)))
        if not focused or self.current is None:
            return
        tip = self.tooltip_for(self.current)
        self.words.setAccessibleDescription(tip)
        where = self.words.mapToGlobal(QPoint(0, self.words.height()))
        QToolTip.showText(where, tip, self.words)

    def _words_html(self, result: Counterfactuals) -> str:
        """The words shown, as links ("" when none is worth showing: the verdict says it)."""
        words, text = result.words, result.text
        shown = _shown(words)
        if not shown:
            return ""
        parts: list[str] = []
        for index, effect in enumerate(words):
            if index not in shown:
                if not parts or parts[-1] != " … ":
                    parts.append(" … ")
                continue
            if index - 1 in shown:  # what stands between two words shown: spaces, commas
                parts.append(
                    html.escape(_SPACES.sub(" ", text[words[index - 1].end : effect.start]))
                )
            parts.append(self._word_html(index, effect, current=index == self._marked()))
        if max(shown) == len(words) - 1:
            parts.append(html.escape(_SPACES.sub(" ", text[words[-1].end :])[:20]))
        return "".join(parts)

    def _marked(self) -> int | None:
        """The word to mark as picked: the current one while the words have the focus."""
        return self.current if self.words.hasFocus() else None

    @staticmethod
    def _word_html(index: int, effect: WordEffect, *, current: bool = False) -> str:
        word = html.escape(effect.word)
        if current:  # picked from the keyboard: in the theme's cursor colours
            return (
                f'<a href="w:{index}" style="color:{css("cursor_text")}; '
                f'background-color:{css("cursor")}; text-decoration:underline">{word}</a>'
            )
        if not effect.flips:
            ink = text_colour()  # plain words in the theme's text colour
            return f'<a href="w:{index}" style="color:{ink}; text-decoration:none">{word}</a>'
        role = _DECISION_ROLES.get(effect.flips[0].decision, "why_task")
        fill, ink = css(role), css(f"{role}_text")
        return (
            f'<a href="w:{index}" style="color:{ink}; background-color:{fill}; '
            f'font-weight:600; text-decoration:underline">{word}</a>'
        )

    @staticmethod
    def _summary(result: Counterfactuals) -> str:
        """Short: the one flip in full, or the decisions that flip (the tooltip lists all)."""
        flipping = result.flipping()
        if not flipping:
            return _verdict(result)
        flips = _flips(result)
        decisions = list(dict.fromkeys(name for name, _text in flips))
        what = flips[0][1] if len(flips) == 1 else ", ".join(decisions[:_SUMMARY_FLIPS])
        more = f" +{len(decisions) - _SUMMARY_FLIPS}" if len(decisions) > _SUMMARY_FLIPS else ""
        count = len(flipping)
        return f"{count} of {_counted(result)} flip{'s' if count == 1 else ''}: {what}{more}"

    def _activate(self, href: str) -> None:
        if self.result is None or not href.startswith("w:"):
            return
        index = int(href[2:])
        if 0 <= index < len(self.result.words):
            self.trace_requested.emit(self.result.words[index].word)

    def _hover(self, href: str) -> None:
        if not href.startswith("w:"):
            QToolTip.hideText()
            return
        QToolTip.showText(QCursor.pos(), self.tooltip_for(int(href[2:])), self.words)

    # -- close calls -------------------------------------------------------------------------
    def show_close_calls(self, calls: Sequence[CloseCall]) -> None:
        """A short count beside the words ("⚠ 1 close call: linter class"), each in full as
        its tooltip; the lines beside each decision say the rest."""
        if not calls:
            self.close_summary.setVisible(False)
            return
        names = list(dict.fromkeys(CLOSE_CALL_NAMES.get(c.decision, c.decision) for c in calls))
        plural = "s" if len(calls) > 1 else ""
        self.close_summary.setText(f"⚠ {len(calls)} close call{plural}: {', '.join(names)}")
        self.close_summary.setToolTip("\n".join(c.detail for c in calls))
        self.close_summary.setVisible(True)

    # -- the trace ---------------------------------------------------------------------------
    def show_trace(self, trace: Trace | None, text: str) -> None:
        """Where the entity clicked flows (None: no trace)."""
        self.trace = trace
        if trace is None:
            self.trace_line.setVisible(False)
            self.marks_changed.emit("trace", [], "")
            return
        self.trace_line.setText(_trace_html(trace))
        self.trace_line.setToolTip(_trace_text(trace))
        self.trace_line.setVisible(True)
        tip = f"traced: “{trace.entity}”"
        spans = [Highlight(m.start, m.end, "trace", tip) for m in trace.mentions]
        spans += [
            Highlight(a.start, a.end, "trace", f"{tip} — linter anchor {a.anchor} ({a.kind})")
            for a in trace.anchors
            if not any(m.start <= a.start and a.end <= m.end for m in trace.mentions)
        ]
        self.marks_changed.emit("trace", spans, text)


def _trace_html(trace: Trace) -> str:
    """The trace as one line: a link that clears it, the entity, then each place it flows."""
    return (
        f'<a href="clear" style="color:{css("muted")}; text-decoration:none">✕</a>&nbsp;'
        f'<span style="background-color:{css("trace")}; color:{css("ink")}">&nbsp;<b>trace “'
        f"{html.escape(trace.entity)}”</b>&nbsp;</span> {html.escape(_trace_text(trace))}"
    )


def _trace_text(trace: Trace) -> str:
    """What the entity is, then each place it flows, as plain text."""
    parts: list[str] = []
    if trace.candidate_rank is not None:
        parts.append(f"entity #{trace.candidate_rank} ({trace.kind})")
    else:
        parts.append("not an entity candidate")
    if trace.place:
        parts.append("place hint")
    if trace.plan_entity:
        parts.append("used by the tech templates")
    plan = [f"#{q.index + 1}" for q in trace.queries if q.where == "actions"]
    task = [f"#{q.index + 1}" for q in trace.queries if q.where == "task"]
    parts.append(f"plan queries {', '.join(plan)}" if plan else "in no plan query")
    if task:
        parts.append(f"task searches {', '.join(task)}")
    if trace.intents:
        parts.append("intent " + ", ".join(f"{i.intent} “{i.keyword}”" for i in trace.intents[:4]))
    anchors = ", ".join(f"{a.anchor} ({a.kind})" for a in trace.anchors[:4])
    parts.append(f"linter anchors: {anchors}" if anchors else "no linter anchor")
    if trace.rules:
        parts.append("contract rules " + ", ".join(r.rule for r in trace.rules[:4]))
    if trace.tools is None:
        parts.append("tools not ranked")
    elif trace.tools:
        parts.append(
            "tools "
            + ", ".join(
                f"{t.tool} #{t.rank} ({', '.join(t.fields) or 'keywords'})" for t in trace.tools[:4]
            )
            + (f" +{len(trace.tools) - 4}" if len(trace.tools) > 4 else "")
        )
    else:
        parts.append("no tool matches it")
    return " · ".join(parts)


class CloseCallLine(QLabel):
    """The close calls of some decisions, one "⚠" line each, placed beside those decisions
    (under the strategy badge, the linter's class, the tools' fit line); hidden when none."""

    def __init__(self, decisions: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self._decisions = frozenset(decisions)
        self.setObjectName("closeCall")  # (coloured by the theme's sheet)
        self.setWordWrap(True)
        self.setVisible(False)
        self.calls: list[CloseCall] = []

    def show_calls(self, calls: Sequence[CloseCall]) -> None:
        mine = [c for c in calls if c.decision in self._decisions]
        self.calls = mine
        self.setText("\n".join(f"⚠ close call — {c.detail}" for c in mine))
        self.setToolTip(
            "\n".join(
                f"{CLOSE_CALL_NAMES.get(c.decision, c.decision)}: {c.measure} {c.value:g} "
                f"against {c.against} {c.threshold:g} (margin {c.margin:+g})"
                + (f" → would be {c.flips_to}" if c.flips_to else "")
                for c in mine
            )
        )
        self.setVisible(bool(mine))
