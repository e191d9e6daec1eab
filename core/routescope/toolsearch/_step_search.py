"""A request that needs several tools, each step searched alone: the step vectors are kept, so
that typing on after "…, then" embeds only the step that changed."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable

import numpy as np

from ._models import SearchSettings, StepResult, ToolSearchResult
from ._steps import split_steps

__all__ = ["StepSearch"]

_STEP_VECTORS = 64
"""Step vectors kept: typing on after "…, then" embeds only the step that changed."""

Embed = Callable[[str], np.ndarray | None]
Search = Callable[[str, SearchSettings, np.ndarray | None], ToolSearchResult]


class StepSearch:
    """The steps of one engine's requests and the vectors kept for them. The engine's
    methods are passed to each call, not kept: the engine holds this, and no cycle keeps it
    alive."""

    def __init__(self) -> None:
        self._vectors: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def run(
        self, query: str, settings: SearchSettings, embed: Embed, search: Search
    ) -> list[StepResult]:
        """Each step of a request that needs several tools, searched alone by `search` (its
        vector embedded by `embed`, kept for the next keystroke; None: keyword only); [] when
        the request is one step."""
        steps = split_steps(query)
        if len(steps) < 2:
            return []
        # a step's hits are listed by name and score; their fields are not shown
        alone = dataclasses.replace(settings, split_steps=False, explain=False)
        results = []
        for step in steps:
            found = search(step.text, alone, self._vector(step.text, embed))
            results.append(StepResult(step, found.results, found.fits, found.fit_reason))
        return results

    def _vector(self, text: str, embed: Embed) -> np.ndarray | None:
        with self._lock:
            known = self._vectors.pop(text, None)
        if known is None:
            known = embed(text)
            if known is None:
                return None
        with self._lock:
            self._vectors[text] = known  # most recent last
            while len(self._vectors) > _STEP_VECTORS:
                del self._vectors[next(iter(self._vectors))]
        return known
