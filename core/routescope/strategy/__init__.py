"""The search-strategy router (seed 000): extract → route → plan → sanitize."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ..rules import INTENTS as INTENTS
    from ..rules import IntentName as IntentName
    from ._extract import extract as extract
    from ._models import Action as Action
    from ._models import EntityCandidate as EntityCandidate
    from ._models import QueryContext as QueryContext
    from ._models import Strategy as Strategy
    from ._models import StrategyDecision as StrategyDecision
    from ._plan import Plan as Plan
    from ._plan import plan as plan
    from ._route import route as route
    from ._sanitize import sanitize_plan as sanitize_plan
    from ._sanitize import sanitize_query as sanitize_query

__getattr__, __dir__, __all__ = lazy_face(__name__)
