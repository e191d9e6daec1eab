"""The two fusions of the tool search behind one interface (`FUSERS[settings.fusion]`, a
`Fuser`): which tools the keyword side proposes, how a query's keyword and vector signals become
one ranking, each hit's shares (they add up to its score), and the formula in words
(`formula(settings)`, for views).

`canonical` is the seed's pipeline exactly (`routing_search_canonical_v1`, `_rrf`): Tantivy's
default tokenizer, reciprocal-rank fusion at k, the seed's rerank constants.

`weighted` (the default, chosen by `make eval`; `_weighted`) adds the signals on one scale:

    final = vector weight · cosine + keyword weight · keyword evidence + boosts

where the keyword evidence (`_evidence`) says how much of the query the tool's words explain,
counting a word by how much it can say.
"""

from __future__ import annotations

from ._fuser import Fuser
from ._models import SearchSettings
from ._rrf import CanonicalFusion
from ._weighted import WeightedFusion

__all__ = ["FUSERS", "formula"]

FUSERS: dict[str, Fuser] = {"weighted": WeightedFusion(), "canonical": CanonicalFusion()}
"""The fusion of each `SearchSettings.fusion`."""


def formula(settings: SearchSettings) -> str:
    """How the settings' fusion scores a tool, in words, with their numbers."""
    return FUSERS[settings.fusion].formula(settings)
