"""The exceptions Routescope raises, and the one way a validation error becomes a message.

RoutescopeError            every message is one line a user can act on
 ├── InputError            the text given to a router cannot be used (empty, too large, not text)
 │    └── RecordError      a record read back is not a routed prompt's outcome
 ├── RulePackError         a rule pack cannot be read or does not validate
 ├── ContextError          a router context cannot be read or does not validate
 ├── SuiteError            a regression suite cannot be read or does not validate
 ├── CatalogError          no tool could be loaded from a catalog path
 ├── EmbedderError         no embedding model can run here (searches go keyword-only)
 ├── ResearchConfigError   research settings cannot be used (a missing URL or key)
 ├── OfflineIndexError     the offline research index can be neither opened nor built
 ├── HistoryError          the history store or a session file cannot be used
 ├── BatchError            a batch cannot start or go on (its inputs, output or engine)
 ├── ResultsError          a batch results file cannot be read, or a line of it is not a result
 ├── LabelsError           a labelled set cannot be read, or a case of it has a bad label
 └── RouterError           an external router cannot be declared or started (its file, name, field)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pydantic is imported by whoever has a ValidationError to describe
    from pydantic import ValidationError

__all__ = [
    "BatchError",
    "CatalogError",
    "ContextError",
    "EmbedderError",
    "HistoryError",
    "InputError",
    "LabelsError",
    "OfflineIndexError",
    "RecordError",
    "ResearchConfigError",
    "ResultsError",
    "RouterError",
    "RoutescopeError",
    "RulePackError",
    "SuiteError",
    "describe",
    "dotted",
    "one_line",
    "quoted",
]

Location = tuple[int | str, ...]


def one_line(
    text: object, limit: int | None = None, *, collapse: bool = False, keep_end: bool = False
) -> str:
    """`text` as one line a terminal shows as it is: every line break and control character
    escaped (`\\n`, `\\x1b`, `\\u202e`), so a key, path or name quoted in a message can neither
    split the line nor drive the terminal. An exception gives its message (else its type name).
    `collapse`: runs of white space become one space first (a reply body, a library's message);
    `limit`: cut to that many characters, ending with "…" (`keep_end`: beginning with it, for a
    path, whose file name is at its end)."""
    message = (str(text) or type(text).__name__) if isinstance(text, BaseException) else str(text)
    if collapse:
        message = " ".join(message.split())
    if not message.isprintable():
        message = "".join(char if char.isprintable() else ascii(char)[1:-1] for char in message)
    if limit is not None and len(message) > limit:
        message = "…" + message[1 - limit :] if keep_end else message[: limit - 1] + "…"
    return message


_QUOTED_CHARS = 80


def quoted(text: object, *, quote: bool = True, limit: int = _QUOTED_CHARS) -> str:
    """A user's key or id in a message: quoted (an id only when it needs it), control
    characters escaped, at most about 80 characters (so the message stays one short line)."""
    value = str(text)
    simple = value.isprintable() and value == value.strip() and 0 < len(value) <= limit
    if simple and not quote:
        return value
    shown = repr(value[:limit])
    return shown + ("…" if len(value) > limit else "")


class RoutescopeError(Exception):
    """Base class: every message is one line a user can act on."""


class InputError(RoutescopeError, ValueError):
    """The input text cannot be routed."""


class RecordError(InputError):
    """A record (a results line, a stored outcome) is not a routed prompt's outcome; the message
    names the field ("field 'strategy' must be a string, not null"), its reader the place."""


class RulePackError(RoutescopeError):
    """A rule pack file is unreadable or invalid; the message names file, place and problem."""


class ContextError(RoutescopeError):
    """A router context is unreadable or invalid; the message names file and field."""


class SuiteError(RoutescopeError):
    """A suite file cannot be read or does not validate; the message names file and place."""


class CatalogError(RoutescopeError):
    """No tool could be loaded from a catalog path."""


class EmbedderError(RoutescopeError):
    """No embedding model can run here; searches fall back to keyword-only and say so."""


class ResearchConfigError(RoutescopeError):
    """Research settings cannot be used: a provider without its URL or key, a bad number."""


class OfflineIndexError(RoutescopeError):
    """The offline research index can be neither opened nor built (one line); its search
    reports this as a failed search, `OfflineSearch.open` raises it."""


class HistoryError(RoutescopeError):
    """The history store or a session file cannot be used (one line naming the file): a
    corrupt or foreign store is moved aside and a new one started, a read-only one turns history
    off; a session file that does not validate is refused."""


class BatchError(RoutescopeError):
    """A batch cannot run: an input, an option or the output cannot be used (one line)."""


class ResultsError(RoutescopeError):
    """A results file cannot be read, or a line of it is not a routed prompt; the message names
    the file and the line."""


class LabelsError(RoutescopeError):
    """A labelled set cannot be read, or one of its cases has a label that is not one the
    labelling guide defines; the message names the file, the line and the label."""


def dotted(loc: Location) -> str:
    """`cases.2.expect` for a pydantic error location; `(top level)` for an empty one."""
    return ".".join(str(part) for part in loc) or "(top level)"


def describe(error: ValidationError, where: Callable[[Location], str] = dotted) -> str:
    """The first problem of a validation error as `<where>: <message>`, with how many more."""
    first = error.errors()[0]
    message = first["msg"].removeprefix("Value error, ")
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where(tuple(first['loc']))}: {message}{more}"


class RouterError(RoutescopeError):
    """An external router cannot be used: its declaration file does not read or validate, or the
    router it declares cannot start (a Python router that does not import, a semantic-router
    file Routescope cannot run). The message names the file, the router and the problem. A
    router that fails on one prompt is not an error: that is a per-prompt result."""
