"""Run suites: evaluate each case's expectations, diff field by field, report per class."""

from __future__ import annotations

import copy
import datetime as dt
import functools
import itertools
import math
import os
import re
import stat
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from .._diff import MISSING, FieldDiff, contains_missing, preview, resolve
from .._errors import RoutescopeError, SuiteError, one_line
from .._files import OwnerNotKeptError, TemporaryFileError, read_bytes, replace_file
from .._inspect import inspect
from .._request import Request
from ._suite import (
    MATCH_TIMEOUT_S,
    MAX_SUITE_BYTES,
    Case,
    Suite,
    compose_yaml,
    is_matcher,
    read_yaml,
    regex_module,
)
from ._tool_eval import expected_families

if TYPE_CHECKING:
    from ..toolsearch import Engines, ToolSearch

__all__ = [
    "CaseResult",
    "ClassReport",
    "GoldenUpdate",
    "SuiteResult",
    "accept_goldens",
    "changed_cases",
    "class_report",
    "iter_cases",
    "run_case",
    "run_suite",
    "skipped_goldens",
    "suite_result",
    "undo_goldens",
    "update_goldens",
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


def _error(message: str) -> SuiteError:
    """A SuiteError whose message is one line, whatever keys and ids it quotes."""
    return SuiteError(one_line(message))


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
) -> CaseResult:
    """Run one case of a suite (`engines` keeps tool-search engines between cases; without
    it, one is built in `cache`, the folder indexes are kept in, by default the user's)."""
    try:
        request = case.request(suite)
        engine = _engine(request, _engines(cache) if engines is None else engines)
        result = inspect(request, tools=engine)
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
        actual = resolve(data, path)
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


def iter_cases(suite: Suite, *, cache: Path | None = None) -> Iterator[CaseResult]:
    """Run the cases of a suite in order, one result at a time (for progress and cancelling)."""
    engines = _engines(cache)
    for case in suite.cases:
        yield run_case(case, suite, engines, cache=cache)


def run_suite(suite: Suite, *, cache: Path | None = None) -> SuiteResult:
    """Run every case of a suite in order (`cache`: where tool-search indexes are kept)."""
    return suite_result(suite, list(iter_cases(suite, cache=cache)))


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


@dataclass(frozen=True, slots=True)
class GoldenUpdate:
    """What accepting goldens wrote (`accept_goldens`): enough to undo it byte for byte."""

    path: Path
    changed: int
    """How many values changed (0: nothing was written)."""
    before: bytes
    """The suite file as it was."""
    after: bytes
    """The suite file as the update wrote it."""


def update_goldens(suite: Suite, result: SuiteResult, only: set[str] | None = None) -> int:
    """`accept_goldens`, returning how many values changed."""
    return accept_goldens(suite, result, only).changed


