"""`make eval`: retrieval quality of the hybrid tool search (issues 11 and 17).

Every strategy the engine exposes is run — each value of the `SearchStrategy` literal, crossed
with every other literal-typed field of `SearchSettings` (a fusion or mode added later shows up
without touching this script) — beside two baselines computed in the same run: plain cosine
over the engine's own tool vectors (`ToolSearch.vector`, the same model and embedding template)
and rank_bm25 (`BM25Okapi` over the tool name, its `.` and `_` read as spaces, and the
description; lower-cased `\\w+` tokens, the query's too).

Benchmarks (`--only` picks some), each over catalogs of the shapes people have:

* `bfcl`: the BFCL single-function task (`_bfcl.py` says how it is built) over its catalog
  twice: with parameter schemas (the OpenAI `tools` file, catalog `bfcl`) and without (the
  JSON list: names and descriptions only, the shape of SKILL.md folders and short MCP
  descriptions, catalog `bfcl-noparams`). hit@1/3/10 and MRR@10 of the expected tool, for all
  questions and for each half: `dev` (the questions whose id's SHA-256 starts with an even
  byte, which the weighting was tuned on) and `held-out` (the others, never looked at while
  tuning); hit@1 per BFCL category.
* `suite`: every tool-search scenario suite shipped in `resources/fixtures` (cases whose
  expectation names tool families, `results[:N].tool_name: {any_startswith: […]}`), over its
  catalog (the sample one); a hit is the first tool of an expected family.
* `multi`: BFCL's multi-step requests (`multi_turn`, `parallel_multiple`), each over its own
  catalog, never tuned on: a needed tool at rank 1 (hit@1), MRR@10 of the first needed tool,
  the share of requests with every needed tool in the top 10 (recall-all@10) ranking the whole
  request, and the same with each step's best tool kept (`ToolSearchResult.with_steps`).
* `livemcp`: LiveMCPBench's 525 real MCP tools of 70 servers and 94 annotated tasks
  (`_livemcp.py`), with parameters (MCP `tools/list`) and without (JSON list), never tuned on;
  the multi-step figures, a tool matching any annotated tool name.
* `long` (issue 28): long requests that name several needs, never tuned on — Seal-Tools'
  1,060 multi-need requests over its 4,076 tools (with and without parameter descriptions) and
  MetaTool's 497 two-need queries over its 199 plugins (`_public_sets.py`; committed copies
  with their source and licence); the multi-step figures, and the step merges measured side by
  side by part.
* `nofit` (issue 28): MetaTool's 520 requests its authors label as needing no tool (and over
  BFCL its irrelevance sets) against each catalog's answerable requests (BFCL, LiveMCPBench,
  MetaTool's single-tool queries): the default's verdict (the rule — score and corroboration
  — then the fit model, `write_fit_model.py`) — AUROC of the best score and of the fit model,
  answerable refused, impossible accepted, accepted per source — by catalog and part; and
  for the rule alone, the threshold and corroboration that accept the fewest impossible
  requests with at most 3 % of the answerable refused on the tune parts pooled.
* `irrelevance`: the best score of each strategy on questions no tool answers (BFCL's
  irrelevance and live_irrelevance) against the relevant BFCL questions, over the BFCL
  catalog with and without parameters: medians, AUROC, and false accepts at the thresholds
  that reject 1 %, 5 %, 10 % and 25 % of the relevant questions. The calibrated fit threshold
  (`CALIBRATED_FIT_THRESHOLDS`) is the lower of the two 1 % thresholds.

Each query is embedded once (timed on its own) and its vector handed to every strategy; the
ms/query figures are the `search()` call alone (baselines: scoring and top-k), with
`explain=False` (the per-field explanation is for rows shown, issue 11 §7). Every index is
built once per catalog and cached in `.eval/cache`. Results go to `.eval/toolsearch.json`.

Last, the targets are checked and printed with met / MISSED (`--check`: exit status 1 when one
is missed): the default's BFCL figures (with parameters no lower than before issue 17, without
parameters hit@1 ≥ 0.62 and MRR@10 ≥ 0.72); on every benchmark the default at least as good
as plain cosine and as its fusion's best single signal (keyword only, vector only) in hit@1 and
MRR@10 (and recall-all@10 on multi-step sets); keeping the steps' tools never costing
recall-all@10; `auto` at least as good as the default. Beside each, the paired 95 % interval
of the default's hit@1 difference from plain cosine. Issue 28's: on the held-out part of every
benchmark (every set is split tune / held-out by the SHA-256 of its ids, `_public_sets.part`)
the default at least as good as plain cosine and the canonical pipeline in hit@1, MRR@10 and
complete@10 (every needed tool in the top 10), each difference with its paired 95 % interval;
on each catalog's held-out part of the no-fit set at most 20 % of the impossible requests
accepted and 3 % of the answerable refused.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import json
import math
import re
import sys
import time
import types
import typing
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
from rank_bm25 import BM25Okapi

from routescope import InputError
from routescope._resources import resources_root
from routescope.regress import load_suite
from routescope.regress._tool_eval import expected_families
from routescope.toolsearch import (
    CALIBRATED_FIT_THRESHOLDS,
    Catalog,
    SearchSettings,
    SearchStrategy,
    Signals,
    Step,
    StepResult,
    ToolHit,
    ToolSearch,
    load_catalog,
)
from routescope.toolsearch._embed import Embedder, default_embedder
from routescope.toolsearch._steps import merge_step_tools
from tests.eval import _metrics
from tests.eval._bfcl import SINGLE_SETS, Bfcl, CatalogFiles, Query, describe, load_bfcl
from tests.eval._bfcl_own import IRRELEVANCE_SETS, own_questions, search_own
from tests.eval._livemcp import LiveMcp, load_livemcp, tool_of
from tests.eval._livemcp import describe as describe_livemcp
from tests.eval._public_sets import Public, load_metatool, load_seal, part

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ("bfcl", "suite", "multi", "livemcp", "long", "irrelevance", "nofit", "own")
K = 10
FALSE_REJECT_TARGETS = (0.01, 0.05, 0.10, 0.25)
_WORD = re.compile(r"\w+")
_NAME_SEPARATORS = re.compile(r"[._]")
_GLOSS = {
    "exact": "keyword only",
    "semantic": "vector only",
    "hybrid": "keyword + vector",
    "auto": "chosen per prompt",
}
COSINE = "baseline: plain cosine (same vectors)"
BM25 = "baseline: rank_bm25 (name + description)"
SHAPES = {"bfcl": True, "bfcl-noparams": False}
"""The BFCL single-function catalogs: with parameter schemas or without."""


def half(query_id: str) -> str:
    """`dev` or `held-out`: a fixed split of BFCL's questions by the SHA-256 of their id."""
    return "dev" if hashlib.sha256(query_id.encode()).digest()[0] % 2 == 0 else "held-out"


def split_part(query_id: str) -> str:
    """`tune` or `held-out`, the same split for every set (BFCL's dev half is its tune part)."""
    return part(query_id)


# -- the strategies ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Variant:
    label: str
    values: dict[str, object]
    """The literal-typed settings of this run (strategy, and any fusion or mode)."""
    default: bool
    """The values `SearchSettings()` has."""


def _literal_values(hint: object) -> tuple[object, ...]:
    """The values of a `Literal[…]` type; of `Literal[…] | None`, None too; () for any other
    type."""
    if typing.get_origin(hint) is Literal:
        return typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = typing.get_args(hint)
        values = tuple(v for arg in members for v in _literal_values(arg))
        return (*values, None) if values and type(None) in members else values
    return ()


def variants() -> list[Variant]:
    """Every combination of the literal-typed fields of `SearchSettings`, strategy first."""
    hints = typing.get_type_hints(SearchSettings)
    axes: dict[str, tuple[object, ...]] = {"strategy": typing.get_args(SearchStrategy)}
    for settings_field in dataclasses.fields(SearchSettings):
        choices = _literal_values(hints.get(settings_field.name))
        if settings_field.name != "strategy" and choices:
            axes[settings_field.name] = choices
    defaults = SearchSettings()
    found = []
    for combination in itertools.product(*axes.values()):
        values = dict(zip(axes, combination, strict=True))
        strategy = str(values["strategy"])
        gloss = _GLOSS.get(strategy)
        parts = [f"{strategy} ({gloss})" if gloss else strategy]
        parts += [f"{name}={value}" for name, value in values.items() if name != "strategy"]
        default = all(getattr(defaults, name) == value for name, value in values.items())
        label = " ".join(parts) + (" [default]" if default else "")
        found.append(Variant(label, values, default))
    return found


