"""The tool search's settings and results: plain data, importable without numpy or tantivy."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from .._errors import InputError

__all__ = [
    "CALIBRATED_FIT_THRESHOLDS",
    "FIT_VECTOR_SHARE",
    "FIT_WORDS",
    "FUSIONS",
    "Boosts",
    "Fusion",
    "KeywordSignal",
    "KeywordTerm",
    "RrfTerm",
    "SearchSettings",
    "SearchStrategy",
    "Signals",
    "Step",
    "StepResult",
    "ToolHit",
    "ToolSearchResult",
    "VectorSignal",
    "WhyNot",
]

SearchStrategy = Literal["auto", "exact", "semantic", "hybrid"]
_STRATEGIES: tuple[str, ...] = get_args(SearchStrategy)
Fusion = Literal["weighted", "canonical"]
"""`canonical`: the seed's pipeline exactly (default tokenizer, RRF, rerank constants);
`weighted`: English-analyzed keywords, normalised scores combined with per-signal weights,
boosts on the same scale."""
FUSIONS: tuple[str, ...] = get_args(Fusion)
CALIBRATED_FIT_THRESHOLDS: dict[str, float] = {"weighted": 0.20, "canonical": 0.019}
"""The fit threshold each fusion uses unless one is set: the best score below which 1 % of the
answerable BFCL questions fall (`make eval`, "No tool fits"), on the BFCL catalog with and
without parameter schemas, the lower of the two, rounded down (2026-11-26: weighted 0.228 and
0.204, canonical 0.0200 and 0.0195). Questions no tool answers score lower on the whole, but the
two overlap: a higher threshold rejects more of both. Weighted: a best hit above it must also
be corroborated and, where the fit model applies, pass it (`_fit_model`)."""
FIT_WORDS = 2
"""Weighted fusion: a best hit above the fit threshold fits only when corroborated: it matches
at least this many of the query's words (words that count whole: not only in a URL or path, a
number or a request phrase), or its vector share is at least `FIT_VECTOR_SHARE` (issue 28:
one matched word in a tool's name — "passport", "scan", "call" — was how most requests no tool
serves got accepted)."""
FIT_VECTOR_SHARE = 0.15
"""Weighted fusion: the vector share (vector weight · cosine) that corroborates a fit alone
(`make eval`, "No tool fits": calibrated on the tune parts)."""
MAX_CANDIDATES = 100_000
"""The most tools one list (keyword, vector) may contribute to the fusion."""
MAX_BOOST = 1_000_000.0


@dataclass(slots=True)
class KeywordTerm:
    """One query word's part of a tool's keyword share (weighted fusion): how rare the word is
    in the catalog, how well this tool matches it, and what that adds to the final score."""

    word: str
    """The query's word (`crashing`), not its stem."""
    term: str
    """The analyzed term that matched (`crash`)."""
    weight: float
    """How much the word can say: its IDF over the catalog (rare words more), times
    `incidental` when it is only in a URL or path, a number or a request phrase."""
    match: float
    """This tool's BM25 for the term over the best tool's (1.0: no tool matches it better)."""
    share: float
    """What it adds to the final score; a hit's terms add up to its keyword share."""
    tools: int = 0
    """How many tools of the catalog hold the word."""
    note: str = ""
    """Why it counts less ("in a URL or path", "a number", "a request phrase"), or ""."""
    siblings: float = 1.0
    """What it counts for this tool against the tool's siblings (its server or name prefix):
    1.0 when no sibling holds it, less the more of them do (`match` includes it)."""


@dataclass(slots=True)
class KeywordSignal:
    score: float
    """Tantivy BM25 with the field boosts."""
    rank: int
    """Canonical: the rank in Tantivy's BM25 list; weighted: by keyword evidence."""
    fields: dict[str, float]
    """Per-field contributions (filled for the results returned)."""
    matched_terms: dict[str, list[str]]
    evidence: float | None = None
    """Weighted fusion: the keyword evidence, 0–1 (the keyword share is weight × evidence)."""
    terms: list[KeywordTerm] = field(default_factory=list)
    """Weighted fusion: the query words the tool matches, in query order, with what each adds."""


@dataclass(slots=True)
class VectorSignal:
    similarity: float
    """Cosine similarity of the query and the tool's canonical template."""
    rank: int


@dataclass(slots=True)
class RrfTerm:
    source: Literal["keyword", "vector"]
    rank: int
    k: int
    value: float
    """1 / (k + rank)."""


