"""What the regression, compare, batch and history views ask of the window: a file chosen
first (a suite, side B's rule pack or catalog), then their model's intent; a case, a batch's
prompt or a history entry opened in the live view.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import routescope

if TYPE_CHECKING:
    from routescope import Request
    from routescope.batch import PromptRef

    from ._dialogs import Dialogs
    from ._session import Session

__all__ = ["SUITES", "ViewIntents", "sample_catalog"]

SUITES = "Suites (*.yaml *.yml)"
"""The file filter of every suite dialog."""
_CASE_TABS = {"strategy": "Plan", "linter": "Linter", "contract": "Contract", "tools": "Tools"}
"""The tab a regression case opens on, by its suite's router."""


def sample_catalog() -> Path:
    """The catalog shipped with Routescope: where catalog dialogs start."""
    return routescope.CatalogRef.sample_path()


def _fixtures() -> str:
    """Where suite dialogs open: the shipped suites."""
    return str(routescope.resources_root() / "fixtures")


class ViewIntents:
    """The side views' requests, asked of the session's models."""

    def __init__(
        self,
        session: Session,
        dialogs: Dialogs,
        *,
        show_tab: Callable[[str], object],
        show_live: Callable[[], object],
        say: Callable[[str], object],
    ) -> None:
        """`show_tab` brings a view or result tab to the front (as `MainWindow.show_tab`),
        `show_live` the live view; `say` puts a line in the status bar."""
        self._session = session
        self._dialogs = dialogs
        self._show_tab = show_tab
        self._show_live = show_live
        self._say = say
        self._case_before: tuple[str, Request] | None = None
        session.regress.case_opened.connect(self._case_opened)

    # -- regression ----------------------------------------------------------------------
    def choose_suite(self) -> None:
        path = self._dialogs.open_path("Open suite", SUITES, _fixtures())
        if path:
            self._show_tab("Regression")
            self._session.regress.open(path)

    def open_case(self, case_id: str) -> None:
        """Open a regression case live, on the tab of its suite's router; the status bar says
        which of the session's settings the case's own inputs replace."""
        suite = self._session.regress.suite
        self._show_tab(_CASE_TABS.get(suite.router, "Plan") if suite else "Plan")
        self._case_before = (case_id, self._session.request)
        self._session.regress.open_case(case_id)

    def _case_opened(self, request: Request) -> None:
        """Say which of the session's inputs the case's own stand in for while it shows (its
        date, its search settings): the session's come back with the next edit."""
        if self._case_before is None:
            return
        case_id, before = self._case_before
        self._case_before = None
        changes = []
        if request.today != before.today:
            changes.append(f"today {request.today.isoformat()}")
        if request.search != before.search:
            changes.append("the suite's search settings")
        said = f" ({', '.join(changes)})" if changes else ""
        back = "; the session's come back when you edit the prompt" if changes else ""
        self._say(f"case {case_id} shown with its own inputs{said}{back}")

    # -- compare -------------------------------------------------------------------------
    def choose_rules_b(self) -> None:
        path = self._dialogs.open_path("Rule pack of side B", "Rule packs (*.toml)")
        if path:
            self._session.compare.set_rules_b(path)

    def choose_catalog_b(self) -> None:
        path = self._dialogs.catalog(sample_catalog())
        if path:
            self._session.compare.set_catalog_b(path)

    def choose_compare_suite(self) -> None:
        path = self._dialogs.open_path("Run a suite under both sides", SUITES, _fixtures())
        if path:
            self._session.compare.run_suite(path)

    def open_compare_case(self, case_id: str) -> None:
        self._show_live()
        self._session.compare.open_case(case_id)

    # -- batch and history ---------------------------------------------------------------
    def open_batch_prompt(self, ref: PromptRef) -> None:
        self._show_live()
        self._session.batch.open_prompt(ref)

    def open_history_entry(self, entry_id: int) -> None:
        self._show_live()
        self._session.history.reopen(entry_id)
