"""Two routers side by side — a built-in decision (the strategy, the linter's class, the
contract's agent or mode, the task route) or an external router of a routers file — on a
prompt, and over a suite or labelled set: each one's route, whether they agree, A's route × B's
route with the prompts behind every cell (the judge's `Confusion`), and where the set labels
them, how often each one is right. The window's Compare ▸ Routers page runs it in its workers
and renders what it finds.

A router that fails on a prompt gives `error: <kind>` there (one that cannot start: `cannot
start`): a disagreement, counted, never an exception.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._errors import RouterError
from .._inspect import inspect
from ._models import Decisions

if TYPE_CHECKING:
    from ..contract import RouterContext
    from ..external import ExternalDecision, RouterPool
    from ..judge import Confusion, LabelledCase
    from ..rules import RulePack

__all__ = [
    "BUILTIN_ROUTERS",
    "CaseRow",
    "Pick",
    "PromptAgreement",
    "Said",
    "SuiteAgreement",
    "agreement_over",
    "said_by",
]

BUILTIN_ROUTERS = (
    ("strategy", "strategy"),
    ("lint_class", "linter class"),
    ("agent", "contract agent"),
    ("mode", "contract mode"),
    ("task_route", "task route"),
)
"""The built-in decisions a router can be compared with (`Decisions` fields, their names)."""
_LABELS = {"strategy": "strategy", "lint_class": "linter_class", "agent": "agent", "mode": "mode"}
"""The label (the labelling guide's key) of each built-in decision that has one."""
_NONE = "(none)"
_NO_FILE = "open a routers file first (File ▸ Open routers file…)"


@dataclass(frozen=True, slots=True)
class Pick:
    """One side's router: a built-in decision or an external router of the file."""

    kind: Literal["builtin", "external"]
    name: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def label(self) -> str:
        if self.kind == "builtin":
            return f"{dict(BUILTIN_ROUTERS).get(self.name, self.name)} (built-in)"
        return f"{self.name} (external)"

    @classmethod
    def of(cls, key: str) -> Pick:
        kind, _, name = key.partition(":")
        return cls("builtin" if kind == "builtin" else "external", name)


@dataclass(frozen=True, slots=True)
class Said:
    """What one router said about one prompt: the route as a cell shows it, and why."""

    route: str
    why: str = ""
    failed: bool = False


@dataclass(frozen=True, slots=True)
class PromptAgreement:
    """The two routers on one prompt."""

    label: str
    """Which prompt: "A (the live prompt)", "B"."""
    text: str
    a: Said
    b: Said

    @property
    def agree(self) -> bool:
        return self.a.route == self.b.route and not (self.a.failed or self.b.failed)


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One case of a set: both routers' routes, and the ones the set labels (None: not
    labelled)."""

    case_id: str
    prompt: str
    today: dt.date
    context: dict[str, Any] | None
    a: Said
    b: Said
    expected_a: str | None
    expected_b: str | None

    @property
    def agree(self) -> bool:
        return self.a.route == self.b.route and not (self.a.failed or self.b.failed)


@dataclass(slots=True)
class SuiteAgreement:
    """Two routers over a suite or labelled set."""

    source: str
    a: Pick
    b: Pick
    rows: list[CaseRow] = field(default_factory=list)
    matrix: Confusion | None = None
    """A's route × B's route, each cell its case ids."""

    @property
    def agreed(self) -> int:
        return sum(row.agree for row in self.rows)

    def right(self, side: Literal["a", "b"]) -> tuple[int, int]:
        """(cases right, cases labelled) for one side."""
        right = labelled = 0
        for row in self.rows:
            expected = row.expected_a if side == "a" else row.expected_b
            if expected is None:
                continue
            labelled += 1
            right += (row.a if side == "a" else row.b).route == expected
        return right, labelled

    def errors(self) -> int:
        return sum(row.a.failed + row.b.failed for row in self.rows)

    def routes(self) -> tuple[list[str], list[str]]:
        """A's routes and B's routes, most frequent first (the matrix's rows and columns)."""
        counts_a: dict[str, int] = {}
        counts_b: dict[str, int] = {}
        for row in self.rows:
            counts_a[row.a.route] = counts_a.get(row.a.route, 0) + 1
            counts_b[row.b.route] = counts_b.get(row.b.route, 0) + 1
        return (
            sorted(counts_a, key=lambda r: (-counts_a[r], r)),
            sorted(counts_b, key=lambda r: (-counts_b[r], r)),
        )

    def cell(self, route_a: str, route_b: str) -> list[CaseRow]:
        """The cases behind one cell of the matrix."""
        ids = set(self.matrix.cells.get((route_a, route_b), [])) if self.matrix else set()
        return [row for row in self.rows if row.case_id in ids]


# -- deciding (in the workers) ----------------------------------------------------------------
def _context_of(context: Any) -> Any:
    from ..contract import RouterContext

    return RouterContext.model_validate(context) if context else None


def _builtin(name: str, prompt: str, today: dt.date, pack: RulePack, context: Any) -> Said:
    outcome = inspect(prompt, today=today, rules=pack, context=context).outcome
    value = getattr(Decisions.of(outcome), name)
    why = {"strategy": outcome.strategy_rule, "lint_class": outcome.lint_rule}.get(name) or ""
    return Said(_NONE if value is None else str(value), why)


def _external(decision: ExternalDecision) -> Said:
    if decision.error is not None:
        return Said(decision.shown_route, decision.error.detail, failed=True)
    score = "" if decision.score is None else f"score {decision.score:.3f}"
    return Said(decision.shown_route, score)


def _decide_cases(
    pick: Pick, cases: Sequence[LabelledCase], pack: RulePack, pool: RouterPool | None
) -> list[Said]:
    """Every case's route by one router, in order (external routers answer cases on the
    same date and context together, within their declared concurrency)."""
    if pick.kind == "builtin":
        return [_builtin(pick.name, c.prompt, c.today, pack, _context_of(c.context)) for c in cases]
    if pool is None:
        raise RouterError(_NO_FILE)
    router = pool.get(pick.name)
    said: list[Said | None] = [None] * len(cases)
    groups: dict[tuple[dt.date, str], list[int]] = {}
    for number, case in enumerate(cases):
        key = (case.today, json.dumps(case.context or {}, sort_keys=True))
        groups.setdefault(key, []).append(number)
    for (today, _context), numbers in groups.items():
        context = cases[numbers[0]].context
        decided = router.route_many(
            [cases[n].prompt for n in numbers], today=today, context=context
        )
        for number, decision in zip(numbers, decided, strict=True):
            said[number] = _external(decision)
    return [s for s in said if s is not None]


def _expected(pick: Pick, case: LabelledCase) -> str | None:
    if pick.kind == "external":
        route = case.labels.expected_route(pick.name)
        return None if route is None else (route or _NONE)
    label = _LABELS.get(pick.name)
    if label is None:
        return None
    from ..judge import expected_value

    value = expected_value(case, label)
    return None if value is None else str(value)


def agreement_over(
    path: str | Path,
    a: Pick,
    b: Pick,
    pack: RulePack,
    pool: RouterPool | None,
    today: dt.date | None = None,
) -> SuiteAgreement:
    """Both routers over every case of a suite or labelled set (`routescope.judge`'s
    `read_labelled`: JSON lines, CSV, a suite's YAML)."""
    from ..judge import Confusion, read_labelled

    cases = read_labelled(path, today=today)
    said_a = _decide_cases(a, cases, pack, pool)
    said_b = _decide_cases(b, cases, pack, pool)
    result = SuiteAgreement(str(path), a, b, matrix=Confusion())
    assert result.matrix is not None
    for case, one, other in zip(cases, said_a, said_b, strict=True):
        context = dict(case.context) if case.context else None
        result.rows.append(
            CaseRow(
                case.id,
                case.prompt,
                case.today,
                context,
                one,
                other,
                _expected(a, case),
                _expected(b, case),
            )
        )
        result.matrix.add(one.route, other.route, case.id)
    return result


def said_by(
    pick: Pick,
    text: str,
    today: dt.date,
    pack: RulePack,
    context: RouterContext | None,
    pool: RouterPool | None,
) -> Said:
    """What one router says about one prompt (an external router that cannot start says
    why, as its result)."""
    if pick.kind == "builtin":
        return _builtin(pick.name, text, today, pack, context)
    raw = context.model_dump(mode="json", exclude_none=True) if context is not None else None
    try:
        if pool is None:
            raise RouterError(_NO_FILE)
        decision = pool.get(pick.name).route(text, today=today, context=raw)
    except RouterError as exc:
        return Said("cannot start", str(exc), failed=True)
    return _external(decision)