def accept_goldens(suite: Suite, result: SuiteResult, only: set[str] | None = None) -> GoldenUpdate:
    """Accept the current results as the goldens of failing exact expectations (all failing
    cases, or the ids in `only`). Returns what was written (`GoldenUpdate`: how many values
    changed, and the file's bytes before and after, for `undo_goldens`).

    The file is edited as text: only the changed values are replaced, each by one line of YAML
    (flow style, quoted where needed, the old quoting kept where it fits), so comments, order,
    indentation, line endings and everything else stay byte for byte; tolerant matchers are
    never rewritten, nor is a golden whose path is not in the result (`FieldDiff.missing`: a
    typo in the path, not a new value). The new text is read back and must differ from the old
    in exactly the changed values, or nothing is written (SuiteError); so must a golden shared
    with another place through a YAML alias, a read-only suite, a suite with hard links or a
    folder that cannot take the temporary file. The file (a link's target) is replaced
    atomically, keeping its permissions and owner; temporary files left by a killed update
    of the same suite are removed."""
    path = suite.path
    wanted: dict[str, dict[str, Any]] = {}
    for case in result.cases:
        if case.passed or (only is not None and case.id not in only):
            continue
        for diff in case.diffs:
            if diff.matcher == "equals" and not _is_missing(diff):
                wanted.setdefault(case.id, {})[diff.path] = diff.actual
    if not wanted:
        return GoldenUpdate(path, 0, b"", b"")
    raw = read_bytes(path, what="suite", limit=MAX_SUITE_BYTES, error=SuiteError, streams=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _error(f"{path}: suite is not UTF-8 text any more (byte {exc.start})") from None
    document = read_yaml(text, path)
    root = compose_yaml(text, path)  # a tree of its own: building `document` merged `<<` keys
    edits = _golden_edits(path, text, document, root, wanted)
    if not edits:
        return GoldenUpdate(path, 0, raw, raw)
    new_text = _apply(text, edits, path)
    _verify(path, text, document, new_text, edits)
    data = new_text.encode("utf-8")
    _write_atomically(path, data)
    return GoldenUpdate(path, len(edits), raw, data)


def undo_goldens(update: GoldenUpdate) -> None:
    """Put the suite back as it was before `update` (`accept_goldens`), byte for byte, with
    the same atomic write. Refuses (SuiteError, nothing written) when the file is no longer
    what the update wrote: an edit made since would be lost."""
    if not update.changed:
        return
    path = update.path
    now = read_bytes(path, what="suite", limit=MAX_SUITE_BYTES, error=SuiteError, streams=False)
    if now != update.after:
        raise _error(f"{path}: the suite changed since the goldens were accepted; nothing undone")
    _write_atomically(path, update.before)


def skipped_goldens(result: SuiteResult, only: set[str] | None = None) -> list[tuple[str, str]]:
    """The (case id, path) of the failing exact goldens `update_goldens` leaves alone because
    their path is not in the result (a typo, or a field the router does not have): what to tell
    the user after an update, since those cases still fail."""
    return [
        (case.id, diff.path)
        for case in result.cases
        if not case.passed and (only is None or case.id in only)
        for diff in case.diffs
        if diff.matcher == "equals" and _is_missing(diff)
    ]


def _is_missing(diff: FieldDiff) -> bool:
    return diff.missing or contains_missing(diff.actual)


# -- accepting goldens: text edits -------------------------------------------------------------

_STR = "tag:yaml.org,2002:str"
_SPACE = " \t\r\n"


@dataclass(slots=True)
class _Edit:
    """Replace text[start:end] with `new`: the golden `key` of case `case_id` becomes `value`."""

    start: int
    end: int
    new: str
    case_id: str
    key: str
    value: Any
    line: int
    """1-based line of the golden's key, for messages."""


def _golden_edits(
    path: Path, text: str, document: Any, root: Node | None, wanted: dict[str, dict[str, Any]]
) -> list[_Edit]:
    """Where each wanted golden sits in the text (`root` is its node tree, `document` its
    data) and what replaces it (exact goldens only)."""
    cases = document.get("cases") if isinstance(document, dict) else None
    cases_node = _value_node(root, "cases")
    if not isinstance(cases, list) or not isinstance(cases_node, SequenceNode):
        raise _error(f"{path}: `cases` is not a list any more; run the suite again")
    data = _by_id(cases)
    shared = _shared_nodes(root)
    nodes: dict[str, MappingNode] = {}
    for item in cases_node.value:
        id_node = _value_node(item, "id")
        if isinstance(item, MappingNode) and isinstance(id_node, ScalarNode):
            nodes.setdefault(id_node.value, item)
    edits = []
    for case_id, values in wanted.items():
        case, node = data.get(case_id), nodes.get(case_id)
        if case is None or node is None:
            raise _error(f"{path}: case {case_id!r} is not in the file any more; run again")
        expect = case.get("expect")
        expect_node = _value_node(node, "expect")
        line = node.start_mark.line + 1
        if not isinstance(expect, dict) or not isinstance(expect_node, MappingNode):
            raise _error(f"{path}:{line}: case {case_id}: `expect` is not a mapping")
        for key, value in values.items():
            if key not in expect:
                raise _error(f"{path}:{line}: case {case_id} no longer expects {key}")
            if is_matcher(expect[key]):
                continue  # tolerant (or `{equals: …}`): never rewritten
            pair = _pair(expect_node, key)
            if pair is None:  # from a merge key or an alias: not in this case's text
                raise SuiteError(
                    one_line(
                        f"{path}:{line}: case {case_id}: cannot rewrite {key} in place (it is "
                        "not written in the case itself); edit it by hand"
                    )
                )
            if shared.intersection(map(id, (node, expect_node, *pair))):
                raise _error(
                    f"{path}:{line}: case {case_id}: cannot rewrite {key} in place (it is "
                    "shared with another place through a YAML alias); edit it by hand"
                )
            edits.append(_edit(text, case_id, key, value, *pair, flow=bool(expect_node.flow_style)))
    return edits


def _shared_nodes(root: Node | None) -> set[int]:
    """The ids of the nodes reached more than once in the tree: aliased (anchored) values."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [] if root is None else [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            shared.add(id(node))
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return shared


def _by_id(cases: list[Any]) -> dict[Any, dict[str, Any]]:
    """The cases of a loaded suite by id (the first of each id, as in the node tree)."""
    found: dict[Any, dict[str, Any]] = {}
    for case in cases:
        if isinstance(case, dict):
            found.setdefault(case.get("id"), case)
    return found


def _value_node(node: Node | None, name: str) -> Node | None:
    pair = _pair(node, name) if isinstance(node, MappingNode) else None
    return None if pair is None else pair[1]


def _pair(node: Node | None, name: str) -> tuple[Node, Node] | None:
    """The key and value nodes of a string key of a mapping node."""
    if not isinstance(node, MappingNode):
        return None
    for key, value in node.value:
        if isinstance(key, ScalarNode) and str(key.tag) == _STR and key.value == name:
            return key, value
    return None


def _edit(
    text: str, case_id: str, key: str, value: Any, key_node: Node, node: Node, *, flow: bool
) -> _Edit:
    """The text edit that makes `node` (the value of `key_node`) read `value`."""
    stored = {"equals": value} if is_matcher(value) else value  # else it would read as a matcher
    style = node.style if isinstance(node, ScalarNode) else None
    new = _render(stored, flow=flow, quote=style if style in ("'", '"') else None)
    start, end = node.start_mark.index, _end(text, node)
    line = key_node.start_mark.line + 1
    if isinstance(node, CollectionNode) and not node.flow_style:
        # A block list or mapping: the flow value goes after the colon when only blanks are
        # in between, else where the block started (more indented than its key).
        colon = _colon_after(text, key_node.end_mark.index)
        if colon is not None and not text[colon + 1 : start].strip(_SPACE):
            start, new = colon + 1, " " + new
        elif node.start_mark.column <= key_node.start_mark.column:
            new = " " + new
    elif start == end:
        # An empty value (null): its marks are where the next token starts, maybe on the next
        # line, so the value goes right after the colon.
        colon = _colon_after(text, key_node.end_mark.index)
        if colon is not None:
            start = end = colon + 1
            new = " " + new
    return _Edit(start, end, new, case_id, key, stored, line)


def _end(text: str, node: Node) -> int:
    """Where a value's own text ends: a block collection ends with its last entry (its end
    mark is where the next token starts), a block scalar before its trailing line breaks."""
    if isinstance(node, CollectionNode) and not node.flow_style and node.value:
        last = node.value[-1]
        return _end(text, last[1] if isinstance(last, tuple) else last)
    end: int = node.end_mark.index
    if isinstance(node, ScalarNode) and node.style in ("|", ">"):
        while end > node.start_mark.index and text[end - 1] in _SPACE:
            end -= 1
    return end


def _colon_after(text: str, index: int) -> int | None:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index if index < len(text) and text[index] == ":" else None


def _apply(text: str, edits: list[_Edit], path: Path) -> str:
    ordered = sorted(edits, key=lambda e: e.start)
    for before, after in itertools.pairwise(ordered):
        if before.end > after.start:  # an alias: two goldens share one text
            raise _error(
                f"{path}:{after.line}: case {after.case_id}: cannot rewrite {after.key} in place "
                "(its text is shared with another golden); edit it by hand"
            )
    for edit in reversed(ordered):
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text


def _verify(path: Path, old: str, document: Any, new: str, edits: list[_Edit]) -> None:
    """The new text must read as the old (`document`) with exactly the edited goldens changed."""
    if _reads_as(path, document, new, edits):
        return
    culprit = next(
        (e for e in edits if not _reads_as(path, document, _apply(old, [e], path), [e])),
        edits[0],
    )
    raise _error(
        f"{path}:{culprit.line}: case {culprit.case_id}: cannot rewrite {culprit.key} in place; "
        "edit it by hand (nothing was written)"
    )


def _reads_as(path: Path, document: Any, new: str, edits: list[_Edit]) -> bool:
    expected = copy.deepcopy(document)
    try:
        actual = read_yaml(new, path)
    except SuiteError:
        return False
    cases = _by_id(expected["cases"])
    for edit in edits:
        cases[edit.case_id]["expect"][edit.key] = edit.value
    return _same(actual, expected)


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (1, 1.0 and True differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


# -- accepting goldens: one line of YAML ----------------------------------------------------------

_PLAIN_FIRST = set("-?:,[]{}#&*!|>'\"%@`<=~ ")
_FLOW_INDICATORS = set(",[]{}")
_RESERVED = re.compile(r"(?i)y|n|yes|no|on|off|true|false|null|[-+]?\.?(inf|nan)")
_NUMBERISH = re.compile(r"[-+.]?\d")
_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\u2028": "\\L",
    "\u2029": "\\P",
}


def _render(value: Any, *, flow: bool, quote: str | None = None) -> str:
    """`value` as one line of YAML that reads back as exactly `value` (in a flow collection
    when `flow`); strings keep the `quote` style of the old value where it can hold them."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return _string(value, flow=flow, quote=quote)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_render(item, flow=True) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{_key(k)}: {_render(v, flow=True)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    raise _error(f"cannot write a golden of type {type(value).__name__}: {preview(value)}")


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else text


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _string(key, flow=True, quote=None, key=True)
    return _render(key, flow=True)


