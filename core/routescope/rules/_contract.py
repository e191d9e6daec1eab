"""The router contract's configuration: tool registry, plans, argument rules, step limits."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from ._base import Strict, clean_terms

__all__ = [
    "AgentName",
    "AgentRule",
    "ArgRule",
    "ArgSpec",
    "ContractRules",
    "ModeKeywords",
    "ModeName",
    "ToolKind",
    "ToolSpec",
]

AgentName = Literal["lending", "staking", "trading", "wallet", "knowledge", "recommendation"]
ModeName = Literal["explore", "decide", "execute"]
ToolKind = Literal["read_only", "wallet", "execution"]


class ArgSpec(Strict):
    """A tool argument's schema: a small, JSON-Schema-like subset."""

    type: Literal["string", "integer", "number", "boolean"]
    enum: list[str] | None = None
    minimum: float | None = None
    maximum: float | None = None


class ToolSpec(Strict):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")
    agent: AgentName
    kind: ToolKind
    args: dict[str, ArgSpec] = {}


class AgentRule(Strict):
    name: AgentName
    keywords: list[str] = Field(min_length=1)

    _clean = field_validator("keywords")(clean_terms)


class ArgRule(Strict):
    phrase: str
    args: dict[str, str | int | float | bool]


class ModeKeywords(Strict):
    execute: list[str] = []
    decide: list[str] = []

    _clean = field_validator("execute", "decide")(clean_terms)


class ContractRules(Strict):
    enabled: bool = True
    rollout_modes: list[ModeName] = ["explore", "decide", "execute"]
    steps: dict[ModeName, tuple[int, int]] = {
        "explore": (1, 2),
        "decide": (2, 3),
        "execute": (3, 5),
    }
    allowed_kinds: dict[ModeName, list[ToolKind]] = {
        "explore": ["read_only"],
        "decide": ["read_only"],
        "execute": ["wallet", "execution"],
    }
    agents: list[AgentRule] = []
    modes: ModeKeywords = ModeKeywords()
    default_modes: dict[AgentName, ModeName] = {}
    arg_rules: list[ArgRule] = []
    plans: dict[AgentName, dict[ModeName, list[str]]] = {}
    tools: list[ToolSpec] = []

    @model_validator(mode="after")
    def _plans_name_known_tools(self) -> ContractRules:
        for agent, by_mode in self.plans.items():
            for mode, names in by_mode.items():
                for name in names:
                    spec = self.tool(name)
                    if spec is None:
                        raise ValueError(f"plans.{agent}.{mode} names unknown tool {name!r}")
                    if spec.kind not in self.allowed_kinds.get(mode, []):
                        raise ValueError(
                            f"plans.{agent}.{mode}: {name} is a {spec.kind} tool, "
                            f"not allowed in {mode}"
                        )
        for mode, (low, high) in self.steps.items():
            if not 0 <= low <= high:
                raise ValueError(f"steps.{mode} must be [min, max] with 0 <= min <= max")
        return self

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)
