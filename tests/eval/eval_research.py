"""`make eval` (research): the deep-research loop over a judged set of goals, beside plain BM25.

Every goal of `research_goals.toml` (about 25 the offline corpus answers, each with the
documents that answer it, and 15 it cannot: local places, prices, sports, other languages'
ecosystems, nonsense) is researched by `run_research` — the offline index and, by default, the
heuristic model; `--llm openai --llm-url URL --model NAME` grades with any OpenAI-compatible
server instead — and the same index is queried with the raw goal (plain BM25, top k, k the
pages an attempt reads). Reported per part of the set (`tune`, the goals the heuristic may be
tuned on; `held_out`, looked at only at the end) and over all goals:

* hit rate: the share of answerable goals whose answering document is among the best attempt's
  findings (the pages it read), beside the BM25 baseline's top k;
* AUROC of the best attempt's score, answerable against unanswerable goals;
* the share of unanswerable goals that get the weak-research warning, and of answerable ones
  that wrongly get it;
* how often attempts 2–3 improve on attempt 1 (a later attempt is the best), and the answers
  they gain or lose.

Targets are printed beside the figures with met/MISSED (the exit status says so with
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
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.eval import _metrics

if TYPE_CHECKING:
    from routescope.research import DeepResearchResult, OfflineSearch, ResearchSettings

ROOT = Path(__file__).resolve().parents[2]
GOALS = Path(__file__).with_name("research_goals.toml")
OUTPUT = ROOT / ".eval" / "research.json"
PARTS = ("tune", "held_out")
WEAK = "web research weak; relying more on model prior"
AUROC_TARGET = 0.9
UNANSWERABLE_WARNED_TARGET = 0.9
ANSWERABLE_WARNED_TARGET = 0.1


# -- the judged set ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Goal:
    text: str
    answers: tuple[str, ...]
    """URLs of the documents that answer it; empty: the corpus cannot answer it."""
    part: str

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
        goals.append(Goal(text.strip(), tuple(answers), part))
    if not goals:
        raise ValueError(f"{path.name}: no goals")
    return goals


# -- one goal ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    """What the loop and the baseline did with one goal."""

    goal: str
    part: str
    answerable: bool
    score: float
    """The best attempt's score (0 without one)."""
    warned: bool
    hit: bool | None
    """The answer is among the best attempt's findings (None: unanswerable)."""
    baseline_hit: bool | None
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
    baseline: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _hit(urls: Sequence[str], answers: Sequence[str]) -> bool | None:
    if not answers:
        return None
    wanted = {a.rstrip("/") for a in answers}
    return any(url.rstrip("/") in wanted for url in urls)


def outcome(goal: Goal, result: DeepResearchResult, baseline: list[str], seconds: float) -> Outcome:
    best = result.attempts[result.best] if result.best is not None else None
    first = result.attempts[0] if result.attempts else None
    first_pages = [p.url for p in first.pages if p.has_text] if first is not None else []
    findings = [f.url for f in result.findings]
    return Outcome(
        goal=goal.text,
        part=goal.part,
        answerable=goal.answerable,
        score=best.score if best is not None else 0.0,
        warned=WEAK in result.warnings,
        hit=_hit(findings, goal.answers),
        baseline_hit=_hit(baseline, goal.answers),
        first_hit=_hit(first_pages, goal.answers),
        attempts=len(result.attempts),
        best=None if result.best is None else result.best + 1,
        improved=bool(result.best),
        next_step=result.next_step.outcome,
        rule=result.next_step.rule,
        stop=result.termination_reason,
        relevance=result.quality.relevance,
        coverage=result.quality.coverage,
        confidence=result.quality.confidence,
        queries=[a.query for a in result.attempts],
        findings=findings,
        baseline=baseline,
        seconds=round(seconds, 3),
    )


