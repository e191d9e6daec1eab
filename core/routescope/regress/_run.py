"""Run suites: evaluate each case's expectations, diff field by field, report per class.
(Accepting the results as goldens is `_goldens`.)"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._diff import MISSING, FieldDiff, contains_missing, resolve
from .._errors import RoutescopeError, SuiteError, one_line
from .._inspect import inspect
from .._request import Request
from ._checks import MATCH_TIMEOUT_S, is_matcher, regex_module
from ._routers import ROUTERS_ROOT, SuiteRouters, expected_routers
from ._suite import Case, Suite
from ._tool_eval import expected_families

if TYPE_CHECKING:
    from ..toolsearch import Engines, ToolSearch

__all__ = [
    "CaseResult",
    "ClassReport",
    "SuiteResult",
    "changed_cases",
    "class_report",
    "iter_cases",
    "run_case",
    "run_suite",
    "suite_result",
]

_ROOTS = {"strategy": None, "linter": "lint", "contract": "decision", "tools": "tools"}
_CLASS_FIELDS = {
    "strategy": "strategy",
    "linter": "query_class",
    "contract": "agent",
    "tools": "family",
}


@dataclass(slots=True)
class CaseResult:
    id: str
    passed: bool
    diffs: list[FieldDiff]
    checked: int
    predicted_class: str | None
    expected_class: str | None
    prompt: str
    today: dt.date
    error: str | None = None


@dataclass(slots=True)
class ClassReport:
    """Confusion matrix and precision/recall over the cases that fix the class exactly."""

    field: str
    labels: list[str]
    matrix: dict[str, dict[str, int]]
    precision: dict[str, float | None]
    recall: dict[str, float | None]
    support: dict[str, int]


@dataclass(slots=True)
class SuiteResult:
    suite: str
    path: str
    router: str
    cases: list[CaseResult]
    report: ClassReport
    passed: int = 0
    """Computed from `cases` (a field, so it is serialized)."""
    failed: int = 0

    def __post_init__(self) -> None:
        self.passed = sum(c.passed for c in self.cases)
        self.failed = len(self.cases) - self.passed


def _holds(path: str, expected: Any, actual: Any) -> tuple[bool, str]:
    if not is_matcher(expected):
        return actual == expected, "equals"
    ((name, operand),) = expected.items()
    many = ("[*]" in path or "[:" in path) and isinstance(actual, list)
    values = actual if many else [actual]
    if name == "equals":
        return actual == operand, name
    if name == "contains":
        return any(_contains(v, operand) for v in values), name
    if name == "not_contains":
        return not any(_contains(v, operand) for v in values), name
    if name == "in":
        return all(v in operand for v in values), name
    if name == "any_startswith":
        prefixes = tuple(operand) if isinstance(operand, list) else (str(operand),)
        return any(isinstance(v, str) and v.startswith(prefixes) for v in values), name
    if name == "matches":
        return all(isinstance(v, str) and _search(str(operand), v) for v in values), name
    return (isinstance(actual, list | str | dict) and len(actual) == operand), name  # len


class _TimeoutError(Exception):
    """A `{matches: …}` search ran past `MATCH_TIMEOUT_S`."""


def _search(pattern: str, value: str) -> bool:
    """`re.search` semantics on the `regex` engine, stopped at the deadline: a pattern that
    backtracks catastrophically on some value ends the run with a SuiteError, not a hang."""
    try:
        return regex_module().search(pattern, value, timeout=MATCH_TIMEOUT_S) is not None
    except TimeoutError:
        raise _TimeoutError(pattern) from None


def _missing_shown(value: Any) -> Any:
    """`value` with `MISSING` (anywhere in the lists `[*]` makes) shown as `(missing)`."""
    if value is MISSING:
        return "(missing)"
    if isinstance(value, list):
        return [_missing_shown(item) for item in value]
    return value


def _contains(value: Any, operand: Any) -> bool:
    if isinstance(value, str):
        return str(operand) in value
    if isinstance(value, list):
        return operand in value
    return False


def _engine(request: Request, engines: Engines) -> ToolSearch | None:
    """The tool-search engine for a request's catalog, built once per catalog and run."""
    return None if request.catalog is None else engines.get(request.catalog)


def _engines(cache: Path | None) -> Engines:
    """A run's own engines (freed with it), in `cache`."""
    from ..toolsearch import Engines

    return Engines(cache=cache)


