"""Writing one value as one line of YAML that reads back as exactly that value: what an
accepted golden, or a new case, is written as."""

from __future__ import annotations

import functools
import math
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from .._diff import preview
from ._messages import _error

__all__ = ["_render", "_same"]

_PLAIN_FIRST = set("-?:,[]{}#&*!|>'\"%@`<=~ ")
_FLOW_INDICATORS = set(",[]{}")
_RESERVED = re.compile(r"(?i)y|n|yes|no|on|off|true|false|null|[-+]?\.?(inf|nan)")
_NUMBERISH = re.compile(r"[-+.]?\d")
_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\0": "\\0",
    "\a": "\\a",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\v": "\\v",
    "\f": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\u2028": "\\L",
    "\u2029": "\\P",
}


def _render(value: Any, *, flow: bool, quote: str | None = None) -> str:
    """`value` as one line of YAML that reads back as exactly `value` (in a flow collection
    when `flow`); strings keep the `quote` style of the old value where it can hold them."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return _string(value, flow=flow, quote=quote)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_render(item, flow=True) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{_key(k)}: {_render(v, flow=True)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    raise _error(f"cannot write a golden of type {type(value).__name__}: {preview(value)}")


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else text


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _string(key, flow=True, quote=None, key=True)
    return _render(key, flow=True)


def _string(value: str, *, flow: bool, quote: str | None, key: bool = False) -> str:
    if quote is None and _plain_ok(value, flow=flow, key=key):
        return value
    if quote == "'" and all(_printable(ch) for ch in value):
        return "'" + value.replace("'", "''") + "'"
    return '"' + "".join(_escape(ch) for ch in value) + '"'


@functools.lru_cache(maxsize=4096)
def _plain_ok(value: str, *, flow: bool, key: bool) -> bool:
    """Whether `value` can be written plain (conservatively: not what YAML 1.1 reads as a bool,
    null or number either, nothing that starts like an indicator)."""
    if (
        not value
        or value != value.strip()
        or value[0] in _PLAIN_FIRST
        or ": " in value
        or " #" in value
        or value.endswith(":")
        or _RESERVED.fullmatch(value)
        or _NUMBERISH.match(value)
        or not all(_printable(ch) and ch not in "\t\xa0\ufeff" for ch in value)
        or ((flow or key) and _FLOW_INDICATORS.intersection(value))
        or (key and ":" in value)
    ):
        return False
    probe = f"{{{value}: 0}}" if key else f"[{value}]" if flow else f"k: {value}"
    try:
        loaded = YAML(typ="safe", pure=True).load(probe)  # one per call: not shared by threads
    except YAMLError:
        return False
    want: Any = {value: 0} if key else [value] if flow else {"k": value}
    return _same(loaded, want)


def _printable(ch: str) -> bool:
    """Written as itself inside quotes: printable, and not a YAML line break."""
    code = ord(ch)
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or 0x10000 <= code <= 0x10FFFF
    ) and ch not in "\u2028\u2029"


def _escape(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if _printable(ch):
        return ch
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (1, 1.0 and True differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)
