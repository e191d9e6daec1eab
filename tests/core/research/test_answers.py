"""The research prompts: the four sections each, and each documented example output parsed by
the real parser into its model."""

import pytest
from pydantic import BaseModel

from routescope.llm._client import parse_json_answer
from routescope.research._answers import (
    PROMPTS,
    Evaluation,
    QueryPlan,
    Refinement,
    TaskSpec,
    prompt,
)

MODELS: dict[str, type[BaseModel]] = {
    "search_query_optimizer": QueryPlan,
    "research_query_refiner": Refinement,
    "research_relevance_evaluator": Evaluation,
    "task_classifier": TaskSpec,
}


@pytest.mark.parametrize("name", PROMPTS)
def test_each_prompt_has_the_four_sections_and_asks_for_raw_json(name: str) -> None:
    text = prompt(name)
    for section in ("## Task", "## Inputs", "## Constraints", "## Output schema"):
        assert section in text
    assert "raw JSON only" in text and "no markdown fences" in text


@pytest.mark.parametrize("name", PROMPTS)
def test_the_documented_example_parses_into_its_model(name: str) -> None:
    example = prompt(name).split("Example output:", 1)[1].strip()
    answer = parse_json_answer(example, MODELS[name])
    assert answer.ok, answer.detail
    assert type(answer.value) is MODELS[name]


def test_the_evaluator_asks_for_scores_with_one_decimal_and_low_confidence() -> None:
    text = prompt("research_relevance_evaluator")
    assert "[0, 1] with one decimal" in text
    assert "low confidence" in text


def test_scores_are_clamped_and_rounded() -> None:
    reply = (
        '```json\n{"relevance": 1.7, "confidence": -0.2, "coverage": 0.46, '
        '"should_retry": false}\n```'
    )
    answer = parse_json_answer(reply, Evaluation)
    assert answer.value == Evaluation(
        relevance=1.0, confidence=0.0, coverage=0.5, should_retry=False, reasons=""
    )


def test_an_unknown_prompt_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no prompt 'nope'"):
        prompt("nope")
