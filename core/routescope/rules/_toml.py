"""Reading rule packs: TOML text or a file, validated, with errors that name file, line, field."""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .._errors import Location, RulePackError, describe, dotted
from .._resources import resources_root
from ._pack import RulePack

__all__ = ["default_rules", "default_rules_text", "load_rules", "parse_rules", "read_rules_text"]


def _line_of(toml_text: str, loc: Location) -> int | None:
    """Best-effort line number of the key an error location names."""
    keys = [part for part in loc if isinstance(part, str)]
    if not keys:
        return None
    tables = keys[:-1]
    key = re.escape(keys[-1])
    in_table = not tables
    for number, line in enumerate(toml_text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"\[+\s*([^\]]+?)\s*\]+$", stripped)
        if header:
            in_table = header.group(1).split(".")[-1] == (tables[-1] if tables else "")
            continue
        if in_table and re.match(rf'"?{key}"?\s*=', stripped):
            return number
    return None


def parse_rules(toml_text: str, source: str = "<memory>") -> RulePack:
    """Validate a rule pack given as TOML text; `source` names it in error messages."""
    try:
        data: dict[str, Any] = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as exc:
        raise RulePackError(f"{source}: not valid TOML: {exc}") from None
    data["source"] = source
    try:
        return RulePack.model_validate(data)
    except ValidationError as exc:

        def where(loc: Location) -> str:
            line = _line_of(toml_text, loc)
            return f"{source}:{line}" if line else source

        message = describe(exc, lambda loc: f"{where(loc)}: field {dotted(loc)}")
        raise RulePackError(message) from None


def read_rules_text(path: str | Path) -> str:
    """A rule pack file's text; RulePackError when it cannot be read as UTF-8."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RulePackError(f"{path}: cannot read rule pack: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulePackError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def load_rules(path: str | Path) -> RulePack:
    """Read and validate a rule pack file."""
    return parse_rules(read_rules_text(path), str(path))


def default_rules_text() -> str:
    """The TOML text of the built-in pack."""
    return (resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")


@functools.cache
def default_rules() -> RulePack:
    """The built-in pack, `resources/rules/default.toml`, which reproduces the seeds."""
    return parse_rules(default_rules_text(), "default.toml")
