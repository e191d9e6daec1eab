"""History and sessions: every inspected prompt kept, searchable and pinnable; portable session
files; exports of one inspection as JSON or Markdown.

`Recorder` decides which of a live prompt's inspections are kept: the prompt the analyst
settled on (it rested `SETTLE_S`, or was run), not each pause on the way; an extension of the
latest entry replaces it, an exact repeat is not added.

`History.open()` opens (or starts) the store in the user's data folder, `history.sqlite3`
(`default_history_path()`):
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

from .._lazy import lazy_face

if TYPE_CHECKING:
    from .._errors import HistoryError as HistoryError
    from ._codec import Summary as Summary
    from ._export import export_inspection as export_inspection
    from ._export import export_markdown as export_markdown
    from ._export import to_json as to_json
    from ._judgments import CLEAR as CLEAR
    from ._judgments import DEFAULT_SET as DEFAULT_SET
    from ._peek import default_history_path as default_history_path
    from ._peek import peek_last_prompt as peek_last_prompt
    from ._rows import Entry as Entry
    from ._rows import Facets as Facets
    from ._rows import LastSession as LastSession
    from ._session import Fingerprints as Fingerprints
    from ._session import Session as Session
    from ._session import SessionEntry as SessionEntry
    from ._session import open_session as open_session
    from ._session import save_session as save_session
    from ._settle import MERGE_S as MERGE_S
    from ._settle import SETTLE_S as SETTLE_S
    from ._settle import Pending as Pending
    from ._settle import Recorder as Recorder
    from ._store import History as History

__getattr__, __dir__, __all__ = lazy_face(__name__)
