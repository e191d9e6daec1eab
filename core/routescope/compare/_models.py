"""The data of compare, counterfactuals, traces and close calls: frozen dataclasses, plain
enough for a view to render and for `routescope._json.to_json` to write.

Every span is `(start, end)` character offsets, end exclusive, into the text it names: a
prompt (`raw_text`) or a query, never a normalised copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .._outcome import Outcome

__all__ = [
    "SECTIONS",
    "AnchorTrace",
    "CallChange",
    "CaseComparison",
    "CloseCall",
    "Comparison",
    "Counterfactuals",
    "DecisionName",
    "Decisions",
    "FlagFlip",
    "Flip",
    "IntentTrace",
    "Movement",
    "QueryChange",
    "QueryTrace",
    "RuleTrace",
    "Section",
    "Side",
    "SuiteComparison",
    "TextSpan",
    "ToolMove",
    "ToolTrace",
    "Trace",
    "ValueChange",
    "WordEffect",
]

Section = Literal["strategy", "lint", "contract", "task", "tools"]
SECTIONS: tuple[Section, ...] = ("strategy", "lint", "contract", "task", "tools")
"""Which router a change belongs to, in the order a report shows them."""
ChangeKind = Literal["same", "changed", "added", "removed"]
Movement = Literal["same", "up", "down", "new", "dropped"]
DecisionName = Literal[
    "strategy", "lint_class", "agent", "mode", "task_route", "top_tool", "tool_fit"
]


@dataclass(frozen=True, slots=True)
class TextSpan:
    """A piece of a text: `text[start:end] == value`."""

    start: int
    end: int
    value: str


# -- compare ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Side:
    """What one side of a comparison ran: its prompt, rule pack and catalog."""

    text: str
    rules: str
    """The rule pack's name (`default`), with the file it came from when not built in."""
    outcome: Decisions
    """The side's headline decisions (also where they did not change)."""
    tools: bool
    """Whether this side ranked a catalog's tools."""
    catalog: str | None = None
    """The catalog ranked, when known (`compare` knows it, `compare_inspections` does not)."""


@dataclass(frozen=True, slots=True)
class ValueChange:
    """One decision or piece of evidence that differs: `field` is a path into the inspection's
    JSON (`strategy`, `lint.query_class`, `decision.agent`, `tools.top`), `a` and `b` its
    values (a list for `entities`, anchors; None where the side has no such value)."""

    section: Section
    field: str
    a: Any
    b: Any


@dataclass(frozen=True, slots=True)
class FlagFlip:
    """An intent flag that is set on one side only, with the words that set it."""

    flag: str
    a: bool
    b: bool
    evidence_a: tuple[TextSpan, ...]
    """Spans into A's prompt of the keywords that set the flag there (empty when off)."""
    evidence_b: tuple[TextSpan, ...]


@dataclass(frozen=True, slots=True)
class QueryChange:
    """One row of the planned queries side by side. Queries are paired by the pack rule that
    made them (`local.first`), then by similar wording; `removed` spans the words of `a` that
    are not in `b`, `added` the words of `b` that are not in `a` (word-level diff)."""

    kind: ChangeKind
    a: str | None
    b: str | None
    source_a: str | None
    source_b: str | None
    index_a: int | None
    """Position in A's `actions` (0-based); None for an added query."""
    index_b: int | None
    removed: tuple[TextSpan, ...]
    added: tuple[TextSpan, ...]


@dataclass(frozen=True, slots=True)
class CallChange:
    """A step of the contract's tool plan that differs (steps are paired by tool name, in
    order: a step whose arguments differ is `changed`)."""

    kind: Literal["added", "removed", "changed"]
    tool: str
    index_a: int | None
    index_b: int | None
    args_a: dict[str, Any] | None
    args_b: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ToolMove:
    """One tool of either ranking: its rank and score on each side and how it moved
    (`up`: better in B; `new`: in B's top k only; `dropped`: in A's only)."""

    tool: str
    rank_a: int | None
    rank_b: int | None
    score_a: float | None
    score_b: float | None
    movement: Movement
    delta: int | None
    """rank_a − rank_b: positive when the tool moved up in B."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """What differs between two inspections, A and B, section by section. Lists hold only
    what changed, except `queries` and `tools`, which hold every row side by side (each with
    its `kind` or `movement`, `same` included) so a view can draw both columns."""

    a: Side
    b: Side
    changed: bool
    sections: tuple[Section, ...]
    """The sections with a change, in `SECTIONS` order."""
    changes: tuple[ValueChange, ...]
    flags: tuple[FlagFlip, ...]
    queries: tuple[QueryChange, ...]
    calls: tuple[CallChange, ...]
    tools: tuple[ToolMove, ...] | None
    """None when neither side ranked tools."""


@dataclass(frozen=True, slots=True)
class CaseComparison:
    """A suite case whose result differs between the two sides (or whose verdict does)."""

    id: str
    prompt: str
    passed_a: bool
    passed_b: bool
    failed_a: tuple[str, ...]
    """The expectation paths that fail on side A (`strategy`, `actions[0].query`)."""
    failed_b: tuple[str, ...]
    comparison: Comparison


@dataclass(frozen=True, slots=True)
class SuiteComparison:
    """A regression suite run on both sides: how many cases, how many pass on each side, and
    the cases whose results differ in the suite's router (for a strategy suite, anywhere)."""

    suite: str
    path: str
    router: str
    a: str
    """What side A is (`rules default.toml`)."""
    b: str
    cases: int
    passed_a: int
    passed_b: int
    differ: tuple[CaseComparison, ...]


