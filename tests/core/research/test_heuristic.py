"""The heuristic model: queries from the goal, scores from the fetched text, routes from the
strategy router's flags, and the `ChatClient` adapter that never raises for its inputs."""

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from routescope.llm import ChatClient, JsonAnswer
from routescope.optimise._goal_terms import CorpusFrequencies, goal_terms
from routescope.optimise._query_words import MAX_QUERY_CHARS, MAX_QUERY_WORDS
from routescope.research._answers import PROMPTS, Evaluation, QueryPlan, Refinement, TaskSpec
from routescope.research._heuristic import (
    ClassifierInput,
    EvaluatorInput,
    HeuristicModel,
    OptimiserInput,
    RefinerInput,
    Source,
)
from routescope.research._heuristic_chat import HeuristicChat
from routescope.research._loop import deep_research
from routescope.research._models import SearchHit, SearchResponse
from routescope.research._records import PageRead

MODEL = HeuristicModel()
GOAL = "How do I copy a PySide6 table selection to the clipboard?"
ON_TOPIC = [
    Source(
        "https://doc.qt.io/qtforpython-6/table.html",
        "PySide6 QTableView: copy the selection to the clipboard",
        "To copy a table selection in PySide6, read selectedIndexes and set the clipboard text. "
        * 10,
    ),
    Source(
        "https://stackoverflow.com/questions/1",
        "Copy selected cells of a PySide6 table",
        "QApplication.clipboard() takes the text of the table selection you copy. " * 10,
    ),
]
OFF_TOPIC = [
    Source(
        "https://cooking.example/ramen",
        "Ramen recipes",
        "Boil the noodles, add the broth and a soft egg. " * 20,
    )
]


def _one_decimal(value: float) -> bool:
    return 0.0 <= value <= 1.0 and round(value, 1) == value


# -- search_query_optimizer --------------------------------------------------------------------


def test_a_python_gui_goal_gets_a_python_gui_query() -> None:
    plan = MODEL.plan_query(OptimiserInput("How do I build a GUI in Python to copy a table?"))
    words = plan.query.split()
    assert {"Python", "GUI", "copy", "table"} <= set(words)
    assert not {"How", "do", "I", "a", "in", "to"} & set(words)
    assert "docs.python.org" in plan.expected_domains
    assert plan.reason.startswith("heuristic: ")
    assert "strategy router" in plan.reason


def test_the_stack_hint_is_added_and_said_where_it_came_from() -> None:
    plan = MODEL.plan_query(
        OptimiserInput("Please, how do I copy table cells to the clipboard?", "Python GUI")
    )
    assert plan.query == "copy table cells clipboard Python GUI"
    assert "stack hint 'Python GUI'" in plan.reason
    react = MODEL.plan_query(OptimiserInput("add a dark mode toggle", "Vite React frontend"))
    assert react.query.endswith("Vite React frontend")
    assert react.expected_domains[:2] == ["vite.dev", "react.dev"]


def test_the_stack_is_inferred_from_the_project_context_without_a_hint() -> None:
    plan = MODEL.plan_query(OptimiserInput("copy table cells", None, "A PySide6 desktop app"))
    assert "Python" in plan.query.split()
    assert "inferred" in plan.reason


def test_long_goals_are_cut_to_twelve_words_keeping_the_entities() -> None:
    goal = "I need to " + " ".join(f"word{i}" for i in range(30)) + " with PySide6 and FastAPI"
    plan = MODEL.plan_query(OptimiserInput(goal, "Python GUI"))
    words = plan.query.split()
    assert len(words) <= MAX_QUERY_WORDS
    assert {"PySide6", "FastAPI", "Python", "GUI"} <= set(words)
    assert "cut to fit" in plan.reason


def test_a_goal_without_content_words_still_gets_a_query() -> None:
    assert MODEL.plan_query(OptimiserInput("please help me")).query == "please help me"
    assert MODEL.plan_query(OptimiserInput("   ")).query == "documentation"


# -- research_query_refiner --------------------------------------------------------------------


def _quality(relevance: float, coverage: float) -> Evaluation:
    return Evaluation(relevance=relevance, confidence=0.3, coverage=coverage, should_retry=True)


