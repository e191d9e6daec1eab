"""The rule pack editor's model: the pack's TOML as edited, validated as it changes (debounced),
its last valid pack handed to the session, and — in a worker lane — how many regression cases
of the built-in suites the edit changes.

An edit is validated on the UI thread (a pack parses in milliseconds) ~300 ms after the last
keystroke; a valid text becomes the request's rules (`applied`), an invalid one is reported with
its line (`invalid`) and the last valid pack stays. Counting runs every case of the built-in
strategy, linter and contract suites under the pack at open and the edited one; a newer edit
stops the count under way (its result is dropped).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Request, RulesRef
    from routescope.regress import Suite

__all__ = ["DEBOUNCE_MS", "SUITES", "RulesEditorModel", "error_line"]

DEBOUNCE_MS = 300
"""How long after the last edit the text is validated and applied."""

SUITES = ("strategy", "linter", "contract")
"""The built-in suites (resources/fixtures/NAME.yaml) whose changed cases are counted."""

_SECTIONS: dict[str, tuple[str, ...] | None] = {
    "strategy": None,  # a strategy case's root is the whole inspection: any change counts
    "linter": ("lint",),
    "contract": ("contract",),
}
_AT_LINE = re.compile(r"\(at line (\d+), column \d+\)")


def error_line(message: str, source: str) -> int | None:
    """The line a `RulePackError` message names (`SOURCE:LINE: …` or a TOML error's
    `(at line N, column M)`), else None."""
    if message.startswith(f"{source}:"):
        head = message[len(source) + 1 :].split(":", 1)[0]
        if head.isdigit():
            return int(head)
    found = _AT_LINE.search(message)
    return int(found.group(1)) if found else None


class RulesEditorModel(QObject):
    """The rule pack being edited.

    Attributes:
        source: where the pack came from (a file path, or the built-in pack's name);
        original: the text at open (what Revert goes back to); text: the text as edited;
        error: the current text's one-line error (None: valid); changed: the number of
        regression cases the last valid edit changes (None: not counted yet).

    Signals:
        opened: emitted with the text when a pack is opened (or reverted to).
        applied: emitted with the `RulesRef` of a valid edit (the session makes it its rules).
        invalid: emitted with (message, line or 0) for an edit that is not a valid pack.
        counting: emitted when a count of changed cases starts.
        counted: emitted with (cases changed, cases run) for the latest valid edit.
        saved: emitted with the path the pack was saved to.
        failed: emitted with a one-line reason (a save refused, a count failed).
    """

    opened = Signal(str)
    applied = Signal(object)
    invalid = Signal(str, int)
    counting = Signal()
    counted = Signal(int, int)
    saved = Signal(str)
    failed = Signal(str)

    def __init__(self, current: Callable[[], Request], *, parent: QObject | None = None) -> None:
        """`current` gives the session's request (its rules are the pack opened)."""
        super().__init__(parent)
        self._current = current
        self.source = ""
        self.original = ""
        self.text = ""
        self.error: str | None = None
        self.changed: int | None = None
        self._base: RulesRef | None = None
        self._applied: RulesRef | None = None
        self._stop = threading.Event()
        self._lane = Lane()
        self._suites: list[Suite] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.apply_now)

    @property
    def busy(self) -> bool:
        return self._lane.busy or self._timer.isActive()

    @property
    def is_builtin(self) -> bool:
        return self._base is not None and self._base.is_builtin

    @property
    def dirty(self) -> bool:
        """Whether the text differs from the pack at open (or last saved)."""
        return self.text != self.original

    def shows(self, rules: RulesRef) -> bool:
        """Whether `rules` is the pack this editor opened or one of its edits."""
        return any(
            ref is not None and ref.digest == rules.digest for ref in (self._applied, self._base)
        )

    def unsaved(self, rules: RulesRef) -> bool:
        """Whether `rules` (the request's) is an edit of this editor that is not saved."""
        applied, base = self._applied, self._base
        return (
            applied is not None
            and base is not None
            and rules.digest == applied.digest
            and rules.digest != base.digest
        )

    def open(self) -> None:
        """Edit the request's current pack (its text at this moment is what Revert restores)."""
        rules = self._current().rules
        self._base = self._applied = rules
        self.source, self.original, self.text = rules.source, rules.text, rules.text
        self.error, self.changed = None, 0
        self._cancel_count()
        self.opened.emit(self.text)

    def edit(self, text: str) -> None:
        """The text changed: validated and applied once no edit came for `DEBOUNCE_MS`."""
        if text == self.text:
            return
        self.text = text
        self._timer.start()

    def apply_now(self) -> None:
        """Validate the text now: a valid pack is applied and its changed cases counted."""
        self._timer.stop()
        try:
            ref = routescope.RulesRef.from_text(self.text, self.source)
        except routescope.RulePackError as exc:
            self.error = str(exc)
            self._cancel_count()
            self.invalid.emit(self.error, error_line(self.error, self.source) or 0)
            return
        if self._base is not None and ref.digest == self._base.digest:
            ref = self._base  # back to the pack at open (the built-in one stays built-in)
        self.error = None
        self._applied = ref
        self.applied.emit(ref)
        self._count(ref)

    def revert(self) -> None:
        """Back to the text at open (or last saved), applied at once: Discard."""
        self._timer.stop()
        self.text = self.original
        self.opened.emit(self.text)
        self.apply_now()

    @property
    def needs_path(self) -> bool:
        """Whether Save needs a new file (the built-in pack is never overwritten)."""
        return self.is_builtin or not self.source

    def save(self, path: str | Path | None = None) -> bool:
        """Write the text to `path` (default: the file opened; the built-in pack needs a path)
        atomically, after validating it; the file becomes the pack's source. False (and
        `failed`) when it is not written."""
        if path is None:
            if self.needs_path:
                self.failed.emit("the built-in pack cannot be overwritten: save it as a new file")
                return False
            path = self.source
        self._timer.stop()
        try:
            routescope.rules.save_pack(path, self.text)
        except routescope.RulePackError as exc:
            self.failed.emit(str(exc))
            return False
        self.source = str(path)
        self.original = self.text
        ref = routescope.RulesRef.from_text(self.text, self.source)
        self._base = self._applied = ref
        self.error = None
        self.applied.emit(ref)
        self.saved.emit(self.source)
        return True

    def close(self) -> None:
        """Stop a count under way and a pending edit."""
        self._timer.stop()
        self._cancel_count()

    # -- changed cases ---------------------------------------------------------------------
    def _cancel_count(self) -> None:
        self._stop.set()
        self._lane.cancel()

    def _count(self, edited: RulesRef) -> None:
        base = self._base
        self._cancel_count()
        if base is None or edited.digest == base.digest:
            self.changed = 0
            self.counted.emit(0, 0)
            return
        stop = self._stop = threading.Event()
        self.changed = None
        self.counting.emit()
        self._lane.submit(
            lambda: self._changed_cases(base, edited, stop), self._deliver, self.failed.emit
        )

    def _deliver(self, result: tuple[int, int] | None) -> None:
        if result is None:
            return
        self.changed = result[0]
        self.counted.emit(*result)

    def _changed_cases(
        self, base: RulesRef, edited: RulesRef, stop: threading.Event
    ) -> tuple[int, int] | None:
        """(cases whose result differs, cases run) — in a worker thread; None once stopped.
        Cases that name their own pack do not depend on the edited one and are not run."""
        from routescope.compare import compare_requests

        suites = self._load_suites()
        changed = run = 0
        for suite in suites:
            wanted = _SECTIONS[suite.router]
            for case in suite.cases:
                if stop.is_set():
                    return None
                if case.rules is not None:
                    continue
                request = case.request(suite)
                comparison = compare_requests(
                    request.replace(rules=base), request.replace(rules=edited), None, None
                )
                run += 1
                if wanted is None:
                    changed += comparison.changed
                else:
                    changed += any(section in wanted for section in comparison.sections)
        return changed, run

    def _load_suites(self) -> list[Suite]:
        if self._suites is None:
            fixtures = routescope.resources_root() / "fixtures"
            self._suites = [
                routescope.regress.load_suite(str(fixtures / f"{name}.yaml")) for name in SUITES
            ]
        return self._suites
