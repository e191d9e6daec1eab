"""How right an external router is on a labelled set: each case that labels the router's
route (`Labels.routes`) against the router's decision — accuracy, the confusion of labelled ×
decided route (`(none)` for no route), precision, recall and F1 per route, and the prompts
behind every cell. A router that failed on a case (timeout, 5xx, garbage…) is counted as
`error: <kind>`: wrong, and listed apart."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..external import ExternalDecision
from ._labels import LabelledCase
from ._metrics import Confusion, FlagScore, Miss

__all__ = ["NO_ROUTE", "RouteScore", "score_routes"]

NO_ROUTE = "(none)"


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass(slots=True)
class RouteScore:
    """One external router's scorecard."""

    router: str
    confusion: Confusion = field(default_factory=Confusion)
    per_route: dict[str, FlagScore] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    misses: list[Miss] = field(default_factory=list)

    @property
    def labelled(self) -> int:
        return self.confusion.labelled

    @property
    def macro_f1(self) -> float | None:
        scores = [s.f1 for s in self.per_route.values() if s.f1 is not None]
        return sum(scores) / len(scores) if scores else None

    def add(self, case: LabelledCase, decision: ExternalDecision) -> None:
        expected = case.labels.expected_route(self.router)
        if expected is None:
            return
        wanted = expected or NO_ROUTE
        got = decision.shown_route
        self.confusion.add(wanted, got, case.id)
        if decision.error is not None:
            self.errors.setdefault(decision.error.kind, []).append(case.id)
        routes = {wanted, got} - {NO_ROUTE}
        if decision.error is not None:
            routes.discard(got)
        for name in routes:
            self.per_route.setdefault(name, FlagScore())
        for name, cell in self.per_route.items():
            if name == wanted == got:
                cell.tp.append(case.id)
            elif name == got:
                cell.fp.append(case.id)
            elif name == wanted:
                cell.fn.append(case.id)
            else:
                cell.tn.append(case.id)
        if wanted != got:
            why = decision.error.detail if decision.error is not None else _why(decision)
            shown = f"{got} — {why}" if why else got
            self.misses.append(
                Miss(case.id, case.prompt, f"route:{self.router}", wanted, shown, ())
            )

    def to_json(self, *, misses: bool = True) -> dict[str, object]:
        data: dict[str, object] = {
            "router": self.router,
            "labelled": self.labelled,
            "accuracy": _r(self.confusion.accuracy),
            "macro_f1": _r(self.macro_f1),
            "routes": {name: cell.to_json() for name, cell in sorted(self.per_route.items())},
            "confusion": self.confusion.to_json(),
            "errors": {kind: ids for kind, ids in sorted(self.errors.items())},
        }
        if misses:
            data["misses"] = [miss.to_json() for miss in self.misses]
        return data


def _why(decision: ExternalDecision) -> str:
    if decision.routes:
        first = decision.routes[0]
        if decision.route is None and first.margin is not None:
            return (
                f"best {first.route!r} at confidence {first.confidence:.3f} missed its bar "
                f"by {-first.margin:.3f}"
            )
    return ""


def score_routes(
    cases: Sequence[LabelledCase], decisions: Iterable[tuple[str, Sequence[ExternalDecision]]]
) -> dict[str, RouteScore]:
    """Each router's scorecard: `decisions` gives, per router name, its decision on every case
    (in the cases' order)."""
    cards: dict[str, RouteScore] = {}
    for router, decided in decisions:
        card = cards[router] = RouteScore(router)
        for case, decision in zip(cases, decided, strict=True):
            card.add(case, decision)
    return cards
