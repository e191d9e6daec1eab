"""Prompts for the property tests: words the routers react to (intent keywords, places,
entities, linter anchors, contract triggers), common words and punctuation, joined by spaces."""

from __future__ import annotations

from hypothesis import strategies as st

_WORDS = [
    *("install", "setup", "repo", "api", "error", "fix", "crash", "log", "documentation"),
    *("near", "me", "nearby", "city", "hours", "this", "weekend", "tonight", "today", "latest"),
    *("best", "buy", "price", "vs", "in", "around", "open", "2026"),
    *("Denver,", "Colorado", "Austin", "Boulder", "Paris", "OpenClaw", "FastAPI", "GitHub"),
    *("readme.md", "docs/", "config", "telemetry", "agent.md", "session", "tests", "template"),
    *("stake", "5", "SOL", "lend", "pools", "yields", "try", "again", "deposit", "on", "Kamino"),
    *("how", "do", "I", "the", "a", "my", "server?", "for", "with", "and", "ramen", "coffee"),
    *("(see", "it)", "—", "...", "don't", "How", "What", "Best", "show", "git", "files"),
]

prompts = (
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12)
    .map(" ".join)
    .filter(lambda text: any(ch.isalnum() for ch in text))
)
"""Prompts of 1–12 words."""

texts = st.one_of(
    prompts,
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        min_size=1,
        max_size=60,
    ).filter(lambda text: any(ch.isalnum() for ch in text)),
)
"""Prompts, or any text with a letter or digit in it (odd spacing, punctuation, scripts)."""
