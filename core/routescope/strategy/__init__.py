"""The search-strategy router (seed 000): extract → route → plan → sanitize."""

from ..rules import INTENTS, IntentName
from ._extract import MAX_MATCHES_PER_INTENT, extract, normalize_goal
from ._models import (
    Action,
    Entities,
    EntityCandidate,
    IntentFlags,
    KeywordMatch,
    PlaceHint,
    QueryContext,
    SanitizeEdit,
    Span,
    Strategy,
    StrategyDecision,
)
from ._plan import Plan, PlannedQuery, plan
from ._route import route
from ._sanitize import format_as_of, sanitize_plan, sanitize_query

__all__ = [
    "INTENTS",
    "MAX_MATCHES_PER_INTENT",
    "Action",
    "Entities",
    "EntityCandidate",
    "IntentFlags",
    "IntentName",
    "KeywordMatch",
    "PlaceHint",
    "Plan",
    "PlannedQuery",
    "QueryContext",
    "SanitizeEdit",
    "Span",
    "Strategy",
    "StrategyDecision",
    "extract",
    "format_as_of",
    "normalize_goal",
    "plan",
    "route",
    "sanitize_plan",
    "sanitize_query",
]
