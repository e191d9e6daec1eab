"""Regression suites: YAML files of cases (an input and expectations at any stage).

    suite: strategy            # a name for reports
    router: strategy           # strategy | linter | contract: where paths start, which class
    today: 2026-02-05          # default for every case (a case may set its own)
    cases:
      - id: local-austin
        prompt: Best restaurants in Austin this weekend
        expect:
          strategy: local                          # exact: a golden `--update` may rewrite
          actions[0].query: {contains: near Austin}  # tolerant: never rewritten
          actions[*].query: {not_contains: "site:"}

Paths are dotted names with `[n]`, `[*]` and `[:n]` (the first n) into the result's JSON;
`{any_startswith: [git.]}` checks a tool family. For the linter the root is
the lint result, for the contract the decision, for the strategy router the whole inspection.
A case may also give `context` (the contract's RouterContext) and `rules` (a pack file,
relative to the suite).

Everything is checked when the suite is loaded, so a bad suite is one `SuiteError` line naming
the file and the place, never a crash or a hang halfway through a run: the file is read within a
size limit, YAML nesting and alias expansion are bounded (no billion laughs, no self-reference),
impossible dates and numbers name their line, every expectation path must parse, every matcher's
operand must fit the matcher, and `{matches: …}` patterns must compile and may not nest
quantifiers (they run under a deadline too, see `_run.py`).
"""

from __future__ import annotations

import datetime as dt
import importlib
import re
import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator
from ruamel.yaml import YAML
from ruamel.yaml.composer import MaxDepthExceededError
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .._diff import parse_path
from .._errors import InputError, SuiteError, describe, dotted, one_line
from .._files import MB, read_text
from .._input import validate_text
from .._request import CatalogRef, Request, RulesRef
from ..contract import RouterContext

__all__ = [
    "ALIAS_BUDGET",
    "MATCHERS",
    "MATCH_TIMEOUT_S",
    "MAX_DEPTH",
    "MAX_PATTERN_CHARS",
    "MAX_SUITE_BYTES",
    "SUITE_TODAY",
    "Case",
    "Suite",
    "SuiteError",
    "check_pattern",
    "compose_yaml",
    "is_matcher",
    "load_suite",
    "read_yaml",
    "regex_module",
]

MATCHERS = ("equals", "contains", "not_contains", "in", "matches", "len", "any_startswith")
Router = Literal["strategy", "linter", "contract", "tools"]
SUITE_TODAY = dt.date(2026, 1, 1)
"""The date of a case when neither the case nor its suite gives one (goldens must not age)."""
MAX_SUITE_BYTES = 16 * MB
"""A suite file larger than this is refused before it is read (160,000 typical cases)."""
MAX_DEPTH = 100
"""How deeply a suite's YAML may nest, aliases expanded (a result is about 8 levels deep)."""
ALIAS_BUDGET = 100_000
"""How many nodes YAML aliases may add to a suite when expanded: sharing an `expect` block
between cases is fine, a billion laughs is refused before anything is built from it."""
MAX_PATTERN_CHARS = 1_000
"""The longest `{matches: …}` pattern."""
MATCH_TIMEOUT_S = 1.0
"""How long one `{matches: …}` may search one value before the run stops with a SuiteError."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Case(_Model):
    id: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    today: dt.date | None = None
    context: dict[str, Any] | None = None
    rules: str | None = None
    expect: dict[str, Any] = Field(min_length=1)

    @field_validator("prompt")
    @classmethod
    def _usable_prompt(cls, prompt: str) -> str:
        try:
            return validate_text(prompt)
        except InputError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("context")
    @classmethod
    def _valid_context(cls, context: dict[str, Any] | None) -> dict[str, Any] | None:
        if context is not None:
            try:
                RouterContext.model_validate(context)
            except ValidationError as exc:
                raise ValueError(describe(exc)) from None
        return context

    @field_validator("expect")
    @classmethod
    def _valid_expectations(cls, expect: dict[str, Any]) -> dict[str, Any]:
        for key, value in expect.items():
            try:
                parse_path(key)
                if not key:
                    raise ValueError("an empty path: name a field of the result")
                if is_matcher(value):
                    ((name, operand),) = value.items()
                    _check_operand(name, operand)
            except ValueError as exc:
                raise ValueError(f"{_label(key)}: {exc}") from None
        return expect

    def rules_path(self, suite: Suite) -> Path | None:
        """The rule pack file the case names, resolved against its suite's folder."""
        return None if self.rules is None else (suite.path.parent / self.rules).resolve()

    def request(self, suite: Suite) -> Request:
        """The case's exact inputs: what `regress` runs and "open in the live view" shows."""
        path = self.rules_path(suite)
        rules = RulesRef.builtin() if path is None else RulesRef.from_path(path)
        try:
            context = RouterContext.model_validate(self.context) if self.context else None
        except ValidationError as exc:
            where = describe(
                exc,
                lambda loc: (
                    f"{suite.path}: case {_label(self.id, quote=False)}: context.{dotted(loc)}"
                ),
            )
            raise SuiteError(one_line(where)) from None
        return Request(
            text=self.prompt,
            today=self.today or suite.today or SUITE_TODAY,
            rules=rules,
            context=context,
            catalog=suite.catalog_ref() if suite.router == "tools" else None,
        )