def settings_for(variant: Variant, extra: dict[str, object]) -> SearchSettings:
    names = {f.name for f in dataclasses.fields(SearchSettings)}
    values: dict[str, Any] = {"k": K, **variant.values}
    if "explain" in names:
        values["explain"] = False
    values.update(extra)
    return SearchSettings(**values)


# -- engines and runs ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Top:
    """The best hit of one search, as a fit verdict may read it."""

    score: float | None
    cosine: float
    vector_share: float
    words: int
    """How many of the query's words the best hit matches (weighted fusion's keyword terms that
    count whole: not in a URL or path, a number or a request phrase)."""
    evidence: float = 0.0
    gap: float = 0.0
    fit: float | None = None
    """The fit model's probability (None: the model did not judge this search — it judges only
    what the rule accepts)."""


def top_of(result: Any) -> Top:
    if not result.results:
        return Top(None, 0.0, 0.0, 0)
    hit = result.results[0]
    signals = hit.signals
    cosine = signals.vector.similarity if signals.vector is not None else 0.0
    keyword = signals.keyword
    terms = keyword.terms if keyword is not None else []
    words = len({t.term for t in terms if not t.note})
    evidence = keyword.evidence or 0.0 if keyword is not None else 0.0
    gap = result.runner_up_gap or 0.0
    fit = result.fit_model.get("probability") if result.fit_model else None
    return Top(hit.score, cosine, signals.shares.get("vector", 0.0), words, evidence, gap, fit)


@dataclasses.dataclass(frozen=True, slots=True)
class StepRanking:
    fits: bool
    ranked: list[tuple[str, float]]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.ranked]


@dataclasses.dataclass(slots=True)
class Run:
    label: str
    rankings: list[list[str]]
    best: list[float | None]
    """The top score per query (None: nothing returned)."""
    ms: list[float]
    used: Counter[str] = dataclasses.field(default_factory=Counter)
    """The strategy each search ran with (`auto` picks one per prompt)."""
    by_steps: list[list[str]] = dataclasses.field(default_factory=list)
    """Multi-step tasks: `ToolSearchResult.with_steps`, the whole-request ranking with the best
    tool of each step that fits kept in it (the ranking itself when the request is one step)."""
    split: int = 0
    """How many requests split into two or more steps."""
    fits: list[bool] = dataclasses.field(default_factory=list)
    """The search's own verdict per query (`ToolSearchResult.fits`)."""
    tops: list[Top] = dataclasses.field(default_factory=list)
    """What the best hit's score is made of, per query (the fit calibration reads it)."""
    step_rankings: list[list[StepRanking]] = dataclasses.field(default_factory=list)
    """Multi-step tasks: per query, each step's verdict and ranking ([] for one step)."""
    scored: list[list[tuple[str, float]]] = dataclasses.field(default_factory=list)
    """Multi-step tasks: per query, the whole request's ranking (before any step merge) with
    each tool's score."""

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(self.rankings).encode()).hexdigest()[:16]


@dataclasses.dataclass(slots=True)
class Engine:
    name: str
    catalog: Catalog
    source: str
    search: ToolSearch
    bm25: BM25Okapi
    names: list[str]
    build_s: float
    embed_ms: list[float] = dataclasses.field(default_factory=list)
    runs: dict[str, dict[str, Run]] = dataclasses.field(default_factory=dict)
    """Task name → label → run, so a task searched by two benchmarks is searched once."""


def _progress(name: str) -> Callable[[int, int], None]:
    def report(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        print(f"\r  embedding the {name} catalog: {done:,}/{total:,}", end=end, file=sys.stderr)

    return report


def load_shape(files: CatalogFiles, parameters: bool) -> tuple[Catalog, str]:
    """A catalog through Routescope's loader: the file with parameter schemas (OpenAI `tools`,
    MCP `tools/list`), or the JSON list without them."""
    if not parameters:
        return load_catalog(files.list_path), f"{files.list_path.name}: no parameters"
    catalog = load_catalog(files.openai_path)
    return catalog, f"{files.openai_path.name}: {catalog.format}, with parameters"


def make_engine(
    name: str, catalog: Catalog, source: str, embedder: Embedder, cache: Path
) -> Engine:
    start = time.perf_counter()
    search = ToolSearch(catalog, embedder=embedder, cache=cache, progress=_progress(name))
    search.ensure_vectors()
    build_s = time.perf_counter() - start
    names = [tool.tool_name for tool in catalog.tools]
    corpus = [
        _bm25_tokens(f"{_NAME_SEPARATORS.sub(' ', t.tool_name)} {t.description}")
        for t in catalog.tools
    ]
    engine = Engine(name, catalog, source, search, BM25Okapi(corpus), names, build_s)
    problems = f", {len(catalog.problems)} skipped by the loader" if catalog.problems else ""
    print(
        f"  catalog {name}: {len(catalog.tools):,} tools from {source}{problems}; index ready "
        f"in {build_s:.1f} s; vectors: {search.semantic_status}",
        file=sys.stderr,
    )
    return engine


def _bm25_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _clock_ms(start: int) -> float:
    return (time.perf_counter_ns() - start) / 1e6


def run_task(
    engine: Engine,
    task: str,
    queries: Sequence[Query],
    settings: list[Variant],
    extra: dict[str, object],
    steps: bool = False,
) -> dict[str, Run]:
    """Every strategy and both baselines over the queries (searched once per engine and task),
    each with its steps as the default searches (`SearchSettings.split_steps`: a fitting step's
    best tool comes right after the top one); `steps`: what the steps found is kept too."""
    if task in engine.runs:
        return engine.runs[task]
    texts = [q.text for q in queries]
    vectors: list[np.ndarray | None] = []
    for text in texts:
        start = time.perf_counter_ns()
        vectors.append(engine.search.embed_query(text))
        engine.embed_ms.append(_clock_ms(start))
    chosen: list[tuple[SearchSettings, Run]] = []
    for variant in settings:
        try:
            search_settings = settings_for(variant, extra)
        except (InputError, TypeError) as exc:  # a combination the settings refuse: reported
            print(f"  skipped {variant.label}: {exc}", file=sys.stderr)
            continue
        chosen.append((search_settings, Run(variant.label, [], [], [])))
    # Query by query, every strategy in turn: a step's vector is embedded once, untimed.
    for text, vector in zip(texts, vectors, strict=True):
        if chosen:  # untimed: embeds the steps' texts, kept for every strategy
            engine.search.search(text, chosen[0][0], query_vector=vector)
        for search_settings, run in chosen:
            start = time.perf_counter_ns()
            result = engine.search.search(text, search_settings, query_vector=vector)
            run.ms.append(_clock_ms(start))
            run.rankings.append([hit.tool_name for hit in result.results])
            if steps:
                run.by_steps.append(result.with_steps)
                run.split += bool(result.steps)
                run.step_rankings.append(
                    [
                        StepRanking(s.fits, [(h.tool_name, h.score) for h in s.results])
                        for s in result.steps
                    ]
                )
                run.scored.append(
                    list(result.whole_request) or [(h.tool_name, h.score) for h in result.results]
                )
            run.fits.append(result.fits)
            run.tops.append(top_of(result))
            run.best.append(result.results[0].score if result.results else None)
            run.used[result.strategy] += 1
    runs = {run.label: run for _, run in chosen}
    index = engine.search.vector
    if index is not None:
        run = Run(COSINE, [], [], [])
        for vector in vectors:
            if vector is None:
                run.rankings.append([])
                run.best.append(None)
                run.ms.append(math.nan)
                continue
            start = time.perf_counter_ns()
            hits = index.search(vector, K)
            run.ms.append(_clock_ms(start))
            run.rankings.append([engine.names[i] for i, _ in hits])
            run.best.append(hits[0][1] if hits else None)
        runs[COSINE] = run
    run = Run(BM25, [], [], [])
    for text in texts:
        start = time.perf_counter_ns()
        scores = engine.bm25.get_scores(_bm25_tokens(text))
        top = np.argsort(-scores, kind="stable")[:K]
        run.ms.append(_clock_ms(start))
        run.rankings.append([engine.names[i] for i in top.tolist()])
        run.best.append(float(scores[top[0]]) if len(top) else None)
    runs[BM25] = run
    engine.runs[task] = runs
    return runs


# -- tables --------------------------------------------------------------------------------------


def _f(value: float | None, digits: int = 3) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], text_columns: int = 1) -> str:
    """A Markdown table: the first `text_columns` left-aligned, the numbers right-aligned."""
    aligns = ["---"] * text_columns + ["---:"] * (len(header) - text_columns)
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(aligns) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _median_ms(run: Run) -> float:
    return _metrics.median([m for m in run.ms if not math.isnan(m)])


