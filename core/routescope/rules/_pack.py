"""`RulePack`: every value the routers read, with data derived from it computed once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from pydantic import Field, PrivateAttr

from ._base import Strict
from ._contract import ContractRules
from ._linter import LinterRules
from ._strategy import (
    EntityRules,
    IntentRules,
    OpenClawRules,
    PlaceRules,
    QueryTemplates,
    SanitizeRules,
)

__all__ = ["RulePack"]

T = TypeVar("T")


class RulePack(Strict):
    """Every value the routers read: keyword lists, packs, gating, sanitizing."""

    name: str
    description: str = ""
    source: str = Field("<memory>", exclude=True)
    intents: IntentRules
    entities: EntityRules = EntityRules()
    place: PlaceRules = PlaceRules()
    packs: QueryTemplates = QueryTemplates()
    openclaw: OpenClawRules
    sanitize: SanitizeRules = SanitizeRules()
    linter: LinterRules = LinterRules()
    contract: ContractRules = ContractRules()
    _derived: dict[Callable[[RulePack], Any], Any] = PrivateAttr(default_factory=dict)

    def derived(self, build: Callable[[RulePack], T]) -> T:
        """`build(self)`, computed once: a pack is immutable, so derived data never goes stale."""
        derived = self._derived
        if build not in derived:
            derived[build] = build(self)
        return cast(T, derived[build])
