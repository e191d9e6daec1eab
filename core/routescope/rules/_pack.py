"""`RulePack`: every value the routers read, with data derived from it computed once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Self, TypeVar, cast

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

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with its own derived data: pydantic copies private attributes, and a copy
        with other values sharing the original's would read the original's compiled rules."""
        copied = super().model_copy(update=update, deep=deep)
        copied._derived = {}
        return copied

    def derived(self, build: Callable[[RulePack], T]) -> T:
        """`build(self)`, computed once: a pack is immutable, so derived data never goes stale."""
        derived = self._derived
        if build not in derived:
            derived[build] = build(self)
        return cast(T, derived[build])