def _same_as(runs: dict[str, Run]) -> dict[str, str]:
    """Runs whose rankings equal an earlier run's: label → that run's label."""
    seen: dict[str, str] = {}
    same: dict[str, str] = {}
    for label, run in runs.items():
        key = run.fingerprint
        if key in seen:
            same[label] = seen[key]
        else:
            seen[key] = label
    return same


def _notes(runs: dict[str, Run]) -> list[str]:
    notes = [f"- `{label}` ranks exactly as `{first}`" for label, first in _same_as(runs).items()]
    for label, run in runs.items():
        if len(run.used) > 1:
            used = ", ".join(f"{name} {count:,}" for name, count in run.used.most_common())
            notes.append(f"- `{label}` ran as: {used}")
    return notes


def _ranks(
    run: Run,
    queries: Sequence[Query],
    key: Callable[[str], str] | None = None,
    rankings: list[list[str]] | None = None,
) -> list[int | None]:
    """The rank of the first expected tool in each ranking (`key`: how a catalog name is
    compared with an expected one)."""
    found = []
    for ranking, q in zip(rankings if rankings is not None else run.rankings, queries, strict=True):
        names = [key(n) for n in ranking] if key else ranking
        found.append(_metrics.first_rank(names, q.expected))
    return found


def _figures(ranks: Sequence[int | None]) -> dict[str, float]:
    return {
        "hit@1": _metrics.hit_at(ranks, 1),
        "hit@3": _metrics.hit_at(ranks, 3),
        "hit@10": _metrics.hit_at(ranks, 10),
        "mrr@10": _metrics.mrr_at(ranks, 10),
    }


def _hits_at_1(ranks: Sequence[int | None]) -> list[float]:
    return [1.0 if r == 1 else 0.0 for r in ranks]


RANK_HEADER = ("strategy", "hit@1", "hit@3", "hit@10", "MRR@10", "ms/query median")


# -- benchmarks ----------------------------------------------------------------------------------


@dataclasses.dataclass(slots=True)
class Context:
    args: argparse.Namespace
    root: Path
    settings: list[Variant]
    extra: dict[str, object]
    embedder: Embedder
    bfcl: Bfcl | None = None
    live: LiveMcp | None = None
    engines: dict[str, Engine] = dataclasses.field(default_factory=dict)
    out: dict[str, Any] = dataclasses.field(default_factory=dict)
    scores: dict[str, dict[str, dict[str, float]]] = dataclasses.field(default_factory=dict)
    """Benchmark → strategy label → the metrics the targets compare."""
    hits: dict[str, dict[str, list[float]]] = dataclasses.field(default_factory=dict)
    """Benchmark → strategy label → 1.0 / 0.0 per query: was an expected tool first."""
    thresholds: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    """Fusion → the default strategy's 1 % threshold on each BFCL catalog."""
    per_query: dict[str, tuple[list[str], dict[str, dict[str, list[float]]]]] = dataclasses.field(
        default_factory=dict
    )
    """Benchmark → (each query's part, label → metric → per-query values)."""
    public: dict[str, Public] = dataclasses.field(default_factory=dict)
    nofit: dict[str, Any] = dataclasses.field(default_factory=dict)

    def data(self) -> Bfcl:
        if self.bfcl is None:
            self.bfcl = load_bfcl(self.root)
            print("\n".join(describe(self.bfcl)))
            self.out["bfcl_data"] = {
                "version": self.bfcl.version,
                "wheel": self.bfcl.wheel.name,
                "sha256": self.bfcl.sha256,
                "counts": self.bfcl.counts,
            }
        return self.bfcl

    def livemcp(self) -> LiveMcp:
        if self.live is None:
            self.live = load_livemcp(self.root)
            print("\n".join(describe_livemcp(self.live)))
            self.out["livemcp_data"] = {
                "version": self.live.version,
                "wheel": self.live.wheel.name,
                "sha256": self.live.sha256,
                "counts": self.live.counts,
            }
        return self.live

    def bfcl_engine(self, name: str) -> Engine:
        """`bfcl` and `bfcl-noparams` (the single-function catalog with and without parameter
        schemas), `multi_turn`, `parallel_multiple` (with parameters)."""
        if name not in self.engines:
            files = self.data().catalogs["bfcl" if name in SHAPES else name]
            catalog, source = load_shape(files, SHAPES.get(name, True))
            return self.engine(name, catalog, source)
        return self.engines[name]

    def engine(self, name: str, catalog: Catalog, source: str) -> Engine:
        if name not in self.engines:
            self.engines[name] = make_engine(
                name, catalog, source, self.embedder, self.root / "cache"
            )
        return self.engines[name]

    def queries(self, task: str) -> tuple[Query, ...]:
        return limited(self.data().tasks[task].queries, self.args.limit)

    def keep(
        self,
        benchmark: str,
        runs: dict[str, Run],
        ranks: dict[str, list[int | None]],
        queries: Sequence[Query] = (),
        complete: dict[str, list[float]] | None = None,
    ) -> None:
        """What the targets compare: hit@1 and MRR@10 per strategy, the per-query hits, and
        (with the queries) per query hit@1, reciprocal rank and complete@10 by part."""
        self.scores[benchmark] = {
            label: {"hit@1": _metrics.hit_at(r, 1), "mrr@10": _metrics.mrr_at(r, K)}
            for label, r in ranks.items()
        }
        self.hits[benchmark] = {label: _hits_at_1(r) for label, r in ranks.items()}
        if queries:
            self.per_query[benchmark] = (
                [split_part(q.id) for q in queries],
                {
                    label: {
                        "hit@1": _hits_at_1(r),
                        "mrr@10": [1 / x if x is not None and x <= K else 0.0 for x in r],
                        **({"complete@10": complete[label]} if complete else {}),
                    }
                    for label, r in ranks.items()
                },
            )


