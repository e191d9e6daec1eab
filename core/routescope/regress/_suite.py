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
relative to the suite). A suite that names a routers file (`routers:`) may expect what its
external routers decide under `routers.NAME…` paths, whatever its `router` (see `_routers`).

Everything is checked when the suite is loaded, so a bad suite is one `SuiteError` line naming
the file and the place, never a crash or a hang halfway through a run: the file is read within a
size limit, YAML nesting and alias expansion are bounded (no billion laughs, no self-reference),
impossible dates and numbers name their line, every expectation path must parse, every matcher's
operand must fit the matcher, and `{matches: …}` patterns must compile and may not nest
quantifiers (they run under a deadline too, see `_run.py`). The YAML is read by `routescope._yaml`,
the expectations checked by `_checks`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from .._diff import parse_path
from .._errors import InputError, SuiteError, describe, dotted, one_line
from .._files import MB, read_text
from .._input import validate_text
from .._request import CatalogRef, Request, RulesRef
from .._yaml import read_yaml
from ..contract import RouterContext
from ._checks import _check_operand, is_matcher
from ._messages import _label, _where

__all__ = ["MAX_SUITE_BYTES", "SUITE_TODAY", "Case", "Suite", "SuiteError", "load_suite"]

Router = Literal["strategy", "linter", "contract", "tools"]
SUITE_TODAY = dt.date(2026, 1, 1)
"""The date of a case when neither the case nor its suite gives one (goldens must not age)."""
MAX_SUITE_BYTES = 16 * MB
"""A suite file larger than this is refused before it is read (160,000 typical cases)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Case(_Model):
    id: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    today: dt.date | None = None
    context: dict[str, Any] | None = None
    rules: str | None = None
    labels: dict[str, Any] | None = None
    """What a correct decision is, in the labelling guide's keys (`routescope score` reads it)."""
    expect: dict[str, Any] = Field(None, validate_default=True)

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

    @field_validator("labels")
    @classmethod
    def _valid_labels(cls, labels: dict[str, Any] | None) -> dict[str, Any] | None:
        if labels is not None:
            from ..judge import labels_from_mapping

            labels_from_mapping(labels)
        return labels

    @field_validator("expect", mode="before")
    @classmethod
    def _expect_or_labels(cls, expect: object, info: ValidationInfo) -> object:
        if expect is None:
            if info.data.get("labels"):
                return {}  # a labelled case: `routescope score` checks it
            raise ValueError("Field required (or give `labels`: what a right decision is)")
        if isinstance(expect, dict) and not expect:
            raise ValueError("no expectation: name a field of the result and its value")
        return expect

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
    routers: str | None = None
    """The external routers file whose routers the cases expect (`routers.NAME…` paths) or
    label (`labels.routes`), relative to the suite (see `_routers`)."""
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


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite file (SuiteError: one line naming the file and the place)."""
    path = Path(path)
    text = read_text(path, what="suite", limit=MAX_SUITE_BYTES, error=SuiteError)
    data = read_yaml(text, path)
    if not isinstance(data, dict):
        raise SuiteError(one_line(f"{path}: a suite is a mapping with `suite` and `cases`"))
    try:
        suite = Suite.model_validate({**data, "path": path})
    except ValidationError as exc:
        raise SuiteError(
            one_line(describe(exc, lambda loc: f"{path}: {_where(loc, data)}"))
        ) from None
    except RecursionError:  # not reached within MAX_DEPTH; kept as the last line of defence
        raise SuiteError(one_line(f"{path}: nested too deeply")) from None
    from ._routers import declared_routers

    declared_routers(suite)  # every router a case names is declared (SuiteError)
    return suite
