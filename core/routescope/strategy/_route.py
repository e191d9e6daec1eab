"""The three-way strategy router: local, then tech, then general. No other routes exist."""

from __future__ import annotations

from ._models import KeywordMatch, QueryContext, StrategyDecision

__all__ = ["route"]


def _first(context: QueryContext, intent: str) -> KeywordMatch:
    return next(m for m in context.intent_matches if m.intent == intent)


def _cite(context: QueryContext, match: KeywordMatch) -> str:
    vote = next((v for v in context.example_votes if v.intent == match.intent), None)
    if vote is not None and vote.decided and not vote.rules:
        return f"by vote: {vote.reason}"
    return f'"{match.text}" @{match.start}–{match.end}'


def route(context: QueryContext) -> StrategyDecision:
    """Choose the strategy from the intent flags, citing the keyword that decided it."""
    intent = context.intent
    if intent.local:
        match = _first(context, "local")
        return StrategyDecision(
            strategy="local",
            rule="intent.local",
            reason=f"intent.local matched {_cite(context, match)}",
        )
    for flag in ("tech", "troubleshooting"):
        if getattr(intent, flag):
            match = _first(context, flag)
            return StrategyDecision(
                strategy="tech",
                rule=f"intent.{flag}",
                reason=f"intent.{flag} matched {_cite(context, match)}; intent.local not set",
            )
    return StrategyDecision(
        strategy="general",
        rule="default",
        reason="no local, tech or troubleshooting keyword: general",
    )
