"""The `routescope inspect` command line that reproduces a `Request` (the window's "Copy as
command line", as DevTools' "copy as cURL"): the prompt, the date, the rule pack's file, the
router context (inline JSON), the catalog (or `--no-tools` without one) and the tool search's
settings that differ from the defaults, each quoted for a POSIX shell (`shlex`).

What a command line cannot carry is said, not hidden: a rule pack whose file is gone or holds
another text (edits not saved) is named in `CommandLine.caveats`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..toolsearch import SearchSettings

if TYPE_CHECKING:
    from .._request import Request

__all__ = ["CommandLine", "command_line"]

PROGRAM = "routescope"


@dataclass(frozen=True, slots=True)
class CommandLine:
    """A command's words and what it cannot reproduce.

    Attributes:
        argv: the words, the program's name first.
        caveats: one line for each input the command does not carry as the request has it.
    """

    argv: list[str]
    caveats: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The command as one line for a POSIX shell (a prompt's new lines stay inside its
        quotes)."""
        return shlex.join(self.argv)


def command_line(request: Request) -> CommandLine:
    """`routescope inspect …` for `request`: run, it routes the prompt exactly as the request
    does (same decision; with `--json`, the same JSON but for the measured timings)."""
    options = ["--today", request.today.isoformat()]
    caveats: list[str] = []
    rules = request.rules
    if not rules.is_builtin:
        pack = rules.load().name
        path = Path(rules.source)
        if not path.is_file():
            caveats.append(
                f"the rule pack «{pack}» is in no file ({rules.source}): save it to a file, "
                "or the command uses the built-in pack"
            )
        else:
            options += ["--rules", os.path.abspath(path)]
            if _digest(path) != rules.digest:
                caveats.append(
                    f"the rule pack «{pack}» has edits not saved to {path.name}: the command "
                    "uses the file as it is"
                )
    if request.context is not None:
        context = request.context.model_dump_json(by_alias=True, exclude_defaults=True)
        options += ["--context", context]
    if request.catalog is None:
        options.append("--no-tools")  # (with --json the sample catalog would be ranked)
    else:
        options += ["--catalog", os.path.abspath(request.catalog.path)]
    changed = _changed_settings(request.search)
    if changed:
        options += ["--search", json.dumps(changed, ensure_ascii=False, separators=(",", ":"))]
    if request.text.startswith("-"):  # it would read as an option: after `--`, at the end
        return CommandLine([PROGRAM, "inspect", *options, "--", request.text], caveats)
    return CommandLine([PROGRAM, "inspect", request.text, *options], caveats)


def _digest(path: Path) -> str:
    """The digest of the pack the file holds now, as `--rules` reads it ("": unreadable)."""
    from .._errors import RoutescopeError
    from ..rules import read_rules_text

    try:
        text = read_rules_text(path)
    except RoutescopeError:
        return ""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _changed_settings(settings: SearchSettings) -> dict[str, object]:
    """The settings that differ from the defaults, as JSON values (boosts a plain mapping)."""
    default = SearchSettings()
    changed: dict[str, object] = {}
    for setting in dataclasses.fields(settings):
        value = getattr(settings, setting.name)
        if value != getattr(default, setting.name):
            changed[setting.name] = dict(value) if setting.name == "boosts" else value
    return changed
