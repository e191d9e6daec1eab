"""History and sessions: every inspected prompt kept, searchable and pinnable; portable session
files; exports of one inspection as JSON or Markdown.

`History.open()` opens (or starts) the store in the user's data folder, `history.sqlite3`:
SQLite in WAL mode, one row per distinct request (`Request.fingerprint()`), the rule packs'
texts once per digest, full-text search over the prompts. It never raises: a damaged or
foreign file is moved aside and a new store started, a read-only folder turns history off,
and `History.note` says so in one line. `History.reopen(entry_id)` gives back the `Request`.

`save_session` / `open_session` write and read a session file (requests, their results, and
the fingerprints of the rule pack, catalog and embedding model they ran with); opening one
elsewhere lists where this machine differs. `to_json` and `export_markdown` export one
inspection; `export_inspection` writes either to a file. Saving a prompt as a regression case
is `routescope.regress.append_case`.

Cheap to import: every name loads its module on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._errors import HistoryError
from .._lazy import lazy_names

if TYPE_CHECKING:
    from ._codec import Summary
    from ._export import export_inspection, export_markdown, to_json
    from ._peek import default_history_path, peek_last_prompt
    from ._session import (
        MAX_SESSION_BYTES,
        MAX_SESSION_ENTRIES,
        SESSION_FORMAT,
        SESSION_VERSION,
        Fingerprints,
        Session,
        SessionEntry,
        compare_fingerprints,
        open_session,
        save_session,
    )
    from ._store import (
        BUSY_TIMEOUT_S,
        MAX_ENTRIES,
        MAX_STORED_CHARS,
        Entry,
        Facets,
        History,
        LastSession,
    )

__all__ = [
    "BUSY_TIMEOUT_S",
    "MAX_ENTRIES",
    "MAX_SESSION_BYTES",
    "MAX_SESSION_ENTRIES",
    "MAX_STORED_CHARS",
    "SESSION_FORMAT",
    "SESSION_VERSION",
    "Entry",
    "Facets",
    "Fingerprints",
    "History",
    "HistoryError",
    "LastSession",
    "Session",
    "SessionEntry",
    "Summary",
    "compare_fingerprints",
    "default_history_path",
    "export_inspection",
    "export_markdown",
    "open_session",
    "peek_last_prompt",
    "save_session",
    "to_json",
]

_LAZY = {
    "Summary": "_codec",
    "export_inspection": "_export",
    "export_markdown": "_export",
    "to_json": "_export",
    "MAX_SESSION_BYTES": "_session",
    "MAX_SESSION_ENTRIES": "_session",
    "SESSION_FORMAT": "_session",
    "SESSION_VERSION": "_session",
    "Fingerprints": "_session",
    "Session": "_session",
    "SessionEntry": "_session",
    "compare_fingerprints": "_session",
    "open_session": "_session",
    "save_session": "_session",
    "BUSY_TIMEOUT_S": "_store",
    "MAX_ENTRIES": "_store",
    "MAX_STORED_CHARS": "_store",
    "Entry": "_store",
    "Facets": "_store",
    "History": "_store",
    "LastSession": "_store",
    "default_history_path": "_peek",
    "peek_last_prompt": "_peek",
}

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
