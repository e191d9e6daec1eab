"""Judged sets in the history store: the analyst's verdicts on routing decisions, kept in the
same SQLite file as the inspections (so they survive a kill like every record), by set. A prompt
imported from a split labelled set keeps its part (`tune`, `heldout`): suggestions made from the
set are measured on its held-out part.

    judgments(set_name, prompt, today, context, labels, updated, part)   one row per prompt

A judgment is a `Labels` (the labelling guide's fields): judging a prompt again merges the new
fields into the old ones, and a field given as `CLEAR` forgets it. A judged set exports as a
labelled set (JSON lines `routescope score` reads), and a labelled file imports into a set; two
sets merge (the later verdict of a field wins).
"""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import HistoryError, LabelsError, one_line
from .._files import existing_output, replace_file
from ..judge import LabelledCase, Labels, labels_from_mapping, read_labelled

if TYPE_CHECKING:
    from ._connection import Store as _Store
else:
    _Store = object

__all__ = ["CLEAR", "DEFAULT_SET", "JUDGMENTS_SCHEMA", "JudgedSets"]

DEFAULT_SET = "judged"
"""The set a judgment goes to when the analyst has not chosen one."""
CLEAR = "clear"
"""A field given this value in `judge(…, fields)` is forgotten (no longer labelled)."""
JUDGMENTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (
    set_name TEXT NOT NULL,
    prompt TEXT NOT NULL,
    today TEXT NOT NULL,
    context TEXT,
    labels TEXT NOT NULL,
    updated REAL NOT NULL,
    part TEXT,
    PRIMARY KEY (set_name, prompt, today)
) WITHOUT ROWID
"""
_ADD_PART = "ALTER TABLE judgments ADD COLUMN part TEXT"
"""A store made before judged prompts kept their part gets the column."""


def _has_part(db: sqlite3.Connection) -> bool:
    return any(row[1] == "part" for row in db.execute("PRAGMA table_info(judgments)"))


class JudgedSets(_Store):
    """The judged-set half of `History` (the store gives `_run` and `_write`)."""

    _clock: Callable[[], float]

    def _make_judgments(self) -> None:
        """Add the table to a store made before judgments existed (on a writable open)."""

        def action(db: sqlite3.Connection) -> None:
            with self._write(db):
                db.execute(JUDGMENTS_SCHEMA)
                if not _has_part(db):
                    db.execute(_ADD_PART)

        self._run(action, None, "adding judged sets to the history")

    def judge(
        self,
        prompt: str,
        today: dt.date,
        fields: Mapping[str, object],
        *,
        set_name: str = DEFAULT_SET,
        context: Mapping[str, Any] | None = None,
        part: str | None = None,
    ) -> Labels | None:
        """Merge `fields` (the guide's keys; `CLEAR` forgets one) into the prompt's judgment in
        `set_name`; the judgment now, or None when the history is off. `part`: the prompt's
        part of a split set (None: it keeps the one it has). ValueError names a bad field."""
        cleared = {k for k, v in fields.items() if v == CLEAR}
        given = {k: v for k, v in fields.items() if k not in cleared}
        labels_from_mapping(given)  # refuses a bad field before anything is written
        day = today.isoformat()

        def action(db: sqlite3.Connection) -> Labels:
            with self._write(db):
                row = db.execute(
                    "SELECT labels FROM judgments WHERE set_name = ? AND prompt = ? AND today = ?",
                    (set_name, prompt, day),
                ).fetchone()
                merged = {**(json.loads(row[0]) if row else {}), **given}
                for key in cleared:
                    merged.pop(key, None)
                labels = labels_from_mapping(merged)
                db.execute(
                    "INSERT INTO judgments "
                    "(set_name, prompt, today, context, labels, updated, part) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (set_name, prompt, today) DO UPDATE "
                    "SET labels = excluded.labels, updated = excluded.updated, "
                    "context = excluded.context, part = coalesce(excluded.part, part)",
                    (
                        set_name,
                        prompt,
                        day,
                        json.dumps(dict(context), ensure_ascii=False) if context else None,
                        json.dumps(labels.labelled(), ensure_ascii=False),
                        self._clock(),
                        part,
                    ),
                )
            return labels

        judged: Labels | None = self._run(action, None, "keeping a judgment")
        return judged

    def judgment(
        self, prompt: str, today: dt.date, *, set_name: str = DEFAULT_SET
    ) -> Labels | None:
        """The prompt's judgment in the set (None: not judged)."""
        row = self._run(
            lambda db: db.execute(
                "SELECT labels FROM judgments WHERE set_name = ? AND prompt = ? AND today = ?",
                (set_name, prompt, today.isoformat()),
            ).fetchone(),
            None,
            "reading a judgment",
        )
        return labels_from_mapping(json.loads(row[0])) if row else None

    def unjudge(self, prompt: str, today: dt.date, *, set_name: str = DEFAULT_SET) -> bool:
        """Forget the prompt's judgment in the set; False when there was none."""

        def action(db: sqlite3.Connection) -> bool:
            with self._write(db):
                return (
                    db.execute(
                        "DELETE FROM judgments WHERE set_name = ? AND prompt = ? AND today = ?",
                        (set_name, prompt, today.isoformat()),
                    ).rowcount
                    > 0
                )

        gone: bool = self._run(action, False, "forgetting a judgment")
        return gone

    def judged(self, set_name: str = DEFAULT_SET) -> list[LabelledCase]:
        """The set's judged prompts, oldest judgment first, as labelled cases (a prompt's part
        of a split set in its `part`)."""

        def action(db: sqlite3.Connection) -> list[Any]:
            part = "part" if _has_part(db) else "NULL"  # (a store of an older version, read)
            return db.execute(
                f"SELECT prompt, today, context, labels, {part} FROM judgments "
                "WHERE set_name = ? ORDER BY updated, prompt",
                (set_name,),
            ).fetchall()

        rows = self._run(action, [], "reading a judged set")
        return list(_cases(set_name, rows))

    def judged_sets(self) -> list[tuple[str, int]]:
        """Every judged set with how many prompts it holds, by name."""
        rows = self._run(
            lambda db: db.execute(
                "SELECT set_name, count(*) FROM judgments GROUP BY set_name ORDER BY set_name"
            ).fetchall(),
            [],
            "listing the judged sets",
        )
        return [(str(name), int(count)) for name, count in rows]

    def merge_judged(self, source: str, target: str) -> int:
        """Judge every prompt of `source` in `target` too (its fields win); how many."""
        cases = self.judged(source)
        return self._judge_all(cases, target)

    def import_judged(self, path: str | Path, set_name: str = DEFAULT_SET) -> int:
        """Merge a labelled file (JSON lines, CSV, a suite) into a set; how many prompts.
        LabelsError (one line) when the file cannot be read."""
        return self._judge_all(read_labelled(path), set_name)

    def export_judged(self, path: str | Path, set_name: str = DEFAULT_SET) -> int:
        """Write the set as a labelled set (JSON lines), atomically, never through a link or
        over a file that is not one; how many cases."""
        target = Path(path)
        cases = self.judged(set_name)
        lines = [json.dumps(_line(case), ensure_ascii=False) for case in cases]
        data = ("\n".join(lines) + "\n" if lines else "").encode()
        try:
            like = existing_output(target)
            replace_file(target, data, like=like, mode=None if like else 0o666)
        except OSError as exc:
            raise HistoryError(one_line(f"{target}: cannot write: {exc.strerror or exc}")) from None
        return len(cases)

    def _judge_all(self, cases: Sequence[LabelledCase], set_name: str) -> int:
        done = 0
        for case in cases:
            fields = case.labels.labelled()
            if self.judge(
                case.prompt,
                case.today,
                fields,
                set_name=set_name,
                context=case.context,
                part=case.part,
            ):
                done += 1
        return done


def _cases(
    set_name: str, rows: Sequence[tuple[str, str, str | None, str, str | None]]
) -> Iterator[LabelledCase]:
    for number, (prompt, today, context, labels, part) in enumerate(rows, 1):
        try:
            parsed = labels_from_mapping(json.loads(labels))
        except (ValueError, LabelsError):
            continue  # a row another version wrote: skipped, not fatal
        yield LabelledCase(
            id=f"{set_name}:{number}",
            prompt=prompt,
            labels=parsed,
            today=dt.date.fromisoformat(today),
            context=json.loads(context) if context else None,
            extra={"part": part} if part else {},
            where=f"judged set {set_name!r}",
        )


def _line(case: LabelledCase) -> dict[str, object]:
    line: dict[str, object] = {
        "id": case.id,
        "prompt": case.prompt,
        "today": case.today.isoformat(),
        "labels": case.labels.labelled(),
    }
    if case.context:
        line["context"] = dict(case.context)
    if case.part:
        line["part"] = case.part
    return line
