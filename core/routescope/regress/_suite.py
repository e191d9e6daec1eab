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
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .._errors import SuiteError, describe, dotted
from .._request import CatalogRef, Request, RulesRef
from .._resources import resources_root
from ..contract import RouterContext

__all__ = [
    "MATCHERS",
    "SUITE_TODAY",
    "Case",
    "Suite",
    "SuiteError",
    "is_matcher",
    "load_suite",
]

MATCHERS = ("equals", "contains", "not_contains", "in", "matches", "len", "any_startswith")
Router = Literal["strategy", "linter", "contract", "tools"]
SUITE_TODAY = dt.date(2026, 1, 1)
"""The date of a case when neither the case nor its suite gives one (goldens must not age)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Case(_Model):
    id: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    today: dt.date | None = None
    context: dict[str, Any] | None = None
    rules: str | None = None
    expect: dict[str, Any] = Field(min_length=1)

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
                exc, lambda loc: f"{suite.path}: case {self.id}: context.{dotted(loc)}"
            )
            raise SuiteError(where) from None
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
            folder = (
                self.path.parent / self.catalog
                if self.catalog
                else Path(str(resources_root() / "catalog"))
            )
            self._catalog = CatalogRef.from_path(folder)
        return self._catalog

    @field_validator("cases")
    @classmethod
    def _unique_ids(cls, cases: list[Case]) -> list[Case]:
        seen: set[str] = set()
        for case in cases:
            if case.id in seen:
                raise ValueError(f"case id {case.id!r} appears twice")
            seen.add(case.id)
        return cases


def is_matcher(value: object) -> bool:
    """A tolerant expectation: a mapping with one key that names a matcher. Anything else is
    an exact (golden) value."""
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in MATCHERS


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"{path}: cannot read suite: {exc}") from None
    try:
        data = YAML(typ="safe", pure=True).load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SuiteError(f"{path}{where}: not valid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: a suite is a mapping with `suite` and `cases`")
    try:
        return Suite.model_validate({**data, "path": path})
    except ValidationError as exc:
        raise SuiteError(describe(exc, lambda loc: f"{path}: {_where(loc, data)}")) from None


def _where(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    parts = list(loc)
    if len(parts) >= 2 and parts[0] == "cases" and isinstance(parts[1], int):
        cases = data.get("cases") or []
        index = parts[1]
        case_id = (
            cases[index].get("id")
            if index < len(cases) and isinstance(cases[index], dict)
            else None
        )
        rest = ".".join(str(p) for p in parts[2:])
        label = f"case {index + 1}" + (f" ({case_id})" if case_id else "")
        return f"{label}: {rest}" if rest else label
    return ".".join(str(p) for p in parts) or "(top level)"
