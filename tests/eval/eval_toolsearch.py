"""`make eval`: retrieval quality of the hybrid tool search (issue 11, §8).

Every strategy the engine exposes is run — each value of the `SearchStrategy` literal, crossed
with every other literal-typed field of `SearchSettings` (a fusion or mode added later shows up
without touching this script) — beside two baselines computed in the same run: plain cosine
over the engine's own tool vectors (`ToolSearch.vector`, the same model and embedding template)
and rank_bm25 (`BM25Okapi` over the tool name, its `.` and `_` read as spaces, and the
description; lower-cased `\\w+` tokens, the query's too).

Benchmarks (`--only` picks some):

* `bfcl`: the BFCL single-function task (`_bfcl.py` says how it is built): hit@1/3/10 and
  MRR@10 of the expected tool, and hit@1 per BFCL category.
* `suite`: every tool-search scenario suite shipped in `resources/fixtures` (cases whose
  expectation names tool families, `results[:N].tool_name: {any_startswith: […]}`), over its
  catalog (the sample one); a hit is the first tool of an expected family.
* `multi`: BFCL's multi-step requests (`multi_turn`, `parallel_multiple`), each over its own
  catalog: share of requests with every needed tool in the top 10 (recall-all@10) and mean
  share of needed tools found, ranking the whole request.
* `irrelevance`: the best score of each strategy on questions no tool answers (BFCL's
  irrelevance and live_irrelevance) against the relevant BFCL questions, over the BFCL
  catalog: medians, AUROC, and false accepts at the thresholds that reject 1 %, 5 %, 10 % and
  25 % of the relevant questions.

Each query is embedded once (timed on its own) and its vector handed to every strategy; the
ms/query figures are the `search()` call alone (baselines: scoring and top-k), with
`explain=False` (the per-field explanation is for rows shown, issue 11 §7). Every index is
built once per catalog and cached in `.eval/cache`. Results go to `.eval/toolsearch.json`.

The BFCL catalogs are read by Routescope's own loader: the OpenAI `tools` file once the loader
reads it (then parameter names count), else the JSON list (`--catalog-format` forces one); the
table heading says which. Last, the issue's targets are checked (the default strategy's BFCL
hit@1 and MRR@10; the default at least as good as the best single signal on every benchmark;
`auto` at least as good as the default): printed always, the exit status with `--check`.
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
from routescope.regress import expected_families, load_suite
from routescope.toolsearch import (
    Catalog,
    CatalogError,
    Embedder,
    SearchSettings,
    SearchStrategy,
    ToolSearch,
    ToolSearchResult,
    default_embedder,
    load_catalog,
)
from tests.eval import _metrics
from tests.eval._bfcl import SINGLE_SETS, Bfcl, CatalogFiles, Query, describe, load_bfcl

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ("bfcl", "suite", "multi", "irrelevance")
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
    """Multi-step tasks: the whole-request ranking and the steps' rankings as one list, each
    tool at its best score in any of them; the whole ranking when the request is one step."""
    split: int = 0
    """How many requests split into two or more steps."""

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


def load_bfcl_catalog(files: CatalogFiles, catalog_format: str) -> tuple[Catalog, str]:
    """The catalog through Routescope's loader: the OpenAI `tools` file when asked for, or
    (`auto`) when the loader reads it with at least as many tools as the list file; else the
    JSON list."""
    listed = load_catalog(files.list_path)
    if catalog_format == "list":
        return listed, f"{files.list_path.name} (JSON list)"
    try:
        openai = load_catalog(files.openai_path)
    except CatalogError as exc:
        if catalog_format == "openai":
            raise
        print(f"  the loader cannot read {files.openai_path.name}: {exc}", file=sys.stderr)
        return listed, f"{files.list_path.name} (JSON list; the loader reads no OpenAI tools)"
    if catalog_format == "openai" or len(openai.tools) >= len(listed.tools):
        return openai, f"{files.openai_path.name} (OpenAI tools)"
    return listed, f"{files.list_path.name} (JSON list; OpenAI file gave fewer tools)"


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
    """Every strategy and both baselines over the queries (searched once per engine and task);
    `steps`: requests are split into their steps as well (`SearchSettings.split_steps`)."""
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
            search_settings = dataclasses.replace(settings_for(variant, extra), split_steps=steps)
        except (InputError, TypeError) as exc:  # a combination the settings refuse: reported
            print(f"  skipped {variant.label}: {exc}", file=sys.stderr)
            continue
        chosen.append((search_settings, Run(variant.label, [], [], [])))
    # Query by query, every strategy in turn: a step's vector is embedded once, untimed.
    for text, vector in zip(texts, vectors, strict=True):
        if steps and chosen:
            engine.search.search(text, chosen[0][0], query_vector=vector)
        for search_settings, run in chosen:
            start = time.perf_counter_ns()
            result = engine.search.search(text, search_settings, query_vector=vector)
            run.ms.append(_clock_ms(start))
            run.rankings.append([hit.tool_name for hit in result.results])
            if steps:
                run.by_steps.append(_merged_by_score(result))
                run.split += bool(result.steps)
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


def _merged_by_score(result: ToolSearchResult) -> list[str]:
    """The whole-request ranking and every step's, one list: each tool at its best score."""
    best: dict[str, float] = {}
    for hit in [*result.results, *(h for step in result.steps for h in step.results)]:
        best[hit.tool_name] = max(best.get(hit.tool_name, -math.inf), hit.score)
    return sorted(best, key=lambda name: (-best[name], name))


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