def limited(queries: Sequence[Query], limit: int | None) -> tuple[Query, ...]:
    """At most `limit` queries, evenly spread over the set (every category represented)."""
    if limit is None or limit >= len(queries):
        return tuple(queries)
    return tuple(queries[i * len(queries) // limit] for i in range(limit))


def _catalog_names(engine: Engine) -> dict[str, str]:
    return {name.lower(): name for name in engine.names}


def bench_bfcl(ctx: Context) -> None:
    ctx.out["bfcl"] = {}
    for name, parameters in SHAPES.items():
        engine = ctx.bfcl_engine(name)
        queries = ctx.queries("single")
        runs = run_task(engine, "single", queries, ctx.settings, ctx.extra)
        halves = {
            h: [i for i, q in enumerate(queries) if half(q.id) == h] for h in ("dev", "held-out")
        }
        rows, data, ranks = [], [], {}
        for label, run in runs.items():
            found = ranks[label] = _ranks(run, queries)
            figures: dict[str, Any] = {"strategy": label, **_figures(found)}
            for h, members in halves.items():
                figures[h] = _figures([found[i] for i in members])
            figures["ms_per_query_median"] = _median_ms(run)
            figures["ran_as"] = dict(run.used)
            data.append(figures)
            rows.append(
                [
                    label,
                    *(_f(figures[m]) for m in ("hit@1", "hit@3", "hit@10", "mrr@10")),
                    *(_f(figures[h][m]) for h in halves for m in ("hit@1", "mrr@10")),
                    _f(figures["ms_per_query_median"], 2),
                ]
            )
        missing = sum(1 for q in queries if q.expected[0].lower() not in _catalog_names(engine))
        shape = "with parameter schemas" if parameters else "without parameter schemas"
        print(
            f"\n## BFCL single-function task, catalog {shape} (`{name}`): {len(queries):,} "
            f"questions ({len(halves['dev']):,} dev, {len(halves['held-out']):,} held-out), "
            f"{len(engine.names):,} tools ({engine.source})\n"
        )
        header = (
            *RANK_HEADER[:5],
            "dev hit@1",
            "dev MRR@10",
            "held-out hit@1",
            "held-out MRR@10",
            RANK_HEADER[5],
        )
        print(table(header, rows))
        print("\n".join(_notes(runs)))
        if missing:
            print(f"- {missing} expected tools are not in the loaded catalog")
        per_set: dict[str, dict[str, float]] = {}
        sets = [s for s in SINGLE_SETS if any(_set_of(q.id) == s for q in queries)]
        for label, found in ranks.items():
            per_set[label] = {
                s: _metrics.hit_at(
                    [r for r, q in zip(found, queries, strict=True) if _set_of(q.id) == s], 1
                )
                for s in sets
            }
        counts = Counter(_set_of(q.id) for q in queries)
        print(f"\nhit@1 per BFCL category (`{name}`)\n")
        categories = ["strategy", *(f"{s} ({counts[s]:,})" for s in sets)]
        print(
            table(categories, [[label, *(_f(v[s]) for s in sets)] for label, v in per_set.items()])
        )
        ctx.keep(name, runs, ranks, queries)
        ctx.out["bfcl"][name] = {
            "questions": len(queries),
            "halves": {h: len(m) for h, m in halves.items()},
            "tools": len(engine.names),
            "catalog_source": engine.source,
            "rows": data,
            "hit@1_per_category": per_set,
        }


def _set_of(query_id: str) -> str:
    return query_id.rsplit("_", 1)[0]


def tool_suites() -> list[Path]:
    """The scenario suites shipped for the tools router."""
    folder = Path(str(resources_root() / "fixtures"))
    found = []
    for path in sorted(folder.glob("*.yaml")):
        suite = load_suite(path)
        if suite.router == "tools":
            found.append(path)
    return found


def bench_suite(ctx: Context) -> None:
    ctx.out["suite"] = {}
    for path in tool_suites():
        suite = load_suite(path)
        catalog_path = Path(suite.catalog_ref().path)
        engine = ctx.engine(
            f"suite:{catalog_path.name}", load_catalog(catalog_path), str(catalog_path)
        )
        cases = []
        for case in suite.cases:
            families = expected_families(case.expect)
            if families:
                names = tuple(n for n in engine.names if n.startswith(families))
                cases.append(Query(case.id, case.prompt, names))
        runs = run_task(engine, f"suite:{path}", cases, ctx.settings, ctx.extra)
        rows, data, ranks = [], [], {}
        for label, run in runs.items():
            found = ranks[label] = _ranks(run, cases)
            figures: dict[str, Any] = {"strategy": label, **_figures(found)}
            figures["ms_per_query_median"] = _median_ms(run)
            data.append(figures)
            rows.append(
                [
                    label,
                    *(_f(figures[m]) for m in ("hit@1", "hit@3", "hit@10", "mrr@10")),
                    _f(figures["ms_per_query_median"], 2),
                ]
            )
        print(
            f"\n## Scenario suite {path.name} ({suite.suite}): {len(cases)} cases with expected "
            f"tool families, over {catalog_path.name}/ ({len(engine.names)} tools)\n"
        )
        print(table(RANK_HEADER, rows))
        print("\n".join(_notes(runs)))
        ctx.keep(f"suite {path.name}", runs, ranks, cases)
        ctx.out["suite"][path.name] = {
            "cases": len(cases),
            "tools": len(engine.names),
            "rows": data,
        }


def multi_step(
    ctx: Context,
    benchmark: str,
    title: str,
    engine: Engine,
    queries: Sequence[Query],
    key: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """A needed tool first (hit@1), MRR@10 of the first needed tool, recall of every needed
    tool in the top 10 ranking the whole request, and with each fitting step's best tool kept."""
    runs = run_task(engine, benchmark, queries, ctx.settings, ctx.extra, steps=True)
    rows, data, ranks = [], [], {}
    sizes = Counter(len(q.expected) for q in queries)

    def names(ranking: list[str]) -> list[str]:
        return [key(n) for n in ranking] if key else ranking

    for label, run in runs.items():
        found = ranks[label] = _ranks(run, queries, key)
        pairs = [(names(r), q) for r, q in zip(run.rankings, queries, strict=True)]
        figures: dict[str, Any] = {
            "strategy": label,
            "hit@1": _metrics.hit_at(found, 1),
            "mrr@10": _metrics.mrr_at(found, K),
            "recall_all@10": sum(_metrics.recall_all_at(r, q.expected, K) for r, q in pairs)
            / len(pairs),
            "recall@10": sum(_metrics.recall_at(r, q.expected, K) for r, q in pairs) / len(pairs),
            "ms_per_query_median": _median_ms(run),
        }
        if run.by_steps:
            stepped = [(names(r), q) for r, q in zip(run.by_steps, queries, strict=True)]
            figures["split"] = run.split
            figures["recall_all@10_with_steps"] = sum(
                _metrics.recall_all_at(r, q.expected, K) for r, q in stepped
            ) / len(pairs)
        data.append(figures)
        rows.append(
            [
                label,
                _f(figures["hit@1"]),
                _f(figures["mrr@10"]),
                _f(figures["recall_all@10"]),
                _f(figures["recall@10"]),
                f"{run.split:,}" if run.by_steps else "–",
                _f(figures.get("recall_all@10_with_steps")),
                _f(figures["ms_per_query_median"], 2),
            ]
        )
    needed = ", ".join(f"{n} tools: {c}" for n, c in sorted(sizes.items()))
    print(
        f"\n## {title}: {len(queries):,} requests ({needed}), {len(engine.names):,} tools "
        f"({engine.source}): the whole-request ranking, and with each step's best tool kept\n"
    )
    header = (
        "strategy",
        "a needed tool @1",
        "MRR@10",
        "recall-all@10",
        "mean recall@10",
        "requests split",
        "recall-all@10 with steps",
        "ms/query median (with steps)",
    )
    print(table(header, rows))
    print("\n".join(_notes(runs)))
    complete = {
        label: [
            1.0 if _metrics.recall_all_at(names(r), q.expected, K) else 0.0
            for r, q in zip(run.rankings, queries, strict=True)
        ]
        for label, run in runs.items()
    }
    ctx.keep(benchmark, runs, ranks, queries, complete)
    merges = merge_table(ctx, runs, queries, names)
    for figures in data:
        kept = ctx.scores[benchmark][figures["strategy"]]
        kept["recall_all@10"] = figures["recall_all@10"]
        if "recall_all@10_with_steps" in figures:
            kept["recall_all@10_with_steps"] = figures["recall_all@10_with_steps"]
    return {
        "requests": len(queries),
        "tools": len(engine.names),
        "source": engine.source,
        "rows": data,
        "merges": merges,
    }


# -- step rankings merged with the whole request's (issue 28) ------------------------------------


Merge = Callable[[list[tuple[str, float]], list[StepRanking]], list[str]]


def _merge_head(
    whole: list[tuple[str, float]], steps: list[StepRanking], fitting: bool
) -> list[str]:
    """The whole request's best tool, then each step's best (fitting steps only, or all), then
    the rest of the whole request's ranking."""
    names = [n for n, _ in whole]
    out = names[:1]
    for step in steps:
        if step.ranked and (step.fits or not fitting) and step.names[0] not in out:
            out.append(step.names[0])
    out += [name for name in names if name not in out]
    return out[:K]


def _merge_interleave(whole: list[tuple[str, float]], steps: list[StepRanking]) -> list[str]:
    """Round robin: the whole request's first, each fitting step's first, then the seconds …"""
    lists = [[n for n, _ in whole], *(s.names for s in steps if s.fits)]
    out: list[str] = []
    for depth in range(K):
        for ranking in lists:
            if depth < len(ranking) and ranking[depth] not in out:
                out.append(ranking[depth])
    return out[:K]


def _merge_tail(whole: list[tuple[str, float]], steps: list[StepRanking]) -> list[str]:
    """Each fitting step's best kept in the last places (`keep_step_tools` before issue 28)."""
    names = [n for n, _ in whole][:K]
    wanted = list(dict.fromkeys(s.names[0] for s in steps if s.fits and s.ranked))
    for name in [n for n in wanted if n not in names]:
        free = [i for i, held in enumerate(names) if held not in wanted]
        if len(names) < K:
            names.append(name)
        elif free:
            del names[free[-1]]
            names.append(name)
    return names


def _merge_score(
    whole: list[tuple[str, float]], steps: list[StepRanking], bests: bool
) -> list[str]:
    """Every list's tools at their best score in any list (`bests`: of each fitting step only
    its best tool joins)."""
    best: dict[str, float] = {}
    lists = [whole, *((s.ranked[:1] if bests else s.ranked) for s in steps if s.fits)]
    for ranked in lists:
        for name, score in ranked:
            best[name] = max(score, best.get(name, -math.inf))
    return [n for n, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))][:K]


def _merge_score_head(whole: list[tuple[str, float]], steps: list[StepRanking]) -> list[str]:
    """The best-scoring of the whole request's first and each fitting step's best first, the
    other steps' bests by score after it, then the whole request's ranking."""
    heads = [whole[0]] if whole else []
    heads += [s.ranked[0] for s in steps if s.fits and s.ranked]
    best: dict[str, float] = {}
    for name, score in heads:
        best[name] = max(score, best.get(name, -math.inf))
    out = [n for n, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))]
    out += [n for n, _ in whole if n not in out]
    return out[:K]


