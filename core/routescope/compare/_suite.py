"""A regression suite under two rule packs (or two catalogs): every case run on both sides by
`routescope.regress`, and the cases whose results differ listed with their diff."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import SuiteError
from .._request import CatalogRef, Request, RulesRef
from ..regress import Case, Suite, load_suite, run_case
from ..toolsearch import Engines
from ._compare import compare_requests
from ._models import CaseComparison, Comparison, Section, SuiteComparison

if TYPE_CHECKING:
    from ..toolsearch import ToolSearch

__all__ = ["compare_suite"]

_SECTIONS: dict[str, tuple[Section, ...] | None] = {
    "strategy": None,  # a strategy case's root is the whole inspection: any change counts
    "linter": ("lint",),
    "contract": ("contract",),
    "tools": ("tools",),
}


def compare_suite(
    suite: Suite | str | Path,
    *,
    rules: str | Path | None = None,
    rules_b: str | Path | None = None,
    catalog: str | Path | None = None,
    catalog_b: str | Path | None = None,
    cache: Path | None = None,
) -> SuiteComparison:
    """Run every case of a suite on side A (each case's own rule pack, or `rules`; the suite's
    catalog, or `catalog`) and on side B (`rules_b`, `catalog_b`; what is not given is A's),
    and list the cases whose result differs in the suite's router — or whose verdict does.
    `cache`: where tool-search indexes are kept (the user's cache by default)."""
    loaded = suite if isinstance(suite, Suite) else load_suite(suite)
    if rules_b is None and catalog_b is None:
        raise SuiteError("compare a suite: give the B side (rules_b, catalog_b or both)")
    if (catalog is not None or catalog_b is not None) and loaded.router != "tools":
        raise SuiteError(
            f"{loaded.path}: a catalog only matters to a tools suite (this one is {loaded.router})"
        )
    # Refused here, with the file's name, rather than once per case.
    for path in (rules, rules_b):
        if path is not None:
            RulesRef.from_path(path)
    for path in (catalog, catalog_b):
        if path is not None:
            CatalogRef.from_path(path)
    side_a = _variant(loaded, rules, catalog)
    side_b = _variant(side_a, rules_b, catalog_b)
    engines = Engines(cache=cache)  # both sides share an engine when they rank one catalog
    wanted = _SECTIONS[loaded.router]
    differ: list[CaseComparison] = []
    passed_a = passed_b = 0
    for case_a, case_b in zip(side_a.cases, side_b.cases, strict=True):
        verdict_a = run_case(case_a, side_a, engines)
        verdict_b = run_case(case_b, side_b, engines)
        passed_a += verdict_a.passed
        passed_b += verdict_b.passed
        comparison = _compare_case(case_a, side_a, case_b, side_b, engines)
        relevant = (
            comparison.changed
            if wanted is None
            else any(section in wanted for section in comparison.sections)
        )
        if relevant or verdict_a.passed != verdict_b.passed:
            differ.append(
                CaseComparison(
                    id=case_a.id,
                    prompt=case_a.prompt,
                    passed_a=verdict_a.passed,
                    passed_b=verdict_b.passed,
                    failed_a=tuple(diff.path for diff in verdict_a.diffs),
                    failed_b=tuple(diff.path for diff in verdict_b.diffs),
                    comparison=comparison,
                )
            )
    return SuiteComparison(
        suite=loaded.suite,
        path=str(loaded.path),
        router=loaded.router,
        a=_describe(rules, catalog, "each case's rule pack", loaded),
        b=_describe(rules_b or rules, catalog_b or catalog, "each case's rule pack", loaded),
        cases=len(loaded.cases),
        passed_a=passed_a,
        passed_b=passed_b,
        differ=tuple(differ),
    )


def _variant(suite: Suite, rules: str | Path | None, catalog: str | Path | None) -> Suite:
    """The suite with every case under `rules` and its catalog `catalog` (absolute paths, so
    they do not depend on the suite's folder); what is None is kept."""
    if rules is None and catalog is None:
        return suite
    cases = suite.cases
    if rules is not None:
        absolute = str(Path(rules).resolve())
        cases = [case.model_copy(update={"rules": absolute}) for case in cases]
    return Suite(
        suite=suite.suite,
        router=suite.router,
        today=suite.today,
        catalog=str(Path(catalog).resolve()) if catalog is not None else _catalog(suite),
        cases=cases,
        path=suite.path,
    )


def _catalog(suite: Suite) -> str | None:
    if suite.catalog is None:
        return None
    return str((suite.path.parent / suite.catalog).resolve())


def _compare_case(
    case_a: Case,
    suite_a: Suite,
    case_b: Case,
    suite_b: Suite,
    engines: Engines,
) -> Comparison:
    request_a = case_a.request(suite_a)
    request_b = case_b.request(suite_b)
    return compare_requests(
        request_a,
        request_b,
        _engine(request_a, engines),
        _engine(request_b, engines),
    )


def _engine(request: Request, engines: Engines) -> ToolSearch | None:
    """The engine of the request's catalog: the one `run_case` built for it, else a new one
    kept with them."""
    return None if request.catalog is None else engines.get(request.catalog)


def _describe(
    rules: str | Path | None, catalog: str | Path | None, default: str, suite: Suite
) -> str:
    parts = [f"rules {rules}" if rules is not None else default]
    if suite.router == "tools":
        parts.append(f"catalog {catalog}" if catalog is not None else "the suite's catalog")
    return ", ".join(parts)
