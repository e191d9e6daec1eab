"""`make eval` (research): the deep-research loop over a judged set of goals, beside plain BM25
and the embedding model alone over the same corpus.

The judged set (`research_goals.toml`, 177 goals nobody on the project wrote: Stack Overflow
question titles from CoNaLa with the standard-library documents that answer them, and
unanswerable ones — third-party libraries the corpus does not document, local, current and
price questions, general knowledge — each with its source, id and licence) is researched by
`run_research` — the offline index and, by default, the heuristic model; `--llm openai
--llm-url URL --model NAME` grades with any OpenAI-compatible server instead. The same index
is ranked for the raw goal by plain BM25 and by the embedding model alone (top k, k the pages
an attempt reads). Reported per part of the set (`tune`, the goals the heuristic may be tuned
on; `held_out`, fixed by the goal's id before any tuning) and over all goals:

* found: the share of answerable goals whose answering document is among the findings (the
  best pages read, across attempts), with its 95 % Wilson interval, beside BM25's and the
  embedding model's top k; the same for the goals phrased without the module's name and for
  multi-aspect goals;
* AUROC of the best attempt's score, answerable against unanswerable (beside BM25's best score
  and the embedding model's best cosine);
* warned: the share of unanswerable goals the verdict does not let proceed unwarned (a warning,
  research again or escalate), and of answerable ones it wrongly warns; the proceeds without a
  warning whose findings hold no answer ("confidently wrong"), and the proceeds on goals
  labelled as needing grounding; how often the derived grounding agrees with the label;
* how often attempts 2–3 improve on attempt 1, and the answers they gain or lose;
* beside them, grounding as derived from a goal (`derive_grounding`) against the project's
  public labelled set (2,049 prompts, `resources/labelled/public/public.jsonl`; grounding =
  local or time-sensitive or purchase by its labels; its own tune / held-out split): precision
  and recall, beside the strategy router's intent flags alone.

Targets (issue 27) are printed beside the figures with met/MISSED (the exit status says so with
`--check`); the table goes to stdout and everything to `.eval/research.json`. Nothing here is
a pytest test (the file name does not match `test_*.py`).

Run as `python -m tests.eval.eval_research` from the checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.eval import _metrics

if TYPE_CHECKING:
    from routescope.research import DeepResearchResult, OfflineSearch, ResearchSettings
    from routescope.research._corpus import OfflineDocument

ROOT = Path(__file__).resolve().parents[2]
GOALS = Path(__file__).with_name("research_goals.toml")
LABELLED = ROOT / "resources" / "labelled" / "public" / "public.jsonl"
OUTPUT = ROOT / ".eval" / "research.json"
PARTS = ("tune", "held_out")
WEAK = "web research weak; relying more on model prior"
HIT_TARGET = 0.85
AUROC_TARGET = 0.92
UNANSWERABLE_WARNED_TARGET = 0.9
ANSWERABLE_WARNED_TARGET = 0.1
POOL = 20
"""How deep both baselines' rankings are pooled for the candidate ceiling (`Outcome.pool_hit`):
an answering document neither ranks this high is out of reach of any choice among them."""


# -- the judged set ------------------------------------------------------------------------------


KINDS = ("answerable", "unanswerable_keywords", "unanswerable_grounding", "unanswerable_general")


@dataclass(frozen=True, slots=True)
class Goal:
    text: str
    answers: tuple[str, ...]
    """URLs of the documents that answer it; empty: the corpus cannot answer it."""
    part: str
    kind: str = ""
    """One of `KINDS` (derived from `answers` when the file does not say)."""
    grounding: bool = False
    """Labelled: the goal needs external grounding (time-sensitive, local or purchase)."""
    names_module: bool = False
    """The goal's text names an answering module."""
    aspects: int = 1
    """How many separate things the goal asks for."""
    source: str = ""
    id: str = ""

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


