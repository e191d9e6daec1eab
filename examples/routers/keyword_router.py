"""A router as people write them in their own codebase: a function of the prompt that returns
its route (and, if it can, a score for every route and what matched). Routescope runs it in a
worker process (`kind = "python"` in routers.toml), so a crash or a hang here cannot take the
window down."""

from __future__ import annotations

import re
from typing import Any

KEYWORDS = {
    "billing": ("charge", "charged", "refund", "invoice", "card", "billing", "plan", "pay"),
    "outage": ("down", "outage", "error", "503", "502", "timeout", "times out", "load"),
    "how_to": ("how do i", "how to", "where do i", "set up", "export", "invite"),
}


def route(prompt: str, context: dict[str, Any] | None = None) -> dict[str, Any]:
    text = prompt.lower()
    hits = {
        name: [word for word in words if re.search(rf"\b{re.escape(word)}\b", text)]
        for name, words in KEYWORDS.items()
    }
    scores = {name: min(1.0, len(found) / 2) for name, found in hits.items()}
    best = max(scores, key=lambda name: scores[name])
    return {
        "route": best if scores[best] > 0 else None,
        "score": scores[best],
        "scores": scores,
        "signals": [f"keyword:{word}" for found in hits.values() for word in found],
    }
