"""Rule packs: every configurable value of the routers, as TOML validated by pydantic."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._contract import AgentName as AgentName
    from ._contract import ArgSpec as ArgSpec
    from ._contract import ContractRules as ContractRules
    from ._contract import ModeName as ModeName
    from ._contract import ToolSpec as ToolSpec
    from ._linter import LinterRules as LinterRules
    from ._linter import LinterThresholds as LinterThresholds
    from ._pack import RulePack as RulePack
    from ._save import save_pack as save_pack
    from ._strategy import INTENTS as INTENTS
    from ._strategy import IntentName as IntentName
    from ._toml import BUILTIN_PACKS as BUILTIN_PACKS
    from ._toml import builtin_rules_text as builtin_rules_text
    from ._toml import default_rules as default_rules
    from ._toml import default_rules_text as default_rules_text
    from ._toml import load_rules as load_rules
    from ._toml import parse_rules as parse_rules
    from ._toml import read_rules_text as read_rules_text
    from ._toml_edit import set_key as set_key
    from ._toml_edit import toml_value as toml_value

__getattr__, __dir__, __all__ = lazy_face(__name__)