def load_goals(path: Path = GOALS) -> list[Goal]:
    """The judged set; raises ValueError (one line) for a malformed file."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    goals = []
    for number, item in enumerate(data.get("goal", []), 1):
        text, answers, part = item.get("text"), item.get("answers", []), item.get("part")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path.name}: goal {number} has no text")
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            raise ValueError(f"{path.name}: goal {number}: answers must be a list of URLs")
        if part not in PARTS:
            raise ValueError(f"{path.name}: goal {number}: part must be one of {PARTS}")
        kind = item.get("kind") or ("answerable" if answers else "unanswerable_general")
        if kind not in KINDS or (kind == "answerable") != bool(answers):
            raise ValueError(f"{path.name}: goal {number}: kind must be one of {KINDS}")
        goals.append(
            Goal(
                text.strip(),
                tuple(answers),
                part,
                kind,
                bool(item.get("grounding", False)),
                bool(item.get("names_module", False)),
                int(item.get("aspects", 1)),
                str(item.get("source", "")),
                str(item.get("id", "")),
            )
        )
    if not goals:
        raise ValueError(f"{path.name}: no goals")
    return goals


# -- one goal ------------------------------------------------------------------------------------


Ranked = list[tuple[str, float]]
"""A baseline's answer: (URL, score), best first."""
Baseline = Callable[[str, int], Ranked]
"""A baseline over the same corpus: the goal and k → its top k."""


@dataclass(slots=True)
class Outcome:
    """What the loop and the baselines did with one goal."""

    goal: str
    part: str
    kind: str
    answerable: bool
    grounding: bool
    """Labelled: the goal needs external grounding."""
    derived_grounding: bool
    """What the research derived (or was told)."""
    names_module: bool
    aspects: int
    score: float
    """The best attempt's score (0 without one)."""
    warned: bool
    """The verdict says not to rely on the research alone: a warning, or a step other than
    proceed."""
    unwarned_proceed: bool
    """Proceed with no warning."""
    confidently_wrong: bool
    """Proceed with no warning, and the findings do not hold an answer (or there is none)."""
    hit: bool | None
    """The answer is among the findings (None: unanswerable)."""
    read_answer: bool | None
    """Some attempt read an answering page."""
    baseline_hit: bool | None
    baseline_score: float
    """BM25's best score for the raw goal (0 without a hit)."""
    embedding_hit: bool | None
    embedding_score: float
    """The embedding model's best cosine for the raw goal (NaN without the model)."""
    pool_hit: bool | None
    """An answering document is in BM25's or the embedding model's top `POOL` for the raw goal:
    the ceiling of any reranking of what the two retrievers propose."""
    first_hit: bool | None
    """The answer is among attempt 1's pages read."""
    attempts: int
    best: int | None
    """1-based."""
    improved: bool
    """A later attempt is the best."""
    next_step: str
    rule: str | None
    stop: str
    relevance: float
    coverage: float
    confidence: float
    queries: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    finding_evidence: list[dict[str, Any]] = field(default_factory=list)
    """Per finding: its attempt, relevance, meaning (cosine and relevance) and terms."""
    baseline: list[str] = field(default_factory=list)
    embedding: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _hit(urls: Sequence[str], answers: Sequence[str]) -> bool | None:
    if not answers:
        return None
    wanted = {a.rstrip("/") for a in answers}
    return any(url.rstrip("/") in wanted for url in urls)


def pool_hit(baselines: dict[str, Ranked], answers: Sequence[str]) -> bool | None:
    """An answering document is in some baseline's top `POOL` (None: unanswerable)."""
    return _hit([url for ranked in baselines.values() for url, _ in ranked[:POOL]], answers)


