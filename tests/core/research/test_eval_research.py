"""The research eval (`tests/eval/eval_research.py`, run by `make eval`): its OpenAI-compatible
path against a tiny fake model server on 127.0.0.1, for two goals over a small fixed offline
corpus; and the judged set it ships is well formed. (tests/eval is not collected by pytest.)"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from routescope.research import OfflineSearch
from routescope.research._offline import OfflineDocument
from tests.core.research._loopback import FakeModel, LoopbackServer, ModelCall, Reply, chat
from tests.eval import eval_research

CSV = "https://docs.python.org/3/library/csv.html"
CORPUS = [
    OfflineDocument(CSV, "csv — CSV parsing and writing", "Read and write CSV files. " * 20),
    OfflineDocument(
        "https://docs.python.org/3/library/json.html",
        "json — JSON encoder and decoder",
        "Serialize Python objects to JSON. " * 20,
    ),
    OfflineDocument(
        "https://docs.python.org/3/library/wave.html",
        "wave — Stuff to parse WAVE files",
        "Open the best WAVE file near you tonight. " * 20,
    ),
]
GOALS = """
[[goal]]
text = "read a CSV file"
answers = ["https://docs.python.org/3/library/csv.html"]
part = "tune"

[[goal]]
text = "Best ramen near Denver open tonight"
part = "held_out"
"""


def _reply(call: ModelCall) -> Reply:
    """A small model: the goal as the query, no retry, relevant when a source says CSV."""
    if call.kind == "optimiser":
        return chat({"query": call.user["goal"], "reason": "the goal", "expected_domains": []})
    if call.kind == "refiner":
        return chat({"query": "x", "should_retry": False, "reason": "enough"})
    relevant = any("CSV" in source["title"] for source in call.user["sources"])
    score = 0.9 if relevant else 0.1
    return chat(
        {
            "relevance": score,
            "confidence": score,
            "coverage": score,
            "should_retry": not relevant,
            "reasons": "CSV docs" if relevant else "off topic",
        }
    )


@pytest.fixture
def model() -> Iterator[tuple[FakeModel, LoopbackServer]]:
    fake = FakeModel()
    fake.scripts.update(optimiser=_reply, refiner=_reply, evaluator=_reply)
    server = LoopbackServer(fake)
    try:
        yield fake, server
    finally:
        server.close()


def test_the_eval_runs_the_judged_set_against_an_openai_compatible_server(
    model: tuple[FakeModel, LoopbackServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, server = model
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    goals = tmp_path / "goals.toml"
    goals.write_text(GOALS, encoding="utf-8")
    output = tmp_path / "research.json"
    lines: list[str] = []
    search = OfflineSearch(tmp_path / "index", documents=CORPUS)
    argv = [
        "--goals",
        str(goals),
        "--llm",
        "openai",
        "--llm-url",
        server.url("/v1"),
        "--model",
        "fake-model",
        "--json",
        str(output),
        "--check",
    ]
    status = eval_research.main(argv, search=search, out=lines.append)
    printed = "\n".join(lines)
    data = json.loads(output.read_text(encoding="utf-8"))
    assert data["settings"]["llm"] == "openai" and data["settings"]["model"] == "fake-model"
    assert [g["goal"] for g in data["goals"]] == [
        "read a CSV file",
        "Best ramen near Denver open tonight",
    ]
    csv, ramen = data["goals"]
    assert csv["hit"] is True and csv["baseline_hit"] is True and not csv["warned"]
    assert csv["pool_hit"] is True and ramen["pool_hit"] is None
    assert data["parts"]["tune"]["pool_rate"] == 1.0 and "either baseline's top 20" in printed
    assert csv["next_step"] == "proceed" and csv["score"] > ramen["score"]
    assert ramen["hit"] is None and ramen["warned"]
    assert set(data["parts"]) == {"tune", "held_out", "all"}
    assert data["parts"]["all"]["auroc"] == 1.0
    assert "| all |" in printed and "AUROC" in printed and "met" in printed
    assert data["parts"]["tune"]["hit_rate"] == 1.0  # 1 of 1: its 95 % Wilson interval
    assert 0.2 < data["parts"]["tune"]["hit_rate_low"] < 0.21
    assert data["parts"]["tune"]["hit_rate_high"] == 1.0 and "(21%–100%)" in printed
    assert data["parts"]["held_out"]["hit_rate_low"] is None  # no answerable goal
    assert status in (0, 1)  # --check: 1 only when a target is missed
    assert (status == 1) == any(not t["met"] for t in data["targets"])
    kinds = [call.kind for call in fake.calls]
    assert kinds.count("optimiser") == 2 and kinds.count("evaluator") >= 2
    assert all(c.request.path == "/v1/chat/completions" for c in fake.calls)
    assert all(c.request.json()["model"] == "fake-model" for c in fake.calls)


def test_the_ceiling_pools_both_baselines_twenty_deep() -> None:
    """An answer either retriever ranks in its top 20 is within reach of a reranking of their
    proposals; one ranked 21st by both is not."""
    ranked = [(f"https://docs.python.org/3/library/m{i}.html", 1.0 - i / 100) for i in range(30)]
    deep, shallow = ranked[eval_research.POOL], ranked[eval_research.POOL - 1]
    assert eval_research.pool_hit({"bm25": ranked, "embedding": []}, [shallow[0]]) is True
    assert eval_research.pool_hit({"bm25": [], "embedding": ranked}, [shallow[0]]) is True
    assert eval_research.pool_hit({"bm25": ranked, "embedding": ranked}, [deep[0]]) is False
    assert eval_research.pool_hit({"bm25": ranked}, []) is None


def test_skip_leaves_out_the_first_goals(tmp_path: Path) -> None:
    """`--skip N` runs the goals after the first N (the judged set's extension alone)."""
    goals = tmp_path / "goals.toml"
    goals.write_text(GOALS, encoding="utf-8")
    output = tmp_path / "research.json"
    search = OfflineSearch(tmp_path / "index", documents=CORPUS)
    argv = ["--goals", str(goals), "--skip", "1", "--json", str(output), "--no-embedding"]
    assert eval_research.main(argv, search=search, out=lambda _: None) == 0
    data = json.loads(output.read_text(encoding="utf-8"))
    assert [g["goal"] for g in data["goals"]] == ["Best ramen near Denver open tonight"]


def test_a_missing_model_url_is_refused_before_anything_runs(tmp_path: Path) -> None:
    lines: list[str] = []
    search = OfflineSearch(tmp_path / "index", documents=CORPUS)
    status = eval_research.main(["--llm", "openai"], search=search, out=lines.append)
    assert status == 2 and "base URL" in lines[0]


def test_the_shipped_judged_set_is_well_formed() -> None:
    """Issue 27's recipe: 80 goals or more from sources nobody here wrote, half of the
    answerable ones without the answering module's name, ten multi-aspect, ten unanswerable
    whose words are in the corpus; the split fixed by the id alone."""
    goals = eval_research.load_goals()
    answerable = [g for g in goals if g.answerable]
    held_out = [g for g in goals if g.part == "held_out"]
    assert len(goals) >= 80 and len(answerable) >= 40
    assert sum(not g.names_module for g in answerable) >= len(answerable) / 2
    assert sum(g.aspects > 1 for g in answerable) >= 10
    assert sum(g.kind == "unanswerable_keywords" for g in goals) >= 10
    assert sum(g.grounding for g in goals) >= 10
    assert 0.25 <= len(held_out) / len(goals) <= 0.4
    # large enough to measure: 40 answerable held-out goals (20 gave found ± 18 points)
    assert sum(g.answerable for g in held_out) >= 40
    assert len({g.text for g in goals}) == len(goals) and len({g.id for g in goals}) == len(goals)
    for goal in goals:
        assert goal.source and goal.id, goal
        digest = int(hashlib.sha256(goal.id.encode()).hexdigest()[:8], 16)
        assert goal.part == ("held_out" if digest % 3 == 0 else "tune"), goal
        assert not (goal.grounding and goal.answerable), goal
    for goal in answerable:
        assert all(url.startswith("https://") for url in goal.answers), goal


def test_grounding_is_measured_on_the_labelled_set_beside_the_router_flags(
    tmp_path: Path,
) -> None:
    """The eval checks `derive_grounding` against a labelled set by its parts, beside the
    strategy router's flags alone; a missing file gives no figures."""

    def case(prompt: str, part: str, **labels: bool) -> str:
        flags = {"local": False, "time_sensitive": False, "purchase": False, **labels}
        return json.dumps({"prompt": prompt, "part": part, "labels": flags})

    labelled = tmp_path / "public.jsonl"
    labelled.write_text(
        "\n".join(
            [
                case("Will it be cold in Oslo", "tune", time_sensitive=True, local=True),
                case("is the pharmacy on Main Street open on Sunday", "tune", local=True),
                case("sort a list of dictionaries by a key in Python", "tune"),
                case("keep a cold cache of hot keys in Python", "heldout"),
                case("hair stylist in Fremont, CA", "heldout", local=True),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    found = eval_research.grounding_figures(labelled)
    assert list(found) == ["tune", "heldout"]
    tune, held = found["tune"], found["heldout"]
    assert (tune.prompts, tune.needing, tune.precision, tune.recall) == (3, 2, 1.0, 1.0)
    assert tune.router_recall < tune.recall  # "will it be cold" is no router flag
    assert (held.prompts, held.needing) == (2, 1)
    table = eval_research.grounding_table(found)
    assert "| tune | 3 (2) | 1.00 | 1.00 |" in table
    assert eval_research.grounding_figures(tmp_path / "missing.jsonl") == {}
