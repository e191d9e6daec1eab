"""How a suite's keys, ids and places appear in messages: one short line each."""

from __future__ import annotations

from typing import Any

from .._errors import SuiteError, one_line
from .._errors import quoted as _label

__all__ = ["_error", "_label", "_where"]


def _error(message: str) -> SuiteError:
    """A SuiteError whose message is one line, whatever keys and ids it quotes."""
    return SuiteError(one_line(message))


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