def _merge_multi_need(whole: list[tuple[str, float]], steps: list[StepRanking]) -> list[str]:
    """`merge_step_tools` as the weighted fusion runs it: from `MULTI_NEED_STEPS` steps a
    step's best may lead, then the whole request's and the steps' rankings take turns."""
    blank = Signals(None, None, [], 0.0, {}, [], 0.0)

    def hits(ranked: list[tuple[str, float]]) -> list[ToolHit]:
        return [ToolHit(r, n, "", s, blank) for r, (n, s) in enumerate(ranked, start=1)]

    results = [StepResult(Step("", 0, 0, "", None), hits(s.ranked), s.fits, "") for s in steps]
    merged = merge_step_tools(hits(whole), results, K, multi_need=True).hits
    return [hit.tool_name for hit in merged]


MERGES: dict[str, Merge] = {
    "the whole request's ranking": lambda whole, steps: [n for n, _ in whole][:K],
    "steps' best in the last places (before)": _merge_tail,
    "head: top 1, each fitting step's best, the rest": lambda w, s: _merge_head(w, s, True),
    "head: top 1, every step's best, the rest": lambda w, s: _merge_head(w, s, False),
    "head by score: the top 1 and fitting steps' bests by score, the rest": _merge_score_head,
    "round robin over the fitting steps": _merge_interleave,
    "by score: every fitting step's ranking": lambda w, s: _merge_score(w, s, False),
    "by score: each fitting step's best": lambda w, s: _merge_score(w, s, True),
    "several needs: a step's best may lead, then turns (the weighted fusion's)": (
        _merge_multi_need
    ),
}


def merge_table(
    ctx: Context,
    runs: dict[str, Run],
    queries: Sequence[Query],
    names: Callable[[list[str]], list[str]],
) -> dict[str, Any]:
    """The default's ranking and its step rankings merged in other ways, by part: what the step
    merge was chosen by (on the tune parts)."""
    default = next((v.label for v in ctx.settings if v.default), None)
    run = runs.get(default) if default else None
    if run is None or not run.step_rankings:
        return {}
    parts = [split_part(q.id) for q in queries]
    found: dict[str, Any] = {}
    rows = []
    for merge, function in MERGES.items():
        figures: dict[str, Any] = {}
        for which in ("tune", "held-out"):
            ranks, done = [], []
            for whole, steps, q, p in zip(
                run.scored, run.step_rankings, queries, parts, strict=True
            ):
                if p != which:
                    continue
                ranking = names(function(whole, steps))
                ranks.append(_metrics.first_rank(ranking, q.expected))
                done.append(_metrics.recall_all_at(ranking, q.expected, K))
            figures[which] = {
                "hit@1": _metrics.hit_at(ranks, 1),
                "mrr@10": _metrics.mrr_at(ranks, K),
                "complete@10": sum(done) / len(done) if done else math.nan,
            }
        found[merge] = figures
        rows.append([merge, *(_f(figures[w][m]) for w in ("tune", "held-out") for m in figures[w])])
    print(f"\nStep rankings merged with the default's (`{default}`), by part\n")
    header = [
        "merge",
        *(f"{w} {m}" for w in ("tune", "held-out") for m in found[next(iter(found))]["tune"]),
    ]
    print(table(header, rows))
    return found


def bench_multi(ctx: Context) -> None:
    ctx.out["multi"] = {}
    for task in ("multi_turn", "parallel_multiple"):
        engine = ctx.bfcl_engine(ctx.data().tasks[task].catalog)
        title = f"Multi-step requests: {task}, over its own catalog"
        ctx.out["multi"][task] = multi_step(ctx, task, title, engine, ctx.queries(task))


def bench_livemcp(ctx: Context) -> None:
    data = ctx.livemcp()
    queries = limited(data.task.queries, ctx.args.limit)
    ctx.out["livemcp"] = {}
    for name, parameters in (("livemcp", True), ("livemcp-noparams", False)):
        catalog, source = load_shape(data.catalog, parameters)
        engine = ctx.engine(name, catalog, source)
        shape = "with parameter schemas" if parameters else "without parameter schemas"
        title = f"LiveMCPBench (real MCP tools, never tuned on), catalog {shape} (`{name}`)"
        ctx.out["livemcp"][name] = multi_step(ctx, name, title, engine, queries, tool_of)


def public_set(ctx: Context, name: str) -> Public:
    if name not in ctx.public:
        loaded = load_seal(ctx.root) if name == "seal" else load_metatool(ctx.root)
        ctx.public[name] = loaded
        sizes = ", ".join(f"{t} {len(task.queries):,}" for t, task in loaded.tasks.items())
        print(f"{name}: {loaded.catalog.tools:,} tools; {sizes} ({loaded.source})")
        ctx.out.setdefault("public_sets", {})[name] = {
            "source": loaded.source,
            "tools": loaded.catalog.tools,
            "tasks": {t: len(task.queries) for t, task in loaded.tasks.items()},
        }
    return ctx.public[name]


def public_engine(ctx: Context, name: str, parameters: bool) -> Engine:
    data = public_set(ctx, name)
    label = name if parameters else f"{name}-noparams"
    if label not in ctx.engines:
        catalog, source = load_shape(data.catalog, parameters)
        return ctx.engine(label, catalog, source)
    return ctx.engines[label]


def bench_long(ctx: Context) -> None:
    """Long requests that name several needs (issue 28): Seal-Tools' multi-need requests over its
    4,076 tools (with and without parameter descriptions), MetaTool's two-need queries over its
    199 plugins (names and descriptions only): a second data shape."""
    ctx.out["long"] = {}
    for name, parameters, task in (
        ("seal", True, "seal"),
        ("seal", False, "seal"),
        ("metatool", False, "multi_tool"),
    ):
        engine = public_engine(ctx, name, parameters)
        queries = limited(public_set(ctx, name).tasks[task].queries, ctx.args.limit)
        shape = "with parameter descriptions" if parameters else "names and descriptions only"
        title = (
            f"Long multi-need requests: {name} {task}, {shape} (`{engine.name}`), never tuned on"
        )
        ctx.out["long"][engine.name] = multi_step(ctx, engine.name, title, engine, queries)


def bench_irrelevance(ctx: Context) -> None:
    ctx.out["irrelevance"] = {}
    for name in SHAPES:
        ctx.out["irrelevance"][name] = _irrelevance(ctx, name)
    print(
        "\nCalibrated fit threshold (1 % of the relevant questions below it; the lower of the two "
        "catalogs')\n"
    )
    rows = []
    for fusion, values in ctx.thresholds.items():
        chosen = min(values)
        rows.append(
            [
                fusion,
                ", ".join(_f(v, 4) for v in values),
                _f(chosen, 3),
                _f(CALIBRATED_FIT_THRESHOLDS.get(fusion), 3),
            ]
        )
        ctx.out.setdefault("calibration", {})[fusion] = {"per_catalog": values, "threshold": chosen}
    print(
        table(
            ("fusion", "with / without parameters", "calibrated", "CALIBRATED_FIT_THRESHOLDS"), rows
        )
    )


