"""How a suite's keys, ids and places appear in messages: one short line each."""

from __future__ import annotations

from typing import Any

from .._errors import SuiteError, one_line

__all__ = ["_error", "_label", "_where"]


def _error(message: str) -> SuiteError:
    """A SuiteError whose message is one line, whatever keys and ids it quotes."""
    return SuiteError(one_line(message))


_LABEL_CHARS = 80


def _label(text: object, *, quote: bool = True, limit: int = _LABEL_CHARS) -> str:
    """A user's key or id in a message: quoted (an id only when it needs it), control
    characters escaped, at most about 80 characters (so the message stays one short line)."""
    value = str(text)
    simple = value.isprintable() and value == value.strip() and 0 < len(value) <= limit
    if simple and not quote:
        return value
    shown = repr(value[:limit])
    return shown + ("…" if len(value) > limit else "")


def _where(loc: tuple[int | str, ...], data: dict[str, Any]) -> str:
    parts = list(loc)
    if len(parts) >= 2 and parts[0] == "cases" and isinstance(parts[1], int):
        cases = data.get("cases") or []
        index = parts[1]
        case_id = (
            cases[index].get("id")
            if isinstance(cases, list) and index < len(cases) and isinstance(cases[index], dict)
            else None
        )
        rest = ".".join(str(p) for p in parts[2:])
        label = f"case {index + 1}" + (f" ({_label(case_id, quote=False)})" if case_id else "")
        return f"{label}: {rest}" if rest else label
    return ".".join(str(p) for p in parts) or "(top level)"