def _string(value: str, *, flow: bool, quote: str | None, key: bool = False) -> str:
    if quote is None and _plain_ok(value, flow=flow, key=key):
        return value
    if quote == "'" and all(_printable(ch) for ch in value):
        return "'" + value.replace("'", "''") + "'"
    return '"' + "".join(_escape(ch) for ch in value) + '"'


@functools.lru_cache(maxsize=4096)
def _plain_ok(value: str, *, flow: bool, key: bool) -> bool:
    """Whether `value` can be written plain (conservatively: not what YAML 1.1 reads as a bool,
    null or number either, nothing that starts like an indicator)."""
    if (
        not value
        or value != value.strip()
        or value[0] in _PLAIN_FIRST
        or ": " in value
        or " #" in value
        or value.endswith(":")
        or _RESERVED.fullmatch(value)
        or _NUMBERISH.match(value)
        or not all(_printable(ch) and ch not in "\t\xa0\ufeff" for ch in value)
        or ((flow or key) and _FLOW_INDICATORS.intersection(value))
        or (key and ":" in value)
    ):
        return False
    probe = f"{{{value}: 0}}" if key else f"[{value}]" if flow else f"k: {value}"
    try:
        loaded = YAML(typ="safe", pure=True).load(probe)  # one per call: not shared by threads
    except YAMLError:
        return False
    want: Any = {value: 0} if key else [value] if flow else {"k": value}
    return _same(loaded, want)