def run_case(
    case: Case,
    suite: Suite,
    engines: Engines | None = None,
    *,
    cache: Path | None = None,
    routers: SuiteRouters | None = None,
) -> CaseResult:
    """Run one case of a suite (`engines` keeps tool-search engines between cases; without
    it, one is built in `cache`, the folder indexes are kept in, by default the user's;
    `routers` keeps the suite's external routers between cases, else they are started for
    this case when it expects one)."""
    try:
        request = case.request(suite)
        engine = _engine(request, _engines(cache) if engines is None else engines)
        result = inspect(request, tools=engine)
        external = _external(case, suite, routers)
    except SuiteError:
        raise
    except RoutescopeError as exc:  # a case's rule pack, prompt or catalog: name the case
        raise SuiteError(one_line(f"{suite.path}: case {case.id}: {exc}")) from None
    root = _ROOTS[suite.router]
    class_field = _CLASS_FIELDS[suite.router]
    dumped = result.model_dump(mode="json", exclude={"timings_us"})
    data: Any = dumped if root is None else dumped.get(root)
    diffs = []
    for path, expected in case.expect.items():
        actual = resolve(external if _names_a_router(path) else data, path)
        try:
            ok, matcher = _holds(path, expected, actual)
        except _TimeoutError:
            raise SuiteError(
                one_line(
                    f"{suite.path}: case {case.id}: {path}: the {{matches: …}} pattern took "
                    f"more than {MATCH_TIMEOUT_S:g} s; simplify it"
                )
            ) from None
        if not ok:
            missing = contains_missing(actual)
            shown = _missing_shown(actual) if missing else actual
            diffs.append(FieldDiff(path, expected, shown, matcher, missing=missing))
    expected_class = case.expect.get(class_field)
    predicted = resolve(data, class_field)
    if suite.router == "tools":  # the class is the tool family: the skill before the dot
        families = expected_families(case.expect)
        expected_class = families[0].split(".")[0] if families else None
        top = resolve(data, "results[0].tool_name")
        predicted = top.split(".")[0] if isinstance(top, str) else None
        if not diffs and expected_class is not None:
            # The case's matcher found an expected family where it looks (the top N): the
            # matrix counts that hit, not the top-1 tool, so a passing case is never an error.
            predicted = expected_class
    return CaseResult(
        id=case.id,
        passed=not diffs,
        diffs=diffs,
        checked=len(case.expect),
        predicted_class=predicted if isinstance(predicted, str) else None,
        expected_class=expected_class if isinstance(expected_class, str) else None,
        prompt=case.prompt,
        today=request.today,
    )


def _names_a_router(path: str) -> bool:
    return path.startswith((f"{ROUTERS_ROOT}.", f"{ROUTERS_ROOT}["))


def _external(case: Case, suite: Suite, routers: SuiteRouters | None) -> dict[str, Any]:
    """The decisions of the external routers the case expects (`{"routers": {NAME: …}}`)."""
    if not expected_routers(case):
        return {}
    if routers is not None:
        return routers.expected(case)
    with SuiteRouters(suite) as own:
        return own.expected(case)


def class_report(router: str, cases: list[CaseResult]) -> ClassReport:
    """The per-class report of a router's cases."""
    field_name = _CLASS_FIELDS[router]
    pairs = [(c.expected_class, c.predicted_class or "(none)") for c in cases if c.expected_class]
    labels = sorted({label for pair in pairs for label in pair})
    matrix = {e: dict.fromkeys(labels, 0) for e in labels}
    for expected, predicted in pairs:
        matrix[expected][predicted] += 1
    predicted_totals = Counter(p for _, p in pairs)
    support = Counter(e for e, _ in pairs)
    precision = {
        label: matrix[label][label] / predicted_totals[label] if predicted_totals[label] else None
        for label in labels
    }
    recall = {
        label: matrix[label][label] / support[label] if support[label] else None for label in labels
    }
    return ClassReport(field_name, labels, matrix, precision, recall, dict(support))


def iter_cases(
    suite: Suite, *, cache: Path | None = None, routers: SuiteRouters | None = None
) -> Iterator[CaseResult]:
    """Run the cases of a suite in order, one result at a time (for progress and cancelling).
    The suite's external routers are started once (or `routers`, kept open) and stopped when
    the iteration ends or is closed."""
    engines = _engines(cache)
    own = routers is None and any(expected_routers(case) for case in suite.cases)
    if own:
        routers = SuiteRouters(suite)
    try:
        for case in suite.cases:
            yield run_case(case, suite, engines, cache=cache, routers=routers)
    finally:
        if own and routers is not None:
            routers.close()


def run_suite(
    suite: Suite, *, cache: Path | None = None, routers: SuiteRouters | None = None
) -> SuiteResult:
    """Run every case of a suite in order (`cache`: where tool-search indexes are kept;
    `routers`: the suite's external routers, kept open for its `route_quality`)."""
    return suite_result(suite, list(iter_cases(suite, cache=cache, routers=routers)))


def suite_result(suite: Suite, cases: list[CaseResult]) -> SuiteResult:
    """The result of a suite whose cases ran (all of them, from `iter_cases` or `run_case`, in
    batches or at once), with the per-class report."""
    return SuiteResult(
        suite=suite.suite,
        path=str(suite.path),
        router=suite.router,
        cases=cases,
        report=class_report(suite.router, cases),
    )


def changed_cases(previous: SuiteResult, result: SuiteResult) -> frozenset[str]:
    """The ids of the cases that pass in one of two runs of a suite and fail in the other.
    A case only one of the runs has (added or removed since) has not changed."""
    before = {case.id: case.passed for case in previous.cases}
    return frozenset(
        case.id for case in result.cases if before.get(case.id, case.passed) != case.passed
    )
