"""Rule packs: every configurable value of the routers, as TOML validated by pydantic."""

from ._contract import (
    AgentName,
    AgentRule,
    ArgRule,
    ArgSpec,
    ContractRules,
    ModeKeywords,
    ModeName,
    ToolKind,
    ToolSpec,
    UIName,
)
from ._linter import LinterAlias, LinterRules, LinterThresholds
from ._pack import RulePack
from ._save import save_pack
from ._strategy import (
    INTENTS,
    EntityRules,
    EntityWeights,
    GeneralPack,
    IntentName,
    IntentRules,
    LocalPack,
    OpenClawRules,
    PlaceRules,
    QueryTemplates,
    SanitizeRules,
    TechPack,
)
from ._toml import default_rules, default_rules_text, load_rules, parse_rules, read_rules_text

__all__ = [
    "INTENTS",
    "AgentName",
    "AgentRule",
    "ArgRule",
    "ArgSpec",
    "ContractRules",
    "EntityRules",
    "EntityWeights",
    "GeneralPack",
    "IntentName",
    "IntentRules",
    "LinterAlias",
    "LinterRules",
    "LinterThresholds",
    "LocalPack",
    "ModeKeywords",
    "ModeName",
    "OpenClawRules",
    "PlaceRules",
    "QueryTemplates",
    "RulePack",
    "SanitizeRules",
    "TechPack",
    "ToolKind",
    "ToolSpec",
    "UIName",
    "default_rules",
    "default_rules_text",
    "load_rules",
    "parse_rules",
    "read_rules_text",
    "save_pack",
]
