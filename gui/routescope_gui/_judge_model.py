"""The judge model: the analyst's verdicts on routing decisions, kept in judged sets of the
history store (`routescope.history.History.judge`), and the set judgments go to.

A verdict shows at once: the model keeps the current set's judgments in memory and merges a new
one there (as the store merges it: the fields given win, a field given as `CLEAR` is forgotten),
then writes it in a worker lane. Every change to the store (a judgment, a set switched to,
merged, imported, exported) is queued and run in order by one lane, whose last job reads the
set back: what the views show after it is what the store holds. The current set's name is kept
in the store's state, so the window comes back to it.

With the history off (a read-only folder), judgments are kept in memory until the window
closes, and the file work (import, export, merge) says why it cannot be done.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import Request
    from routescope.history import History
    from routescope.judge import LabelledCase, Labels

__all__ = ["SET_STATE", "JudgeModel", "check_set_name"]

SET_STATE = "judged_set"
"""The store's state key that keeps the name of the set judgments go to."""
_NAME_CHARS = 80
_OFF = "the history is off: judged sets cannot be read or written ({why})"

_Key = tuple[str, dt.date]
_Op = Callable[["History"], str | None]
"""A change to the store; what it did, in a line to tell (None: nothing to tell)."""


def check_set_name(name: str) -> str:
    """A judged set's name, trimmed (ValueError: blank or too long)."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValueError("a judged set needs a name")
    if len(cleaned) > _NAME_CHARS:
        raise ValueError(f"a judged set's name is at most {_NAME_CHARS} characters")
    return cleaned


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """The set as the store holds it after the queued changes, and what they did."""

    name: str
    cases: list[LabelledCase]
    sets: list[tuple[str, int]]
    said: list[str]
    failures: list[str]


class JudgeModel(QObject):
    """The judged sets and the current set's judgments.

    Attributes:
        current: the name of the set judgments go to (the Quality view scores it).

    Signals:
        sets_changed: emitted with the sets [(name, prompts)] (the current one among them,
            empty or not) and the current set's name.
        set_changed: emitted with the current set's name when its judgments changed (or
            another set became current).
        judged: emitted with (prompt, today) when that prompt's judgment changed.
        decided: emitted with (request, inspection) once a prompt to judge apart from the
            live view is decided (`decide`).
        done: emitted with a status line once a file or set operation is done.
        failed: emitted with a one-line reason when a judgment or an operation fails.
    """

    sets_changed = Signal(object, str)
    set_changed = Signal(str)
    judged = Signal(str, object)
    decided = Signal(object, object)
    done = Signal(str)
    failed = Signal(str)

    def __init__(
        self, store: Callable[[], History | None], *, parent: QObject | None = None
    ) -> None:
        """`store` gives the history store once it is open (None before)."""
        super().__init__(parent)
        self._store = store
        self.current: str = routescope.history.DEFAULT_SET
        self._chosen = False
        """Whether the analyst chose the set in this session (the kept one then yields)."""
        self._cases: dict[_Key, LabelledCase] = {}
        self._sets: dict[str, int] = {}
        self._ops: list[_Op] = []
        self._ops_lock = threading.Lock()
        self._started = False
        self._lane = Lane()
        self._decide_lane = Lane()

    @property
    def busy(self) -> bool:
        return self._lane.busy or self._decide_lane.busy

    def entry_request(self, entry_id: int) -> Request | None:
        """The exact request of a history entry (None, and `failed`, when it is gone)."""
        store = self._store()
        if store is None:
            return None
        try:
            return store.reopen(entry_id)
        except routescope.RoutescopeError as exc:
            self.failed.emit(str(exc))
            return None

    def decide(self, request: Request) -> None:
        """What the routers decide about a prompt of the history or a batch (to judge it),
        in a worker (`decided`, or `failed` with why not)."""
        self._decide_lane.submit(
            lambda: routescope.inspect(request),
            lambda inspection: self.decided.emit(request, inspection),
            lambda why: self.failed.emit(f"cannot decide this prompt: {why}"),
        )

    @property
    def size(self) -> int:
        """How many prompts the current set judges."""
        return len(self._cases)

    @property
    def sets(self) -> list[tuple[str, int]]:
        """Every judged set with its size, by name (the current one even while empty)."""
        sizes = dict(self._sets)
        sizes[self.current] = len(self._cases)
        return sorted(sizes.items())

    def _usable(self) -> History | None:
        store = self._store()
        return store if store is not None and store.enabled else None

    # -- the store -------------------------------------------------------------------------
    def start(self, *_note: object) -> None:
        """The history store is open: read the set kept last time (unless one was chosen
        since) and its judgments; write what was judged before it opened."""
        self._started = True
        store = self._usable()
        if store is None:
            opened = self._store()
            if opened is not None:
                why = opened.note or "it is off"
                self.failed.emit(
                    _OFF.format(why=why) + "; judgments are kept until the window closes"
                )
            return
        if not self._chosen:
            kept = store.state(SET_STATE)
            if isinstance(kept, str) and kept.strip() and kept != self.current:
                self.current = kept
                self._cases = {}
                self.set_changed.emit(self.current)
        self._run()

    def _queue(self, op: _Op) -> None:
        with self._ops_lock:
            self._ops.append(op)
        if self._started:
            self._run()

    def _run(self) -> None:
        store = self._usable()
        if store is None:
            with self._ops_lock:
                self._ops.clear()
            return
        name = self.current
        self._lane.submit(lambda: self._drain(store, name), self._read, self.failed.emit)

    def _drain(self, store: History, name: str) -> _Snapshot:
        """In the worker: every queued change in order, then the set as the store holds it."""
        said: list[str] = []
        failures: list[str] = []
        while True:
            with self._ops_lock:
                ops, self._ops = self._ops, []
            if not ops:
                break
            for op in ops:
                try:
                    line = op(store)
                except (routescope.RoutescopeError, ValueError, OSError) as exc:
                    failures.append(str(exc))
                    continue
                if line:
                    said.append(line)
        if store.note and not store.enabled:
            failures.append(_OFF.format(why=store.note))
        return _Snapshot(name, store.judged(name), store.judged_sets(), said, failures)

    def _read(self, snapshot: _Snapshot) -> None:
        self._sets = dict(snapshot.sets)
        if snapshot.name == self.current:
            self._cases = {(case.prompt, case.today): case for case in snapshot.cases}
            self.set_changed.emit(self.current)
        self.sets_changed.emit(self.sets, self.current)
        for line in snapshot.said:
            self.done.emit(line)
        for line in snapshot.failures:
            self.failed.emit(line)

    # -- judging ---------------------------------------------------------------------------
    def judgment(self, prompt: str, today: dt.date) -> Labels | None:
        """The prompt's judgment in the current set (None: not judged)."""
        case = self._cases.get((prompt, today))
        return None if case is None else case.labels

    def cases(self) -> list[LabelledCase]:
        """The current set's judged prompts as labelled cases, in the order they were judged
        (their ids `SET:N`, as an export numbers them; a split set's part in `part`)."""
        from routescope.judge import LabelledCase

        return [
            LabelledCase(
                id=f"{self.current}:{number}",
                prompt=case.prompt,
                labels=case.labels,
                today=case.today,
                context=case.context,
                extra=case.extra,
                where=case.where,
            )
            for number, case in enumerate(self._cases.values(), 1)
        ]

    def judge(
        self,
        prompt: str,
        today: dt.date,
        fields: Mapping[str, object],
        context: Mapping[str, Any] | None = None,
    ) -> bool:
        """Merge `fields` (the labelling guide's keys; `CLEAR` forgets one) into the prompt's
        judgment in the current set; False (and `failed`) when a field is refused."""
        from routescope.judge import LabelledCase, labels_from_mapping

        clear = routescope.history.CLEAR
        key = (prompt, today)
        old = self._cases.get(key)
        merged: dict[str, object] = dict(old.labels.labelled()) if old else {}
        for name, value in fields.items():
            if value == clear:
                merged.pop(name, None)
            else:
                merged[name] = value
        try:
            labels = labels_from_mapping(merged)
        except ValueError as exc:
            self.failed.emit(f"cannot judge this: {exc}")
            return False
        name = self.current
        if labels.is_empty():
            self._cases.pop(key, None)
            self._queue(lambda store: _forget(store, prompt, today, name))
        else:
            self._cases.pop(key, None)  # (the latest judgment last, as the store orders them)
            self._cases[key] = LabelledCase(
                id=prompt,
                prompt=prompt,
                labels=labels,
                today=today,
                context=context,
                extra=old.extra if old else {},  # (its part of a split set stays)
            )
            given = dict(fields)
            self._queue(lambda store: _keep(store, prompt, today, given, name, context, labels))
        self.judged.emit(prompt, today)
        self.set_changed.emit(name)
        return True

    def forget(self, prompt: str, today: dt.date) -> None:
        """Forget the prompt's judgment in the current set."""
        if self._cases.pop((prompt, today), None) is None:
            return
        name = self.current
        self._queue(lambda store: _forget(store, prompt, today, name))
        self.judged.emit(prompt, today)
        self.set_changed.emit(name)

    # -- the sets --------------------------------------------------------------------------
    def use_set(self, name: str) -> bool:
        """Judge into the set `name` from now on (a new set is made by its first judgment);
        False (and `failed`) for a name that cannot be one."""
        try:
            name = check_set_name(name)
        except ValueError as exc:
            self.failed.emit(str(exc))
            return False
        self._chosen = True
        if name == self.current:
            return True
        self._sets[self.current] = len(self._cases)
        self.current = name
        self._cases = {}
        self._queue(lambda store: _remember(store, name))
        self.sets_changed.emit(self.sets, self.current)
        self.set_changed.emit(name)
        return True

    def merge_into(self, target: str) -> None:
        """Judge every prompt of the current set in `target` too (the current set's fields
        win there)."""
        try:
            target = check_set_name(target)
        except ValueError as exc:
            self.failed.emit(str(exc))
            return
        source = self.current
        if target == source:
            self.failed.emit(f"«{source}» is the set judged now: merge it into another")
            return
        if not self._file_work("merge judged sets"):
            return

        def merge(store: History) -> str:
            count = store.merge_judged(source, target)
            return f"{count} judged prompt(s) of «{source}» merged into «{target}»"

        self._queue(merge)

    def import_file(self, path: str | Path) -> None:
        """Merge a labelled file (JSON lines, CSV, a suite's YAML) into the current set."""
        if not self._file_work("import a labelled set"):
            return
        name = self.current

        def work(store: History) -> str:
            count = store.import_judged(path, name)
            return f"{count} labelled prompt(s) of {Path(path).name} imported into «{name}»"

        self._queue(work)

    def export(self, path: str | Path) -> None:
        """Write the current set as a labelled set (JSON lines that `routescope score`
        reads), after every judgment made so far."""
        if not self._file_work("export a judged set"):
            return
        name = self.current

        def work(store: History) -> str:
            count = store.export_judged(path, name)
            return f"{count} judged prompt(s) of «{name}» exported to {path}"

        self._queue(work)

    def _file_work(self, what: str) -> bool:
        store = self._store()
        if store is None or not store.enabled:
            why = "it is not open yet" if store is None else (store.note or "it is off")
            self.failed.emit(f"cannot {what}: the history store is off ({why})")
            return False
        return True

    def close(self) -> None:
        """Write what is queued now (the window is closing)."""
        store = self._usable()
        self._lane.cancel()
        if store is None:
            return
        with self._ops_lock:
            ops, self._ops = self._ops, []
        for op in ops:
            try:
                op(store)
            except (routescope.RoutescopeError, ValueError, OSError):
                continue


def _keep(
    store: History,
    prompt: str,
    today: dt.date,
    fields: Mapping[str, object],
    name: str,
    context: Mapping[str, Any] | None,
    labels: Labels,
) -> None:
    """Write a judgment; where the store holds another merge than the window's (a judgment
    written elsewhere meanwhile), the window's is written whole."""
    kept = store.judge(prompt, today, fields, set_name=name, context=context)
    if kept is not None and kept != labels:
        clear = {key: routescope.history.CLEAR for key in kept.labelled()}
        store.judge(prompt, today, {**clear, **labels.labelled()}, set_name=name, context=context)


def _forget(store: History, prompt: str, today: dt.date, name: str) -> None:
    store.unjudge(prompt, today, set_name=name)


def _remember(store: History, name: str) -> None:
    store.set_state(SET_STATE, name)