def test_a_400_shortens_the_query() -> None:
    previous = "PySide6 QTableView copy selection clipboard keyboard shortcut Python GUI"
    refined = MODEL.refine(RefinerInput(GOAL, previous, "- page", None, 400))
    assert refined.should_retry
    assert len(refined.query.split()) < len(previous.split())
    assert "PySide6" in refined.query.split()
    assert "(400)" in refined.reason


def test_empty_results_shorten_and_a_single_word_cannot_be_shorter() -> None:
    refined = MODEL.refine(RefinerInput(GOAL, "PySide6 copy table selection", "", None, 200))
    assert refined.should_retry
    assert refined.query == "PySide6 copy"
    stuck = MODEL.refine(RefinerInput(GOAL, "PySide6", "", None, 200))
    assert not stuck.should_retry
    assert "cannot be shorter" in stuck.reason


def test_low_relevance_and_coverage_add_the_stack() -> None:
    refined = MODEL.refine(
        RefinerInput(GOAL, "copy table selection tutorial", "- Excel tips", _quality(0.3, 0.3))
    )
    assert refined.should_retry
    assert refined.query == "copy table selection tutorial Python GUI"


def test_low_relevance_removes_over_specific_words_when_the_stack_is_there() -> None:
    refined = MODEL.refine(
        RefinerInput(
            GOAL,
            "PySide6 copy table selection clipboard Python GUI Windows 11 registry",
            "- Windows registry",
            _quality(0.2, 0.2),
        )
    )
    assert refined.should_retry
    assert "registry" not in refined.query
    assert "over-specific" in refined.reason


def test_low_coverage_focuses_on_what_no_source_covered() -> None:
    refined = MODEL.refine(
        RefinerInput(
            GOAL,
            "PySide6 copy table selection clipboard",
            "- PySide6 table selection copy (doc.qt.io)",
            _quality(0.8, 0.4),
        )
    )
    assert refined.should_retry
    assert refined.query == "PySide6 clipboard"


SHA = "compute the SHA-256 hash of a file"
SHA_TERMS = goal_terms(
    SHA, CorpusFrequencies(300, {"compute": 13, "sha": 2, "256": 5, "hash": 16, "file": 150})
)


def test_a_weak_attempt_keeps_the_goals_rarest_terms() -> None:
    refined = MODEL.refine(
        RefinerInput(
            SHA,
            "compute SHA-256 hash file",
            "- a page",
            _quality(0.2, 0.0),
            200,
            terms=SHA_TERMS,
            uncovered=("compute", "SHA-256", "hash"),
        )
    )
    assert refined.should_retry
    assert refined.query == "compute SHA-256 SHA256 hash"  # the compound joined up too
    assert "rarest terms" in refined.reason and "file" not in refined.query


def test_a_relevant_attempt_focuses_on_what_no_page_covered() -> None:
    refined = MODEL.refine(
        RefinerInput(
            SHA,
            "compute SHA-256 hash file",
            "- a page",
            _quality(0.7, 0.4),
            200,
            terms=SHA_TERMS,
            uncovered=("compute",),
        )
    )
    assert refined.should_retry
    assert refined.query == "compute SHA-256 SHA256"
    assert "anchored on 'SHA-256'" in refined.reason


def test_no_retry_when_the_target_is_met_or_access_is_refused() -> None:
    done = MODEL.refine(RefinerInput(GOAL, "PySide6 copy", "- a page", _quality(0.7, 0.6)))
    assert not done.should_retry
    assert done.query == "PySide6 copy"
    refused = MODEL.refine(RefinerInput(GOAL, "PySide6 copy", "", None, 403))
    assert not refused.should_retry


# -- research_relevance_evaluator --------------------------------------------------------------


def test_matching_text_is_relevant_and_covered() -> None:
    graded = MODEL.evaluate(EvaluatorInput(GOAL, "q", ON_TOPIC))
    assert graded.relevance >= 0.8
    assert graded.coverage == 1.0
    assert 0.4 < graded.confidence <= 0.9
    assert not graded.should_retry
    assert graded.reasons.startswith("heuristic: relevance")