class Suite(_Model):
    suite: str
    router: Router = "strategy"
    today: dt.date | None = None
    catalog: str | None = None
    """Tool catalog for the tools router, relative to the suite (default: the sample)."""
    cases: list[Case] = Field(min_length=1)
    path: Path = Field(Path("<memory>"), exclude=True)
    _catalog: CatalogRef | None = PrivateAttr(None)

    def catalog_ref(self) -> CatalogRef:
        """The tool catalog of a tools suite (relative to the suite; default: the sample),
        loaded once per suite."""
        if self._catalog is None:
            self._catalog = (
                CatalogRef.from_path(self.path.parent / self.catalog)
                if self.catalog
                else CatalogRef.sample()
            )
        return self._catalog

    @field_validator("cases")
    @classmethod
    def _unique_ids(cls, cases: list[Case]) -> list[Case]:
        seen: set[str] = set()
        for case in cases:
            if case.id in seen:
                raise ValueError(f"case id {_label(case.id)} appears twice")
            seen.add(case.id)
        return cases


def is_matcher(value: object) -> bool:
    """A tolerant expectation: a mapping with one key that names a matcher. Anything else is
    an exact (golden) value."""
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in MATCHERS


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file (SuiteError: one line naming the file and the place)."""
    path = Path(path)
    text = read_text(path, what="suite", limit=MAX_SUITE_BYTES, error=SuiteError)
    data = read_yaml(text, path)
    if not isinstance(data, dict):
        raise SuiteError(one_line(f"{path}: a suite is a mapping with `suite` and `cases`"))
    try:
        return Suite.model_validate({**data, "path": path})
    except ValidationError as exc:
        raise SuiteError(
            one_line(describe(exc, lambda loc: f"{path}: {_where(loc, data)}"))
        ) from None
    except RecursionError:  # not reached within MAX_DEPTH; kept as the last line of defence
        raise SuiteError(one_line(f"{path}: nested too deeply")) from None


# -- reading YAML safely ---------------------------------------------------------------------


class _ValueError(Exception):
    """A scalar that cannot be built (an impossible date, a too long integer), with its node."""

    def __init__(self, node: Node, problem: BaseException) -> None:
        super().__init__(str(problem))
        self.node = node


class _Constructor(SafeConstructor):
    """The safe constructor, but a value that cannot be built names its place."""

    def construct_non_recursive_object(self, node: Any, tag: str | None = None) -> Any:
        try:
            return super().construct_non_recursive_object(node, tag)
        except (ValueError, OverflowError, TypeError) as exc:
            raise _ValueError(node, exc) from None


def read_yaml(text: str, path: Path) -> Any:
    """The data of a suite's YAML text: bounded nesting and alias expansion checked on the
    node tree before anything is built, every failure one `SuiteError` line with its place."""
    yaml = _yaml()
    root = compose_yaml(text, path, yaml)
    if root is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ruamel.yaml's notes on YAML 1.1 floats: not ours
            return yaml.constructor.construct_document(root)
    except _ValueError as exc:
        line = exc.node.start_mark.line + 1
        value = exc.node.value if isinstance(exc.node, ScalarNode) else None
        what = _label(value, limit=40) if isinstance(value, str) else "a value"
        reason = str(exc).split(";")[0]  # not Python's advice on int_max_str_digits
        raise SuiteError(one_line(f"{path}:{line}: {what} is not valid: {reason}")) from None
    except YAMLError as exc:
        raise SuiteError(one_line(_yaml_problem(path, exc))) from None
    except RecursionError:
        raise SuiteError(one_line(f"{path}: nested too deeply")) from None


def compose_yaml(text: str, path: Path, yaml: YAML | None = None) -> Node | None:
    """The YAML node tree of `text` (None for an empty document), checked like `read_yaml`."""
    yaml = yaml or _yaml()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a reused anchor name is valid YAML (the last wins)
            root: Node | None = yaml.compose(text)
    except MaxDepthExceededError as exc:
        line = f":{exc.problem_mark.line + 1}" if exc.problem_mark is not None else ""
        raise SuiteError(
            one_line(f"{path}{line}: nested more than {MAX_DEPTH} levels deep")
        ) from None
    except YAMLError as exc:
        raise SuiteError(one_line(_yaml_problem(path, exc))) from None
    except RecursionError:  # a ruamel.yaml without `max_depth`
        raise SuiteError(one_line(f"{path}: nested more than {MAX_DEPTH} levels deep")) from None
    if root is not None:
        _check_expansion(root, path)
    return root


def _yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _Constructor
    yaml.max_depth = MAX_DEPTH  # the composer refuses deeper nesting (no RecursionError)
    return yaml


def _yaml_problem(path: Path, exc: YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f":{mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["?"])[0]
    return f"{path}{where}: not valid YAML: {problem}"


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def _check_expansion(root: Node, path: Path) -> None:
    """Refuse an alias to a value that contains it, and aliases that would expand the document
    beyond `ALIAS_BUDGET` extra nodes or `MAX_DEPTH` levels. Linear in the number of distinct
    nodes: each node's expanded size and depth are computed once."""
    size: dict[int, int] = {}  # exact: a billion laughs is a 30-bit number, not a billion nodes
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    biggest: Node | None = None
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            children = _children(node)
            open_nodes.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in children)
            depth[key] = 1 + max((depth[id(child)] for child in children), default=0)
            if depth[key] > MAX_DEPTH:
                line = node.start_mark.line + 1
                raise SuiteError(
                    one_line(f"{path}:{line}: nested more than {MAX_DEPTH} levels deep")
                )
            continue
        if key in open_nodes:
            line = node.start_mark.line + 1
            raise SuiteError(
                one_line(f"{path}:{line}: an alias refers to a value that contains it")
            )
        if key in size:
            if biggest is None or size[key] > size[id(biggest)]:
                biggest = node  # a shared value: the one whose copies cost the most
            continue
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(_children(node)))
    extra = size[id(root)] - len(size)
    if extra > ALIAS_BUDGET:
        line = (biggest or root).start_mark.line + 1
        raise SuiteError(
            one_line(
                f"{path}:{line}: YAML aliases expand the suite by more than {ALIAS_BUDGET:,} "
                "values; share less, or write the values out"
            )
        )


