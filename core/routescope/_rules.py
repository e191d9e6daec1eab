"""Rule packs: every configurable value of the routers, as TOML validated by pydantic."""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from ._errors import RulePackError
from ._resources import resources_root

__all__ = [
    "ContractRules",
    "EntityRules",
    "IntentRules",
    "LinterRules",
    "PackRules",
    "PlaceRules",
    "RulePack",
    "SanitizeRules",
    "ToolSpec",
    "default_rules",
    "load_rules",
    "parse_rules",
]

T = TypeVar("T")

_INTENTS = ("tech", "local", "purchase", "troubleshooting", "time_sensitive")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _clean_terms(values: list[str]) -> list[str]:
    """Trim, squash inner spaces, drop empty entries and duplicates (first wins)."""
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        term = " ".join(value.split())
        if term and term.casefold() not in seen:
            seen.add(term.casefold())
            out.append(term)
    return out


class IntentRules(_Strict):
    tech: list[str]
    local: list[str]
    purchase: list[str]
    troubleshooting: list[str]
    time_sensitive: list[str]
    year_is_time_sensitive: bool = True

    _clean = field_validator(*_INTENTS)(_clean_terms)

    def keywords(self) -> dict[str, list[str]]:
        """Keyword lists by intent name, in the fixed intent order."""
        return {name: getattr(self, name) for name in _INTENTS}


class EntityWeights(_Strict):
    openclaw: float = 6.0
    camel_case: float = 5.0
    url: float = 4.0
    domain: float = 4.0
    phrase: float = 3.0
    acronym: float = 2.0
    word: float = 1.0


class EntityRules(_Strict):
    max_candidates: int = Field(6, ge=1, le=50)
    sentence_start_stopwords: list[str] = []
    phrase_connectors: list[str] = []
    weights: EntityWeights = EntityWeights()

    _clean = field_validator("sentence_start_stopwords", "phrase_connectors")(_clean_terms)


class PlaceRules(_Strict):
    always_prepositions: list[str] = ["near", "around"]
    gazetteer_prepositions: list[str] = ["in"]
    gazetteer: list[str] = []
    local_intent_prepositions: list[str] = ["near", "around"]

    _clean = field_validator(
        "always_prepositions", "gazetteer_prepositions", "gazetteer", "local_intent_prepositions"
    )(_clean_terms)


def _require_placeholders(template: str, allowed: set[str], required: set[str]) -> str:
    names = set(re.findall(r"{(\w*)}", template))
    unknown = names - allowed
    if unknown:
        raise ValueError(
            f"unknown placeholder {{{sorted(unknown)[0]}}} (allowed: {sorted(allowed)})"
        )
    missing = required - names
    if missing:
        raise ValueError(f"template must contain {{{sorted(missing)[0]}}}")
    return template


class GeneralPack(_Strict):
    first: str = "{goal}"
    second: str = "{goal} overview"
    second_purchase_or_troubleshooting: str = "{goal} how to"

    @field_validator("first", "second", "second_purchase_or_troubleshooting")
    @classmethod
    def _templates(cls, value: str) -> str:
        return _require_placeholders(value, {"goal"}, {"goal"})


class LocalPack(_Strict):
    first: str = "{goal} near {place}"
    default_place: str = "me"
    second: str = "{goal} hours reviews"
    second_time_sensitive: str = "{goal} this weekend"
    strip_from_goal: list[str] = []

    _clean = field_validator("strip_from_goal")(_clean_terms)

    @field_validator("first")
    @classmethod
    def _first(cls, value: str) -> str:
        return _require_placeholders(value, {"goal", "place"}, {"goal", "place"})

    @field_validator("second", "second_time_sensitive")
    @classmethod
    def _second(cls, value: str) -> str:
        return _require_placeholders(value, {"goal"}, {"goal"})


class TechPack(_Strict):
    docs: str = "site:docs.* {entity} (install OR docs OR getting started)"
    github: str = "site:github.com {entity} README"
    safety: str = "{goal} (security OR sandbox OR permissions)"
    safety_keywords: list[str] = []

    _clean = field_validator("safety_keywords")(_clean_terms)

    @field_validator("docs", "github")
    @classmethod
    def _entity(cls, value: str) -> str:
        return _require_placeholders(value, {"entity"}, {"entity"})

    @field_validator("safety")
    @classmethod
    def _goal(cls, value: str) -> str:
        return _require_placeholders(value, {"goal"}, {"goal"})


class PackRules(_Strict):
    general: GeneralPack = GeneralPack()
    local: LocalPack = LocalPack()
    tech: TechPack = TechPack()


class OpenClawRules(_Strict):
    pattern: str = "openclaw"
    canonical: str = "OpenClaw"
    queries: list[str] = Field(min_length=1)

    @field_validator("pattern", "canonical")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()

    _clean = field_validator("queries")(_clean_terms)


class SanitizeRules(_Strict):
    banned_modifiers: list[str] = []
    as_of: str = "as of {month} {day}, {year}"
    max_query_chars: int = Field(400, ge=40, le=10_000)

    _clean = field_validator("banned_modifiers")(_clean_terms)

    @field_validator("as_of")
    @classmethod
    def _as_of(cls, value: str) -> str:
        _require_placeholders(value, {"month", "day", "year"}, set())
        if not value.lower().startswith("as of"):
            raise ValueError('must start with "as of"')
        return value