async def run_goals(
    goals: Sequence[Goal],
    settings: ResearchSettings,
    search: OfflineSearch,
    *,
    keys: dict[str, str] | None = None,
    k: int | None = None,
    progress: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Research every goal with `settings` over `search`, and query `search` with the raw goal
    (top `k`, default the pages an attempt reads)."""
    from routescope.research import run_research
    from routescope.research._records import Budgets

    k = k or Budgets().max_results
    outcomes = []
    for goal in goals:
        started = time.perf_counter()
        result = await run_research(goal.text, settings, keys=keys or {}, offline=lambda: search)
        seconds = time.perf_counter() - started
        response = await search.search(goal.text, max_results=k)
        found = outcome(goal, result, [hit.url for hit in response.results[:k]], seconds)
        outcomes.append(found)
        if progress is not None:
            progress(found)
    return outcomes


# -- the figures ---------------------------------------------------------------------------------


def _share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else math.nan


@dataclass(frozen=True, slots=True)
class Figures:
    goals: int
    answerable: int
    unanswerable: int
    hit_rate: float
    baseline_hit_rate: float
    auroc: float
    unanswerable_warned: float
    answerable_warned: float
    retried: int
    """Goals researched in more than one attempt."""
    improved: int
    """Goals whose best attempt is a later one."""
    answers_gained: int
    """Answerable goals whose attempt 1 missed the answer and whose best attempt has it."""
    answers_lost: int
    """Answerable goals whose attempt 1 had the answer and whose best attempt does not."""
    proceed: int
    research_again: int
    escalate: int


def figures(outcomes: Sequence[Outcome]) -> Figures:
    answerable = [o for o in outcomes if o.answerable]
    unanswerable = [o for o in outcomes if not o.answerable]
    steps = [o.next_step for o in outcomes]
    return Figures(
        goals=len(outcomes),
        answerable=len(answerable),
        unanswerable=len(unanswerable),
        hit_rate=_share([bool(o.hit) for o in answerable]),
        baseline_hit_rate=_share([bool(o.baseline_hit) for o in answerable]),
        auroc=_metrics.auroc([o.score for o in answerable], [o.score for o in unanswerable]),
        unanswerable_warned=_share([o.warned for o in unanswerable]),
        answerable_warned=_share([o.warned for o in answerable]),
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


def targets(part: str, f: Figures) -> list[Target]:
    def ok(value: float, good: bool) -> bool:
        return not math.isnan(value) and good

    return [
        Target(
            "hit rate above the BM25 baseline",
            part,
            f.hit_rate,
            f"> {f.baseline_hit_rate:.2f}",
            ok(f.hit_rate, f.hit_rate > f.baseline_hit_rate),
        ),
        Target(
            "AUROC of the best-attempt score",
            part,
            f.auroc,
            f"≥ {AUROC_TARGET:g}",
            ok(f.auroc, f.auroc >= AUROC_TARGET),
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
    ]


# -- the report ----------------------------------------------------------------------------------


def _pct(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.0%}"


def _num(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.2f}"


def table(by_part: dict[str, Figures]) -> str:
    header = (
        "| part | goals (ans./unans.) | hit rate | BM25 hit rate | AUROC | unans. warned | "
        "ans. warned | retried | improved by 2–3 | answers gained / lost | "
        "proceed / again / escalate |"
    )
    lines = [
        header,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for part, f in by_part.items():
        lines.append(
            f"| {part} | {f.goals} ({f.answerable}/{f.unanswerable}) | {_pct(f.hit_rate)} | "
            f"{_pct(f.baseline_hit_rate)} | {_num(f.auroc)} | {_pct(f.unanswerable_warned)} | "
            f"{_pct(f.answerable_warned)} | {f.retried} | {f.improved} | "
            f"{f.answers_gained} / {f.answers_lost} | "
            f"{f.proceed} / {f.research_again} / {f.escalate} |"
        )
    return "\n".join(lines)


def target_lines(found: Sequence[Target]) -> str:
    lines = ["| part | target | figure | goal | |", "| --- | --- | ---: | ---: | --- |"]
    for t in found:
        shown = _num(t.value) if t.name.startswith("AUROC") else _pct(t.value)
        lines.append(
            f"| {t.part} | {t.name} | {shown} | {t.goal} | {'met' if t.met else 'MISSED'} |"
        )
    return "\n".join(lines)


def details(outcomes: Sequence[Outcome]) -> str:
    lines = []
    for o in outcomes:
        mark = "—" if o.hit is None else ("hit" if o.hit else "miss")
        base = "—" if o.baseline_hit is None else ("hit" if o.baseline_hit else "miss")
        lines.append(
            f"  [{o.part:8}] {mark:4} (bm25 {base:4}) score {o.score:.2f} "
            f"{'WARNED' if o.warned else 'ok    '} {o.next_step:14} "
            f"{o.attempts} att. best {o.best}  {o.goal}"
        )
        lines.append(f"      queries: {' | '.join(o.queries)}")
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
    parser.add_argument("--limit", type=int, help="only the first N goals")
    parser.add_argument("--llm", choices=("heuristic", "openai"), default="heuristic")
    parser.add_argument("--llm-url", help="the /v1 base URL of an OpenAI-compatible server")
    parser.add_argument("--model", default="local", help="the model name to ask for")
    parser.add_argument("--max-attempts", type=int, default=3)
    parser.add_argument("--json", type=Path, default=OUTPUT, help="where the JSON goes")
    parser.add_argument("--details", action="store_true", help="one block per goal")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return parser.parse_args(argv)


def main(
    argv: Sequence[str] | None = None,
    *,
    search: OfflineSearch | None = None,
    out: Callable[[str], None] = print,
) -> int:
    """Run the eval; `search` replaces the machine's offline index (tests)."""
    from routescope.research import OfflineSearch

    args = parse(argv)
    goals = load_goals(args.goals)
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
    search = search or OfflineSearch()
    stats = search.open()
    out(
        f"research eval: {len(goals)} goals, offline index of {stats.documents} documents, "
        f"{settings.describe()}, at most {settings.max_attempts} attempts"
    )
    started = time.perf_counter()
    outcomes = asyncio.run(run_goals(goals, settings, search, keys=keys))
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
        "goals": [asdict(o) for o in outcomes],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_clean(report), indent=1, ensure_ascii=False, allow_nan=False)
    args.json.write_text(text + "\n", encoding="utf-8")
    out(f"wrote {args.json}")
    missed = [t for t in found if not t.met]
    return 1 if args.check and missed else 0


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
