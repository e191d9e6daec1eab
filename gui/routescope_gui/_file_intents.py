"""File ▸ Save session, Open session, Export inspection and Save as regression case: the
window's questions (which file, which case id), then the intent handed to the feature model that
writes or reads the file off the UI thread (history, inspection, regression). What the models
report comes back here (`done`, `failed`, `session_opened`) through `_wiring.connect_files`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ._inspection_model import NOTHING_INSPECTED

if TYPE_CHECKING:
    from routescope import Inspection

    from ._dialogs import Dialogs
    from ._session import Session

__all__ = ["FileIntents"]

_SUITES = "Suites (*.yaml *.yml)"


class FileIntents:
    """Asks the session's models to save, open or export files; each returns at once."""

    def __init__(
        self,
        session: Session,
        dialogs: Dialogs,
        *,
        show_live: Callable[[], object],
        say: Callable[[str], object],
    ) -> None:
        """`show_live` brings the live view to the front (a session file opened shows there);
        `say` puts a line in the status bar."""
        self._session = session
        self._dialogs = dialogs
        self._show_live = show_live
        self._say = say

    def _inspected(self) -> Inspection | None:
        inspection = self._session.inspection.result
        if inspection is None:
            self._dialogs.tell("Routescope", NOTHING_INSPECTED)
        return inspection

    def save_session(self, path: str | Path) -> bool:
        """Save the current request and its inspection to a session file (the status bar says
        when it is written); False: nothing inspected to save."""
        inspection = self._inspected()
        if inspection is not None:
            self._session.history.save_session(path, inspection)
        return inspection is not None

    def open_session(self, path: str | Path) -> None:
        """Open a session file's first request (its warnings are shown once it is open)."""
        self._session.history.open_session(path)

    # -- what the models report ------------------------------------------------------------
    def done(self, line: str) -> None:
        """A file was written: say so in the status bar."""
        self._say(line)

    def failed(self, title: str, reason: str) -> None:
        """A file could not be written or read: a message that needs reading."""
        self._dialogs.tell(title, reason)

    def session_opened(self, line: str, warnings: list[str]) -> None:
        """Show the session opened live, with its warnings (`line` is the status line)."""
        self._show_live()
        if warnings:
            self._dialogs.tell("Open session", "\n".join(warnings))
        self._say(line)

    def export_inspection(self, path: str | Path, kind: Literal["json", "md"]) -> bool:
        """Export the inspection as JSON (what `routescope inspect --json` prints) or Markdown
        ("md"); False: nothing inspected to export."""
        inspected = self._inspected() is not None
        if inspected:
            self._session.inspection.export(path, kind)
        return inspected

    def save_regression_case(self, path: str | Path, case_id: str) -> bool:
        """Append the current request, its results as expectations, to a suite file; False:
        nothing inspected to save."""
        inspection = self._inspected()
        if inspection is not None:
            self._session.regress.save_case(path, case_id, self._session.request, inspection)
        return inspection is not None

    # -- File menu: the question first ----------------------------------------------------
    def choose_session_save(self) -> None:
        path = self._dialogs.save_path("Save session", "Sessions (*.json)")
        if path:
            self.save_session(path)

    def choose_session_open(self) -> None:
        path = self._dialogs.open_path("Open session", "Sessions (*.json)")
        if path:
            self.open_session(path)

    def choose_export(self, kind: Literal["json", "md"]) -> None:
        filters = "JSON (*.json)" if kind == "json" else "Markdown (*.md)"
        path = self._dialogs.save_path("Export inspection", filters)
        if path:
            self.export_inspection(path, kind)

    def choose_case(self) -> None:
        if self._inspected() is None:
            return
        path = self._dialogs.save_path("Suite to add the case to", _SUITES, append=True)
        case_id = self._dialogs.case_id() if path else ""
        if case_id:
            self.save_regression_case(path, case_id)
