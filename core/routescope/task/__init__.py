"""The task router (seed 000, "Strategy integration"): what to do with a message — chat,
browse or research — and the goal restated, from a model or the deterministic heuristic; the
searches always come from the strategy pipeline, never from the model, and a research route
also names the first search deep research would make (`routescope.optimise`).

`inspect()` runs the heuristic for every prompt (`Inspection.task`); `classify(llm=…)` asks a
model and falls back to the heuristic when its answer cannot be used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._heuristic import heuristic_route as heuristic_route
    from ._heuristic import heuristic_task_spec as heuristic_task_spec
    from ._task import Planned as Planned
    from ._task import TaskDecision as TaskDecision
    from ._task import TaskSpec as TaskSpec
    from ._task import classify as classify
    from ._task import classify_heuristic as classify_heuristic

__getattr__, __dir__, __all__ = lazy_face(__name__)