@dataclass(slots=True)
class Signals:
    keyword: KeywordSignal | None
    vector: VectorSignal | None
    rrf: list[RrfTerm]
    fused: float
    boosts: dict[str, float]
    boost_terms: list[str]
    """Query terms found in the tool's routing keywords, intents, description or category."""
    final: float
    shares: dict[str, float] = field(default_factory=dict)
    """What each signal and boost adds to `final` (they sum to it): `keyword`, `vector`,
    then the boosts by name."""
    fusion: Fusion = "canonical"
    weights: dict[str, float] = field(default_factory=dict)
    """Weighted fusion: the weight of each signal it used (`vector`, `keyword`): the vector
    share is weight · cosine, the keyword share weight · keyword evidence. Empty for RRF."""


@dataclass(slots=True)
class ToolHit:
    rank: int
    tool_name: str
    category: str
    score: float
    signals: Signals
    tied_with: list[str] = field(default_factory=list)
    step: int | None = None
    """Set when the step merge placed this tool here: it is a tool of step `step` (1-based) of
    a request that splits, searched alone — its best ("step 2's best") or, in the turns over
    the steps' rankings of a request of `MULTI_NEED_STEPS` steps or more, the one at
    `step_rank` ("step 2's #3"); its signals are then the step search's unless the whole
    request ranked it too."""
    step_rank: int | None = None
    """With `step`: the tool's rank in that step's own ranking (1: the step's best)."""

    @property
    def step_mark(self) -> str:
        """ "step 2's best" or "step 2's #3" for a tool the step merge placed, else ""."""
        if self.step is None:
            return ""
        if self.step_rank is None or self.step_rank == 1:
            return f"step {self.step}'s best"
        return f"step {self.step}'s #{self.step_rank}"


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a request that needs several tools, with the evidence of the split."""

    text: str
    start: int
    """Character span of the step in the (possibly cut) query: `query[start:end]`."""
    end: int
    split_by: str
    """The words or punctuation that ended the step before it (`"then"`, `", and also"`,
    `";"`); "" for the first step."""
    split_at: tuple[int, int] | None
    """Span of `split_by` in the query; None for the first step."""


@dataclass(slots=True)
class StepResult:
    step: Step
    results: list[ToolHit]
    fits: bool
    fit_reason: str
    in_ranking: int | None = None
    """Where this step's best tool stands in the ranking (`ToolSearchResult.results`, 1-based);
    None when no tool fits the step (its tools are shown, not merged)."""


@dataclass(slots=True)
class ToolSearchResult:
    query: str
    strategy: Literal["exact", "semantic", "hybrid"]
    strategy_reason: str
    category_filter: str | None
    category_filter_reason: str
    results: list[ToolHit]
    runner_up_gap: float | None
    semantic: str
    """"ready" or why vector search is off (then the search is keyword-only and says so)."""
    timings_us: dict[str, float]
    fusion: Fusion = "canonical"
    fits: bool = True
    """False: no tool fits — the best score is below the fit threshold."""
    fit_reason: str = ""
    fit_threshold: float = 0.0
    """The threshold the verdict used (the calibrated one unless the settings set one)."""
    fit_corroboration: str = ""
    """Weighted fusion: what corroborates the best hit's fit ("2 matched words: renew,
    passport", "vector share 0.41 ≥ 0.15") or why nothing does ("1 matched word: passport;
    vector share 0.09 < 0.15"), then, where the fit model judged, its parts ("fit model 0.81 ≥
    0.11 (decided by both): the request asks for a tool (0.93, +1.52); this catalog's best
    match +0.12 (…)"); "" when the score alone decided (below the threshold, the threshold
    off, the canonical fusion)."""
    fit_model: dict[str, Any] = field(default_factory=dict)
    """Weighted fusion, when the fit model judged: `probability`, `threshold`, `need` (the
    request part alone as a probability), `request` and `match` (what each part adds to the
    logit), `decided_by`, and per feature of the best match its value (`inputs`) and what it
    adds (`contributions`); {} otherwise (it judges only what the score and the corroboration
    accept: it can only refuse)."""
    steps: list[StepResult] = field(default_factory=list)
    """Filled when the request splits into two or more steps: each step searched alone
    (with `SearchSettings.k` results, their per-field explanations not computed), beside the
    whole-request ranking in `results`."""
    with_steps: list[str] = field(default_factory=list)
    """The ranking's tool names (`results`): with steps, the step merge's order."""
    whole_request: list[tuple[str, float]] = field(default_factory=list)
    """With steps: the whole request's own ranking before the step merge, (tool, score) best
    first; empty when the request is one step (then `results` is that ranking)."""
    merge: str = ""
    """With steps: how the step merge ordered the ranking, in words (which tool leads and why,
    where the steps' tools come); "" when the request is one step."""
    formula: str = ""
    """How the fusion that made the result scores a tool, with the settings' numbers."""


class Boosts(Mapping[str, float]):
    """Field boosts by field name: an immutable, hashable mapping, so settings that hold them
    can be part of a frozen `Request` (a key, a history entry, a batch partition)."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, float]) -> None:
        self._values = dict(values)

    def __getitem__(self, name: str) -> float:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        return hash(frozenset(self._values.items()))

    def __repr__(self) -> str:
        return f"Boosts({self._values!r})"


@dataclass(frozen=True, slots=True)
class SearchSettings:
    strategy: SearchStrategy = "auto"
    k: int = 10
    rrf_k: int = 60
    candidates: int = 20
    """How many tools each list (keyword, vector) contributes to the fusion."""
    boosts: Mapping[str, float] | None = None
    """Field boosts, kept as an immutable `Boosts`; None means the canonical ones (tool_name 5,
    intents 4, keywords 3, parameters 2, description 1)."""
    explain: bool = True
    """Fill each returned hit's per-field contributions from Tantivy's explanation."""
    fusion: Fusion = "weighted"
    vector_weight: float = 0.75
    keyword_weight: float = 0.25
    """Weighted fusion: final = vector_weight·cosine + keyword_weight·keyword evidence + boosts
    (`formula()` says it in full)."""
    fit_threshold: float | None = None
    """Below this final score the best hit does not fit: the result says "no tool fits".
    None: the fusion's calibrated threshold (`CALIBRATED_FIT_THRESHOLDS`); 0: never."""
    split_steps: bool = True
    """Split a request that needs several tools into its steps and search each one."""

    def formula(self) -> str:
        """How the chosen fusion scores a tool, with these settings' numbers (one paragraph)."""
        from ._fusion import formula  # the fusion module; the settings stay cheap to import

        return formula(self)

    def __post_init__(self) -> None:
        """Refuse settings no search can use, with one line (`InputError`): a zero or negative
        k, candidates or RRF k, an unknown strategy, a boost that is not a finite number
        between 0 and 1,000,000 or names no keyword field."""
        if self.strategy not in _STRATEGIES:
            raise InputError(
                f"SearchSettings: strategy must be one of {', '.join(_STRATEGIES)}, "
                f"got {self.strategy!r}"
            )
        _check_count("k", self.k, 1, None)
        _check_count("candidates", self.candidates, 1, MAX_CANDIDATES)
        _check_count("rrf_k", self.rrf_k, 1, None)
        if not isinstance(self.explain, bool):
            raise InputError(f"SearchSettings: explain must be True or False, got {self.explain!r}")
        if not isinstance(self.split_steps, bool):
            raise InputError(
                f"SearchSettings: split_steps must be True or False, got {self.split_steps!r:.40}"
            )
        if self.boosts is not None:
            _check_boosts(self.boosts)
            # Frozen all the way down: the caller's dict may change later, the settings may not.
            object.__setattr__(self, "boosts", Boosts(self.boosts))
        if self.fusion not in FUSIONS:
            raise InputError(
                f"SearchSettings: fusion must be one of {', '.join(FUSIONS)}, got {self.fusion!r}"
            )
        for name in ("vector_weight", "keyword_weight", "fit_threshold"):
            value = getattr(self, name)
            if value is None and name == "fit_threshold":
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(f"SearchSettings: {name} must be a number, got {value!r:.40}")
            if not math.isfinite(value) or not 0 <= value <= 10:
                raise InputError(f"SearchSettings: {name} must be between 0 and 10, got {value!r}")


@dataclass(slots=True)
class WhyNot:
    """Where one tool stands in each list for a query, and why it is not higher."""

    tool_name: str
    keyword_rank: int | None
    keyword_score: float | None
    vector_rank: int | None
    similarity: float | None
    final_rank: int | None
    reason: str


def _check_count(name: str, value: object, low: int, high: int | None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            f"SearchSettings: {name} must be an integer, got {type(value).__name__} {value!r:.40}"
        )
    if value < low or (high is not None and value > high):
        limits = f"between {low:,} and {high:,}" if high is not None else f"at least {low}"
        raise InputError(f"SearchSettings: {name} must be {limits}, got {value:,}")


def _check_boosts(boosts: object) -> None:
    from ._canonical import default_boosts  # reads the canonical schema only when boosts are set

    if not isinstance(boosts, Mapping):
        raise InputError(
            f"SearchSettings: boosts must be a mapping of field name to number, "
            f"got {type(boosts).__name__}"
        )
    fields = default_boosts()
    for name, value in boosts.items():
        if name not in fields:
            raise InputError(
                f"SearchSettings: boosts: unknown field {name!r:.60} "
                f"(the fields are {', '.join(fields)})"
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(
                f"SearchSettings: boosts: {name} must be a number, got {type(value).__name__}"
            )
        if not math.isfinite(value) or not 0 <= value <= MAX_BOOST:
            raise InputError(
                f"SearchSettings: boosts: {name} must be a finite number between 0 and "
                f"{MAX_BOOST:,.0f}, got {value!r}"
            )
