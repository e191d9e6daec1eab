"""Document frequencies of words in the searched corpus, for weighing a goal's terms
(`_goal_terms.goal_terms`): rare terms count more than common ones.

A search provider that can tell has a `document_frequencies(words)` method answering a
`CorpusFrequencies` (the offline index does). Web providers cannot tell: their goal terms are
weighed by the common-word list alone. Never raises."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ..optimise._goal_terms import CorpusFrequencies

__all__ = ["corpus_frequencies", "corpus_frequencies_sync"]


def corpus_frequencies_sync(search: object, words: Sequence[str]) -> CorpusFrequencies | None:
    """The document frequencies of `words` (lower-cased index tokens) in the corpus `search`
    searches, or None when it cannot tell."""
    words = [w for w in dict.fromkeys(words) if w]
    method = getattr(search, "document_frequencies", None)
    if not callable(method):
        return None
    try:
        answer = method(words)
    except Exception:  # a corpus that cannot tell only loses the rarity weights
        return None
    return answer if isinstance(answer, CorpusFrequencies) else None


async def corpus_frequencies(search: object, words: Sequence[str]) -> CorpusFrequencies | None:
    """`corpus_frequencies_sync` in a worker thread (an index may have to be opened)."""
    return await asyncio.to_thread(corpus_frequencies_sync, search, list(words))
