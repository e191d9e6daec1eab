"""What a correct decision is for one prompt: a labelled case, as the labelling guide defines it.

One model for every labelled thing — a judged set built in the window, a public set, a
regression suite whose cases carry expectations — so precision and recall mean the same
everywhere. A label may be given for any subset of fields; a missing (or null) field is not
labelled and is not scored.

| key | type | what (see the labelling guide) |
| --- | --- | --- |
| `local`, `time_sensitive`, `tech`, `troubleshooting`, `purchase` | bool | the intent flags |
| `strategy` | str | `general`, `local` or `tech`; derived from the flags when not given |
| `place_hint` | str | the place the local need is bound to; `""` labels "no place named" |
| `entities` | [str] | the named things a search should anchor on (at most six) |
| `linter_class` | str | `guided`, `semi` or `vague`, for code-search queries only |
| `agent`, `mode` | str | the router contract's agent and mode |
| `top_tool` | str | the tool search's right first tool |
| `routes` | {str: str} | the right route of each external router, by the router's name (as a |
| | | routers file declares it); `""` labels "no route" |
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args

from ..rules import INTENTS, IntentName

__all__ = [
    "FLAG_KEYS",
    "LABEL_KEYS",
    "SET_TODAY",
    "LabelledCase",
    "Labels",
    "Strategy",
    "normal_form",
]

Strategy = Literal["general", "local", "tech"]
LinterClass = Literal["guided", "semi", "vague"]
FLAG_KEYS: tuple[IntentName, ...] = INTENTS
SET_TODAY = dt.date(2026, 1, 1)
"""The date of a labelled case that gives none (a labelled set must not age)."""
MAX_ENTITIES = 6


@dataclass(frozen=True, slots=True)
class Labels:
    """The expected value of each labelled field; None where the field is not labelled."""

    tech: bool | None = None
    local: bool | None = None
    purchase: bool | None = None
    troubleshooting: bool | None = None
    time_sensitive: bool | None = None
    strategy: Strategy | None = None
    place_hint: str | None = None
    entities: tuple[str, ...] | None = None
    linter_class: LinterClass | None = None
    agent: str | None = None
    mode: str | None = None
    top_tool: str | None = None
    routes: tuple[tuple[str, str], ...] | None = None
    """The expected route of each external router labelled, by router name (`""`: none)."""

    def flag(self, name: IntentName) -> bool | None:
        value: bool | None = getattr(self, name)
        return value

    def expected_strategy(self) -> Strategy | None:
        """The strategy label: given, or derived from the flags as the seed routes them
        (local if local; else tech if tech or troubleshooting; else general). None when the
        flags that decide it are not labelled."""
        if self.strategy is not None:
            return self.strategy
        if self.local:
            return "local"
        if self.local is None:
            return None
        if self.tech or self.troubleshooting:
            return "tech"
        if self.tech is None or self.troubleshooting is None:
            return None
        return "general"

    def expected_route(self, router: str) -> str | None:
        """The route labelled for `router`: a name, `""` (no route), None (not labelled)."""
        return dict(self.routes or ()).get(router)

    def labelled(self) -> dict[str, object]:
        """The labelled fields only, in the guide's order (what a labelled set stores)."""
        out: dict[str, object] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if value is None:
                continue
            if item.name == "routes":
                out[item.name] = dict(value)
            else:
                out[item.name] = list(value) if isinstance(value, tuple) else value
        return out

    def is_empty(self) -> bool:
        return not self.labelled()


LABEL_KEYS: tuple[str, ...] = tuple(item.name for item in fields(Labels))


@dataclass(frozen=True, slots=True)
class LabelledCase:
    """A prompt with its date, context and labels; `extra` keeps the line's other keys."""

    id: str
    prompt: str
    labels: Labels
    today: dt.date = SET_TODAY
    context: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    where: str = ""
    """The file and line (or case id) the case was read from, for messages."""

    @property
    def part(self) -> str | None:
        """The case's part of a split set (`tune` or `heldout`), when the set gives one."""
        part = self.extra.get("part")
        return part if isinstance(part, str) else None


def labels_from_mapping(data: Mapping[str, Any]) -> Labels:
    """Labels from a mapping of the guide's keys (ValueError naming the key and the problem).
    Keys it does not know are refused: a typo must not silently label nothing."""
    unknown = sorted(str(k) for k in data if k not in LABEL_KEYS)
    if unknown:
        raise ValueError(f"unknown label {unknown[0]!r} (labels are: {', '.join(LABEL_KEYS)})")
    values: dict[str, Any] = {}
    for name, raw in data.items():
        if raw is None:
            continue
        values[name] = _label_value(name, raw)
    return Labels(**values)


def _label_value(name: str, raw: object) -> object:
    if name in FLAG_KEYS:
        if not isinstance(raw, bool):
            raise ValueError(f"label {name!r} must be true or false, not {_kind(raw)}")
        return raw
    if name == "routes":
        if not isinstance(raw, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
        ):
            raise ValueError("label 'routes' must be an object of router name → route (text)")
        return tuple((k, " ".join(v.split())) for k, v in raw.items())
    if name == "entities":
        if not isinstance(raw, list | tuple) or not all(isinstance(e, str) for e in raw):
            raise ValueError("label 'entities' must be a list of text")
        cleaned = tuple(" ".join(e.split()) for e in raw if e.strip())
        if len(cleaned) > MAX_ENTITIES:
            raise ValueError(
                f"label 'entities' holds {len(cleaned)} names (at most {MAX_ENTITIES})"
            )
        return cleaned
    if not isinstance(raw, str):
        raise ValueError(f"label {name!r} must be text, not {_kind(raw)}")
    value = " ".join(raw.split())
    allowed = {"strategy": get_args(Strategy), "linter_class": get_args(LinterClass)}.get(name)
    if allowed is not None and value not in allowed:
        raise ValueError(f"label {name!r} must be one of {', '.join(allowed)}, not {value!r}")
    return value


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"text {value[:40]!r}"
    return type(value).__name__


_PUNCTUATION = frozenset("PSZ")  # Unicode categories folded to a space: punctuation, symbols, space


def normal_form(text: str) -> str:
    """How a place or an entity is compared: case-folded, accents kept, punctuation and
    symbols read as spaces, white space squashed ("Fremont, CA" == "fremont ca")."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    spaced = "".join(
        " " if unicodedata.category(char)[0] in _PUNCTUATION and char not in "+#" else char
        for char in folded
    )
    return " ".join(spaced.split())