def _irrelevance(ctx: Context, name: str) -> dict[str, Any]:
    engine = ctx.bfcl_engine(name)
    relevant = ctx.queries("single")
    relevant_runs = run_task(engine, "single", relevant, ctx.settings, ctx.extra)
    sets = [s for s in ("irrelevance", "live_irrelevance") if s in ctx.data().tasks]
    others = {s: run_task(engine, s, ctx.queries(s), ctx.settings, ctx.extra) for s in sets}
    sizes = ", ".join(f"{s} {len(ctx.queries(s)):,}" for s in sets)
    print(
        f"\n## No tool fits (`{name}`): best score on questions no tool answers ({sizes}) "
        f"against the {len(relevant):,} relevant BFCL questions\n"
    )
    rows, thresholds_rows, data = [], [], {}
    for label, run in relevant_runs.items():
        scores = {s: others[s][label].best for s in sets if label in others[s]}
        present = [v for v in run.best if v is not None]
        figures: dict[str, Any] = {
            "relevant_median": _metrics.median(present),
            **{
                f"{s}_median": _metrics.median([v for v in b if v is not None])
                for s, b in scores.items()
            },
            **{f"auroc_{s}": _metrics.auroc(run.best, b) for s, b in scores.items()},
            "thresholds": [],
            "best_scores": {
                "relevant": [_round(v) for v in run.best],
                **{s: [_round(v) for v in b] for s, b in scores.items()},
            },
        }
        rows.append(
            [
                label,
                _f(figures["relevant_median"], 4),
                *(_f(figures[f"{s}_median"], 4) for s in scores),
                *(_f(figures[f"auroc_{s}"]) for s in scores),
            ]
        )
        for target in FALSE_REJECT_TARGETS:
            threshold = _metrics.quantile(present, target) if present else math.nan
            rejected = sum(1 for v in run.best if v is None or v < threshold) / len(run.best)
            accepts = {s: _metrics.false_accept(b, threshold) for s, b in scores.items()}
            figures["thresholds"].append(
                {"threshold": threshold, "false_reject": rejected, "false_accept": accepts}
            )
            thresholds_rows.append(
                [label, _f(threshold, 4), _f(rejected), *(_f(accepts[s]) for s in scores)]
            )
        data[label] = figures
    for fusion in ("weighted", "canonical"):
        default = _with_defaults(ctx.settings, "auto", fusion=fusion)
        if default is not None and default.label in data and data[default.label]["thresholds"]:
            ctx.thresholds.setdefault(fusion, []).append(
                data[default.label]["thresholds"][0]["threshold"]
            )
    header = [
        "strategy",
        "relevant median",
        *(f"{s} median" for s in sets),
        *(f"AUROC vs {s}" for s in sets),
    ]
    print(table(header, rows))
    print(
        "\nFalse accepts at thresholds set to reject 1 %, 5 %, 10 % and 25 % of the relevant "
        "questions (the score accepted is ≥ threshold)\n"
    )
    header = ["strategy", "threshold", "false reject", *(f"false accept {s}" for s in sets)]
    print(table(header, thresholds_rows))
    default_label = next((v.label for v in ctx.settings if v.default), None)
    for label in [x for x in (default_label, COSINE) if x]:
        if not sets or label not in others[sets[0]]:
            continue
        run = others[sets[0]][label]
        worst = sorted(((v, i) for i, v in enumerate(run.best) if v is not None), reverse=True)[:5]
        print(f"\nThe {sets[0]} questions `{label}` is most confident about (possibly answerable):")
        queries = ctx.queries(sets[0])
        for score, i in worst:
            top = run.rankings[i][0] if run.rankings[i] else "–"
            print(f"- {score:.4f} → {top}: {queries[i].text[:100]!r}")
    return data


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


# -- no tool fits: the verdict, calibrated (issue 28) -------------------------------------------

NOFIT_REFUSED = 0.03
"""At most this share of the answerable requests refused (on the tune parts)."""
NOFIT_ACCEPTED = 0.20
"""The target: at most this share of the impossible requests accepted (held-out)."""


def _nofit_pairs(ctx: Context) -> list[tuple[str, Engine, list[Query], list[Query]]]:
    """(catalog, engine, answerable requests, impossible requests): MetaTool's no-tool requests
    over every catalog, beside BFCL's irrelevance sets over BFCL's."""
    meta = public_set(ctx, "metatool")
    impossible = list(limited(meta.tasks["no_tool"].queries, ctx.args.limit))
    pairs = []
    for name in SHAPES:
        extra = [q for s in ("irrelevance", "live_irrelevance") for q in ctx.queries(s)]
        pairs.append((name, ctx.bfcl_engine(name), list(ctx.queries("single")), impossible + extra))
    live = ctx.livemcp()
    for name, parameters in (("livemcp", True), ("livemcp-noparams", False)):
        catalog, source = load_shape(live.catalog, parameters)
        engine = ctx.engine(name, catalog, source)
        pairs.append((name, engine, list(limited(live.task.queries, ctx.args.limit)), impossible))
    engine = public_engine(ctx, "metatool", False)
    answerable = list(limited(meta.tasks["single_tool"].queries, ctx.args.limit))
    pairs.append(("metatool", engine, answerable, impossible))
    return pairs


def nofit_sources(ctx: Context) -> dict[str, str]:
    """The set each no-fit request comes from, by id (`bfcl irrelevance`, `metatool no_tool`,
    …; LiveMCPBench's tasks are not listed)."""
    found = {}
    for task in ("single", "irrelevance", "live_irrelevance"):
        for query in ctx.data().tasks[task].queries:
            found[query.id] = f"bfcl {task}"
    meta = public_set(ctx, "metatool")
    for task in ("no_tool", "single_tool"):
        for query in meta.tasks[task].queries:
            found[query.id] = f"metatool {task}"
    return found


def _verdict(top: Top, threshold: float, vector_share: float | None) -> bool:
    """Whether a best hit fits: its score against the threshold and, unless `vector_share` is
    None, corroborated by two matched words or a vector share at least that."""
    if top.score is None or top.score < threshold:
        return False
    return vector_share is None or top.words >= 2 or top.vector_share >= vector_share


def _rates(
    tops: Sequence[Top], impossible: Sequence[bool], threshold: float, share: float | None
) -> tuple[float, float]:
    """(answerable refused, impossible accepted)."""
    refused = [
        not _verdict(t, threshold, share) for t, i in zip(tops, impossible, strict=True) if not i
    ]
    accepted = [_verdict(t, threshold, share) for t, i in zip(tops, impossible, strict=True) if i]
    return (
        sum(refused) / len(refused) if refused else math.nan,
        sum(accepted) / len(accepted) if accepted else math.nan,
    )


def bench_nofit(ctx: Context) -> None:
    """Requests no catalog serves (MetaTool's no-tool requests; BFCL's irrelevance sets over
    BFCL's catalog) against each catalog's answerable requests: the AUROC of the best score and
    the verdict's two error rates by part; then the corroboration and threshold chosen on the
    tune parts (all catalogs pooled): the fewest impossible requests accepted with at most
    `NOFIT_REFUSED` of the answerable refused."""
    default = next((v for v in ctx.settings if v.default), None)
    if default is None:
        return
    pooled: list[tuple[Top, bool]] = []
    found: dict[str, Any] = {}
    rows = []
    sources = nofit_sources(ctx)
    observed: list[tuple[str, list[Top], list[bool], list[bool], list[str]]] = []
    for name, engine, answerable, impossible in _nofit_pairs(ctx):
        task = "single" if name in SHAPES else ("single_tool" if name == "metatool" else name)
        good = run_task(engine, task, answerable, ctx.settings, ctx.extra)[default.label]
        bad = run_task(engine, "nofit", impossible, ctx.settings, ctx.extra)[default.label]
        tops = good.tops + bad.tops
        fits = good.fits + bad.fits
        flags = [False] * len(good.tops) + [True] * len(bad.tops)
        queries = (*answerable, *impossible)
        parts = [split_part(q.id) for q in queries]
        observed.append((name, tops, flags, fits, parts))
        pooled += [(t, f) for t, f, p in zip(tops, flags, parts, strict=True) if p == "tune"]
        for which in ("tune", "held-out"):
            chosen = [i for i, p in enumerate(parts) if p == which]
            rel = [tops[i].score for i in chosen if not flags[i]]
            irr = [tops[i].score for i in chosen if flags[i]]
            judged = [i for i in chosen if tops[i].fit is not None]
            refused = [not fits[i] for i in chosen if not flags[i]]
            accepted = [fits[i] for i in chosen if flags[i]]
            by_source: dict[str, list[bool]] = {}
            for i in chosen:
                if flags[i]:
                    by_source.setdefault(sources.get(queries[i].id, "?"), []).append(fits[i])
            figures = {
                "answerable": len(rel),
                "impossible": len(irr),
                "auroc": _metrics.auroc(rel, irr),
                "auroc_fit": _metrics.auroc(
                    [tops[i].fit for i in judged if not flags[i]],
                    [tops[i].fit for i in judged if flags[i]],
                ),
                "refused": sum(refused) / len(refused) if refused else math.nan,
                "accepted": sum(accepted) / len(accepted) if accepted else math.nan,
                "accepted_by_source": {k: sum(v) / len(v) for k, v in by_source.items()},
            }
            found.setdefault(name, {})[which] = figures
            rows.append(
                [
                    name,
                    which,
                    f"{len(rel):,} / {len(irr):,}",
                    _f(figures["auroc"]),
                    _f(figures["auroc_fit"]),
                    _f(figures["refused"]),
                    _f(figures["accepted"]),
                    "; ".join(f"{k} {_f(v)}" for k, v in figures["accepted_by_source"].items()),
                ]
            )
    print(
        f"\n## No tool fits: the default's verdict (`{default.label}`) on answerable requests "
        "and on requests no catalog serves (MetaTool's no-tool requests; over BFCL also its "
        "irrelevance sets)\n"
    )
    header = (
        "catalog",
        "part",
        "answerable / impossible",
        "AUROC of the score",
        "AUROC of the fit model (where the rule accepts)",
        "answerable refused",
        "impossible accepted",
        "accepted by source",
    )
    print(table(header, rows, text_columns=2))
    tops = [t for t, _ in pooled]
    flags = [f for _, f in pooled]
    grid = []
    for share in (None, 0.10, 0.125, 0.15, 0.175, 0.20, 0.225, 0.25):
        for step in range(10, 46):
            threshold = step / 100
            refused, accepted = _rates(tops, flags, threshold, share)
            grid.append((share, threshold, refused, accepted))
    best: dict[float | None, tuple[float, float, float]] = {}
    for share, threshold, refused, accepted in grid:
        if refused <= NOFIT_REFUSED and (share not in best or accepted < best[share][2]):
            best[share] = (threshold, refused, accepted)
    print(
        f"\nThe rule before the fit model, on the tune parts, all catalogs pooled "
        f"({flags.count(False):,} answerable, {flags.count(True):,} impossible): per "
        "corroboration rule, the threshold that accepts the fewest impossible requests with at "
        f"most {NOFIT_REFUSED:.0%} of the answerable refused (the model's threshold is chosen by "
        "tests/eval/write_fit_model.py, each catalog within it)\n"
    )
    calib_rows = []
    for share, (threshold, refused, accepted) in best.items():
        rule = "score alone" if share is None else f"two words or vector share ≥ {share:g}"
        calib_rows.append([rule, _f(threshold, 2), _f(refused), _f(accepted)])
        found.setdefault("calibration", []).append(
            {
                "vector_share": share,
                "threshold": threshold,
                "refused": refused,
                "accepted": accepted,
            }
        )
    print(table(("rule", "threshold", "answerable refused", "impossible accepted"), calib_rows))
    ctx.out["nofit"] = found
    ctx.nofit = found


