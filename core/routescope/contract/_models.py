"""The router contract's inputs and outputs (seed 001), as pydantic models with a JSON Schema."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, NoReturn

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..rules import AgentName, ModeName

__all__ = [
    "UI",
    "CallResult",
    "GuardrailEvent",
    "GuardrailRule",
    "LastAction",
    "LastSelection",
    "LastYield",
    "Layout",
    "PlanProgress",
    "Preferences",
    "RouterContext",
    "RouterDecision",
    "RuleHit",
    "Source",
    "StopCondition",
    "ToolCall",
    "first_non_finite",
]


UI = Literal["cards", "cards_then_text", "text"]
StopCondition = Literal["when_first_yields_result_received", "after_tool_plan_complete", "none"]
Layout = Literal["tool", "text"]
Source = Literal["rules", "llm"]
GuardrailRule = Literal[
    "unknown_tool",
    "invalid_args",
    "tool_gating",
    "dedupe",
    "repeat_without_new_args",
    "max_steps",
    "min_steps",
    "rollout",
    "llm_fallback",
    "nothing_to_retry",
]


def first_non_finite(data: Any) -> str | None:
    """Where `data` (JSON-like: dicts, lists, scalars) holds NaN or ±Infinity, as a dotted path
    (`amount`, `pools.0.apy`); None when every number is finite. Iterative: any depth."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return f"{where or '(value)'} is {value!r}"
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, list | tuple):
            items = enumerate(value)
        else:
            continue
        prefix = f"{where}." if where else ""
        stack.extend((f"{prefix}{key}", item) for key, item in reversed(list(items)))
    return None


def _finite(data: Any) -> Any:
    problem = first_non_finite(data)
    if problem is not None:
        raise ValueError(f"not a finite number: {problem}")
    return data


Data = Annotated[dict[str, Any], AfterValidator(_finite)]
"""Arguments and tool results: JSON-like data whose numbers are finite (no NaN, no ±Infinity,
which JSON cannot carry and no bound check can judge)."""


class FrozenDict(dict[str, Any]):
    """A dict that refuses every change and hashes by content: the argument data a frozen
    `RouterContext` holds. Pydantic serializes it as the dict it is."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("a router context is frozen: build a new one instead")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return (FrozenDict, (dict(self),))


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return FrozenDict({key: _frozen(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen(item) for item in value)
    return value


FrozenData = Annotated[dict[str, Any], AfterValidator(_finite), AfterValidator(_frozen)]
"""`Data` held by a context: finite, and frozen all the way down (dicts → `FrozenDict`,
lists → tuples)."""


class _Model(BaseModel):
    # Built on first use: a command that never validates a context or decision skips the cost.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class _FrozenModel(_Model):
    # Context models are part of the frozen `Request`: no field may change after validation.
    model_config = ConfigDict(frozen=True)


class ToolCall(_Model):
    tool: str
    args: Data = {}


class LastYield(_FrozenModel):
    tool: str
    args: FrozenData = {}
    pool_summary: tuple[FrozenData, ...] = Field(default=(), alias="poolSummary")


class LastAction(_FrozenModel):
    tool: str
    args: FrozenData = {}
    status: Literal["ok", "cancelled", "failed", "pending"] = "ok"


class LastSelection(_FrozenModel):
    tool: str | None = None
    pool_id: str | None = Field(default=None, alias="poolId")
    token_mint: str | None = Field(default=None, alias="tokenMint")
    protocol: str | None = None


class Preferences(_FrozenModel):
    risk: Literal["low", "medium", "high"] | None = None
    duration: str | None = None
    stablecoin_only: bool | None = Field(default=None, alias="stablecoinOnly")


class RouterContext(_FrozenModel):
    """What the router may know besides the latest text: structured tool results and explicit
    client actions only, never raw message history."""

    last_yield: LastYield | None = None
    last_action: LastAction | None = None
    last_selection: LastSelection | None = None
    preferences: Preferences = Preferences()


class GuardrailEvent(_Model):
    """A guardrail that changed (or refused) a plan, and why."""

    rule: GuardrailRule
    detail: str
    tool: str | None = None


class RuleHit(_Model):
    """A decision rule that fired, with the words that made it fire."""

    rule: str
    text: str = ""
    start: int | None = None
    end: int | None = None


class RouterDecision(_Model):
    agent: AgentName
    mode: ModeName
    ui: UI
    tool_plan: list[ToolCall]
    stop_condition: StopCondition
    layout: list[Layout]
    guardrails: list[GuardrailEvent] = []
    rules_fired: list[RuleHit] = []
    source: Source = "rules"
    abort_after: int | None = None
    """Stop after the result of this plan step (a tool repeated without new arguments)."""


class CallResult(_Model):
    """What running one call of the plan gave: the tool, its arguments, whether it worked."""

    tool: str
    args: Data = {}
    ok: bool = True


class PlanProgress(_Model):
    """What `prepare_step` says to do next."""

    next: ToolCall | None
    index: int | None
    done: bool
    reason: str