def test_off_topic_text_is_not_relevant_and_asks_for_a_retry() -> None:
    graded = MODEL.evaluate(EvaluatorInput(GOAL, "q", OFF_TOPIC))
    assert graded.relevance <= 0.1
    assert graded.coverage == 0.0
    assert graded.should_retry
    assert "missing 'copy'" in graded.reasons


def test_titles_weigh_more_than_the_text() -> None:
    text = "a PySide6 table widget and its selection " * 20
    title = "PySide6 table selection"
    titled = MODEL.evaluate(EvaluatorInput(GOAL, "q", [Source("https://a.example", title, text)]))
    untitled = MODEL.evaluate(EvaluatorInput(GOAL, "q", [Source("https://a.example", "", text)]))
    assert titled.relevance > untitled.relevance


def test_confidence_is_zero_without_sources_and_low_with_one() -> None:
    none = MODEL.evaluate(EvaluatorInput(GOAL, "q", []))
    assert (none.relevance, none.confidence, none.coverage) == (0.0, 0.0, 0.0)
    assert none.should_retry
    one = MODEL.evaluate(EvaluatorInput(GOAL, "q", ON_TOPIC[:1]))
    assert one.relevance >= 0.8
    assert one.confidence <= 0.4
    assert "single source" in one.reasons
    same_host = [Source("https://doc.qt.io/b", s.title, s.text) for s in ON_TOPIC]
    assert MODEL.evaluate(EvaluatorInput(GOAL, "q", same_host)).confidence <= 0.4


def test_uncovered_key_terms_ask_for_a_retry_unless_no_document_has_them() -> None:
    half = [Source("https://a.example", "PySide6 table", "a PySide6 table widget " * 30)]
    graded = MODEL.evaluate(EvaluatorInput(GOAL, "q", half, max_sources=1))
    assert graded.should_retry
    assert "another query may find 'copy', 'selection', 'clipboard'" in graded.reasons
    counts = {"copy": 0, "selection": 0, "clipboard": 0, "pyside6": 3, "table": 3}
    terms = goal_terms(GOAL, CorpusFrequencies(100, counts))
    hopeless = MODEL.evaluate(EvaluatorInput(GOAL, "q", half, max_sources=1, terms=terms))
    assert not hopeless.should_retry
    assert "in no document of the index" in hopeless.reasons


def test_a_page_of_common_words_only_is_not_relevant() -> None:
    ramen = "Best ramen near Denver, Colorado open tonight"
    page = Source("https://docs.python.org/3/library/wave.html", "wave", "open the best " * 50)
    graded = MODEL.evaluate(EvaluatorInput(ramen, "q", [page] * 3))
    assert graded.relevance <= 0.1 and graded.coverage == 0.0
    assert "only common words" in graded.reasons


# -- task_classifier ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "route"),
    [
        ("best ramen restaurants near Denver, Colorado open tonight", "browse"),
        ("What is the price of an iPhone 15 today?", "browse"),
        ("Latest OpenClaw news", "browse"),
        ("Compare FastAPI vs Flask best practices", "research"),
        ("What are the pros and cons of Rust and Go for a CLI?", "research"),
        ("Trade-offs of SQLite versus Postgres", "research"),
        ("Write a poem about cats", "chat"),
        ("Explain Python decorators", "chat"),
    ],
)
def test_classify(message: str, route: str) -> None:
    spec = MODEL.classify(ClassifierInput(message))
    assert spec.route == route
    assert spec.user_goal
    assert len(spec.user_goal) <= 300
    assert spec.reason.startswith("heuristic: ")


def test_the_user_goal_is_the_routers_goal() -> None:
    spec = MODEL.classify(ClassifierInput("  Compare FastAPI vs Flask best practices?  "))
    assert spec.user_goal == "Compare FastAPI vs Flask best practices"
    assert len(MODEL.classify(ClassifierInput("word " * 200)).user_goal) <= 300


# -- the ChatClient adapter --------------------------------------------------------------------


def _ask(name: str, inputs: Any, schema: type[BaseModel]) -> JsonAnswer[Any]:
    chat: ChatClient = HeuristicChat()
    user = inputs if isinstance(inputs, str) else json.dumps(inputs)
    return asyncio.run(chat.complete_json("system", user, schema, name=name))


