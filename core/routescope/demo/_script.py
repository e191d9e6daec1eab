"""Read and parse a demo script: one prompt per line; blank lines and `#` comments skipped; the
comment line right above a prompt (no blank line between) is its caption."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .._errors import InputError
from .._files import MB, read_text
from .._input import is_blank

__all__ = ["MAX_DEMO_BYTES", "DemoScript", "DemoStep", "parse_demo", "read_demo"]

MAX_DEMO_BYTES = 1 * MB
"""The largest demo script read: thousands of prompts, far more than any talk steps through."""


@dataclass(frozen=True, slots=True)
class DemoStep:
    """One prompt of a demo script.

    Attributes:
        prompt: the prompt, its surrounding white space removed.
        caption: the comment line right above it, without its `#` ("" when there is none).
        line: its line number in the script (1-based).
    """

    prompt: str
    caption: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class DemoScript:
    """The prompts of a demo script, in order (never empty); `source`: where it was read."""

    prompts: tuple[DemoStep, ...]
    source: str = ""

    def __len__(self) -> int:
        return len(self.prompts)


def parse_demo(text: str, source: str = "demo script") -> DemoScript:
    """The steps of a script's text; `InputError` (one line naming `source`) when the text is
    empty, binary or holds no prompt."""
    if "\x00" in text:
        raise InputError(f"{source}: the demo script is binary, not text (a NUL character)")
    if is_blank(text):
        raise InputError(f"{source}: the demo script is empty")
    steps: list[DemoStep] = []
    caption = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#"):
            caption = line.lstrip("#").strip()
        elif is_blank(line):
            caption = ""
        else:
            steps.append(DemoStep(line, caption, number))
            caption = ""
    if not steps:
        raise InputError(
            f"{source}: the demo script holds no prompt (only comments and blank lines)"
        )
    return DemoScript(tuple(steps), source)


def read_demo(path: str | Path) -> DemoScript:
    """The demo script in the file `path` (UTF-8, at most `MAX_DEMO_BYTES`); `InputError`
    with one line when it cannot be read, is too large, is not text or holds no prompt."""
    text = read_text(path, what="demo script", limit=MAX_DEMO_BYTES, error=InputError)
    return parse_demo(text, str(path))