class LinterAlias(_Strict):
    alias: str
    anchors: list[str] = Field(min_length=1)

    _clean = field_validator("anchors")(_clean_terms)

    @field_validator("alias")
    @classmethod
    def _alias(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be empty")
        return value


class LinterThresholds(_Strict):
    guided_min_tokens: int = Field(5, ge=1)
    guided_min_strong: int = Field(1, ge=0)
    guided_min_total_anchors: int = Field(2, ge=0)
    vague_below_tokens: int = Field(3, ge=0)
    default_boost_max_tokens: int = Field(2, ge=0)


class LinterRules(_Strict):
    strong_anchors: list[str] = []
    weak_anchors: list[str] = []
    doc_intent_terms: list[str] = []
    doc_boost: list[str] = []
    default_boost: list[str] = []
    max_added_strong: int = Field(2, ge=0)
    thresholds: LinterThresholds = LinterThresholds()
    aliases: list[LinterAlias] = []

    _clean = field_validator(
        "strong_anchors", "weak_anchors", "doc_intent_terms", "doc_boost", "default_boost"
    )(_clean_terms)


AgentName = Literal["lending", "staking", "trading", "wallet", "knowledge", "recommendation"]
ModeName = Literal["explore", "decide", "execute"]
ToolKind = Literal["read_only", "wallet", "execution"]


class ArgSpec(_Strict):
    """A tool argument's schema: a small, JSON-Schema-like subset."""

    type: Literal["string", "integer", "number", "boolean"]
    enum: list[str] | None = None
    minimum: float | None = None
    maximum: float | None = None


class ToolSpec(_Strict):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")
    agent: AgentName
    kind: ToolKind
    args: dict[str, ArgSpec] = {}


class AgentRule(_Strict):
    name: AgentName
    keywords: list[str] = Field(min_length=1)

    _clean = field_validator("keywords")(_clean_terms)


class ArgRule(_Strict):
    phrase: str
    args: dict[str, str | int | float | bool]


class ModeKeywords(_Strict):
    execute: list[str] = []
    decide: list[str] = []

    _clean = field_validator("execute", "decide")(_clean_terms)


class ContractRules(_Strict):
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


class RulePack(_Strict):
    """Every value the routers read: keyword lists, packs, gating, sanitizing."""

    name: str
    description: str = ""
    source: str = Field("<memory>", exclude=True)
    intents: IntentRules
    entities: EntityRules = EntityRules()
    place: PlaceRules = PlaceRules()
    packs: PackRules = PackRules()
    openclaw: OpenClawRules
    sanitize: SanitizeRules = SanitizeRules()
    linter: LinterRules = LinterRules()
    contract: ContractRules = ContractRules()
    _derived: dict[Callable[[RulePack], Any], Any] = PrivateAttr(default_factory=dict)

    def derived(self, build: Callable[[RulePack], T]) -> T:
        """`build(self)`, computed once: a pack is immutable, so derived data never goes stale."""
        # Straight to pydantic's private storage: this runs on every keystroke.
        derived = self.__pydantic_private__["_derived"]  # type: ignore[index]
        if build not in derived:
            derived[build] = build(self)
        return cast(T, derived[build])


def _line_of(toml_text: str, loc: tuple[int | str, ...]) -> int | None:
    """Best-effort line number of the key an error location names."""
    keys = [part for part in loc if isinstance(part, str)]
    if not keys:
        return None
    tables = keys[:-1]
    key = re.escape(keys[-1])
    in_table = not tables
    for number, line in enumerate(toml_text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"\[+\s*([^\]]+?)\s*\]+$", stripped)
        if header:
            in_table = header.group(1).split(".")[-1] == (tables[-1] if tables else "")
            continue
        if in_table and re.match(rf'"?{key}"?\s*=', stripped):
            return number
    return None


def _describe(error: ValidationError, toml_text: str, source: str) -> str:
    first = error.errors()[0]
    loc = tuple(first["loc"])
    field = ".".join(str(part) for part in loc) or "(top level)"
    line = _line_of(toml_text, loc)
    where = f"{source}:{line}" if line else source
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: field {field}: {message}{more}"


def parse_rules(toml_text: str, source: str = "<memory>") -> RulePack:
    """Validate a rule pack given as TOML text; `source` names it in error messages."""
    try:
        data: dict[str, Any] = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as exc:
        raise RulePackError(f"{source}: not valid TOML: {exc}") from None
    data["source"] = source
    try:
        return RulePack.model_validate(data)
    except ValidationError as exc:
        raise RulePackError(_describe(exc, toml_text, source)) from None


def load_rules(path: str | Path) -> RulePack:
    """Read and validate a rule pack file."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RulePackError(f"{path}: cannot read rule pack: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulePackError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_rules(text, str(path))


@functools.cache
def default_rules() -> RulePack:
    """The built-in pack, `resources/rules/default.toml`, which reproduces the seeds."""
    resource = resources_root() / "rules" / "default.toml"
    return parse_rules(resource.read_text(encoding="utf-8"), "default.toml")
