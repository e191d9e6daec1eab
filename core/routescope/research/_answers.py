"""What the research prompts ask a model for (resources/prompts/*.md), as pydantic models:
scores clamped to [0, 1] with one decimal, strings bounded, unknown keys ignored."""

from __future__ import annotations

import functools
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from .._resources import resources_root
from ..llm import Score
from ..task import TaskSpec

__all__ = ["PROMPTS", "Evaluation", "QueryPlan", "Refinement", "TaskSpec", "prompt"]

Query = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=400)]
Reason = Annotated[str, StringConstraints(strip_whitespace=True, max_length=2_000)]

PROMPTS = (
    "search_query_optimizer",
    "research_query_refiner",
    "research_relevance_evaluator",
    "task_classifier",
)


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class QueryPlan(_Answer):
    """search_query_optimizer: the first query of a research run."""

    query: Query
    reason: Reason = ""
    expected_domains: list[Annotated[str, StringConstraints(max_length=253)]] = Field(
        default=[], max_length=5
    )


class Refinement(_Answer):
    """research_query_refiner: the next query, or no retry."""

    query: Query
    should_retry: bool
    reason: Reason = ""


class Evaluation(_Answer):
    """research_relevance_evaluator: one attempt graded."""

    relevance: Score
    confidence: Score
    coverage: Score
    should_retry: bool
    reasons: Reason = ""


@functools.cache
def prompt(name: str) -> str:
    """The text of one of the `PROMPTS` (its system prompt)."""
    if name not in PROMPTS:
        raise ValueError(f"no prompt {name!r} (one of {', '.join(PROMPTS)})")
    return (resources_root() / "prompts" / f"{name}.md").read_text(encoding="utf-8")