# -- expectations ----------------------------------------------------------------------------


def _check_operand(name: str, operand: Any) -> None:
    """ValueError when a matcher's operand cannot work: what the matcher takes, and what came."""
    if name == "in":
        if not isinstance(operand, list):
            raise ValueError(f"{{in: …}} takes a list of values, not {_kind(operand)}")
    elif name == "len":
        if not isinstance(operand, int) or isinstance(operand, bool) or operand < 0:
            raise ValueError(f"{{len: …}} takes a whole number ≥ 0, not {_kind(operand)}")
    elif name == "any_startswith":
        items = operand if isinstance(operand, list) else [operand]
        wrong = [item for item in items if not isinstance(item, str)]
        if not items or wrong:
            given = (
                "an empty list"
                if not items
                else f"a list holding {_kind(wrong[0])}"
                if isinstance(operand, list)
                else _kind(operand)
            )
            raise ValueError(
                f"{{any_startswith: …}} takes a prefix or a list of prefixes (text), not {given}"
            )
    elif name == "matches":
        check_pattern(operand)


def check_pattern(pattern: object) -> None:
    """ValueError unless `pattern` is a regular expression `{matches: …}` can run: text of at
    most `MAX_PATTERN_CHARS`, valid for Python's `re`, with no quantified group that holds
    another quantifier (`(a+)+`: the classic catastrophic backtracking)."""
    if not isinstance(pattern, str):
        raise ValueError(f"{{matches: …}} takes a regular expression (text), not {_kind(pattern)}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(
            f"{{matches: …}}: the pattern is {len(pattern):,} characters (limit "
            f"{MAX_PATTERN_CHARS:,})"
        )
    parser: Any = importlib.import_module("re._parser")
    try:
        with warnings.catch_warnings():  # "possible nested set": a note on future syntax
            warnings.simplefilter("ignore", FutureWarning)
            parsed = parser.parse(pattern)
    except re.error as exc:
        raise ValueError(f"{{matches: …}}: not a valid regular expression: {exc}") from None
    except (RecursionError, OverflowError, ValueError):
        raise ValueError("{matches: …}: not a valid regular expression (too complex)") from None
    nested = _nested_quantifier(parsed)
    if nested is not None:
        raise ValueError(
            f"{{matches: …}}: a repeated group holds another repeat ({nested}), which can take "
            "exponential time; use a possessive (`++`, `*+`) or atomic (`(?>…)`) form, or "
            "rewrite it"
        )
    engine = regex_module()
    try:
        engine.compile(pattern)
    except (engine.error, RecursionError, OverflowError, ValueError) as exc:
        raise ValueError(f"{{matches: …}}: not a valid regular expression: {exc}") from None


