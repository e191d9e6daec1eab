"""Hybrid tool routing search (seed 004): catalogs in the formats people have, a Tantivy keyword
index with field boosts, vector search, two fusions (the seed's reciprocal-rank fusion, and the
default weighted fusion chosen by `make eval`), intent strategies and rerank, requests split
into steps, a "no tool fits" verdict, every rank explained.

The settings and result models (`SearchSettings`, `ToolSearchResult`, …) and `canonical()` are
cheap to import; the engine (`ToolSearch`: Tantivy, numpy, an embedding model) loads on first use.
`Engines` keeps one engine per catalog, checked against the catalog's digest when it loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from .._errors import CatalogError as CatalogError
    from .._errors import EmbedderError as EmbedderError
    from ._canonical import canonical as canonical
    from ._canonical import default_boosts as default_boosts
    from ._catalog import Catalog as Catalog
    from ._catalog import Tool as Tool
    from ._catalog import load_catalog as load_catalog
    from ._embed import Embedder as Embedder
    from ._embed import default_model_id as default_model_id
    from ._engines import Engines as Engines
    from ._equation import score_equation as score_equation
    from ._keyword import tokens as tokens
    from ._minilm import MiniLMOnnx as MiniLMOnnx
    from ._models import CALIBRATED_FIT_THRESHOLDS as CALIBRATED_FIT_THRESHOLDS
    from ._models import FUSIONS as FUSIONS
    from ._models import Fusion as Fusion
    from ._models import KeywordSignal as KeywordSignal
    from ._models import SearchSettings as SearchSettings
    from ._models import SearchStrategy as SearchStrategy
    from ._models import Signals as Signals
    from ._models import Step as Step
    from ._models import StepResult as StepResult
    from ._models import ToolHit as ToolHit
    from ._models import ToolSearchResult as ToolSearchResult
    from ._models import WhyNot as WhyNot
    from ._search import ToolSearch as ToolSearch
    from ._why_not import why_not as why_not

__getattr__, __dir__, __all__ = lazy_face(__name__)
