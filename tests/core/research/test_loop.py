"""The research loop, driven by a scripted model, a fake provider and a fake page reader."""

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from routescope.llm import JsonAnswer
from routescope.llm._scripted import ScriptedChat
from routescope.optimise._goal_terms import CorpusFrequencies
from routescope.research._loop import deep_research
from routescope.research._models import ProviderError, SearchHit, SearchResponse
from routescope.research._records import Attempt, Budgets, DeepResearchResult, PageRead
from routescope.research._run import ResearchOptions

GOAL = "How do I copy a PySide6 table selection to the clipboard?"


class FakeSearch:
    name = "fake"

    def __init__(self, statuses: Sequence[int] = (), delay: float = 0.0) -> None:
        self.queries: list[str] = []
        self._statuses = list(statuses)
        self._delay = delay

    async def search(self, query: str, *, max_results: int = 5) -> SearchResponse:
        await asyncio.sleep(self._delay)
        self.queries.append(query)
        status = self._statuses.pop(0) if self._statuses else 200
        hits = (
            tuple(
                SearchHit(
                    url=f"https://doc.example/{len(self.queries)}/{i}",
                    title=f"page {i}",
                    snippet="…",
                    rank=i,
                    provider="fake",
                )
                for i in range(1, 3)
            )
            if status == 200
            else ()
        )
        error = (
            None
            if status == 200
            else ProviderError(kind="bad_request", message="too long", status=status)
        )
        return SearchResponse(
            provider="fake",
            query=query,
            original_query=query,
            query_action="sent",
            status=status,
            url="https://search.example",
            results=hits,
            error=error,
            duration_ms=1.0,
        )


class FakeReader:
    def __init__(
        self, text: str = "Copy a PySide6 table selection to the clipboard with QTableView."
    ) -> None:
        self.text = text

    async def read(self, urls: Sequence[str]) -> list[PageRead]:
        return [
            PageRead(url, True, "allowed-host", 200, None, "Qt docs", self.text) for url in urls
        ]


def model(
    evaluations: list[dict[str, object]],
    refinements: list[dict[str, object] | JsonAnswer[object]] | None = None,
    plan: object = None,
) -> ScriptedChat:
    evaluations, refinements = list(evaluations), list(refinements or [])

    def reply(name: str, system: str, user: str) -> str | JsonAnswer[object]:
        assert "## Task" in system and json.loads(user)["goal"] == GOAL
        if name == "search_query_optimizer":
            if isinstance(plan, JsonAnswer):
                return plan
            return json.dumps(
                {"query": "PySide6 QTableView copy selection clipboard", "reason": "api names"}
            )
        if name == "research_query_refiner":
            refinement = refinements.pop(0)
            return refinement if isinstance(refinement, JsonAnswer) else json.dumps(refinement)
        return json.dumps(evaluations.pop(0))

    return ScriptedChat(reply)


def grade(
    relevance: float, coverage: float, retry: bool = True, confidence: float = 0.5
) -> dict[str, object]:
    return {
        "relevance": relevance,
        "confidence": confidence,
        "coverage": coverage,
        "should_retry": retry,
        "reasons": f"r{relevance}",
    }


def run(
    llm: ScriptedChat,
    search: FakeSearch | None = None,
    reader: FakeReader | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
    **options: Any,
) -> DeepResearchResult:
    return asyncio.run(
        deep_research(
            GOAL,
            search=search or FakeSearch(),
            reader=reader or FakeReader(),
            llm=llm,
            options=ResearchOptions(**options),
            on_attempt=on_attempt,
        )
    )


def test_a_good_first_attempt_reaches_the_target() -> None:
    result = run(model([grade(0.8, 0.7)]))
    assert result.termination_reason == "target reached in attempt 1"
    assert len(result.attempts) == 1 and result.best == 0
    assert result.attempts[0].query_source == "optimiser"
    assert result.quality.relevance == 0.8 and result.quality.reasons == "r0.8"
    assert [f.url for f in result.findings] == [
        "https://doc.example/1/1",
        "https://doc.example/1/2",
    ]
    assert result.next_step.outcome == "proceed" and result.warnings == []
    assert (result.web_calls, result.pages_fetched) == (1, 2)


