"""The views side by side, each by its name: Live, Compare, Regression, Batch and History."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from ._batch_view import BatchView
from ._compare_view import CompareView
from ._history_view import HistoryView
from ._regress_view import RegressView
from ._widgets import SteadyTabs

__all__ = ["HISTORY", "VIEWS", "ViewTabs"]

VIEWS = ("Regression", "Batch", "Compare")
"""The views beside the live one (View ▸ Ctrl+7, Ctrl+8, Ctrl+9); Compare sits next to Live."""
HISTORY = "History"
"""The history of inspected prompts, the last view (View ▸ Ctrl+H)."""


class ViewTabs(SteadyTabs):
    """The live view and the views beside it.

    Attributes:
        live: the live view; regress_view, batch_view, compare_view, history_view: the others.
    """

    def __init__(self, live: QWidget) -> None:
        super().__init__()
        self.setDocumentMode(True)
        self.live = live
        self.regress_view = RegressView()
        self.addTab(live, "Live")
        self.addTab(self.regress_view, "Regression")
        self.batch_view = BatchView()
        self.addTab(self.batch_view, "Batch")
        self.compare_view = CompareView()
        self.insertTab(1, self.compare_view, "Compare")
        self.history_view = HistoryView()
        self.addTab(self.history_view, HISTORY)
        # An explicit minimum: the banner (a rule-pack error) then takes its room from the
        # body instead of growing the window past the screen (the views' own hint is ~720 px).
        self.setMinimumSize(480, 320)
        self._named: dict[str, QWidget] = dict(
            zip(
                (*VIEWS, HISTORY),
                (self.regress_view, self.batch_view, self.compare_view, self.history_view),
                strict=True,
            )
        )

    def add_view(self, name: str, view: QWidget) -> None:
        """One more view, after the others (shown by `show_view(name)`)."""
        self.addTab(view, name)
        self._named[name] = view

    def show_view(self, name: str) -> bool:
        """Bring the view `name` (one of `VIEWS` or `HISTORY`) to the front; False: no such
        view (a result tab of the live view)."""
        view = self._named.get(name)
        if view is not None:
            self.setCurrentWidget(view)
        return view is not None

    def shown_view(self) -> str | None:
        """The name of the view shown (None: the live view)."""
        current = self.currentWidget()
        return next((name for name, view in self._named.items() if view is current), None)