def outcome(
    goal: Goal,
    result: DeepResearchResult,
    baselines: dict[str, Ranked],
    seconds: float,
    k: int = 5,
) -> Outcome:
    best = result.attempts[result.best] if result.best is not None else None
    first = result.attempts[0] if result.attempts else None
    first_pages = [p.url for p in first.pages if p.has_text] if first is not None else []
    read = [p.url for a in result.attempts for p in a.pages if p.has_text]
    findings = [f.url for f in result.findings][:k]
    bm25, embedding = baselines.get("bm25", []), baselines.get("embedding")
    step = result.next_step
    warned = step.outcome != "proceed" or bool(result.warnings)
    hit = _hit(findings, goal.answers)
    unwarned = step.outcome == "proceed" and not result.warnings
    return Outcome(
        goal=goal.text,
        part=goal.part,
        kind=goal.kind,
        answerable=goal.answerable,
        grounding=goal.grounding,
        derived_grounding=bool(result.grounding and result.grounding.required),
        names_module=goal.names_module,
        aspects=goal.aspects,
        score=best.score if best is not None else 0.0,
        warned=warned,
        unwarned_proceed=unwarned,
        confidently_wrong=unwarned and not hit,
        hit=hit,
        read_answer=_hit(read, goal.answers),
        baseline_hit=_hit([u for u, _ in bm25[:k]], goal.answers),
        baseline_score=bm25[0][1] if bm25 else 0.0,
        embedding_hit=(
            None if embedding is None else _hit([u for u, _ in embedding[:k]], goal.answers)
        ),
        embedding_score=math.nan if embedding is None else (embedding[0][1] if embedding else 0.0),
        pool_hit=pool_hit(baselines, goal.answers),
        first_hit=_hit(first_pages, goal.answers),
        attempts=len(result.attempts),
        best=None if result.best is None else result.best + 1,
        improved=bool(result.best),
        next_step=step.outcome,
        rule=step.rule,
        stop=result.termination_reason,
        relevance=result.quality.relevance,
        coverage=result.quality.coverage,
        confidence=result.quality.confidence,
        queries=[a.query for a in result.attempts],
        findings=findings,
        finding_evidence=[_finding_evidence(f) for f in result.findings[:k]],
        baseline=[u for u, _ in bm25[:k]],
        embedding=[u for u, _ in (embedding or [])[:k]],
        seconds=round(seconds, 3),
    )


def _finding_evidence(finding: Any) -> dict[str, Any]:
    evidence = finding.evidence
    if evidence is None:
        return {"url": finding.url, "attempt": finding.attempt}
    return {
        "url": finding.url,
        "attempt": finding.attempt,
        "relevance": evidence.relevance,
        "about": evidence.about_goal,
        "similarity": evidence.similarity,
        "meaning": evidence.semantic_relevance,
        "terms": evidence.term_relevance,
        "supports": list(evidence.supports),
        "passage": evidence.passage[:120],
    }