def ranking_rows(
    runs: dict[str, Run], queries: Sequence[Query], expected: Callable[[Query], set[str]]
) -> tuple[list[list[str]], list[dict[str, Any]]]:
    rows, data = [], []
    for label, run in runs.items():
        ranks = [
            _metrics.first_rank(ranking, expected(q))
            for ranking, q in zip(run.rankings, queries, strict=True)
        ]
        figures: dict[str, Any] = {
            "strategy": label,
            "hit@1": _metrics.hit_at(ranks, 1),
            "hit@3": _metrics.hit_at(ranks, 3),
            "hit@10": _metrics.hit_at(ranks, 10),
            "mrr@10": _metrics.mrr_at(ranks, 10),
            "ms_per_query_median": _median_ms(run),
            "ran_as": dict(run.used),
        }
        data.append(figures)
        rows.append(
            [
                label,
                *(_f(figures[m]) for m in ("hit@1", "hit@3", "hit@10", "mrr@10")),
                _f(figures["ms_per_query_median"], 2),
            ]
        )
    return rows, data


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
    engines: dict[str, Engine] = dataclasses.field(default_factory=dict)
    out: dict[str, Any] = dataclasses.field(default_factory=dict)
    scores: dict[str, dict[str, dict[str, float]]] = dataclasses.field(default_factory=dict)
    """Benchmark → strategy label → the metrics the targets compare."""

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

    def bfcl_engine(self, name: str) -> Engine:
        if name not in self.engines:
            catalog, source = load_bfcl_catalog(
                self.data().catalogs[name], self.args.catalog_format
            )
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


