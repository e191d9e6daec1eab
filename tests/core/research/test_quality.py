"""Research quality: the seed's score, the best attempt, the next step and the stack hint."""

import pytest

from routescope.optimise import infer_stack
from routescope.research._quality import Scores, best_attempt, next_step, score


def test_score_is_the_seeds_weighted_sum_and_zero_without_pages() -> None:
    assert score(Scores(relevance=0.8, confidence=0.5, coverage=0.6)) == pytest.approx(0.68)
    assert score(Scores(relevance=1.0, confidence=1.0, coverage=1.0, fetched=0)) == 0.0


def test_best_attempt_breaks_ties_by_relevance_then_order() -> None:
    assert best_attempt([]) is None
    low, high = Scores(0.2, 0.5, 1.0), Scores(0.6, 0.25, 0.5)  # both score 0.5
    tied = [low, high, high]
    assert score(tied[0]) == score(tied[1])
    assert best_attempt(tied) == 1
    assert best_attempt([Scores(0.5, 0.5, 0.5), Scores(0.9, 0.9, 0.9, fetched=0)]) == 0


@pytest.mark.parametrize(
    ("attempts", "grounding", "outcome", "reason"),
    [
        ([Scores(0.8, 0.6, 0.7)], False, "proceed", "relevance 0.8 ≥ 0.7 and coverage 0.7 ≥ 0.6"),
        ([Scores(0.5, 0.6, 0.5)], False, "research_again", "below 0.7 / 0.6"),
        ([Scores(0.5, 0.6, 0.5)] * 3, False, "proceed", "3 of 3 attempts made"),
        ([Scores(0.2, 0.6, 0.2), Scores(0.1, 0.5, 0.1)], True, "escalate", "all 2 attempts"),
        ([Scores(0.2, 0.6, 0.2), Scores(0.1, 0.5, 0.1)], False, "research_again", "below"),
    ],
)
def test_next_step(attempts: list[Scores], grounding: bool, outcome: str, reason: str) -> None:
    step = next_step(attempts, 3, requires_grounding=grounding)
    assert step.outcome == outcome
    assert reason in step.reason


def test_weak_research_warns() -> None:
    weak = ["web research weak; relying more on model prior"]
    assert next_step([Scores(0.5, 0.9, 0.9)], 1).warnings == weak
    assert next_step([Scores(0.65, 0.9, 0.9)], 1).warnings == weak  # short of the target
    assert next_step([Scores(0.9, 0.9, 0.9)], 1).warnings == []


@pytest.mark.parametrize(
    ("goal", "context", "hint"),
    [
        ("Build a PySide6 desktop window for routing", None, "Python GUI"),
        ("Make a landing page with React and Vite", None, "Vite React frontend"),
        ("style the buttons", "A Flask API server in Python", "Python backend"),
        ("best ramen near Denver", None, None),
    ],
)
def test_infer_stack(goal: str, context: str | None, hint: str | None) -> None:
    found = infer_stack(goal, context)
    assert found.hint == hint
    text = goal if context is None else f"{goal}\n{context}"
    for word, start, end in found.evidence:
        assert text.lower()[start:end] == word
    assert len(found.evidence) == len(set(found.evidence))