async def run_goals(
    goals: Sequence[Goal],
    settings: ResearchSettings,
    search: OfflineSearch,
    *,
    keys: dict[str, str] | None = None,
    k: int | None = None,
    embedding: Baseline | None = None,
    progress: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Research every goal with `settings` over `search`, and rank the same corpus for the raw
    goal with plain BM25 (`search` in keyword mode) and, when given, the embedding model alone
    (top `k`, default the pages an attempt reads; ranked `POOL` deep for the ceiling)."""
    from routescope.research import run_research
    from routescope.research._records import Budgets

    k = k or Budgets().max_results
    outcomes = []
    for goal in goals:
        started = time.perf_counter()
        result = await run_research(goal.text, settings, keys=keys or {}, offline=lambda: search)
        seconds = time.perf_counter() - started
        baselines = {"bm25": bm25_ranking(search, goal.text, max(k, POOL))}
        if embedding is not None:
            baselines["embedding"] = embedding(goal.text, max(k, POOL))
        found = outcome(goal, result, baselines, seconds, k)
        outcomes.append(found)
        if progress is not None:
            progress(found)
    return outcomes


def bm25_ranking(search: OfflineSearch, goal: str, k: int) -> Ranked:
    """Plain BM25 over the offline index for the raw goal: its top `k`, with scores."""
    from routescope._analysis import tokens

    terms = list(dict.fromkeys(tokens(goal)))[:64]
    if not terms:
        return []
    hits, _ = search.search_sync(terms, k)
    return [(hit.url, hit.score or 0.0) for hit in hits]


# -- the figures ---------------------------------------------------------------------------------


def _share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else math.nan


def _auroc(good: Sequence[float], bad: Sequence[float]) -> float:
    if any(math.isnan(v) for v in (*good, *bad)) or not good or not bad:
        return math.nan
    return _metrics.auroc(list(good), list(bad))


@dataclass(frozen=True, slots=True)
class Figures:
    goals: int
    answerable: int
    unanswerable: int
    hit_rate: float
    hit_rate_low: float
    """The 95 % Wilson interval of `hit_rate` (the sample of answerable goals)."""
    hit_rate_high: float
    baseline_hit_rate: float
    embedding_hit_rate: float
    read_rate: float
    """Answerable goals where some attempt read an answering page."""
    pool_rate: float
    """Answerable goals with an answering document in either baseline's top `POOL`."""
    hit_rate_no_name: float
    """Answerable goals phrased without an answering module's name."""
    hit_rate_multi: float
    """Answerable goals that ask for two things or more."""
    auroc: float
    baseline_auroc: float
    """BM25's best score for the raw goal, answerable against unanswerable."""
    embedding_auroc: float
    unanswerable_warned: float
    answerable_warned: float
    unwarned_wrong: int
    """Proceeds without a warning whose findings hold no answer (confidently wrong)."""
    grounding_goals: int
    proceed_on_grounding: int
    """Goals labelled as needing grounding that the verdict let proceed."""
    grounding_agreement: float
    """Goals whose derived grounding equals the label."""
    retried: int
    """Goals researched in more than one attempt."""
    improved: int
    """Goals whose best attempt is a later one."""
    answers_gained: int
    """Answerable goals whose attempt 1 missed the answer and whose findings have it."""
    answers_lost: int
    """Answerable goals whose attempt 1 had the answer and whose findings do not."""
    proceed: int
    research_again: int
    escalate: int


def figures(outcomes: Sequence[Outcome]) -> Figures:
    answerable = [o for o in outcomes if o.answerable]
    unanswerable = [o for o in outcomes if not o.answerable]
    steps = [o.next_step for o in outcomes]
    grounding = [o for o in outcomes if o.grounding]
    found = sum(bool(o.hit) for o in answerable)
    low, high = _metrics.wilson(found, len(answerable))
    return Figures(
        goals=len(outcomes),
        answerable=len(answerable),
        unanswerable=len(unanswerable),
        hit_rate=_share([bool(o.hit) for o in answerable]),
        hit_rate_low=low,
        hit_rate_high=high,
        baseline_hit_rate=_share([bool(o.baseline_hit) for o in answerable]),
        embedding_hit_rate=(
            math.nan
            if any(o.embedding_hit is None for o in answerable)
            else _share([bool(o.embedding_hit) for o in answerable])
        ),
        read_rate=_share([bool(o.read_answer) for o in answerable]),
        pool_rate=_share([bool(o.pool_hit) for o in answerable]),
        hit_rate_no_name=_share([bool(o.hit) for o in answerable if not o.names_module]),
        hit_rate_multi=_share([bool(o.hit) for o in answerable if o.aspects > 1]),
        auroc=_auroc([o.score for o in answerable], [o.score for o in unanswerable]),
        baseline_auroc=_auroc(
            [o.baseline_score for o in answerable], [o.baseline_score for o in unanswerable]
        ),
        embedding_auroc=_auroc(
            [o.embedding_score for o in answerable], [o.embedding_score for o in unanswerable]
        ),
        unanswerable_warned=_share([o.warned for o in unanswerable]),
        answerable_warned=_share([o.warned for o in answerable]),
        unwarned_wrong=sum(o.confidently_wrong for o in outcomes),
        grounding_goals=len(grounding),
        proceed_on_grounding=sum(o.next_step == "proceed" for o in grounding),
        grounding_agreement=_share([o.grounding == o.derived_grounding for o in outcomes]),
        retried=sum(o.attempts > 1 for o in outcomes),
        improved=sum(o.improved for o in outcomes),
        answers_gained=sum(bool(o.hit) and not o.first_hit for o in answerable),
        answers_lost=sum(bool(o.first_hit) and not o.hit for o in answerable),
        proceed=steps.count("proceed"),
        research_again=steps.count("research_again"),
        escalate=steps.count("escalate"),
    )


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    part: str
    value: float
    goal: str
    met: bool
    kind: str = "share"
    """How the figure reads: `share` (a percentage), `score` (two decimals), `count`."""


def targets(part: str, f: Figures) -> list[Target]:
    def ok(value: float, good: bool) -> bool:
        return not math.isnan(value) and good

    best_baseline = max(
        (v for v in (f.baseline_hit_rate, f.embedding_hit_rate) if not math.isnan(v)),
        default=math.nan,
    )
    return [
        Target(
            "answering document found",
            part,
            f.hit_rate,
            f"≥ {HIT_TARGET:.0%}",
            ok(f.hit_rate, f.hit_rate >= HIT_TARGET),
        ),
        Target(
            "found above both baselines (BM25, embedding alone)",
            part,
            f.hit_rate,
            f"> {best_baseline:.0%}" if not math.isnan(best_baseline) else "> —",
            ok(f.hit_rate, math.isnan(best_baseline) or f.hit_rate > best_baseline),
        ),
        Target(
            "AUROC of the best-attempt score",
            part,
            f.auroc,
            f"≥ {AUROC_TARGET:g}",
            ok(f.auroc, f.auroc >= AUROC_TARGET),
            "score",
        ),
        Target(
            "unanswerable goals warned",
            part,
            f.unanswerable_warned,
            f"≥ {UNANSWERABLE_WARNED_TARGET:.0%}",
            ok(f.unanswerable_warned, f.unanswerable_warned >= UNANSWERABLE_WARNED_TARGET),
        ),
        Target(
            "answerable goals wrongly warned",
            part,
            f.answerable_warned,
            f"≤ {ANSWERABLE_WARNED_TARGET:.0%}",
            ok(f.answerable_warned, f.answerable_warned <= ANSWERABLE_WARNED_TARGET),
        ),
        Target(
            "unwarned proceed without an answer",
            part,
            f.unwarned_wrong,
            "0",
            f.unwarned_wrong == 0,
            "count",
        ),
        Target(
            "proceed on a grounding goal",
            part,
            f.proceed_on_grounding,
            "0",
            f.proceed_on_grounding == 0,
            "count",
        ),
    ]


# -- grounding on the public labelled set -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GroundingFigures:
    """Grounding derived from prompts against their labels (one part of the labelled set)."""

    prompts: int
    needing: int
    """Prompts labelled local, time-sensitive or purchase."""
    precision: float
    recall: float
    router_precision: float
    """The strategy router's intent flags alone (the built-in pack): the baseline."""
    router_recall: float


def _precision_recall(pairs: Sequence[tuple[bool, bool]]) -> tuple[float, float]:
    """(precision, recall) of (predicted, labelled) pairs; NaN where undefined."""
    hits = sum(p and y for p, y in pairs)
    predicted, labelled = sum(p for p, _ in pairs), sum(y for _, y in pairs)
    return (
        hits / predicted if predicted else math.nan,
        hits / labelled if labelled else math.nan,
    )


def grounding_figures(path: Path = LABELLED) -> dict[str, GroundingFigures]:
    """`derive_grounding` and the router's flags alone against the labelled set, by its part
    (`tune`, `heldout`); empty when the file is not there."""
    from routescope.research import derive_grounding
    from routescope.rules import default_rules
    from routescope.strategy import extract

    if not path.is_file():
        return {}
    rules = default_rules()
    rows: dict[str, list[tuple[bool, bool, bool]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        labels, prompt = case["labels"], case["prompt"]
        needed = bool(labels["local"] or labels["time_sensitive"] or labels["purchase"])
        intent = extract(prompt, rules).intent
        flagged = bool(intent.local or intent.time_sensitive or intent.purchase)
        derived = derive_grounding(prompt, rules=rules).required
        rows.setdefault(str(case["part"]), []).append((derived, flagged, needed))
    figures = {}
    for part, cases in sorted(rows.items(), key=lambda item: item[0] != "tune"):
        precision, recall = _precision_recall([(d, y) for d, _, y in cases])
        router_precision, router_recall = _precision_recall([(f, y) for _, f, y in cases])
        figures[part] = GroundingFigures(
            len(cases),
            sum(y for _, _, y in cases),
            precision,
            recall,
            router_precision,
            router_recall,
        )
    return figures


def grounding_table(found: dict[str, GroundingFigures]) -> str:
    lines = [
        "| labelled set part | prompts (needing grounding) | precision | recall | "
        "router flags alone: precision | recall |",
        "| --- " + "| ---: " * 5 + "|",
    ]
    for part, g in found.items():
        lines.append(
            f"| {part} | {g.prompts} ({g.needing}) | {_num(g.precision)} | {_num(g.recall)} | "
            f"{_num(g.router_precision)} | {_num(g.router_recall)} |"
        )
    return "\n".join(lines)


# -- the report ----------------------------------------------------------------------------------


def _pct(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.0%}"


def _interval(low: float, high: float) -> str:
    if math.isnan(low) or math.isnan(high):
        return "—"
    return f"{low:.0%}–{high:.0%}"


def _num(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.2f}"


def _count(value: float) -> str:
    return f"{value:g}"


def table(by_part: dict[str, Figures]) -> str:
    header = (
        "| part | goals (ans./unans.) | found (95 % interval) | BM25 | embedding | "
        f"read in any attempt | either baseline's top {POOL} | "
        "found, no module name | found, multi-aspect | AUROC (BM25 / embedding) | "
        "unans. warned | ans. warned | unwarned wrong | proceed on grounding | "
        "grounding agrees | retried | improved by 2–3 | answers gained / lost | "
        "proceed / again / escalate |"
    )
    lines = [header, "| --- " + "| ---: " * 18 + "|"]
    for part, f in by_part.items():
        lines.append(
            f"| {part} | {f.goals} ({f.answerable}/{f.unanswerable}) | {_pct(f.hit_rate)} "
            f"({_interval(f.hit_rate_low, f.hit_rate_high)}) | "
            f"{_pct(f.baseline_hit_rate)} | {_pct(f.embedding_hit_rate)} | {_pct(f.read_rate)} | "
            f"{_pct(f.pool_rate)} | "
            f"{_pct(f.hit_rate_no_name)} | {_pct(f.hit_rate_multi)} | {_num(f.auroc)} "
            f"({_num(f.baseline_auroc)} / {_num(f.embedding_auroc)}) | "
            f"{_pct(f.unanswerable_warned)} | {_pct(f.answerable_warned)} | {f.unwarned_wrong} | "
            f"{f.proceed_on_grounding} of {f.grounding_goals} | {_pct(f.grounding_agreement)} | "
            f"{f.retried} | {f.improved} | {f.answers_gained} / {f.answers_lost} | "
            f"{f.proceed} / {f.research_again} / {f.escalate} |"
        )
    return "\n".join(lines)


def target_lines(found: Sequence[Target]) -> str:
    lines = ["| part | target | figure | goal | |", "| --- | --- | ---: | ---: | --- |"]
    for t in found:
        shown = {"score": _num, "count": _count}.get(t.kind, _pct)(t.value)
        lines.append(
            f"| {t.part} | {t.name} | {shown} | {t.goal} | {'met' if t.met else 'MISSED'} |"
        )
    return "\n".join(lines)


def details(outcomes: Sequence[Outcome]) -> str:
    lines = []
    for o in outcomes:
        mark = "—" if o.hit is None else ("hit" if o.hit else "miss")
        base = "—" if o.baseline_hit is None else ("hit" if o.baseline_hit else "miss")
        emb = "—" if o.embedding_hit is None else ("hit" if o.embedding_hit else "miss")
        flag = "G" if o.grounding else " "
        lines.append(
            f"  [{o.part:8}] {flag} {mark:4} (bm25 {base:4} emb {emb:4}) score {o.score:.2f} "
            f"{'WARNED' if o.warned else 'ok    '} {o.next_step:14} "
            f"{o.attempts} att. best {o.best}  {o.goal}"
        )
        lines.append(f"      queries: {' | '.join(o.queries)}")
        lines.append(f"      findings: {' '.join(u.rsplit('/', 1)[-1] for u in o.findings)}")
        lines.append(f"      stop: {o.stop}")
    return "\n".join(lines)


# -- the command line ----------------------------------------------------------------------------


def settings_from(args: argparse.Namespace) -> ResearchSettings:
    from routescope.research import ResearchSettings

    return ResearchSettings(
        search="offline",
        llm=args.llm,
        llm_url=args.llm_url or "",
        model=args.model,
        max_attempts=args.max_attempts,
    )


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tests.eval.eval_research", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--goals", type=Path, default=GOALS, help="the judged set (TOML)")
    parser.add_argument("--part", choices=PARTS, help="only this part of the judged set")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N goals")
    parser.add_argument("--limit", type=int, help="only the first N goals (after --skip)")
    parser.add_argument("--llm", choices=("heuristic", "openai"), default="heuristic")
    parser.add_argument("--llm-url", help="the /v1 base URL of an OpenAI-compatible server")
    parser.add_argument("--model", default="local", help="the model name to ask for")
    parser.add_argument("--max-attempts", type=int, default=3)
    parser.add_argument("--json", type=Path, default=OUTPUT, help="where the JSON goes")
    parser.add_argument(
        "--labelled", type=Path, default=LABELLED, help="the labelled set grounding is checked on"
    )
    parser.add_argument("--details", action="store_true", help="one block per goal")
    parser.add_argument("--no-embedding", action="store_true", help="no embedding-model baseline")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return parser.parse_args(argv)


def main(
    argv: Sequence[str] | None = None,
    *,
    search: OfflineSearch | None = None,
    out: Callable[[str], None] = print,
) -> int:
    """Run the eval; `search` replaces the machine's offline index (tests)."""

    args = parse(argv)
    goals = load_goals(args.goals)[max(args.skip, 0) :]
    if args.part:
        goals = [g for g in goals if g.part == args.part]
    if args.limit:
        goals = goals[: args.limit]
    settings = settings_from(args)
    keys = (
        {"OPENAI_API_KEY": os.environ["OPENAI_API_KEY"]} if "OPENAI_API_KEY" in os.environ else {}
    )
    problem = settings.problem(keys)
    if problem is not None:
        out(f"eval_research: {problem}")
        return 2
    search = search or eval_search()
    stats = search.open()
    out(
        f"research eval: {len(goals)} goals, offline index of {stats.documents} documents, "
        f"{settings.describe()}, at most {settings.max_attempts} attempts"
    )
    embedding: Baseline | None = None
    if not args.no_embedding:
        vectors = search.passage_vectors()
        if vectors is None:
            out(f"embedding baseline: none ({search.semantic_note or 'keyword-only search'})")
        else:
            out(
                f"passage vectors: {vectors.count} passages of {len(vectors.urls)} documents "
                f"({vectors.model_id}; built in {vectors.build_seconds:g} s, cached)"
            )

            embedding = _semantic_baseline(search)

    started = time.perf_counter()
    outcomes = asyncio.run(run_goals(goals, settings, search, keys=keys, embedding=embedding))
    seconds = time.perf_counter() - started
    parts = [p for p in PARTS if any(o.part == p for o in outcomes)]
    by_part = {p: figures([o for o in outcomes if o.part == p]) for p in parts}
    if len(parts) > 1:
        by_part["all"] = figures(outcomes)
    found = [t for part, f in by_part.items() for t in targets(part, f)]
    if args.details:
        out(details(outcomes))
    out("")
    out(table(by_part))
    out("")
    out(target_lines(found))
    out(f"\n{len(outcomes)} goals in {seconds:.1f} s")
    grounding = grounding_figures(args.labelled)
    if grounding:
        out(f"\ngrounding derived from the goal, on the public labelled set ({args.labelled.name})")
        out(grounding_table(grounding))
    report: dict[str, Any] = {
        "settings": {
            "search": settings.search,
            "llm": settings.llm,
            "model": settings.model if settings.llm != "heuristic" else "heuristic",
            "max_attempts": settings.max_attempts,
            "goals_file": str(args.goals),
        },
        "corpus": {"documents": stats.documents},
        "seconds": round(seconds, 2),
        "parts": {part: asdict(f) for part, f in by_part.items()},
        "targets": [asdict(t) for t in found],
        "grounding_labelled": {part: asdict(g) for part, g in grounding.items()},
        "goals": [asdict(o) for o in outcomes],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_clean(report), indent=1, ensure_ascii=False, allow_nan=False)
    args.json.write_text(text + "\n", encoding="utf-8")
    out(f"wrote {args.json}")
    missed = [t for t in found if not t.met]
    return 1 if args.check and missed else 0


_EXTRAS = ("gui", "semantic", "research", "batch", "places", "dev")
"""The extras `make eval` installs (the Makefile's `.dev-installed`)."""


def project_distributions() -> frozenset[str]:
    """The distributions Routescope and the extras `make eval` installs require, transitively
    (normalised names): the packages every checkout's eval corpus holds, whatever else the
    environment has."""
    import importlib.metadata

    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    seen: set[str] = set()
    todo: list[tuple[str, frozenset[str]]] = [("routescope", frozenset(_EXTRAS))]
    while todo:
        name, extras = todo.pop()
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        for line in dist.requires or []:
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            marker = requirement.marker
            if marker is not None and not any(
                marker.evaluate({"extra": extra}) for extra in (extras or {""})
            ):
                continue
            key = canonicalize_name(requirement.name)
            if key not in seen:
                seen.add(key)
                todo.append((requirement.name, frozenset(requirement.extras)))
    return frozenset(seen - {"routescope"})


def eval_search(cache: Path | None = None) -> OfflineSearch:
    """The offline search over the eval's corpus: the machine's standard library and pydoc
    topics, and of its installed distributions only those Routescope's extras require
    (`project_distributions`): other packages an environment happens to hold would change
    what answers a goal."""
    import hashlib

    from routescope.research import OfflineSearch
    from routescope.research._corpus import machine_documents, machine_key, normalised_name

    allowed = project_distributions()

    def documents() -> Iterator[OfflineDocument]:
        for document in machine_documents():
            if document.kind != "package":
                yield document
                continue
            name = normalised_name(document.title.split(" ", 1)[0])
            if name in allowed:
                yield document

    key = hashlib.sha256(f"{machine_key()}|eval|{','.join(sorted(allowed))}".encode()).hexdigest()
    return OfflineSearch(cache, documents=documents, key=key, semantic=True)


def _semantic_baseline(search: OfflineSearch) -> Baseline:
    """The embedding model alone: documents ranked by their best passage for the raw goal."""

    def rank(goal: str, k: int) -> Ranked:
        return [(url, score) for url, score, _ in search.rank_semantic(goal, k)]

    return rank


def _clean(value: Any) -> Any:
    """`value` with every NaN (a figure of an empty group) as null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


if __name__ == "__main__":
    sys.exit(main())