def limited(queries: Sequence[Query], limit: int | None) -> tuple[Query, ...]:
    """At most `limit` queries, evenly spread over the set (every category represented)."""
    if limit is None or limit >= len(queries):
        return tuple(queries)
    return tuple(queries[i * len(queries) // limit] for i in range(limit))


def _catalog_names(engine: Engine) -> dict[str, str]:
    return {name.lower(): name for name in engine.names}


def bench_bfcl(ctx: Context) -> None:
    engine = ctx.bfcl_engine("bfcl")
    queries = ctx.queries("single")
    runs = run_task(engine, "single", queries, ctx.settings, ctx.extra)
    rows, data = ranking_rows(runs, queries, lambda q: set(q.expected))
    missing = sum(1 for q in queries if q.expected[0].lower() not in _catalog_names(engine))
    print(
        f"\n## BFCL single-function task: {len(queries):,} questions, "
        f"{len(engine.names):,} tools ({engine.source})\n"
    )
    print(table(RANK_HEADER, rows))
    print("\n".join(_notes(runs)))
    if missing:
        print(f"- {missing} expected tools are not in the loaded catalog")
    per_set: dict[str, dict[str, float]] = {}
    sets = [s for s in SINGLE_SETS if any(_set_of(q.id) == s for q in queries)]
    for label, run in runs.items():
        per_set[label] = {}
        for name in sets:
            ranks = [
                _metrics.first_rank(ranking, q.expected)
                for ranking, q in zip(run.rankings, queries, strict=True)
                if _set_of(q.id) == name
            ]
            per_set[label][name] = _metrics.hit_at(ranks, 1)
    counts = Counter(_set_of(q.id) for q in queries)
    print("\nhit@1 per BFCL category\n")
    header = ["strategy", *(f"{s} ({counts[s]:,})" for s in sets)]
    print(table(header, [[label, *(_f(v[s]) for s in sets)] for label, v in per_set.items()]))
    ctx.scores["bfcl"] = {r["strategy"]: {m: r[m] for m in ("hit@1", "mrr@10")} for r in data}
    ctx.out["bfcl"] = {
        "questions": len(queries),
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
        rows, data = ranking_rows(runs, cases, lambda q: set(q.expected))
        print(
            f"\n## Scenario suite {path.name} ({suite.suite}): {len(cases)} cases with expected "
            f"tool families, over {catalog_path.name}/ ({len(engine.names)} tools)\n"
        )
        print(table(RANK_HEADER, rows))
        print("\n".join(_notes(runs)))
        ctx.scores[f"suite {path.name}"] = {
            r["strategy"]: {m: r[m] for m in ("hit@1", "mrr@10")} for r in data
        }
        ctx.out["suite"][path.name] = {
            "cases": len(cases),
            "tools": len(engine.names),
            "rows": data,
        }


def bench_multi(ctx: Context) -> None:
    ctx.out["multi"] = {}
    for task in ("multi_turn", "parallel_multiple"):
        engine = ctx.bfcl_engine(ctx.data().tasks[task].catalog)
        queries = ctx.queries(task)
        runs = run_task(engine, task, queries, ctx.settings, ctx.extra, steps=True)
        rows, data = [], []
        sizes = Counter(len(q.expected) for q in queries)
        for label, run in runs.items():
            pairs = list(zip(run.rankings, queries, strict=True))
            figures: dict[str, Any] = {
                "strategy": label,
                "recall_all@10": sum(_metrics.recall_all_at(r, q.expected, K) for r, q in pairs)
                / len(pairs),
                "recall@10": sum(_metrics.recall_at(r, q.expected, K) for r, q in pairs)
                / len(pairs),
                "any_needed_hit@1": _metrics.hit_at(
                    [_metrics.first_rank(r, q.expected) for r, q in pairs], 1
                ),
                "ms_per_query_median": _median_ms(run),
            }
            if run.by_steps:
                stepped = zip(run.by_steps, queries, strict=True)
                figures["split"] = run.split
                figures["recall_all@10_by_steps"] = sum(
                    _metrics.recall_all_at(r, q.expected, K) for r, q in stepped
                ) / len(pairs)
            data.append(figures)
            rows.append(
                [
                    label,
                    _f(figures["recall_all@10"]),
                    _f(figures["recall@10"]),
                    _f(figures["any_needed_hit@1"]),
                    f"{run.split:,}" if run.by_steps else "–",
                    _f(figures.get("recall_all@10_by_steps")),
                    _f(figures["ms_per_query_median"], 2),
                ]
            )
        needed = ", ".join(f"{n} tools: {c}" for n, c in sorted(sizes.items()))
        print(
            f"\n## Multi-step requests: {task}, {len(queries):,} requests ({needed}), "
            f"over its own catalog ({len(engine.names):,} tools): the whole-request ranking, "
            "and with the steps' rankings merged in (each tool at its best score in any list)\n"
        )
        header = (
            "strategy",
            "recall-all@10",
            "mean recall@10",
            "a needed tool @1",
            "requests split",
            "recall-all@10 by steps",
            "ms/query median (with steps)",
        )
        print(table(header, rows))
        print("\n".join(_notes(runs)))
        ctx.scores[task] = {
            r["strategy"]: {m: r[m] for m in ("recall_all@10", "recall_all@10_by_steps") if m in r}
            for r in data
        }
        ctx.out["multi"][task] = {
            "requests": len(queries),
            "tools": len(engine.names),
            "rows": data,
        }


def bench_irrelevance(ctx: Context) -> None:
    engine = ctx.bfcl_engine("bfcl")
    relevant = ctx.queries("single")
    relevant_runs = run_task(engine, "single", relevant, ctx.settings, ctx.extra)
    sets = [name for name in ("irrelevance", "live_irrelevance") if name in ctx.data().tasks]
    others = {
        name: run_task(engine, name, ctx.queries(name), ctx.settings, ctx.extra) for name in sets
    }
    sizes = ", ".join(f"{name} {len(ctx.queries(name)):,}" for name in sets)
    print(
        f"\n## No tool fits: best score on questions no tool answers ({sizes}) against the "
        f"{len(relevant):,} relevant BFCL questions, BFCL catalog\n"
    )
    rows, thresholds_rows, data = [], [], {}
    for label, run in relevant_runs.items():
        scores = {name: others[name][label].best for name in sets if label in others[name]}
        present = [s for s in run.best if s is not None]
        figures: dict[str, Any] = {
            "relevant_median": _metrics.median(present),
            **{
                f"{name}_median": _metrics.median([s for s in v if s is not None])
                for name, v in scores.items()
            },
            **{f"auroc_{name}": _metrics.auroc(run.best, v) for name, v in scores.items()},
            "thresholds": [],
            "best_scores": {
                "relevant": [_round(s) for s in run.best],
                **{name: [_round(s) for s in v] for name, v in scores.items()},
            },
        }
        rows.append(
            [
                label,
                _f(figures["relevant_median"], 4),
                *(_f(figures[f"{name}_median"], 4) for name in scores),
                *(_f(figures[f"auroc_{name}"]) for name in scores),
            ]
        )
        for target in FALSE_REJECT_TARGETS:
            threshold = _metrics.quantile(present, target) if present else math.nan
            rejected = sum(1 for s in run.best if s is None or s < threshold) / len(run.best)
            accepts = {name: _metrics.false_accept(v, threshold) for name, v in scores.items()}
            figures["thresholds"].append(
                {"threshold": threshold, "false_reject": rejected, "false_accept": accepts}
            )
            thresholds_rows.append(
                [label, _f(threshold, 4), _f(rejected), *(_f(accepts[name]) for name in scores)]
            )
        data[label] = figures
    header = [
        "strategy",
        "relevant median",
        *(f"{n} median" for n in sets),
        *(f"AUROC vs {n}" for n in sets),
    ]
    print(table(header, rows))
    print(
        "\nFalse accepts at thresholds set to reject 1 %, 5 %, 10 % and 25 % of the relevant "
        "questions (the score accepted is ≥ threshold)\n"
    )
    header = ["strategy", "threshold", "false reject", *(f"false accept {n}" for n in sets)]
    print(table(header, thresholds_rows))
    default = next((v.label for v in ctx.settings if v.default), None)
    for label in [x for x in (default, COSINE) if x]:
        if not sets or label not in others[sets[0]]:
            continue
        run = others[sets[0]][label]
        worst = sorted(((s, i) for i, s in enumerate(run.best) if s is not None), reverse=True)[:5]
        print(f"\nThe {sets[0]} questions `{label}` is most confident about (possibly answerable):")
        queries = ctx.queries(sets[0])
        for score, i in worst:
            top = run.rankings[i][0] if run.rankings[i] else "–"
            print(f"- {score:.4f} → {top}: {queries[i].text[:100]!r}")
    ctx.out["irrelevance"] = data


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


# -- targets (issue 11, §8) ---------------------------------------------------------------------

BFCL_TARGETS = {"hit@1": 0.66, "mrr@10": 0.75}
"""The default strategy on the BFCL single-function task."""
SINGLE_SIGNALS = ("exact", "semantic")


def _with_defaults(settings: list[Variant], strategy: str) -> Variant | None:
    """The run of `strategy` with every other literal setting at its default."""
    defaults = SearchSettings()
    for variant in settings:
        if variant.values["strategy"] == strategy and all(
            getattr(defaults, name) == value
            for name, value in variant.values.items()
            if name != "strategy"
        ):
            return variant
    return None


def report_targets(ctx: Context) -> list[dict[str, Any]]:
    """The issue's targets: the default's BFCL figures, the default at least as good as the
    best single signal (keyword only, vector only) on every benchmark, `auto` at least as good
    as the default."""
    default = next((v for v in ctx.settings if v.default), None)
    if default is None or not ctx.scores:
        return []
    singles = [v.label for s in SINGLE_SIGNALS if (v := _with_defaults(ctx.settings, s))]
    auto = _with_defaults(ctx.settings, "auto")
    checks: list[dict[str, Any]] = []
    for metric, target in BFCL_TARGETS.items():
        if "bfcl" in ctx.scores and default.label in ctx.scores["bfcl"]:
            value = ctx.scores["bfcl"][default.label][metric]
            checks.append(
                {
                    "benchmark": "bfcl",
                    "metric": metric,
                    "default": value,
                    "against": f"target {target}",
                    "value": target,
                    "ok": value >= target,
                }
            )
    for benchmark, rows in ctx.scores.items():
        if default.label not in rows:
            continue
        for metric, value in rows[default.label].items():
            present = [label for label in singles if label in rows]
            if present:
                best = max(present, key=lambda label: rows[label][metric])
                checks.append(
                    {
                        "benchmark": benchmark,
                        "metric": metric,
                        "default": value,
                        "against": f"best single signal: {best}",
                        "value": rows[best][metric],
                        "ok": value >= rows[best][metric] - 1e-12,
                    }
                )
            if auto is not None and auto.label != default.label and auto.label in rows:
                checks.append(
                    {
                        "benchmark": benchmark,
                        "metric": metric,
                        "default": value,
                        "against": f"auto ≥ default: {auto.label}",
                        "value": rows[auto.label][metric],
                        "ok": rows[auto.label][metric] >= value - 1e-12,
                    }
                )
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
                    "yes" if c["ok"] else "**no**",
                ]
                for c in checks
            ],
            text_columns=6,
        )
    )
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
    parser.add_argument("--limit", type=int, help="at most N queries per BFCL set, evenly spread")
    parser.add_argument(
        "--only", default=",".join(BENCHMARKS), help=f"comma-separated, of {','.join(BENCHMARKS)}"
    )
    parser.add_argument("--json", default=str(ROOT / ".eval" / "toolsearch.json"), help="results")
    parser.add_argument("--root", default=str(ROOT / ".eval"), help="wheel, built tasks, caches")
    parser.add_argument(
        "--catalog-format",
        choices=("auto", "list", "openai"),
        default="auto",
        help="which BFCL catalog file the loader reads (auto: OpenAI tools once it can)",
    )
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
        }
    )
    print(
        f"# Tool search eval (model {embedder.model_id}; k = {K}; limit {args.limit or 'none'})\n"
    )
    timings: dict[str, float] = {}
    for name, bench in (
        ("bfcl", bench_bfcl),
        ("suite", bench_suite),
        ("multi", bench_multi),
        ("irrelevance", bench_irrelevance),
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
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_finite(ctx.out), indent=1, default=_json_default, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")
    print(f"written: {path}")
    if args.check and not all(c["ok"] for c in checks):
        raise SystemExit(f"{sum(not c['ok'] for c in checks)} target(s) not met")
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
