"""The task router (seed 000, "Strategy integration"): what to do with a message — chat,
browse or research — and the goal restated, from a model or the deterministic heuristic; the
searches always come from the strategy pipeline, never from the model.

`inspect()` runs the heuristic for every prompt (`Inspection.task`); `classify(llm=…)` asks a
model and falls back to the heuristic when its answer cannot be used.
"""

from __future__ import annotations

from ._heuristic import heuristic_task_spec
from ._task import (
    Planned,
    TaskDecision,
    TaskSpec,
    classify,
    classify_heuristic,
    validate_task_spec,
)

__all__ = [
    "Planned",
    "TaskDecision",
    "TaskSpec",
    "classify",
    "classify_heuristic",
    "heuristic_task_spec",
    "validate_task_spec",
]
