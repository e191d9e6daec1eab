"""The query linter's configuration: anchors, aliases, boosts and thresholds."""

from __future__ import annotations

from pydantic import Field, field_validator

from ._base import Strict, check_term, clean_phrases, clean_terms

__all__ = ["LinterAlias", "LinterRules", "LinterThresholds"]


class LinterAlias(Strict):
    alias: str
    anchors: list[str] = Field(min_length=1)

    _clean = field_validator("anchors")(clean_terms)

    @field_validator("alias")
    @classmethod
    def _alias(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be empty")
        return check_term(value)


class LinterThresholds(Strict):
    guided_min_tokens: int = Field(5, ge=1)
    guided_min_strong: int = Field(1, ge=0)
    guided_min_total_anchors: int = Field(2, ge=0)
    vague_below_tokens: int = Field(3, ge=0)
    default_boost_max_tokens: int = Field(2, ge=0)


class LinterRules(Strict):
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
    )(clean_phrases)