def bench_own(ctx: Context) -> None:
    """BFCL's relevance detection as BFCL defines it (`_bfcl_own`): each irrelevance and each
    single-function question against its own functions (with their parameter schemas), the
    default's verdict by part, beside the whole catalog's (an upper bound: there, other
    questions' functions answer some irrelevance questions)."""
    default = next((v for v in ctx.settings if v.default), None)
    if default is None:
        return
    questions = list(limited(own_questions(ctx.data()), ctx.args.limit))
    settings = settings_for(default, ctx.extra)
    found = [
        (q, top_of(result), result.fits)
        for q, result in search_own(
            questions, True, ctx.embedder, settings, _progress("own functions")
        )
    ]
    rows, figures_by_part = [], {}
    for which in ("tune", "held-out"):
        mine = [(q, t, f) for q, t, f in found if split_part(q.id) == which]
        good = [(t, f) for q, t, f in mine if not q.impossible]
        bad = [(t, f) for q, t, f in mine if q.impossible]
        figures = {
            "answerable": len(good),
            "impossible": len(bad),
            "auroc": _metrics.auroc([t.score for t, _ in good], [t.score for t, _ in bad]),
            "refused": sum(not f for _, f in good) / len(good) if good else math.nan,
            "accepted": sum(f for _, f in bad) / len(bad) if bad else math.nan,
        }
        for source in IRRELEVANCE_SETS:
            of = [f for q, _, f in mine if q.source == source]
            figures[f"accepted_{source}"] = sum(of) / len(of) if of else math.nan
        figures_by_part[which] = figures
        rows.append(
            [
                which,
                f"{len(good):,} / {len(bad):,}",
                _f(figures["auroc"]),
                _f(figures["refused"]),
                _f(figures["accepted"]),
                *(_f(figures[f"accepted_{s}"]) for s in IRRELEVANCE_SETS),
            ]
        )
    print(
        f"\n## No tool fits, BFCL as BFCL defines it: each question against its own functions "
        f"(with parameter schemas), the default's verdict (`{default.label}`)\n"
    )
    header = (
        "part",
        "answerable / impossible",
        "AUROC",
        "answerable refused",
        "impossible accepted",
        *(f"accepted of {s}" for s in IRRELEVANCE_SETS),
    )
    print(table(header, rows))
    ctx.out["own"] = figures_by_part
    ctx.nofit["bfcl own functions"] = figures_by_part


# -- targets (issues 11 and 17) -----------------------------------------------------------------

BFCL_TARGETS = {
    "bfcl": {"hit@1": 0.7137, "mrr@10": 0.767},
    "bfcl-noparams": {"hit@1": 0.6414, "mrr@10": 0.72},
}
"""The default strategy on the BFCL single-function task: hit@1 no lower than after issue 17
(1,471 and 1,322 of the 2,061 questions: 0.7137 with parameters, 0.6414 without; issue 28),
MRR@10 issue 17's targets."""
HELD_OUT_METRICS = ("hit@1", "mrr@10", "complete@10")
SINGLE_SIGNALS = ("exact", "semantic")


def _with_defaults(settings: list[Variant], strategy: str, **fixed: object) -> Variant | None:
    """The run of `strategy` with every other literal setting at its default (or `fixed`)."""
    defaults = SearchSettings()
    for variant in settings:
        if (
            variant.values["strategy"] == strategy
            and all(variant.values.get(name) == value for name, value in fixed.items())
            and all(
                getattr(defaults, name) == value
                for name, value in variant.values.items()
                if name != "strategy" and name not in fixed
            )
        ):
            return variant
    return None


def _check(benchmark: str, metric: str, value: float, against: str, other: float) -> dict[str, Any]:
    return {
        "benchmark": benchmark,
        "metric": metric,
        "default": value,
        "against": against,
        "value": other,
        "ok": value >= other - 1e-12,
    }


def held_out_checks(ctx: Context, default: Variant) -> list[dict[str, Any]]:
    """On each benchmark's held-out part: the default against plain cosine and the canonical
    pipeline (the better of canonical `auto` and canonical hybrid) in hit@1, MRR@10 and
    complete@10, each difference with its paired 95 % interval (issue 28)."""
    canonical = [
        v.label
        for s in ("auto", "hybrid")
        if (v := _with_defaults(ctx.settings, s, fusion="canonical")) is not None
    ]
    checks: list[dict[str, Any]] = []
    rows = []
    for benchmark, (parts, by_label) in ctx.per_query.items():
        mine = by_label.get(default.label)
        if mine is None:
            continue
        held = [i for i, p in enumerate(parts) if p == "held-out"]
        if not held:
            continue
        for metric in HELD_OUT_METRICS:
            if metric not in mine:
                continue
            values = [mine[metric][i] for i in held]
            others = [(COSINE, COSINE)] if COSINE in by_label else []
            present = [c for c in canonical if c in by_label]
            if present:
                best = max(present, key=lambda c: sum(by_label[c][metric][i] for i in held))
                others.append(("canonical pipeline", best))
            for name, label in others:
                theirs = [by_label[label][metric][i] for i in held]
                diff, low, high = _metrics.paired_interval(values, theirs)
                check = _check(
                    f"{benchmark} held-out ({len(held):,})",
                    metric,
                    sum(values) / len(values),
                    name if name == COSINE else f"{name}: {label}",
                    sum(theirs) / len(theirs),
                )
                check["interval"] = [diff, low, high]
                checks.append(check)
                rows.append(
                    [
                        benchmark,
                        metric,
                        "plain cosine" if name == COSINE else f"canonical ({label.split()[0]})",
                        _f(check["default"]),
                        _f(check["value"]),
                        f"{diff:+.3f} ({low:+.3f} … {high:+.3f})",
                        "met" if check["ok"] else "**MISSED**",
                    ]
                )
    print(
        f"\n## Held-out parts: the default (`{default.label}`) against plain cosine and the "
        "canonical pipeline, with the paired 95 % interval of the difference\n"
    )
    header = ("benchmark", "metric", "against", "default", "theirs", "difference (95 %)", "met")
    print(table(header, rows, text_columns=3))
    ctx.out["held_out"] = [c for c in checks]
    return checks


