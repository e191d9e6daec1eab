"""Counterfactuals: what each word of a prompt does. Each word is removed in turn and every
deterministic router runs again on what is left; a word matters when its removal flips the
strategy, the linter's class, the contract's agent or mode, the task route or the top tool.

Work shared by the runs: the rule pack (its compiled patterns are kept on it), the words
(found once), identical texts (a repeated word in the same place is run once), and each run is
a lean run of the stages — no task searches, per-field tool explanations or step splitting,
none of which can change a decision watched here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .._errors import InputError
from .._input import is_blank, validate_text
from .._outcome import Outcome
from .._request import Request
from .._stages import run_stages
from ._models import Counterfactuals, DecisionName, Decisions, Flip, WordEffect
from ._words import cut_range, without_word, words

if TYPE_CHECKING:
    from ..toolsearch import ToolSearch

__all__ = ["DECISIONS", "MAX_WORDS", "counterfactuals", "flips"]

MAX_WORDS = 200
"""Words tried at most (the first ones): each costs one run of every router."""
DECISIONS: tuple[DecisionName, ...] = (
    "strategy",
    "lint_class",
    "agent",
    "mode",
    "task_route",
    "top_tool",
    "tool_fit",
)


def flips(before: Decisions, after: Decisions) -> tuple[Flip, ...]:
    """The decisions that differ between two outcomes, in `DECISIONS` order."""
    return tuple(
        Flip(name, getattr(before, name), getattr(after, name))
        for name in DECISIONS
        if getattr(before, name) != getattr(after, name)
    )


def counterfactuals(
    request: Request | str, tools: ToolSearch | None = None, *, max_words: int = MAX_WORDS
) -> Counterfactuals:
    """Remove each word of the request's prompt in turn (the first `max_words`), run every
    deterministic router again, and say which decisions flip. `tools`: the engine of the
    request's catalog, to watch the top tool as well (one search per word). A text is a
    request with the built-in pack."""
    if isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 0:
        raise InputError(f"max_words must be a whole number ≥ 0, got {max_words!r:.40}")
    if not isinstance(request, Request):
        request = Request.build(validate_text(request))
    text = validate_text(request.text)
    run = _runner(request, tools)
    baseline = run(text)
    found = words(text)
    seen: dict[str, Decisions] = {text: baseline}
    effects: list[WordEffect] = []
    notes: list[str] = []
    for word in found[:max_words]:
        cut = cut_range(text, word)
        variant = without_word(text, cut)
        if is_blank(variant):
            notes.append(f"{word.value!r} is the only word: removing it leaves no prompt")
            continue
        outcome = seen.get(variant)
        if outcome is None:
            outcome = seen[variant] = run(variant)
        effects.append(
            WordEffect(word.value, word.start, word.end, cut[0], cut[1], flips(baseline, outcome))
        )
    if len(found) > max_words:
        notes.append(f"only the first {max_words:,} of {len(found):,} words were tried")
    return Counterfactuals(text, baseline, tuple(effects), len(found), tuple(notes))


def _runner(request: Request, tools: ToolSearch | None) -> Callable[[str], Decisions]:
    """The decisions of one text, as `inspect` makes them (a lean run of the same stages)."""
    rules = request.rules.load()

    def run(text: str) -> Decisions:
        stages = run_stages(
            text, request.today, rules, request.context, tools, request.search, lean=True
        )
        return Decisions.of(Outcome.of(stages))

    return run
