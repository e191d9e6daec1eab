"""What reaches a terminal: text from files and prompts is escaped, so a tool name, suite name,
case id or key cannot move the cursor, clear the screen, set the title or split a line."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

__all__ = ["escape", "escaped"]

# C0 and C1 controls (tab and, in multi-line output, newline excepted), DEL, and the bidi
# embedding, override and isolate controls that can reorder what a reader sees.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_IN_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _code(match: re.Match[str]) -> str:
    char = match.group()
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def escape(text: str, *, one_line: bool = True) -> str:
    """`text` with control characters shown as `\\x1b`, `\\u202e`; newlines too if `one_line`."""
    return (_UNSAFE_IN_LINE if one_line else _UNSAFE).sub(_code, text)


def escaped(value: Any) -> Any:
    """A copy of a result with every string escaped for one line (models, dataclasses, lists,
    dicts), for the text renderers; JSON output escapes control characters by itself."""
    from pydantic import BaseModel  # the renderers need it anyway; `--version` does not

    if isinstance(value, str):
        return escape(value)
    if isinstance(value, BaseModel):
        fields = {name: escaped(getattr(value, name)) for name in type(value).model_fields}
        return type(value).model_construct(**fields)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: escaped(getattr(value, f.name)) for f in dataclasses.fields(value)}
        copy = object.__new__(type(value))
        for name, item in fields.items():
            object.__setattr__(copy, name, item)
        return copy
    if isinstance(value, list | tuple):
        return type(value)(escaped(item) for item in value)
    if isinstance(value, dict):
        return {escaped(k): escaped(v) for k, v in value.items()}
    return value