def test_the_adapter_dispatches_on_the_prompt_name() -> None:
    plan = _ask("search_query_optimizer", {"goal": GOAL, "stack_hint": "Python GUI"}, QueryPlan)
    assert isinstance(plan.value, QueryPlan)
    assert (plan.error, plan.mode, plan.attempts) == (None, None, 0)
    assert "PySide6" in plan.value.query
    refined = _ask(
        "research_query_refiner",
        {
            "goal": GOAL,
            "previous_query": "PySide6 copy table selection clipboard shortcut",
            "findings": "nothing readable was found",
            "quality": None,
            "status": 400,
        },
        Refinement,
    )
    assert isinstance(refined.value, Refinement)
    assert refined.value.should_retry
    sources = [{"url": s.url, "title": s.title, "text": s.text} for s in ON_TOPIC]
    graded = _ask(
        "research_relevance_evaluator", {"goal": GOAL, "query": "q", "sources": sources}, Evaluation
    )
    assert isinstance(graded.value, Evaluation)
    assert graded.value.relevance >= 0.8
    spec = _ask("task_classifier", {"message": "Compare FastAPI vs Flask"}, TaskSpec)
    assert isinstance(spec.value, TaskSpec)
    assert spec.value.route == "research"


def test_the_adapter_reads_the_goal_terms_and_snippets_the_loop_sends() -> None:
    terms = goal_terms(GOAL, CorpusFrequencies(100, {"copy": 0, "clipboard": 0}))
    page = Source("https://a.example", "Qt", "PySide6 widgets " * 9, snippet="a table")
    sources = [{"url": page.url, "title": page.title, "text": page.text, "snippet": page.snippet}]
    inputs = {
        "goal": GOAL,
        "query": "q",
        "sources": sources,
        "goal_terms": [t.to_data() for t in terms],
    }
    graded = _ask("research_relevance_evaluator", inputs, Evaluation)
    assert isinstance(graded.value, Evaluation)
    assert "in no document of the index" in graded.value.reasons
    direct = MODEL.evaluate(EvaluatorInput(GOAL, "q", [page], terms=terms))
    assert graded.value == direct


def test_the_adapter_reads_the_quality_the_loop_sends() -> None:
    quality = Evaluation(relevance=0.9, confidence=0.5, coverage=0.8, should_retry=False)
    inputs = {"goal": GOAL, "previous_query": "PySide6 copy", "quality": quality.model_dump()}
    answer = _ask("research_query_refiner", inputs, Refinement)
    assert isinstance(answer.value, Refinement)
    assert not answer.value.should_retry


@pytest.mark.parametrize(
    ("name", "user", "schema"),
    [
        ("no_such_prompt", {"goal": GOAL}, QueryPlan),
        ("search_query_optimizer", "not json", QueryPlan),
        ("search_query_optimizer", "[1, 2]", QueryPlan),
        ("search_query_optimizer", {}, QueryPlan),
        ("search_query_optimizer", {"goal": 3}, QueryPlan),
        ("research_query_refiner", {"goal": GOAL, "status": "400"}, Refinement),
        ("research_query_refiner", {"goal": GOAL, "quality": {"relevance": "x"}}, Refinement),
        ("research_relevance_evaluator", {"goal": GOAL, "sources": "x"}, Evaluation),
        ("research_relevance_evaluator", {"goal": GOAL, "sources": [3]}, Evaluation),
        ("research_relevance_evaluator", {"goal": GOAL, "max_sources": True}, Evaluation),
        ("research_relevance_evaluator", {"goal": GOAL, "goal_terms": "x"}, Evaluation),
        ("research_relevance_evaluator", {"goal": GOAL, "goal_terms": [{"kind": "x"}]}, Evaluation),
        (
            "research_relevance_evaluator",
            {"goal": GOAL, "goal_terms": [{"text": "a", "weight": "1"}]},
            Evaluation,
        ),
        ("research_query_refiner", {"goal": GOAL, "uncovered": [1]}, Refinement),
        ("task_classifier", {"text": "hi"}, TaskSpec),
    ],
)
def test_unreadable_input_answers_malformed(name: str, user: Any, schema: type[BaseModel]) -> None:
    answer = _ask(name, user, schema)
    assert answer.value is None
    assert answer.error == "malformed"
    assert answer.detail


