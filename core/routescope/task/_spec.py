"""What the `task_classifier` prompt asks a model for."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

__all__ = ["TaskSpec"]


class TaskSpec(BaseModel):
    """task_classifier: what to do with a message (the strategy router plans any searches)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    route: Literal["chat", "browse", "research"]
    user_goal: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)
    ]
    reason: Annotated[str, StringConstraints(strip_whitespace=True, max_length=2_000)] = ""
