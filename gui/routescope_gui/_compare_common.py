"""What the compare view's parts share: A's and B's colours (the theme's roles), the headline
decisions in the order the outcome rows show them, and a decision or piece of evidence as a
cell's text."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["A_FILL", "A_INK", "B_FILL", "B_INK", "OUTCOME_COLUMNS", "value_text"]

OUTCOME_COLUMNS = (
    ("strategy", "Strategy"),
    ("lint_class", "Linter class"),
    ("agent", "Agent"),
    ("mode", "Mode"),
    ("task_route", "Task route"),
    ("top_tool", "Top tool"),
    ("tool_fit", "Tool fit"),
)
"""The headline decisions (`Decisions` fields) in the order the outcome rows show them."""
A_INK, A_FILL = "side_a", "side_a_fill"
B_INK, B_FILL = "side_b", "side_b_fill"
"""The theme's roles of A's and B's text and fill (`colour`, `css`)."""


def value_text(value: Any) -> str:
    """A decision or piece of evidence as a cell's text."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