def test_the_refiner_gets_the_previous_query_and_the_best_attempt_wins() -> None:
    llm = model(
        [grade(0.4, 0.3), grade(0.9, 0.5, retry=False)],
        [{"query": "QTableView copy shortcut", "should_retry": True, "reason": "narrower"}],
    )
    result = run(llm)
    assert [a.query_source for a in result.attempts] == ["optimiser", "refiner"]
    refiner_input = json.loads(
        next(user for name, _, user in llm.calls if name == "research_query_refiner")
    )
    assert refiner_input["previous_query"] == "PySide6 QTableView copy selection clipboard"
    assert refiner_input["quality"]["relevance"] == 0.4
    assert result.best == 1
    assert result.termination_reason == "evaluator: no retry after attempt 2 (r0.9)"
    assert result.stop is not None and result.stop.kind == "no_retry"
    assert result.next_step.outcome == "proceed"  # attempt 3 not tried: the evaluator said so
    assert "1 attempt(s) left, not tried: evaluator: no retry" in result.next_step.reason


def test_an_attempt_that_read_nothing_scores_zero() -> None:
    result = run(model([]), reader=FakeReader(text="   "), max_attempts=1)
    attempt = result.attempts[0]
    assert (attempt.fetched, attempt.score, attempt.evaluation) == (0, 0.0, None)
    assert "web research weak; relying more on model prior" in result.warnings
    assert attempt.evidence is not None and attempt.evidence.pages == ()


def test_nothing_read_never_proceeds() -> None:
    shorter = [{"query": f"q{i}", "should_retry": True} for i in range(2)]
    result = run(model([], shorter), reader=FakeReader(text=""), max_attempts=3)
    assert result.pages_fetched == 0 and len(result.attempts) == 3
    assert result.termination_reason == "3 attempts made"
    assert result.stop is not None and result.stop.kind == "attempts_exhausted"
    assert (result.next_step.outcome, result.next_step.rule) == ("escalate", "nothing_read")


def test_a_400_is_noted_and_the_refiner_hears_of_it() -> None:
    llm = model(
        [grade(0.8, 0.8)], [{"query": "QTableView copy", "should_retry": True, "reason": "shorter"}]
    )
    result = run(llm, search=FakeSearch(statuses=[400]))
    assert result.notes == ["attempt 1: the provider refused the query (400)"]
    refiner_input = json.loads(
        next(user for name, _, user in llm.calls if name == "research_query_refiner")
    )
    assert refiner_input["status"] == 400
    assert result.best == 1


def test_a_failing_optimiser_falls_back_to_the_goal() -> None:
    result = run(model([grade(0.8, 0.8)], plan=JsonAnswer(None, "timeout")))
    assert result.attempts[0].query == GOAL
    assert result.attempts[0].query_source == "goal (optimiser failed: timeout)"


@pytest.mark.parametrize(
    ("refinement", "reason"),
    [
        ({"query": "x", "should_retry": False, "reason": "enough"}, "refiner: no retry (enough)"),
        (
            {"query": "PySide6 QTableView copy selection clipboard", "should_retry": True},
            "same query",
        ),
    ],
)
def test_the_refiner_can_stop_the_loop(refinement: dict[str, object], reason: str) -> None:
    result = run(model([grade(0.4, 0.3)], [refinement]))
    assert len(result.attempts) == 1 and reason in result.termination_reason
    assert result.stop is not None and result.stop.kind == "no_retry"
    assert result.next_step.outcome == "proceed" and reason in result.next_step.reason


def test_a_failing_refiner_leaves_research_to_do_again() -> None:
    result = run(model([grade(0.4, 0.3)], [JsonAnswer(None, "timeout")]))
    assert result.stop is not None and result.stop.kind == "model_failed"
    assert result.termination_reason == "refiner failed (timeout): no further attempt"
    assert (result.next_step.outcome, result.next_step.rule) == ("research_again", "stopped_early")


def test_the_loop_stops_when_the_refiner_reorders_an_earlier_query() -> None:
    llm = model(
        [grade(0.4, 0.3), grade(0.4, 0.5)],
        [
            {"query": "QTableView copy", "should_retry": True},
            {"query": "clipboard selection copy QTableView PySide6", "should_retry": True},
        ],
    )
    result = run(llm, max_attempts=3)
    assert len(result.attempts) == 2
    assert result.termination_reason == "refiner proposed the words of an earlier query again"
    assert result.stop is not None and result.stop.kind == "no_retry"