# -- counterfactuals ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decisions:
    """The headline decisions of one prompt's `Outcome` that compare shows and a counterfactual
    watches (the fit verdict as its label)."""

    strategy: str
    lint_class: str
    agent: str | None
    """None when the rule pack disables the contract."""
    mode: str | None
    task_route: str
    top_tool: str | None
    """None when no tool search ran or it ranked nothing."""
    tool_fit: str | None
    """`fits` or `no tool fits` (the fit threshold's verdict); None when no tool search ran."""

    @classmethod
    def of(cls, outcome: Outcome) -> Decisions:
        return cls(
            strategy=outcome.strategy,
            lint_class=outcome.lint_class,
            agent=outcome.agent,
            mode=outcome.mode,
            task_route=str(outcome.task_route),
            top_tool=outcome.top_tool,
            tool_fit=None
            if outcome.tool_fits is None
            else ("fits" if outcome.tool_fits else "no tool fits"),
        )


@dataclass(frozen=True, slots=True)
class Flip:
    """A decision that changes when the word is removed: from `before` to `after`."""

    decision: DecisionName
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class WordEffect:
    """One word of the prompt and what removing it flips (nothing: `flips` is empty).

    The prompt without the word is `text[:cut_start] + text[cut_end:]`: the word and the white
    space on one side of it (`without_word`)."""

    word: str
    start: int
    end: int
    cut_start: int
    cut_end: int
    flips: tuple[Flip, ...]


@dataclass(frozen=True, slots=True)
class Counterfactuals:
    """Every word of a prompt removed in turn and every deterministic router run again."""

    text: str
    baseline: Decisions
    words: tuple[WordEffect, ...]
    """Each word tried, in text order, whether or not its removal flips anything."""
    words_total: int
    """Words in the prompt; more than `len(words)` when the prompt was longer than the limit
    or a word could not be removed (removing the only word leaves no prompt)."""
    notes: tuple[str, ...]

    def flipping(self) -> tuple[WordEffect, ...]:
        """The words whose removal flips at least one decision."""
        return tuple(word for word in self.words if word.flips)


# -- traces ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QueryTrace:
    """A planned query that contains the entity, with where."""

    where: Literal["actions", "task"]
    """The strategy router's `actions`, or the task router's searches."""
    index: int
    source: str
    query: str
    spans: tuple[TextSpan, ...]


@dataclass(frozen=True, slots=True)
class IntentTrace:
    """An intent keyword found inside (or across) a mention of the entity."""

    intent: str
    keyword: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class AnchorTrace:
    """A linter anchor that matches the entity (its span overlaps a mention, or it names it)."""

    anchor: str
    kind: str
    text: str
    start: int
    end: int
    alias: str | None


@dataclass(frozen=True, slots=True)
class RuleTrace:
    """A contract rule that fired on words of a mention of the entity."""

    rule: str
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ToolTrace:
    """A ranked tool that matched words of the entity in its keyword fields."""

    tool: str
    rank: int
    words: tuple[str, ...]
    """The entity's words (or their stems) the tool matched."""
    fields: tuple[str, ...]
    """The fields they matched in (`tool_name`, `keywords`, …)."""
    share: float | None
    """What those words add to the tool's score (weighted fusion); None otherwise."""


@dataclass(frozen=True, slots=True)
class Trace:
    """Where one entity flows through the routers' decisions."""

    entity: str
    kind: str | None
    """The candidate's kind (`phrase`, `acronym`, …); None when it is not a candidate."""
    candidate_rank: int | None
    """1-based position among the entity candidates (1: the one the tech templates use)."""
    mentions: tuple[TextSpan, ...]
    """Where the prompt mentions it (whole words, any case)."""
    place: bool
    """It is (part of) the place hint."""
    plan_entity: bool
    """The tech templates used it (`plan.entity_used`)."""
    queries: tuple[QueryTrace, ...]
    intents: tuple[IntentTrace, ...]
    anchors: tuple[AnchorTrace, ...]
    rules: tuple[RuleTrace, ...]
    tools: tuple[ToolTrace, ...] | None
    """None when no tool search ran."""


# -- close calls ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CloseCall:
    """A decision that was close: the measured value, what it was held against (a threshold
    of the rule pack or the search, or the runner-up), and the signed margin (value −
    threshold). `flips_to` is what the decision would become across the line."""

    decision: str
    """`lint.query_class`, `tools.fits`, `tools.top` or `strategy`."""
    outcome: str
    measure: str
    value: float
    against: str
    threshold: float
    margin: float
    flips_to: str | None
    detail: str
