"""External routers in a suite: a suite names its routers file (`routers: routers.toml`,
relative to the suite); a case expects what a router decides under `routers.NAME` paths, and
labels the right route under `labels.routes.NAME`:

    suite: support
    routers: routers.toml
    cases:
      - id: refund
        prompt: I was charged twice, refund please
        expect:
          routers.support.route: billing                # exact: a golden `--update` may rewrite
          routers.support.score: {matches: "^0\\.[6-9]"}  # tolerant
        labels:
          routes: {support: billing, keywords: billing}  # measured, as `routescope score`

An expectation fails or passes like any other; labels are measured (`route_quality`: each
router's precision, recall and confusion over the labelled cases). A router's decision is what
`routescope route --json` prints without its raw answer and latency (they vary run to run); a
router that failed on the case's prompt has `route: null` and `error.kind`. `SuiteRouters`
starts each router once for a run and keeps each decision, so the expectations and the labels
of one run ask a router once a prompt."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .._errors import RouterError, SuiteError, one_line

if TYPE_CHECKING:
    from ..external import ExternalDecision, ExternalRouter, RouterPool, Routers
    from ..judge import RouteScore
    from ._suite import Case, Suite

__all__ = ["ROUTERS_ROOT", "SuiteRouters", "expected_routers", "route_quality"]

ROUTERS_ROOT = "routers"
"""The first part of an expectation's path that names an external router's decision."""
_LEFT_OUT = {"raw", "latency_ms"}


def expected_routers(case: Case) -> list[str]:
    """The routers a case's expectations name (`routers.NAME…`), in order."""
    names: dict[str, None] = {}
    for path in case.expect:
        head, _, rest = path.partition(".")
        if head == ROUTERS_ROOT and rest:
            names[rest.split(".", 1)[0].split("[", 1)[0]] = None
    return list(names)


def _labelled_routers(case: Case) -> list[str]:
    routes = (case.labels or {}).get("routes")
    return [str(name) for name in routes] if isinstance(routes, dict) else []


def declared_routers(suite: Suite) -> Routers | None:
    """The suite's routers file, read, with every router its cases expect or label declared
    in it (SuiteError naming the suite and the case); None when no case names a router."""
    named = [(case, name) for case in suite.cases for name in expected_routers(case)]
    named += [(case, name) for case in suite.cases for name in _labelled_routers(case)]
    if suite.routers is None:
        expecting = next((case for case, name in named if name in expected_routers(case)), None)
        if expecting is not None:
            raise SuiteError(
                one_line(
                    f"{suite.path}: case {expecting.id} expects an external router's decision: "
                    "name the routers file (`routers: routers.toml`, relative to the suite)"
                )
            )
        return None
    from ..external import load_routers

    try:
        declared = load_routers(suite.path.parent / suite.routers)
    except RouterError as exc:
        raise SuiteError(one_line(f"{suite.path}: routers: {exc}")) from None
    for case, name in named:
        if name not in declared.specs:
            raise SuiteError(
                one_line(
                    f"{suite.path}: case {case.id}: no router {name!r} in {declared.path} "
                    f"(it declares: {', '.join(declared.names)})"
                )
            )
    return declared


class SuiteRouters:
    """The external routers of one suite's run: started on first use, each decision kept (by
    router, prompt, day and context), stopped by `close`."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.declared = declared_routers(suite)
        self._pool: RouterPool | None = None
        if self.declared is not None:
            from ..external import RouterPool

            self._pool = RouterPool(self.declared)
        self._decided: dict[tuple[str, str, str, str], ExternalDecision] = {}

    def __enter__(self) -> SuiteRouters:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _router(self, name: str) -> ExternalRouter:
        if self._pool is None:
            raise SuiteError(one_line(f"{self.suite.path}: no routers file for {name!r}"))
        try:
            return self._pool.get(name)
        except RouterError as exc:
            raise SuiteError(one_line(f"{self.suite.path}: {exc}")) from None

    def decide(self, name: str, case: Case) -> ExternalDecision:
        """What router `name` decides about the case's prompt (asked once a run)."""
        today = case.request(self.suite).today
        context = case.context or {}
        key = (name, case.prompt, today.isoformat(), json.dumps(context, sort_keys=True))
        decision = self._decided.get(key)
        if decision is None:
            decision = self._router(name).route(case.prompt, today=today, context=context)
            self._decided[key] = decision
        return decision

    def expected(self, case: Case) -> dict[str, Any]:
        """The decisions the case's expectations look at, as `{"routers": {NAME: …}}`."""
        return {
            ROUTERS_ROOT: {
                name: self.decide(name, case).model_dump(mode="json", exclude=_LEFT_OUT)
                for name in expected_routers(case)
            }
        }

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()


def route_quality(
    suite: Suite, routers: SuiteRouters | None = None, names: Iterable[str] | None = None
) -> dict[str, RouteScore]:
    """Each router's scorecard over the cases that label its route (`labels.routes.NAME`):
    what `routescope score --routers` gives a labelled set; empty when no case labels one."""
    from ..judge import LabelledCase, labels_from_mapping, score_routes

    labelled = [case for case in suite.cases if _labelled_routers(case)]
    if not labelled:
        return {}
    wanted = (
        list(names)
        if names is not None
        else list(dict.fromkeys(name for case in labelled for name in _labelled_routers(case)))
    )
    own = routers is None
    routers = SuiteRouters(suite) if routers is None else routers
    try:
        cards: dict[str, RouteScore] = {}
        for name in wanted:
            cases = [case for case in labelled if name in _labelled_routers(case)]
            judged = [
                LabelledCase(
                    id=case.id,
                    prompt=case.prompt,
                    labels=labels_from_mapping(case.labels or {}),
                    where=f"{suite.path}: case {case.id}",
                )
                for case in cases
            ]
            decided = [routers.decide(name, case) for case in cases]
            cards.update(score_routes(judged, [(name, decided)]))
        return cards
    finally:
        if own:
            routers.close()
