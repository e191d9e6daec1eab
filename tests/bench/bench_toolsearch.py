"""`make bench`, tool search part: a synthetic 10k-tool catalog, per-stage timings, memory,
and rank_bm25 over the same catalog in the same run.

The catalog's vectors are random unit vectors (384-d): numpy's cost does not depend on their
values, and embedding 10k tools with the model would take minutes. Queries are embedded by the
real model, and that time is reported on its own row.
"""

from __future__ import annotations

import json
import random
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from routescope.toolsearch import (
    Catalog,
    MiniLMOnnx,
    SearchSettings,
    Tool,
    ToolSearch,
    VectorIndex,
)

DOMAINS = [
    "git",
    "docker",
    "kubernetes",
    "python",
    "javascript",
    "database",
    "sql",
    "email",
    "calendar",
    "notes",
    "files",
    "web",
    "http",
    "api",
    "auth",
    "payments",
    "invoices",
    "crm",
    "analytics",
    "charts",
    "logs",
    "metrics",
    "alerts",
    "tests",
    "ci",
    "deploy",
    "cloud",
    "storage",
    "backup",
    "security",
    "network",
    "dns",
    "images",
    "video",
    "audio",
    "translate",
    "search",
    "maps",
    "weather",
]
VERBS = [
    "list",
    "create",
    "delete",
    "update",
    "find",
    "read",
    "write",
    "run",
    "stop",
    "start",
    "check",
    "show",
    "export",
    "import",
    "sync",
    "search",
    "summarize",
    "compare",
    "monitor",
    "schedule",
]


def synthetic_catalog(size: int, seed: int = 11) -> Catalog:
    rng = random.Random(seed)
    tail = [f"w{n:04d}" for n in range(6_000)]
    weights = [1 / (n + 1) for n in range(len(tail))]
    tools = []
    for n in range(size):
        domain, verb = DOMAINS[n % len(DOMAINS)], VERBS[(n // len(DOMAINS)) % len(VERBS)]
        words = rng.choices(tail, weights, k=30)
        tools.append(
            Tool(
                tool_name=f"{domain}{n // (len(DOMAINS) * len(VERBS))}.{verb}",
                description=f"{verb} {domain} " + " ".join(words[:25]),
                routing_keywords=(domain, verb, *words[25:28]),
                intents=(f"{verb} my {domain}", f"{domain} {words[28]}"),
                category=domain,
            )
        )
    return Catalog(tools=tools, source=f"synthetic-{size}")


def queries(count: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    openers = ["how to", "please", "can you", ""]
    endings = ["error", "now", "for me", "w0012", "w0003", ""]
    words = [
        (rng.choice(openers), rng.choice(VERBS), rng.choice(DOMAINS), rng.choice(endings))
        for _ in range(count)
    ]
    return [" ".join(w for w in parts if w) for parts in words]


def _median_us(samples: list[float]) -> float:
    return round(statistics.median(samples), 1)


def main(out: str | None) -> dict[str, object]:
    catalog = synthetic_catalog(10_000)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        search = ToolSearch(catalog, cache=Path(folder), semantic=False)
        build_s = time.perf_counter() - start
        model = MiniLMOnnx()
        rng = np.random.default_rng(3)
        search.vector = VectorIndex.from_matrix(
            rng.standard_normal((len(catalog.tools), 384)).astype(np.float32), model
        )
        search.semantic_status = "ready"
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        texts = queries(300)
        vectors = [model.embed([q])[0] for q in texts[:20]]  # warm the model
        embed_us, stages = [], {"keyword": [], "vector": [], "fusion_rerank": [], "explain": []}
        hybrid_us = []
        for text in texts:
            t0 = time.perf_counter_ns()
            vector = model.embed([text])[0]
            embed_us.append((time.perf_counter_ns() - t0) / 1000)
            result = search.search(text, SearchSettings(strategy="hybrid"), query_vector=vector)
            for stage in stages:
                stages[stage].append(result.timings_us.get(stage, 0.0))
            hybrid_us.append(
                sum(result.timings_us[s] for s in ("keyword", "vector", "fusion_rerank"))
            )
        del vectors
        # rank_bm25 on the same catalog, same queries, interleaved with Tantivy's keyword part.
        token = re.compile(r"\w+")
        corpus = [
            token.findall(
                " ".join([t.tool_name, t.description, *t.routing_keywords, *t.intents]).lower()
            )
            for t in catalog.tools
        ]
        bm25 = BM25Okapi(corpus)
        boosts = search.default_boosts()
        bm25_us, tantivy_us = [], []
        for text in texts[:60]:
            t0 = time.perf_counter_ns()
            scores = bm25.get_scores(token.findall(text.lower()))
            np.argpartition(-scores, 50)[:50]
            bm25_us.append((time.perf_counter_ns() - t0) / 1000)
            t0 = time.perf_counter_ns()
            search.keyword.search(text, boosts, 50)
            tantivy_us.append((time.perf_counter_ns() - t0) / 1000)
    figures: dict[str, object] = {
        "tools": len(catalog.tools),
        "index_build_s": round(build_s, 3),
        "rss_growth_mb": round((rss_after - rss_before) / 1024, 1),
        "query_embedding_us": _median_us(embed_us),
        **{f"{stage}_us": _median_us(samples) for stage, samples in stages.items()},
        "hybrid_excluding_embedding_us": _median_us(hybrid_us),
        "hybrid_p95_us": round(statistics.quantiles(hybrid_us, n=20)[-1], 1),
        "tantivy_keyword_us": _median_us(tantivy_us),
        "rank_bm25_us": _median_us(bm25_us),
    }
    figures["keyword_speedup_vs_rank_bm25"] = round(
        float(figures["rank_bm25_us"]) / float(figures["tantivy_keyword_us"]),
        1,  # type: ignore[arg-type]
    )
    figures["meets_hybrid_target"] = float(figures["hybrid_excluding_embedding_us"]) <= 1000  # type: ignore[arg-type]
    figures["meets_keyword_target"] = float(figures["keyword_speedup_vs_rank_bm25"]) >= 10  # type: ignore[arg-type]
    print("tool search over a synthetic 10,000-tool catalog (medians over 300 queries)")
    for name, value in figures.items():
        print(f"  {name:<34} {value}")
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(figures, indent=2) + "\n")
        print(f"written: {out}")
    return figures


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