def regex_module() -> Any:
    """The third-party `regex` module: the engine `{matches: …}` runs on, because it can stop a
    match at a deadline (`timeout=`), which Python's `re` cannot. (It ships no type stubs.)"""
    return importlib.import_module("regex")


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT")


def _nested_quantifier(parsed: Any) -> str | None:
    """Where a repeat (at most more than once, and able to backtrack) holds another such
    repeat, as the pattern's text of the inner one's operator; None if nowhere."""
    stack: list[tuple[Any, bool]] = [(parsed, False)]
    while stack:
        items, inside = stack.pop()
        for op, av in items:
            name = str(op)
            if name in _REPEATS:
                _low, high, sub = av
                if high > 1:
                    if inside:
                        return "a quantifier inside a quantified group"
                    stack.append((sub, True))
                else:
                    stack.append((sub, inside))
            elif name == "SUBPATTERN":
                stack.append((av[-1], inside))
            elif name == "BRANCH":
                stack.extend((branch, inside) for branch in av[1])
            elif name in ("ASSERT", "ASSERT_NOT"):
                stack.append((av[1], inside))
            elif name == "GROUPREF_EXISTS":
                stack.extend((branch, inside) for branch in av[1:] if branch is not None)
            # ATOMIC_GROUP and POSSESSIVE_REPEAT never backtrack into their body: not followed
    return None


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str) and len(repr(value)) <= 40:
        return f"{type(value).__name__} {value!r}"
    return "null" if value is None else f"a {type(value).__name__}"


# -- messages --------------------------------------------------------------------------------

_LABEL_CHARS = 80


def _label(text: object, *, quote: bool = True, limit: int = _LABEL_CHARS) -> str:
    """A user's key or id in a message: quoted (an id only when it needs it), control
    characters escaped, at most about 80 characters (so the message stays one short line)."""
    value = str(text)
    simple = value.isprintable() and value == value.strip() and 0 < len(value) <= limit
    if simple and not quote:
        return value
    shown = repr(value[:limit])
    return shown + ("…" if len(value) > limit else "")


def _where(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    parts = list(loc)
    if len(parts) >= 2 and parts[0] == "cases" and isinstance(parts[1], int):
        cases = data.get("cases") or []
        index = parts[1]
        case_id = (
            cases[index].get("id")
            if isinstance(cases, list) and index < len(cases) and isinstance(cases[index], dict)
            else None
        )
        rest = ".".join(str(p) for p in parts[2:])
        label = f"case {index + 1}" + (f" ({_label(case_id, quote=False)})" if case_id else "")
        return f"{label}: {rest}" if rest else label
    return ".".join(str(p) for p in parts) or "(top level)"