def test_the_loop_stops_when_the_score_stops_improving() -> None:
    llm = model(
        [grade(0.5, 0.4), grade(0.4, 0.4)],
        [{"query": "another", "should_retry": True, "reason": "try"}],
    )
    result = run(llm, max_attempts=3)
    assert result.termination_reason == "score stopped improving in attempt 2"
    assert result.best == 0


def test_the_run_deadline_ends_the_loop() -> None:
    result = run(model([]), search=FakeSearch(delay=5.0), budgets=Budgets(run_timeout_s=0.05))
    assert result.attempts == [] and "deadline" in result.termination_reason
    assert result.stop is not None and result.stop.kind == "deadline"
    assert result.next_step.outcome == "research_again"


def test_every_attempt_carries_its_evidence() -> None:
    reader = FakeReader(text="Copy the QTableView selection to the clipboard in PySide6.")
    result = run(model([grade(0.8, 0.7)]), reader=reader)
    (attempt,) = result.attempts
    evidence = attempt.evidence
    assert evidence is not None and evidence.pages_read == 2
    page = evidence.pages[0]
    assert set(page.supports) >= {"copy", "PySide6", "clipboard", "selection"}
    assert page.missing == ("table",)
    assert [r.metric for r in attempt.reasons] == ["relevance", "coverage", "confidence", "retry"]
    assert [f.evidence for f in result.findings] == list(evidence.pages)
    assert [t.text for t in result.goal_terms] == [
        "copy",
        "PySide6",
        "table",
        "selection",
        "clipboard",
    ]
    assert result.quality.evidence_reasons == attempt.reasons


def test_the_evaluator_hears_the_goal_terms_and_the_refiner_what_no_page_covered() -> None:
    llm = model(
        [grade(0.4, 0.3), grade(0.8, 0.8)],
        [{"query": "QTableView copy shortcut", "should_retry": True, "reason": "narrower"}],
    )
    run(llm, reader=FakeReader(text="QTableView copy selection in PySide6 " * 3))
    evaluator = json.loads(
        next(user for name, _, user in llm.calls if name == "research_relevance_evaluator")
    )
    assert [t["text"] for t in evaluator["goal_terms"]][:2] == ["copy", "PySide6"]
    assert {"weight", "kind", "document_frequency"} <= set(evaluator["goal_terms"][0])
    assert evaluator["max_sources"] == 5 and "snippet" in evaluator["sources"][0]
    refiner = json.loads(
        next(user for name, _, user in llm.calls if name == "research_query_refiner")
    )
    assert refiner["uncovered"] == ["table", "clipboard"]
    assert "supports copy, PySide6, selection" in refiner["findings"]


class CountingSearch(FakeSearch):
    """A search that can tell how many of its documents hold a word."""

    def document_frequencies(self, words: Sequence[str]) -> CorpusFrequencies:
        return CorpusFrequencies(100, {w: 0 if w.startswith("clip") else 50 for w in words})


def test_the_searchs_document_frequencies_weigh_the_goal_terms() -> None:
    result = run(model([grade(0.8, 0.7)]), search=CountingSearch())
    weights = {t.text: (t.weight, t.document_frequency) for t in result.goal_terms}
    assert weights["clipboard"] == (1.0, 0)
    assert weights["copy"][0] < 0.3 and weights["copy"][1] == 50


def test_grounding_required_and_hopeless_research_escalates() -> None:
    llm = model(
        [grade(0.1, 0.1), grade(0.2, 0.1), grade(0.1, 0.2)],
        [{"query": "b", "should_retry": True}, {"query": "c", "should_retry": True}],
    )
    result = run(llm, requires_grounding=True)
    assert result.next_step.outcome == "escalate"


def test_the_report_has_the_documented_json_shape_and_markdown() -> None:
    from routescope.research._report import report_markdown, research_report_data

    result = run(model([grade(0.8, 0.7)]))
    data = json.loads(json.dumps(research_report_data(result)))
    assert set(data) >= {
        "final_query",
        "quality",
        "attempts",
        "findings",
        "warnings",
        "termination_reason",
        "next_step",
    }
    (attempt,) = data["attempts"]
    assert set(attempt) >= {
        "query",
        "relevance",
        "confidence",
        "coverage",
        "should_retry",
        "score",
        "status",
        "error",
        "findings",
    }
    assert data["findings"][0]["host"] == "doc.example"
    text = report_markdown(result)
    assert "final query: `PySide6 QTableView copy selection clipboard`" in text
    assert "| 1 ★ |" in text and "## Findings" in text
