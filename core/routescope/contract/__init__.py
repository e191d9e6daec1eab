"""The router contract (seed 001): agent, mode, UI and a guarded tool plan per user turn."""

from ._context import load_context, parse_context
from ._decide import decide
from ._guardrails import apply_guardrails
from ._llm import LLMClient
from ._models import (
    GuardrailEvent,
    LastAction,
    LastSelection,
    LastYield,
    Preferences,
    RouterContext,
    RouterDecision,
    RuleHit,
    Step,
    StepResult,
    ToolCall,
)
from ._steps import prepare_step

__all__ = [
    "GuardrailEvent",
    "LLMClient",
    "LastAction",
    "LastSelection",
    "LastYield",
    "Preferences",
    "RouterContext",
    "RouterDecision",
    "RuleHit",
    "Step",
    "StepResult",
    "ToolCall",
    "apply_guardrails",
    "decide",
    "load_context",
    "parse_context",
    "prepare_step",
]
