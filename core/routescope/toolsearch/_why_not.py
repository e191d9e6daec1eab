""" "Why not this tool?": where one tool stands in each list for a query (weighted fusion: the
keyword list ranked by keyword evidence, and the words its keyword share comes from)."""

from __future__ import annotations

import dataclasses

import numpy as np

from .._errors import EmbedderError
from ._fusion import FUSERS
from ._models import SearchSettings, WhyNot
from ._search import ToolSearch

__all__ = ["why_not"]


def why_not(
    search: ToolSearch,
    query: str,
    tool_name: str,
    settings: SearchSettings,
    query_vector: np.ndarray | None = None,
) -> WhyNot:
    """Rank one tool in the full keyword list, the full vector list and the fused list."""
    index = search.index_of(tool_name)
    if index is None:
        return WhyNot(tool_name, None, None, None, None, None, "not in the catalog")
    tool_name = search.catalog.tools[index].tool_name
    everything = len(search.catalog.tools)
    keyword_rank, keyword_score = search.keyword_standing(query, settings, index)
    vector_rank = similarity = None
    vectors = search.vector if query_vector is not None else None
    if vectors is not None:
        try:
            scores = vectors.similarities(vectors.check_query(query_vector))
        except EmbedderError:
            query_vector = None  # not usable: the full search below says why
        else:
            similarity = float(scores[index])
            vector_rank = int((scores > scores[index]).sum()) + 1
    every = dataclasses.replace(settings, k=max(1, everything), explain=False)
    full = search.search(query, every, query_vector=query_vector)
    final = next((h for h in full.results if h.tool_name == tool_name), None)
    final_rank = final.rank if final is not None else None
    reasons = []
    if keyword_rank is None:
        reasons.append("no query term is in its indexed fields")
    elif keyword_rank > settings.candidates:
        reasons.append(f"keyword rank {keyword_rank} is outside the top {settings.candidates}")
    if vector_rank is not None and vector_rank > settings.candidates:
        reasons.append(f"vector rank {vector_rank} is outside the top {settings.candidates}")
    if full.category_filter and search.catalog.tools[index].category != full.category_filter:
        reasons.append(f"the {full.category_filter} filter excludes its category")
    if final_rank is not None and not reasons:
        fused = FUSERS[settings.fusion].fused_by
        reasons.append(f"fused rank {final_rank}: other tools have higher {fused} + boosts")
    # only the weighted fusion says which words a keyword share comes from
    if final is not None and final.signals.keyword is not None and final.signals.keyword.terms:
        words = ", ".join(
            f"{t.word} +{t.share:.3f}" + (f" ({t.note})" if t.note else "")
            for t in final.signals.keyword.terms
        )
        reasons.append(f"its keyword share: {words}")
    return WhyNot(
        tool_name,
        keyword_rank,
        keyword_score,
        vector_rank,
        similarity,
        final_rank,
        "; ".join(reasons) or "not ranked",
    )
