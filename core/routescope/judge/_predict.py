"""What a rule pack decides about a labelled case, with the evidence behind each field: the
rule and the span that fired, so a wrong decision shows why it was made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .._stages import run_stages
from ..rules import INTENTS, IntentName, RulePack
from ..strategy import QueryContext, StrategyDecision, extract, route
from ._labels import LabelledCase, Strategy

if TYPE_CHECKING:
    from ..contract import RouterDecision
    from ..linter import LintResult
    from ..toolsearch import ToolSearch, ToolSearchResult

__all__ = ["Evidence", "Prediction", "predict", "predict_strategy", "prediction_of_inspection"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """One reason for a decision: the rule that fired and the words it fired on."""

    rule: str
    text: str
    start: int
    end: int

    def to_json(self) -> dict[str, object]:
        return {"rule": self.rule, "text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class Prediction:
    """The decided value of each field a label can check, and the evidence of each."""

    flags: dict[IntentName, bool]
    strategy: Strategy
    strategy_rule: str
    place_hint: str | None
    entities: tuple[str, ...]
    linter_class: str
    agent: str | None
    mode: str | None
    top_tool: str | None
    ranked_tools: bool
    """Whether the tool search ran (a `top_tool` label is scored only then)."""
    strategy_only: bool
    """Only the strategy router ran (`predict_strategy`): the linter, contract and tool labels
    are not scored."""
    evidence: dict[str, tuple[Evidence, ...]]
    """By field: `local`…, `place_hint`, `entities`, `strategy`, `linter_class`."""
    unscored: frozenset[str] = frozenset()
    """Fields the decision does not hold (`agent` and `mode` of a batch record whose pack turns
    the contract off): their labels are not scored."""


def _strategy_evidence(found: QueryContext, chosen: StrategyDecision) -> dict[str, list[Evidence]]:
    """The strategy router's evidence by field: each flag's keywords, the place's rule, each
    entity's reason, the strategy's rule."""
    evidence: dict[str, list[Evidence]] = {name: [] for name in INTENTS}
    for match in found.intent_matches:
        evidence[match.intent].append(
            Evidence(
                f'{match.intent} keyword "{match.keyword}"', match.text, match.start, match.end
            )
        )
    place = found.entities.place
    if place is not None:
        evidence["place_hint"] = [Evidence(place.rule, place.text, place.start, place.end)]
    evidence["entities"] = [
        Evidence(item.reason, item.text, item.start, item.end) for item in found.entities.details
    ]
    evidence["strategy"] = [Evidence(chosen.rule, chosen.reason, 0, 0)]
    return evidence


def predict(case: LabelledCase, rules: RulePack, tools: ToolSearch | None = None) -> Prediction:
    """Run the routers on the case (lean: the evidence of the fields scored is kept)."""
    from ..contract import RouterContext

    context = RouterContext.model_validate(case.context) if case.context else None
    stages = run_stages(case.prompt, case.today, rules, context, tools, lean=True)
    return _prediction(stages.context, stages.strategy, stages.lint, stages.decision, stages.tools)


class Inspected(Protocol):
    """What `prediction_of_inspection` reads of an `Inspection` (whose module sits beside this
    package: it is not imported)."""

    @property
    def context(self) -> QueryContext: ...
    @property
    def strategy(self) -> Strategy: ...
    @property
    def strategy_rule(self) -> str: ...
    @property
    def strategy_reason(self) -> str: ...
    @property
    def lint(self) -> LintResult: ...
    @property
    def decision(self) -> RouterDecision | None: ...
    @property
    def tools(self) -> ToolSearchResult | None: ...


def prediction_of_inspection(inspection: Inspected) -> Prediction:
    """What an inspection decided about the fields a label can check, with the same evidence
    `predict` gives (the window judges the prompt it shows with it)."""
    return _prediction(
        inspection.context,
        StrategyDecision(inspection.strategy, inspection.strategy_rule, inspection.strategy_reason),
        inspection.lint,
        inspection.decision,
        inspection.tools,
    )


def _prediction(
    found: QueryContext,
    chosen: StrategyDecision,
    lint: LintResult,
    decision: RouterDecision | None,
    tools: ToolSearchResult | None,
) -> Prediction:
    """Every router's decision on the fields a label can check, with its evidence."""
    evidence = _strategy_evidence(found, chosen)
    evidence["linter_class"] = [Evidence(lint.classification.rule, lint.query, 0, len(lint.query))]
    ranked = tools.results if tools is not None else []
    return Prediction(
        flags={name: bool(getattr(found.intent, name)) for name in INTENTS},
        strategy=chosen.strategy,
        strategy_rule=chosen.rule,
        place_hint=found.entities.place_hint,
        entities=tuple(found.entities.candidates),
        linter_class=str(lint.query_class),
        agent=decision.agent if decision else None,
        mode=decision.mode if decision else None,
        top_tool=ranked[0].tool_name if ranked else None,
        ranked_tools=tools is not None,
        strategy_only=False,
        evidence={k: tuple(v) for k, v in evidence.items()},
    )


def predict_strategy(case: LabelledCase, rules: RulePack) -> Prediction:
    """The strategy router's fields alone (flags, strategy, place, entities): what a pack edit
    can change, at a fraction of the cost of every router."""
    found = extract(case.prompt, rules, case.today)
    chosen = route(found)
    evidence = _strategy_evidence(found, chosen)
    return Prediction(
        flags={name: bool(getattr(found.intent, name)) for name in INTENTS},
        strategy=chosen.strategy,
        strategy_rule=chosen.rule,
        place_hint=found.entities.place_hint,
        entities=tuple(found.entities.candidates),
        linter_class="",
        agent=None,
        mode=None,
        top_tool=None,
        ranked_tools=False,
        strategy_only=True,
        evidence={k: tuple(v) for k, v in evidence.items()},
    )
