"""The router contract (seed 001): agent, mode, UI and a guarded tool plan per user turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._context import load_context as load_context
    from ._context import parse_context as parse_context
    from ._decide import decide as decide
    from ._guardrails import apply_guardrails as apply_guardrails
    from ._models import CallResult as CallResult
    from ._models import PlanProgress as PlanProgress
    from ._models import RouterContext as RouterContext
    from ._models import RouterDecision as RouterDecision
    from ._steps import prepare_step as prepare_step

__getattr__, __dir__, __all__ = lazy_face(__name__)
