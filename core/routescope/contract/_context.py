"""Reading a router context (last yield, last action, selection, preferences) from JSON."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from .._errors import ContextError, describe
from ._models import RouterContext

__all__ = ["load_context", "parse_context"]


def parse_context(data: object, source: str = "<memory>") -> RouterContext:
    """Validate a context given as JSON text or as already-parsed data."""
    try:
        if isinstance(data, str | bytes):
            return RouterContext.model_validate_json(data)
        return RouterContext.model_validate(data)
    except ValidationError as exc:
        raise ContextError(f"{source}: invalid context: {describe(exc)}") from None


def load_context(path: str | Path) -> RouterContext:
    """Read and validate a context file."""
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ContextError(f"{path}: cannot read context: {exc}") from None
    return parse_context(raw, str(path))