def _printable(ch: str) -> bool:
    """Written as itself inside quotes: printable, and not a YAML line break."""
    code = ord(ch)
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    ) and ch not in "\u2028\u2029"


def _escape(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if _printable(ch):
        return ch
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def _write_atomically(path: Path, data: bytes) -> None:
    """Replace the suite (the target of a link) with `data`, keeping its owner and permissions
    (`_files.replace_file`). Refuses (SuiteError, nothing written) a read-only suite, one with
    hard links (a rename would split them) and a folder that cannot take the temporary file."""
    try:
        target = path.resolve(strict=True)
        info = target.stat()
    except (OSError, RuntimeError) as exc:
        raise _error(f"{path}: cannot update suite: {_reason(exc)}") from None
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISREG(info.st_mode):
        raise _error(f"{path}: cannot update suite: not a regular file")
    # Root may write anything: the mode bits say whether the file is meant to be written.
    if not mode & 0o222:
        raise _error(f"{path}: the suite is read-only (mode {mode:04o}); nothing written")
    if not os.access(target, os.W_OK):
        raise _error(
            f"{path}: the suite is not writable by this user (mode {mode:04o}, owner "
            f"{info.st_uid}); nothing written"
        )
    if info.st_nlink > 1:
        raise _error(
            f"{path}: the suite has {info.st_nlink} hard links, which an update would split; "
            "nothing written"
        )
    try:
        replace_file(target, data, like=info)
    except TemporaryFileError as exc:
        raise _error(
            f"{path}: cannot write the updated suite into {target.parent}: {_reason(exc)}; "
            "nothing written"
        ) from None
    except OwnerNotKeptError:
        raise _error(
            f"{path}: cannot keep the suite's owner ({info.st_uid}:{info.st_gid}) in an "
            "update; nothing written"
        ) from None
    except OSError as exc:
        raise _error(f"{path}: cannot update suite: {_reason(exc)}; nothing written") from None


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__
