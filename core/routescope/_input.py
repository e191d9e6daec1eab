"""What a router accepts as input text: checked once, with a one-line reason when not."""

from __future__ import annotations

import functools
import re
import unicodedata

from ._errors import InputError

__all__ = ["MAX_INPUT_CHARS", "blank_message", "is_blank", "validate_text"]

MAX_INPUT_CHARS = 10_000_000

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
"""Controls, format characters (zero-width space, BOM, direction marks, tags) and separators."""
_INVISIBLE_OTHERS = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors
    (0x2800, 0x2800),  # braille pattern blank
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xE0100, 0xE01EF),  # variation selectors supplement
)
"""Letters and marks that render as nothing (Unicode's default-ignorable code points and
blank-looking fillers) though their category says otherwise."""
_PLANES_WITH_INVISIBLES = (range(0x20000), range(0xE0000, 0xE1000))
"""Where characters of those categories are (planes 0, 1 and 14)."""
_VISIBLE_ASCII = re.compile(r"[!-~]")
_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""White space as a reader sees it: Unicode's space separators (Zs), line and paragraph
separators, tab and the line breaks; not the other control characters Python's `isspace`
also counts (U+001C to U+001F, U+0085)."""
_CONTROL = "\x00-\x08\x0e-\x1f\x7f-\x9f"
"""Control characters (Cc) that are not white space."""
_ONLY_SPACE = re.compile(f"[{_SPACE}]*")
_ONLY_SPACE_AND_CONTROLS = re.compile(f"[{_SPACE}{_CONTROL}]*")
_ANY_SPACE = re.compile(f"[{_SPACE}]")
_NAMED = 3
"""How many of a blank text's characters its message names."""


@functools.cache
def _visible() -> re.Pattern[str]:
    """A pattern matching any character that is not invisible (built on the first prompt that
    has no visible ASCII character: a few milliseconds)."""
    codes = [
        code
        for plane in _PLANES_WITH_INVISIBLES
        for code in plane
        if unicodedata.category(chr(code)) in _INVISIBLE_CATEGORIES
    ]
    codes += [code for low, high in _INVISIBLE_OTHERS for code in range(low, high + 1)]
    return re.compile("[^" + "".join(f"\\U{code:08x}" for code in sorted(set(codes))) + "]")


def is_blank(text: str) -> bool:
    """Whether `text` shows nothing: only white space, control characters and invisible
    characters such as zero-width spaces, byte-order marks or fillers."""
    return _VISIBLE_ASCII.search(text) is None and _visible().search(text) is None


def blank_message(text: str) -> str:
    """Why a text that shows nothing (`is_blank`) cannot be routed, as one line that says what
    it is: empty or only white space; else only control characters (with white space or not),
    or only invisible characters (zero-width spaces, byte-order marks, fillers…), naming the
    first few of them by code point, as `U+200B`. The one message for every surface."""
    if _ONLY_SPACE.fullmatch(text):
        return "text is empty or only whitespace"
    named: list[str] = []
    while len(named) <= _NAMED:  # the next one not yet named, in order (a search in C each)
        other = re.compile(f"[^{_SPACE}{re.escape(''.join(named))}]").search(text)
        if other is None:
            break
        named.append(other.group())
    codes = ", ".join(f"U+{ord(char):04X}" for char in named[:_NAMED])
    if len(named) > _NAMED:
        codes += ", …"
    if not _ONLY_SPACE_AND_CONTROLS.fullmatch(text):
        return f"text is only invisible characters ({codes})"
    if _ANY_SPACE.search(text):
        return f"text is only whitespace and control characters ({codes})"
    return f"text is only control characters ({codes})"


def validate_text(text: object) -> str:
    """Return `text` if a router can use it, else raise InputError with a one-line reason."""
    if not isinstance(text, str):
        raise InputError(f"text must be a string, not {type(text).__name__}")
    if len(text) > MAX_INPUT_CHARS:
        raise InputError(f"text is too large: {len(text):,} characters (limit {MAX_INPUT_CHARS:,})")
    if is_blank(text):
        raise InputError(blank_message(text))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"text is not valid Unicode (lone surrogate at {exc.start})") from None
    return text
