"""Saving a rule pack: validated first, then written atomically (`_files.replace_file`)."""

from __future__ import annotations

from pathlib import Path

from .._errors import RulePackError, one_line
from .._files import replace_file
from ._pack import RulePack
from ._toml import parse_rules

__all__ = ["save_pack"]


def save_pack(path: str | Path, text: str) -> RulePack:
    """Validate `text` as a rule pack (RulePackError names `path`, line, field) and write it to
    `path` atomically: a reader sees the old file or the new one, never part of it. An existing
    file keeps its owner and mode. Returns the validated pack."""
    target = Path(path)
    pack = parse_rules(text, str(target))
    try:
        like = target.stat() if target.exists() else None
        replace_file(target, text.encode("utf-8"), like=like)
    except OSError as exc:
        raise RulePackError(one_line(f"{target}: cannot save the rule pack: {exc}")) from None
    return pack
