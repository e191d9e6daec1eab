"""The batch report (issue 18): figures over a results file, computed in one streaming pass.

A results file holds one routed prompt per line (`_results`). `build_report(path)` reads it
once and keeps only counters, capped example lists and a bounded latency sketch (`_figures`),
so a file of a million lines takes the memory of a few thousand. Every bar of every figure,
every leak (`_leaks`) and every change of a comparison (`_changes`) carries the (capped) list
of the prompts behind it as `PromptRef`s, so a view can list them when the bar is clicked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._errors import ResultsError, one_line
from .._outcome import Outcome
from ._agreement import BUILTIN, Agreement, AgreementTally
from ._figures import (
    LABEL_CAPACITY,
    MAX_STAGES,
    Cooccurrence,
    Distribution,
    IntentPairs,
    LatencySketch,
    RefTally,
    StageLatency,
    intent_key,
    stage_key,
)
from ._leaks import LEAK_RULES, LeakFinding, LeakRule, Offence
from ._quality import Quality, QualityTally, resolve_labels
from ._results import FailedRecord, Result, cut_prompt, parse_result, records
from ._vocabulary import VocabularyNote, VocabularyTally

__all__ = [
    "LeakCheck",
    "Report",
    "ReportBuilder",
    "RouterFigures",
    "build_report",
    "tool_label",
]

NONE_LABEL = "(none)"
NO_CONTRACT = "(contract off)"
NO_FIT = "(no tool fits)"

# ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeakCheck:
    """One leak rule over the whole file: offending queries (`count`) in how many prompts, and
    the first `findings` (at most the report's `leak_examples`)."""

    rule: str
    title: str
    description: str
    count: int
    prompts: int
    findings: tuple[LeakFinding, ...]


@dataclass(frozen=True, slots=True)
class RouterFigures:
    """One external router of the batch over the file: the prompts it routed, its routes
    (`error: <kind>` for a failure, `(none)` when it chose no route) and its failures by label
    (`timeout`, `rate_limited`, `http 5xx`, `garbage`, …: `ExternalFailure.label`)."""

    name: str
    prompts: int
    failed: int
    """Prompts it failed on."""
    routes: Distribution
    errors: Distribution


@dataclass(frozen=True, slots=True)
class Report:
    """The figures of one results file. `prompts` counts routed prompts; `failed`, lines that
    record a prompt the batch could not route (by error message)."""

    sources: tuple[str, ...]
    prompts: int
    failed: Distribution
    first_today: str | None
    last_today: str | None
    leaks: tuple[LeakCheck, ...]
    leak_prompts: int
    """Prompts with at least one leak (of any rule)."""
    strategies: Distribution
    lint_classes: Distribution
    intents: Distribution
    intent_sets: Distribution
    cooccurrence: Cooccurrence
    entities: Distribution
    agents: Distribution
    modes: Distribution
    task_routes: Distribution
    top_tools: Distribution
    """Over prompts with a tool ranking; `NO_FIT` counts those where no tool fits."""
    ranked: int
    no_fit: int
    latency: tuple[StageLatency, ...]
    examples: int
    top: int
    quality: Quality | None = None
    """The results scored against a labelled set (`--labels`, or the one the batch recorded)."""
    vocabulary: tuple[VocabularyNote, ...] = ()
    """The rule pack's vocabularies that do not fit this log (`_vocabulary`)."""
    notes: tuple[str, ...] = ()
    """What the reader should know about how the report was made (labels that moved)."""
    routers: tuple[RouterFigures, ...] = ()
    """Each external router of the batch (`--router`), in the order the records name them."""
    agreement: tuple[Agreement, ...] = ()
    """Every pair among the built-in strategy router (`BUILTIN`) and the external routers."""

    @property
    def leak_count(self) -> int:
        return sum(check.count for check in self.leaks)

    @property
    def no_fit_share(self) -> float | None:
        return self.no_fit / self.ranked if self.ranked else None

    def figures(self) -> tuple[Distribution, ...]:
        """The bar figures in page order."""
        return (
            self.strategies,
            self.lint_classes,
            self.intents,
            self.intent_sets,
            self.entities,
            self.agents,
            self.modes,
            self.top_tools,
            self.task_routes,
        )

    def leak(self, rule: str) -> LeakCheck:
        return next(check for check in self.leaks if check.rule == rule)


class ReportBuilder:
    """The streaming aggregator: `add` each record (a decoded results line), then `report()`.
    Memory is bounded whatever the number of records: counters, the first `examples` prompts per
    bar, the first `leak_examples` findings per leak rule, a bounded latency sketch."""

    def __init__(
        self,
        *,
        examples: int = 20,
        top: int = 20,
        leak_examples: int = 200,
        sources: Sequence[str] = (),
        capacity: int = LABEL_CAPACITY,
        quality: QualityTally | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        if examples < 0 or top < 1 or leak_examples < 0 or capacity < 1:
            raise ValueError("examples and leak_examples must be >= 0, top and capacity >= 1")
        self.examples = examples
        self.top = top
        self.leak_examples = leak_examples
        self.sources = tuple(sources)
        self.prompts = 0
        self.ranked = 0
        self.no_fit = 0
        self.first_today: str | None = None
        self.last_today: str | None = None
        entity_cap = min(examples, 5)  # open-ended labels keep fewer examples each
        self._capacity = capacity
        self._failed = RefTally(examples, capacity)
        self._strategies = RefTally(examples)
        self._lint = RefTally(examples)
        self._intents = RefTally(examples)
        self._intent_sets = RefTally(examples)
        self._pairs = IntentPairs(examples)
        self._entities = RefTally(entity_cap, capacity)
        self._agents = RefTally(examples)
        self._modes = RefTally(examples)
        self._routes = RefTally(examples)
        self._tools = RefTally(entity_cap, capacity)
        self._stages: dict[str, LatencySketch] = {}
        self._leaks = {rule.name: _LeakTally() for rule in LEAK_RULES}
        self.leak_prompts = 0
        self._quality = quality
        self._vocabulary = VocabularyTally()
        self.notes = tuple(notes)
        self._router_routes: dict[str, RefTally] = {}
        self._router_errors: dict[str, RefTally] = {}
        self._agreement = AgreementTally(examples)

    def add(self, data: object, record: int = 0) -> Result | FailedRecord:
        """Check and count one results line; returns what it read. Raises ResultsError."""
        parsed = parse_result(data, record)
        self.add_record(parsed)
        return parsed

    def add_record(self, record: Result | FailedRecord) -> None:
        ref = record.ref
        if isinstance(record, FailedRecord):
            self._failed.add(cut_prompt(one_line(record.error), 120), ref)
            return
        outcome = record.outcome
        self.prompts += 1
        self._date(outcome.today)
        self._strategies.add(outcome.strategy, ref)
        self._lint.add(outcome.lint_class, ref)
        intents = sorted(set(outcome.intents), key=intent_key)
        for name in intents:
            self._intents.add(name, ref)
        self._intent_sets.add(" + ".join(intents) or NONE_LABEL, ref)
        self._pairs.add(intents, ref)
        for entity in dict.fromkeys(outcome.entities):
            self._entities.add(entity, ref)
        self._agents.add(outcome.agent or NO_CONTRACT, ref)
        self._modes.add(outcome.mode or NO_CONTRACT, ref)
        self._routes.add(outcome.task_route or NONE_LABEL, ref)
        if outcome.ranked:
            self.ranked += 1
            if outcome.tool_fits is False:
                self.no_fit += 1
            self._tools.add(tool_label(outcome), ref)
        self._time(outcome.timings_us or {})
        self._vocabulary.add(outcome)
        if record.routers:
            self._external(record)
        if self._quality is not None:
            self._quality.add(record)
        leaked = False
        for rule in LEAK_RULES:
            offences = rule.check(outcome)
            if offences:
                leaked = True
                self._leaks[rule.name].add(rule.name, record, offences, self.leak_examples)
        self.leak_prompts += leaked

    def _external(self, record: Result) -> None:
        ref = record.ref
        labels = {BUILTIN: record.outcome.strategy}
        for name, decision in record.routers.items():
            routes = self._router_routes.get(name)
            if routes is None:
                routes = self._router_routes[name] = RefTally(self.examples, self._capacity)
                self._router_errors[name] = RefTally(self.examples)
            label = decision.shown_route
            routes.add(label, ref)
            if decision.error is not None:
                self._router_errors[name].add(decision.error.label, ref)
            labels[name] = label
        self._agreement.add(labels, ref)

    def _router_figures(self) -> tuple[RouterFigures, ...]:
        figures = []
        for name, routes in self._router_routes.items():
            errors = self._router_errors[name]
            figures.append(
                RouterFigures(
                    name,
                    routes.added,
                    errors.added,
                    routes.distribution(
                        f"router-{name}", f"Routes of {name}", total=routes.added, top=self.top
                    ),
                    errors.distribution(
                        f"router-{name}-errors",
                        f"Failures of {name}",
                        total=routes.added,
                    ),
                )
            )
        return tuple(figures)

    def _date(self, today: str | None) -> None:
        if today is not None:
            if self.first_today is None or today < self.first_today:
                self.first_today = today
            if self.last_today is None or today > self.last_today:
                self.last_today = today

    def _time(self, timings: Mapping[str, float]) -> None:
        for stage, micros in timings.items():
            timing = self._stages.get(stage)
            if timing is None:
                if len(self._stages) >= MAX_STAGES:
                    continue
                timing = self._stages[stage] = LatencySketch()
            timing.add(micros)

    def report(self) -> Report:
        prompts = self.prompts
        failed_total = self._failed.added
        return Report(
            sources=self.sources,
            prompts=prompts,
            failed=self._failed.distribution(
                "failed", "Prompts the batch could not route", total=failed_total, of="failures"
            ),
            first_today=self.first_today,
            last_today=self.last_today,
            leaks=tuple(self._leaks[rule.name].result(rule) for rule in LEAK_RULES),
            leak_prompts=self.leak_prompts,
            strategies=self._strategies.distribution(
                "strategies", "Strategy", total=prompts, known=("general", "local", "tech")
            ),
            lint_classes=self._lint.distribution(
                "lint_classes",
                "Query linter class",
                total=prompts,
                known=("guided", "semi", "vague"),
            ),
            intents=self._intents.distribution(
                "intents", "Intent flags (prompts with each flag on)", total=prompts
            ),
            intent_sets=self._intent_sets.distribution(
                "intent_sets", "Intent flags that come on together", total=prompts, top=self.top
            ),
            cooccurrence=self._pairs.result(prompts),
            entities=self._entities.distribution(
                "entities", "Top entities (prompts naming each)", total=prompts, top=self.top
            ),
            agents=self._agents.distribution("agents", "Contract agent", total=prompts),
            modes=self._modes.distribution("modes", "Contract mode", total=prompts),
            task_routes=self._routes.distribution("task_routes", "Task route", total=prompts),
            top_tools=self._tools.distribution(
                "top_tools",
                "Top-1 tool",
                total=self.ranked,
                of="prompts with a tool ranking",
                top=self.top,
                known=(NO_FIT,) if self.ranked else (),
            ),
            ranked=self.ranked,
            no_fit=self.no_fit,
            latency=tuple(
                self._stages[stage].result(stage) for stage in sorted(self._stages, key=stage_key)
            ),
            examples=self.examples,
            top=self.top,
            quality=None if self._quality is None else self._quality.result(),
            vocabulary=self._vocabulary.notes(
                None if self._quality is None else self._quality.labels.path
            ),
            notes=self.notes,
            routers=self._router_figures(),
            agreement=self._agreement.result(),
        )


def tool_label(outcome: Outcome) -> str:
    """The top-1 tool figure's label for one ranked prompt."""
    if outcome.tool_fits is False:
        return NO_FIT
    return outcome.top_tool or NO_FIT


class _LeakTally:
    __slots__ = ("count", "findings", "prompts")

    def __init__(self) -> None:
        self.count = 0
        self.prompts = 0
        self.findings: list[LeakFinding] = []

    def add(self, rule: str, record: Result, offences: list[Offence], cap: int) -> None:
        self.count += len(offences)
        self.prompts += 1
        for query, start, end, detail in offences:
            if len(self.findings) < cap:
                self.findings.append(
                    LeakFinding(
                        rule, record.ref, record.outcome.strategy, query, start, end, detail
                    )
                )

    def result(self, rule: LeakRule) -> LeakCheck:
        return LeakCheck(
            rule.name, rule.title, rule.description, self.count, self.prompts, tuple(self.findings)
        )


def build_report(
    path: str | Path,
    *,
    examples: int = 20,
    top: int = 20,
    leak_examples: int = 200,
    labels: str | Path | None = None,
) -> Report:
    """The report of one results file, read once. `labels`: a labelled set to score the results
    against (default: the one its batch recorded, if any). Raises ResultsError (also for a file
    with no records), LabelsError for a `labels` file that cannot be used."""
    source = Path(path)
    found = resolve_labels([source], labels)
    builder = ReportBuilder(
        examples=examples,
        top=top,
        leak_examples=leak_examples,
        sources=(str(source),),
        quality=None
        if found.labels is None
        else QualityTally(found.labels, recorded=found.recorded),
        notes=() if found.note is None else (found.note,),
    )
    lines = 0
    for record in records(source):
        lines += 1
        builder.add_record(record)
    if not lines:
        raise ResultsError(f"{source}: no results in it (expected one JSON object per line)")
    return builder.report()
