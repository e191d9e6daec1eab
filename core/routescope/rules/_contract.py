"""The router contract's configuration: tool registry, plans, argument rules, step limits."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ._base import Strict, check_term, clean_phrases

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
    "UIName",
]

AgentName = Literal["lending", "staking", "trading", "wallet", "knowledge", "recommendation"]
ModeName = Literal["explore", "decide", "execute"]
ToolKind = Literal["read_only", "wallet", "execution"]
UIName = Literal["cards", "cards_then_text", "text"]

_NO_STEP_LIMITS = (0, 99)
_EVERY_KEY: dict[str, tuple[str, ...]] = {
    "retry_modes": get_args(ToolKind),
    "ui_by_mode": get_args(ModeName),
}


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

    _clean = field_validator("keywords")(clean_phrases)


class ArgRule(Strict):
    phrase: str
    args: dict[str, str | int | float | bool]

    _phrase = field_validator("phrase")(check_term)


class ModeKeywords(Strict):
    execute: list[str] = []
    decide: list[str] = []

    _clean = field_validator("execute", "decide")(clean_phrases)


def _some_terms(values: list[str]) -> list[str]:
    """`clean_phrases` (for phrases matched case-insensitively), and at least one must be left."""
    terms = clean_phrases(values)
    if not terms:
        raise ValueError("must name at least one non-blank entry")
    return terms


def _some_words(values: list[str]) -> list[str]:
    """Trimmed, blanks and exact duplicates dropped (for words matched case-sensitively), and
    at least one must be left."""
    words = list(dict.fromkeys(check_term(word.strip()) for word in values if word.strip()))
    if not words:
        raise ValueError("must name at least one non-blank entry")
    return words


class ContractRules(Strict):
    """The `[contract]` table: the registry, keywords, plans and guardrails the router contract
    decides with. Every default is the seed's value."""

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

    retry_phrases: list[str] = ["try again", "retry"]
    """Phrases ("try again") that repeat the last action, matched like keywords: its tool and
    arguments, after the setup steps of its agent's plan."""
    retry_modes: dict[ToolKind, ModeName] = {
        "read_only": "explore",
        "wallet": "execute",
        "execution": "execute",
    }
    """The mode a retried action runs in, by the kind of its tool (every kind must be named)."""
    yield_tool_suffix: str = "_yields"
    """A tool whose name ends with this lists yields: argument rules apply to it, and a plan
    that starts with one can stop at its first result (see `stop_at_first_yields`)."""
    stop_at_first_yields: list[ModeName] = ["explore"]
    """Modes in which a plan that starts with a yield tool stops at its first yields result."""
    amount_tools: list[str] = ["swap_quote", "token_price", "wallet_balance"]
    """Tools besides execution tools that take an amount, token and protocol from the text
    ("5 SOL on Kamino") and from the last selection."""
    protocol_words: list[str] = ["on", "via", "at", "with"]
    """Words that put a protocol name after them ("on Kamino"), matched case-sensitively."""
    last_yield_agents: dict[str, AgentName] = {"lending": "lending"}
    """No agent keyword but a last yield: the agent of the first key found in its tool's name."""
    last_yield_fallback_agent: AgentName = "staking"
    """The agent after a last yield whose tool's name holds no key of `last_yield_agents`."""
    ui_by_mode: dict[ModeName, UIName] = {
        "explore": "cards",
        "decide": "cards_then_text",
        "execute": "cards_then_text",
    }
    """How a decision of each mode is shown (every mode must be named)."""
    text_agents: list[AgentName] = ["knowledge"]
    """Agents whose decisions are shown as text, whatever the mode."""

    _clean_phrases = field_validator("retry_phrases")(_some_terms)
    _clean_words = field_validator("protocol_words")(_some_words)

    @field_validator("yield_tool_suffix")
    @classmethod
    def _no_blank_suffix(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("last_yield_agents")
    @classmethod
    def _no_blank_keys(cls, value: dict[str, AgentName]) -> dict[str, AgentName]:
        if any(not name.strip() for name in value):
            raise ValueError("keys must not be blank")
        return value

    @field_validator("amount_tools")
    @classmethod
    def _known_amount_tools(cls, value: list[str], info: ValidationInfo) -> list[str]:
        known = {tool.name for tool in info.data.get("tools", [])}
        unknown = [name for name in value if name not in known]
        if unknown:
            raise ValueError(f"names unknown tool {unknown[0]!r}")
        return value

    @field_validator("retry_modes", "ui_by_mode")
    @classmethod
    def _every_key(cls, value: dict[str, str], info: ValidationInfo) -> dict[str, str]:
        known = _EVERY_KEY[info.field_name or ""]
        missing = [name for name in known if name not in value]
        if missing:
            raise ValueError(f"must name every one of {list(known)}: missing {missing}")
        return value

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
        """The registry's tool of that name (the first, if two share it)."""
        return next((t for t in self.tools if t.name == name), None)

    def step_limits(self, mode: ModeName) -> tuple[int, int]:
        """[min, max] steps of a plan in `mode`; a mode without limits allows 0 to 99."""
        return self.steps.get(mode, _NO_STEP_LIMITS)

    def is_yield_tool(self, name: str) -> bool:
        """Whether the tool lists yields (its name ends with `yield_tool_suffix`)."""
        return name.endswith(self.yield_tool_suffix)
