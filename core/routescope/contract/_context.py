"""Reading a router context (last yield, last action, selection, preferences) from JSON."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from .._errors import ContextError, describe, one_line
from .._files import MB, read_text
from ._models import RouterContext

__all__ = ["MAX_CONTEXT_BYTES", "load_context", "parse_context"]

MAX_CONTEXT_BYTES = 16 * MB
"""A context file larger than this is refused before it is read."""


def parse_context(data: object, source: str = "<memory>") -> RouterContext:
    """Validate a context given as JSON text or as already-parsed data. Numbers must be finite:
    `NaN` and `Infinity` are not JSON, and a tool result holding one is refused here rather
    than retried (ContextError naming the field)."""
    try:
        if isinstance(data, str | bytes):
            return RouterContext.model_validate_json(data)
        return RouterContext.model_validate(data)
    except ValidationError as exc:
        raise ContextError(one_line(f"{source}: invalid context: {describe(exc)}")) from None
    except RecursionError:  # parsed data nested deeper than the validator can follow
        raise ContextError(f"{source}: invalid context: nested too deeply") from None


def load_context(path: str | Path) -> RouterContext:
    """Read (within `MAX_CONTEXT_BYTES`, see `_files.read_text`) and validate a context file."""
    raw = read_text(path, what="context", limit=MAX_CONTEXT_BYTES, error=ContextError)
    return parse_context(raw, str(path))
