"""Run suites: evaluate each case's expectations, diff field by field, report per class."""

from __future__ import annotations

import datetime as dt
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruamel.yaml import YAML

from .._inspect import inspect
from .._request import Request
from ._suite import Case, Suite, is_matcher
from ._tool_eval import expected_families

if TYPE_CHECKING:
    from ..toolsearch import ToolSearch

__all__ = [
    "MISSING",
    "CaseResult",
    "ClassReport",
    "FieldDiff",
    "SuiteResult",
    "class_report",
    "iter_cases",
    "resolve",
    "run_case",
    "run_suite",
    "update_goldens",
]

_ROOTS = {"strategy": None, "linter": "lint", "contract": "decision", "tools": "tools"}
_CLASS_FIELDS = {
    "strategy": "strategy",
    "linter": "query_class",
    "contract": "agent",
    "tools": "family",
}
_STEP = re.compile(r"([^.\[\]]+)|\[(\*|-?\d+|:\d+)\]")
MISSING: Any = object()
"""What `resolve` returns for a path that is not in the data."""


@dataclass(slots=True)
class FieldDiff:
    """One expectation that did not hold: where, what was expected and what came out."""

    path: str
    expected: Any
    actual: Any
    matcher: str
    """`equals` for exact goldens, else the tolerant matcher's name."""


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


def resolve(data: Any, path: str) -> Any:
    """The value at a dotted path with [n] and [*]; [*] maps the rest over a list."""
    steps = [m.group(1) if m.group(1) is not None else m.group(2) for m in _STEP.finditer(path)]
    return _walk(data, steps)


def _walk(data: Any, steps: list[str]) -> Any:
    if not steps:
        return data
    step, rest = steps[0], steps[1:]
    if step == "*" or step.startswith(":"):
        if not isinstance(data, list):
            return MISSING
        items = data if step == "*" else data[: int(step[1:])]
        return [_walk(item, rest) for item in items]
    if isinstance(data, list) and re.fullmatch(r"-?\d+", step):
        index = int(step)
        return _walk(data[index], rest) if -len(data) <= index < len(data) else MISSING
    if isinstance(data, dict) and step in data:
        return _walk(data[step], rest)
    return MISSING


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
        return all(isinstance(v, str) and re.search(str(operand), v) for v in values), name
    return (isinstance(actual, list | str | dict) and len(actual) == operand), name  # len


def _contains(value: Any, operand: Any) -> bool:
    if isinstance(value, str):
        return str(operand) in value
    if isinstance(value, list):
        return operand in value
    return False


def _engine(request: Request, engines: dict[str, ToolSearch]) -> ToolSearch | None:
    """The tool-search engine for a request's catalog, built once per catalog and run."""
    if request.catalog is None:
        return None
    key = f"{request.catalog.path}:{request.catalog.digest}"
    if key not in engines:
        from ..toolsearch import ToolSearch, load_catalog

        engines[key] = ToolSearch(load_catalog(request.catalog.path))
    return engines[key]


def run_case(case: Case, suite: Suite, engines: dict[str, ToolSearch] | None = None) -> CaseResult:
    """Run one case of a suite (`engines` keeps tool-search engines between cases)."""
    request = case.request(suite)
    root = _ROOTS[suite.router]
    class_field = _CLASS_FIELDS[suite.router]
    result = inspect(request, tools=_engine(request, {} if engines is None else engines))
    dumped = result.model_dump(mode="json", exclude={"timings_us"})
    data: Any = dumped if root is None else dumped.get(root)
    diffs = []
    for path, expected in case.expect.items():
        actual = resolve(data, path)
        ok, matcher = _holds(path, expected, actual)
        if not ok:
            shown = "(missing)" if actual is MISSING else actual
            diffs.append(FieldDiff(path, expected, shown, matcher))
    expected_class = case.expect.get(class_field)
    predicted = resolve(data, class_field)
    if suite.router == "tools":  # the class is the tool family: the skill before the dot
        families = expected_families(case.expect)
        expected_class = families[0].split(".")[0] if families else None
        top = resolve(data, "results[0].tool_name")
        predicted = top.split(".")[0] if isinstance(top, str) else None
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


def iter_cases(suite: Suite) -> Iterator[CaseResult]:
    """Run the cases of a suite in order, one result at a time (for progress and cancelling)."""
    engines: dict[str, ToolSearch] = {}
    for case in suite.cases:
        yield run_case(case, suite, engines)


def run_suite(suite: Suite) -> SuiteResult:
    """Run every case of a suite in order."""
    cases = list(iter_cases(suite))
    return SuiteResult(
        suite=suite.suite,
        path=str(suite.path),
        router=suite.router,
        cases=cases,
        report=class_report(suite.router, cases),
    )


def update_goldens(suite: Suite, result: SuiteResult, only: set[str] | None = None) -> int:
    """Accept the current results as the goldens of failing exact expectations (all failing
    cases, or the ids in `only`). Comments, order and tolerant matchers are kept; the file is
    replaced atomically. Returns how many values changed."""
    yaml = YAML()  # round-trip: keeps comments, order and quoting
    yaml.preserve_quotes = True
    yaml.width = 4096
    document = yaml.load(suite.path.read_text(encoding="utf-8"))
    by_id = {case["id"]: case for case in document["cases"]}
    changed = 0
    for case in result.cases:
        if case.passed or (only is not None and case.id not in only):
            continue
        expect = by_id[case.id]["expect"]
        for diff in case.diffs:
            if diff.matcher == "equals" and not is_matcher(expect[diff.path]):
                expect[diff.path] = diff.actual
                changed += 1
    if changed:
        _write_atomically(suite.path, yaml, document)
    return changed


def _write_atomically(path: Path, yaml: YAML, document: Any) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            yaml.dump(document, stream)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