def test_an_answer_that_does_not_fit_the_schema_is_a_schema_error() -> None:
    answer = _ask("task_classifier", {"message": "hello"}, QueryPlan)
    assert (answer.value, answer.error) == (None, "schema")


def test_every_prompt_has_a_heuristic_answer() -> None:
    inputs: dict[str, Any] = {"goal": GOAL, "previous_query": "PySide6", "message": GOAL}
    schemas: list[type[BaseModel]] = [QueryPlan, Refinement, Evaluation, TaskSpec]
    for name, schema in zip(PROMPTS, schemas, strict=True):
        assert _ask(name, inputs, schema).ok, name


def test_answers_are_deterministic() -> None:
    inputs = EvaluatorInput(GOAL, "q", ON_TOPIC + OFF_TOPIC)
    assert MODEL.evaluate(inputs) == HeuristicModel().evaluate(inputs)
    assert MODEL.plan_query(OptimiserInput(GOAL)) == MODEL.plan_query(OptimiserInput(GOAL))


# -- properties --------------------------------------------------------------------------------

_text = st.text(max_size=300)
_sources = st.lists(
    st.builds(Source, url=st.text(max_size=40), title=_text, text=_text), max_size=4
)


@settings(max_examples=150, deadline=None)
@given(goal=_text, query=_text, sources=_sources, hint=st.one_of(st.none(), _text))
def test_arbitrary_inputs_never_raise_and_scores_are_bounded(
    goal: str, query: str, sources: list[Source], hint: str | None
) -> None:
    graded = MODEL.evaluate(EvaluatorInput(goal, query, sources))
    for value in (graded.relevance, graded.confidence, graded.coverage):
        assert _one_decimal(value)
    if not any(s.title.strip() or s.text.strip() for s in sources):
        assert graded.confidence == 0.0
    plan = MODEL.plan_query(OptimiserInput(goal, hint, query))
    assert len(plan.query) <= MAX_QUERY_CHARS
    assert len(plan.query.split()) <= MAX_QUERY_WORDS or plan.query == goal.strip()
    for status in (None, 200, 400, 500):
        refined = MODEL.refine(RefinerInput(goal, query, query, graded, status))
        assert refined.query
    assert MODEL.classify(ClassifierInput(goal)).user_goal


@settings(max_examples=100, deadline=None)
@given(user=st.text(max_size=200), name=st.sampled_from([*PROMPTS, "other"]))
def test_the_adapter_never_raises(user: str, name: str) -> None:
    answer = HeuristicChat().answer(user, QueryPlan, name=name)
    assert answer.ok or answer.error in ("malformed", "schema")


# -- in the loop -------------------------------------------------------------------------------


class _Search:
    name = "fake"

    async def search(self, query: str, *, max_results: int = 5) -> SearchResponse:
        hits = tuple(
            SearchHit(url=s.url, title=s.title, snippet="", rank=i, provider="fake")
            for i, s in enumerate(ON_TOPIC, 1)
        )
        return SearchResponse(
            provider="fake",
            query=query,
            original_query=query,
            query_action="sent",
            status=200,
            url="https://search.example",
            results=hits,
            duration_ms=1.0,
        )


class _Reader:
    async def read(self, urls: Sequence[str]) -> list[PageRead]:
        pages = {s.url: s for s in ON_TOPIC}
        return [
            PageRead(url, True, "allowed-host", 200, None, pages[url].title, pages[url].text)
            for url in urls
        ]


def test_the_research_loop_runs_on_the_heuristic_model() -> None:
    result = asyncio.run(
        deep_research(GOAL, search=_Search(), reader=_Reader(), llm=HeuristicChat())
    )
    first = result.attempts[0]
    assert first.query_source == "optimiser"
    assert "PySide6" in first.query
    assert first.relevance >= 0.8
    assert result.termination_reason == "target reached in attempt 1"
    assert result.quality.reasons.startswith("heuristic: ")
