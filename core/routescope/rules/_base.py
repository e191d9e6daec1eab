"""Shared pieces of every router's configuration: strict frozen models, term lists, templates."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

__all__ = ["Strict", "clean_terms", "require_placeholders"]


class Strict(BaseModel):
    """Unknown keys are errors and a validated value never changes."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


def clean_terms(values: list[str]) -> list[str]:
    """Trim, squash inner spaces, drop empty entries and duplicates (first wins)."""
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        term = " ".join(value.split())
        if term and term.casefold() not in seen:
            seen.add(term.casefold())
            out.append(term)
    return out


def require_placeholders(template: str, allowed: set[str], required: set[str]) -> str:
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