def nofit_checks(ctx: Context) -> list[dict[str, Any]]:
    """On each catalog's held-out part: at most `NOFIT_ACCEPTED` of the impossible requests
    accepted and at most `NOFIT_REFUSED` of the answerable refused."""
    checks = []
    for name, parts in ctx.nofit.items():
        held = parts.get("held-out") if isinstance(parts, dict) else None
        if not held:
            continue
        for metric, limit in (("accepted", NOFIT_ACCEPTED), ("refused", NOFIT_REFUSED)):
            value = held[metric]
            checks.append(
                {
                    "benchmark": f"no-fit {name} held-out",
                    "metric": "impossible accepted"
                    if metric == "accepted"
                    else "answerable refused",
                    "default": value,
                    "against": f"at most {limit:.0%}",
                    "value": limit,
                    "ok": value <= limit + 1e-12,
                }
            )
    if checks:
        print("\n## No tool fits, held-out parts: the targets\n")
        met = {True: "met", False: "**MISSED**"}
        rows = [
            [c["benchmark"], c["metric"], _f(c["default"]), c["against"], met[c["ok"]]]
            for c in checks
        ]
        print(table(("catalog", "share", "value", "target", "met"), rows, text_columns=5))
    return checks


def report_targets(ctx: Context) -> list[dict[str, Any]]:
    """The targets: the default's BFCL figures; on every benchmark the default at least as good
    as plain cosine and as its fusion's best single signal (keyword only, vector only); keeping
    the steps' tools never costing recall; `auto` at least as good as the default."""
    default = next((v for v in ctx.settings if v.default), None)
    if default is None or not ctx.scores:
        return []
    fusion = default.values.get("fusion")
    singles = [
        v.label
        for s in SINGLE_SIGNALS
        if (v := _with_defaults(ctx.settings, s, **({"fusion": fusion} if fusion else {})))
    ]
    auto = _with_defaults(ctx.settings, "auto")
    checks: list[dict[str, Any]] = []
    for benchmark, targets in BFCL_TARGETS.items():
        rows = ctx.scores.get(benchmark, {})
        if default.label in rows:
            for metric, target in targets.items():
                checks.append(
                    _check(
                        benchmark, metric, rows[default.label][metric], f"target {target}", target
                    )
                )
    for benchmark, rows in ctx.scores.items():
        if default.label not in rows:
            continue
        mine = rows[default.label]
        for metric in ("hit@1", "mrr@10", "recall_all@10"):
            if metric not in mine:
                continue
            if COSINE in rows:
                checks.append(_check(benchmark, metric, mine[metric], COSINE, rows[COSINE][metric]))
            present = [label for label in singles if label in rows]
            if present:
                best = max(present, key=lambda label: rows[label][metric])
                checks.append(
                    _check(
                        benchmark,
                        metric,
                        mine[metric],
                        f"best single signal: {best}",
                        rows[best][metric],
                    )
                )
        if "recall_all@10_with_steps" in mine:
            checks.append(
                _check(
                    benchmark,
                    "recall_all@10_with_steps",
                    mine["recall_all@10_with_steps"],
                    "the whole-request ranking alone",
                    mine["recall_all@10"],
                )
            )
        if auto is not None and auto.label != default.label and auto.label in rows:
            for metric in ("hit@1", "mrr@10"):
                check = _check(
                    benchmark,
                    metric,
                    rows[auto.label][metric],
                    f"auto ≥ default: {auto.label}",
                    mine[metric],
                )
                check["default"], check["value"] = mine[metric], rows[auto.label][metric]
                checks.append(check)
    print(f"\n## Targets (default strategy: {default.label})\n")
    print(
        table(
            ("benchmark", "metric", "default", "compared with", "value", "met"),
            [
                [
                    c["benchmark"],
                    c["metric"],
                    _f(c["default"]),
                    c["against"],
                    _f(c["value"]),
                    "met" if c["ok"] else "**MISSED**",
                ]
                for c in checks
            ],
            text_columns=6,
        )
    )
    checks += held_out_checks(ctx, default)
    checks += nofit_checks(ctx)
    print(f"\nDefault minus plain cosine, hit@1, with its paired 95 % interval ({default.label})\n")
    rows_ci = []
    for benchmark, hits in ctx.hits.items():
        if default.label in hits and COSINE in hits:
            diff, low, high = _metrics.paired_interval(hits[default.label], hits[COSINE])
            ctx.out.setdefault("paired_hit@1_vs_cosine", {})[benchmark] = [diff, low, high]
            rows_ci.append([benchmark, f"{diff:+.3f}", f"{low:+.3f} … {high:+.3f}"])
    print(table(("benchmark", "hit@1 difference", "95 % interval"), rows_ci))
    return checks


# -- main ----------------------------------------------------------------------------------------


def _extra(pairs: list[str]) -> dict[str, object]:
    values: dict[str, object] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise SystemExit(f"--set {pair!r}: expected NAME=VALUE")
        try:
            values[name] = json.loads(text)
        except json.JSONDecodeError:
            values[name] = text
    return values


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--limit", type=int, help="at most N queries per set, evenly spread")
    parser.add_argument(
        "--only", default=",".join(BENCHMARKS), help=f"comma-separated, of {','.join(BENCHMARKS)}"
    )
    parser.add_argument("--json", default=str(ROOT / ".eval" / "toolsearch.json"), help="results")
    parser.add_argument("--root", default=str(ROOT / ".eval"), help="wheels, built tasks, caches")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a SearchSettings value for every run (JSON, else text)",
    )
    parser.add_argument(
        "--check", action="store_true", help="exit with status 1 when a target is not met"
    )
    args = parser.parse_args(argv)
    only = [b.strip() for b in args.only.split(",") if b.strip()]
    unknown = sorted(set(only) - set(BENCHMARKS))
    if unknown or not only:
        parser.error(f"--only: unknown {', '.join(unknown) or '(empty)'}; choose from {BENCHMARKS}")
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    args.only = only
    return args


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    started = time.perf_counter()
    args = parse_args(argv)
    _metrics.self_check()
    settings = variants()
    extra = _extra(args.set)
    embedder = default_embedder()
    ctx = Context(args, Path(args.root), settings, extra, embedder)
    ctx.out.update(
        {
            "model": embedder.model_id,
            "limit": args.limit,
            "variants": [
                {"label": v.label, "values": v.values, "default": v.default} for v in settings
            ],
            "extra_settings": extra,
            "numpy": np.__version__,
            "formula": SearchSettings().formula(),
        }
    )
    print(
        f"# Tool search eval (model {embedder.model_id}; k = {K}; limit {args.limit or 'none'})\n"
    )
    print(f"Default fusion: {SearchSettings().formula()}\n")
    timings: dict[str, float] = {}
    for name, bench in (
        ("bfcl", bench_bfcl),
        ("suite", bench_suite),
        ("multi", bench_multi),
        ("livemcp", bench_livemcp),
        ("long", bench_long),
        ("irrelevance", bench_irrelevance),
        ("nofit", bench_nofit),
        ("own", bench_own),
    ):
        if name in args.only:
            start = time.perf_counter()
            bench(ctx)
            timings[name] = round(time.perf_counter() - start, 1)
    checks = report_targets(ctx)
    ctx.out["targets"] = checks
    embed = [m for e in ctx.engines.values() for m in e.embed_ms]
    ctx.out["engines"] = {
        name: {"tools": len(e.names), "source": e.source, "index_ready_s": round(e.build_s, 2)}
        for name, e in ctx.engines.items()
    }
    ctx.out["query_embedding_ms_median"] = _metrics.median(embed)
    ctx.out["benchmark_s"] = timings
    ctx.out["runtime_s"] = round(time.perf_counter() - started, 1)
    print(
        f"\nquery embedding {_f(_metrics.median(embed), 2)} ms median over {len(embed):,} queries "
        "(not in ms/query); benchmark seconds: "
        + ", ".join(f"{k} {v}" for k, v in timings.items())
        + f"; total {ctx.out['runtime_s']} s"
    )
    missed = [c for c in checks if not c["ok"]]
    print(f"targets: {len(checks) - len(missed)} met, {len(missed)} MISSED")
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_finite(ctx.out), indent=1, default=_json_default, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")
    print(f"written: {path}")
    if args.check and missed:
        raise SystemExit(f"{len(missed)} target(s) not met")
    return ctx.out


def _finite(value: object) -> object:
    """The results with every NaN or infinity as null (strict JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def _json_default(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON: {type(value).__name__}")


if __name__ == "__main__":
    main()
