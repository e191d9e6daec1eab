"""Reading rule packs: TOML text or a file, validated, with errors that name file, line, field."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._errors import Location, RulePackError, describe, dotted, one_line
from .._files import MB, read_text
from .._resources import resources_root
from ._pack import RulePack

__all__ = [
    "MAX_RULE_PACK_BYTES",
    "default_rules",
    "default_rules_text",
    "load_rules",
    "parse_rules",
    "read_rules_text",
]


MAX_RULE_PACK_BYTES = 8 * MB
"""A rule pack file larger than this is refused (the built-in one is about 20 KB)."""


def _header(line: str) -> str | None:
    """The last part of a table header line (`[a.b]`, `[[a.b]]`) after strip, else None.

    What `\\[+\\s*([^\\]]+?)\\s*\\]+$` would capture, in one pass without backtracking."""
    body = line.rstrip("]")
    if not line.startswith("[") or len(body) == len(line) or len(body) < 2 or "]" in body:
        return None
    rest = body.lstrip("[")
    if not rest:  # only "[" before the closing brackets: the capture is the last "["
        return "["
    return rest.strip() or rest[-1]


def _line_of(toml_text: str, loc: Location) -> int | None:
    """Best-effort line number of the key an error location names: one pass over the lines,
    each looked at with string operations only."""
    keys = [part for part in loc if isinstance(part, str)]
    if not keys:
        return None
    table = keys[-2] if len(keys) > 1 else ""
    key = keys[-1]
    in_table = len(keys) == 1
    for number, line in enumerate(toml_text.split("\n"), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            header = _header(stripped)
            if header is not None:
                in_table = header.split(".")[-1] == table
                continue
        if in_table and _assigns(stripped, key):
            return number
    return None


def _assigns(line: str, key: str) -> bool:
    """Whether `line` assigns `key`, bare or quoted (`key =`, `"key" =`): what
    `"?KEY"?\\s*=` would match, with string operations."""
    for rest in (line, line[1:] if line.startswith('"') else ""):
        if rest.startswith(key):
            tail = rest[len(key) :]
            if tail.removeprefix('"').lstrip().startswith("="):
                return True
    return False


def _parse_toml(toml_text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as exc:
        raise RulePackError(one_line(f"{source}: not valid TOML: {exc}")) from None
    except RecursionError:
        raise RulePackError(
            one_line(f"{source}: not valid TOML: arrays or tables nested too deeply")
        ) from None
    except ValueError as exc:  # a number past the interpreter's digit limit
        problem = str(exc).split(":", 1)[0]
        raise RulePackError(one_line(f"{source}: not valid TOML: {problem}")) from None


def parse_rules(toml_text: str, source: str = "<memory>") -> RulePack:
    """Validate a rule pack given as TOML text; `source` names it in error messages."""
    toml_text = toml_text.removeprefix("\ufeff")
    data = _parse_toml(toml_text, source)
    data["source"] = source
    try:
        return RulePack.model_validate(data)
    except RecursionError:
        raise RulePackError(one_line(f"{source}: values nested too deeply")) from None
    except ValidationError as exc:

        def where(loc: Location) -> str:
            line = _line_of(toml_text, loc)
            return f"{source}:{line}" if line else source

        message = describe(exc, lambda loc: f"{where(loc)}: field {dotted(loc)}")
        raise RulePackError(one_line(message)) from None


def read_rules_text(path: str | Path) -> str:
    """A rule pack file's text (a leading byte-order mark dropped); RulePackError when it is not
    a readable UTF-8 file of at most `MAX_RULE_PACK_BYTES`, or cannot be read in time (a FIFO
    without a writer, a device)."""
    try:
        return read_text(path, what="rule pack", limit=MAX_RULE_PACK_BYTES, error=RulePackError)
    except RulePackError as exc:
        raise RulePackError(one_line(str(exc))) from None


def load_rules(path: str | Path) -> RulePack:
    """Read and validate a rule pack file."""
    return parse_rules(read_rules_text(path), str(path))


BUILTIN_PACKS = ("default", "refined", "refined-semantic")
"""The packs shipped with Routescope: `default` reproduces the seeds; `refined` is made from it
with the suggestion loop on the public labelled set's tuning part (its comments say how);
`refined-semantic` is `refined` with flags also voted by the nearest labelled examples of that
part (`[intents.examples]`: needs the embedding model, the `semantic` extra)."""


def default_rules_text() -> str:
    """The TOML text of the built-in pack."""
    return builtin_rules_text("default")


def builtin_rules_text(name: str) -> str:
    """The TOML text of a pack shipped with Routescope (RulePackError for another name)."""
    if name not in BUILTIN_PACKS:
        raise RulePackError(
            one_line(f"no built-in rule pack {name!r} (built in: {', '.join(BUILTIN_PACKS)})")
        )
    return (resources_root() / "rules" / f"{name}.toml").read_text(encoding="utf-8")


@functools.cache
def default_rules() -> RulePack:
    """The built-in pack, `resources/rules/default.toml`, which reproduces the seeds."""
    return parse_rules(default_rules_text(), "default.toml")
