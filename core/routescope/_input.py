"""What a router accepts as input text: checked once, with a one-line reason when not."""

from __future__ import annotations

from ._errors import InputError

__all__ = ["MAX_INPUT_CHARS", "validate_text"]

MAX_INPUT_CHARS = 10_000_000
_BLANK = str.maketrans("", "", "".join(map(chr, range(0x20))) + "\x7f")


def validate_text(text: object) -> str:
    """Return `text` if a router can use it, else raise InputError with a one-line reason."""
    if not isinstance(text, str):
        raise InputError(f"text must be a string, not {type(text).__name__}")
    if len(text) > MAX_INPUT_CHARS:
        raise InputError(f"text is too large: {len(text):,} characters (limit {MAX_INPUT_CHARS:,})")
    if not text.translate(_BLANK).strip():
        raise InputError("text is empty or only whitespace")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"text is not valid Unicode (lone surrogate at {exc.start})") from None
    return text
