"""Shared pieces of every router's configuration: strict frozen models, term lists, templates."""

from __future__ import annotations

import re
import string

from pydantic import BaseModel, ConfigDict

__all__ = [
    "MAX_TERM_CHARS",
    "Strict",
    "check_term",
    "clean_phrases",
    "clean_terms",
    "require_placeholders",
]


class Strict(BaseModel):
    """Unknown keys are errors and a validated value never changes."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True, allow_inf_nan=False)


_FORMATTER = string.Formatter()
_ACCESS = re.compile(r"[.\[]")


MAX_TERM_CHARS = 200
"""The longest keyword or phrase a pack may hold. Phrases are looked for at every word start of
a prompt, so their length multiplies the work per character (the built-in pack's longest has 22
characters)."""


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


def check_term(term: str) -> str:
    """`term` if it is short enough to be looked for in a prompt, else ValueError."""
    if len(term) > MAX_TERM_CHARS:
        raise ValueError(
            f"{_shown(term)} is {len(term):,} characters long: a keyword or phrase may have at "
            f"most {MAX_TERM_CHARS}"
        )
    return term


def clean_phrases(values: list[str]) -> list[str]:
    """`clean_terms` for keywords and phrases looked for in prompts: each at most
    `MAX_TERM_CHARS` long."""
    return [check_term(term) for term in clean_terms(values)]


def _shown(text: str, limit: int = 40) -> str:
    """A piece of a template for a one-line message: quoted, escaped, shortened."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def require_placeholders(template: str, allowed: set[str], required: set[str]) -> str:
    """`template` if it is text with `{name}` fields only: each name allowed, every required
    name present, no format spec, conversion, attribute or index, balanced braces (`{{` and
    `}}` stand for braces). So `template.format(**values)` cannot fail or run away later."""
    try:
        fields = [
            (name, spec, conversion)
            for _, name, spec, conversion in _FORMATTER.parse(template)
            if name is not None
        ]
    except ValueError as exc:  # "Single '{' encountered in format string", …
        problem = f"braces do not pair up ({exc})"
        raise ValueError(f'{problem}: write "{{{{" or "}}}}" for a literal brace') from None
    names: set[str] = set()
    for name, spec, conversion in fields:
        conversion_part = f"!{conversion}" if conversion else ""
        written = "{" + name + conversion_part + (f":{spec}" if spec else "") + "}"
        if name not in allowed:
            if _ACCESS.split(name, 1)[0] in allowed:
                problem = "attribute and index access are not allowed"
                raise ValueError(f"placeholder {_shown(written)}: {problem}")
            raise ValueError(f"unknown placeholder {_shown(written)} (allowed: {sorted(allowed)})")
        if spec or conversion:
            problem = "format specs and conversions are not allowed"
            raise ValueError(f"placeholder {_shown(written)}: {problem}, write {{{name}}}")
        names.add(name)
    missing = required - names
    if missing:
        raise ValueError(f"template must contain {{{sorted(missing)[0]}}}")
    return template
