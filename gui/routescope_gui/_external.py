"""The window's external routers, wired in one place so the window only calls
`Externals(window)`: the External tab of the live view (after Raw JSON; View ▸ External,
Ctrl+Shift+X), File ▸ Open routers file…, the routers file kept for the next start, the
expected route of each router judged into the current judged set, and the compare view's
Routers page (two routers, built-in or external, on the prompts and over a set).

The routers ask only while someone looks at them: the External tab shown, or the Routers page
of the compare view."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from ._external_judge import ExternalJudge, Shown
from ._external_view import ExternalView
from ._judge_controls import ask_text
from ._live_view import RESULT_TABS
from ._menus import make_action
from ._routers_model import router_context
from ._window_state import save_routers, saved_routers

if TYPE_CHECKING:
    from routescope.compare import CaseRow, Pick
    from routescope.external import ExternalDecision, Routers

    from ._routers_model import Routed
    from ._window import MainWindow

__all__ = ["EXTERNAL", "ROUTERS_FILTER", "Externals"]

EXTERNAL = "External"
"""The live view's tab of external routers (View ▸ External, Ctrl+Shift+X)."""
ROUTERS_FILTER = "Routers files (*.toml);;All files (*)"
_SET_FILTER = "Suites and labelled sets (*.yaml *.yml *.jsonl *.json *.csv *.tsv);;All files (*)"


class Externals(QObject):
    """The external routers' parts of a window.

    Attributes:
        model: the session's `RoutersModel`; view: the External tab; judge: its Expected
        column's judging; page: the compare view's Routers page; open_action (File ▸ Open
        routers file…), show_action (View ▸ External): the menu entries.
    """

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        session = window.session
        self.model = model = session.routers
        self.view = view = ExternalView()
        window.live.add_tab(EXTERNAL, view)
        self.open_action = make_action(window, "Open routers file…", self.choose_file)
        self.show_action = make_action(
            window, EXTERNAL, lambda: window.show_tab(EXTERNAL), "Ctrl+Shift+X"
        )
        _insert_after(window, window.open_suite_action, self.open_action)
        _insert_after(window, window.tab_actions[len(RESULT_TABS) - 1], self.show_action)
        model.opened.connect(self._opened)
        model.open_failed.connect(self._open_failed)
        model.chosen_changed.connect(self._chosen)
        model.routing.connect(view.show_asking)
        model.decided.connect(self._decided_now)
        model.failed.connect(self._failed_now)
        model.cleared.connect(self._cleared)
        view.open_requested.connect(self.choose_file)
        view.refresh_requested.connect(model.refresh)
        view.chosen_changed.connect(model.set_chosen)
        window.tabs.currentChanged.connect(lambda _index: self._enable())
        window.views.currentChanged.connect(lambda _index: self._enable())
        self._build_judge()
        self._build_compare()
        if window.restores_last_session:
            kept = saved_routers()
            if kept is not None and Path(kept[0]).is_file():
                model.open_file(kept[0], kept[1])

    # -- the file ----------------------------------------------------------------------------
    def choose_file(self) -> None:
        """File ▸ Open routers file…"""
        current = self.model.path
        path = self.window.dialogs.open_path(
            "Open routers file", ROUTERS_FILTER, str(current) if current else ""
        )
        if path:
            self.open_file(path)

    def open_file(
        self, path: str | Path, unticked: Sequence[str] = (), *, show: bool = True
    ) -> None:
        """Route the prompt with the routers a file declares but those `unticked` (`show`: in
        the External tab, brought to the front)."""
        if show:
            self.window.show_tab(EXTERNAL)
        self.model.open_file(path, unticked)

    def _opened(self, declared: Routers) -> None:
        self.view.show_routers(declared)
        self.window.statusBar().showMessage(
            f"routers file {declared.path.name}: {', '.join(declared.names)}"
        )

    def _open_failed(self, message: str) -> None:
        self.view.show_open_error(message)
        self.window.statusBar().showMessage(f"cannot open the routers file: {message}")

    def _chosen(self, names: list[str]) -> None:
        self.view.show_chosen(names)
        path = self.model.path
        if path is not None:
            save_routers(str(path), self.model.unticked())
        self._mark()

    def _decided_now(self, name: str, routed: Routed) -> None:
        self.view.show_decided(name, routed.decision)
        self._mark()

    def _failed_now(self, name: str, why: str) -> None:
        self.view.show_problem(name, why)
        self._mark()

    def _cleared(self) -> None:
        self.view.show_cleared()
        self._mark()

    def _enable(self) -> None:
        window = self.window
        live = window.views.currentWidget() is window.live
        self.model.set_enabled(live and window.tabs.currentWidget() is self.view)
        compare = window.compare_view
        shown = window.views.currentWidget() is compare
        self.router_compare.set_enabled(shown and compare.pages.currentWidget() is self.page)

    # -- judging -----------------------------------------------------------------------------
    def _build_judge(self) -> None:
        session = self.window.session
        self.judge = ExternalJudge(
            self.view, session.judge, self._decided, ask=ask_text(self.window), parent=self
        )
        session.judge.judged.connect(self.judge.judged)
        session.judge.set_changed.connect(lambda _name: self.judge.refresh())
        session.changed.connect(lambda _field: self._mark())

    def _decided(self, name: str, shown: Shown) -> ExternalDecision | None:
        """A router's decision about the prompt shown (None: not about that prompt)."""
        routed = self.model.results.get(name)
        if routed is None or (routed.text, routed.today) != (shown.prompt, shown.today):
            return None
        return routed.decision

    def _mark(self) -> None:
        request = self.window.session.request
        shown = (
            Shown(request.text, request.today, router_context(request))
            if request.text.strip() and self.model.declared is not None
            else None
        )
        self.judge.show(shown)

    # -- the compare view --------------------------------------------------------------------
    def _build_compare(self) -> None:
        window = self.window
        self.router_compare = compare = window.session.router_compare
        self.page = page = window.compare_view.routers_page
        page.show_choices(compare.choices(), compare.a, compare.b)
        compare.choices_changed.connect(self._choices)
        compare.compared.connect(page.show_prompts)
        compare.failed.connect(page.show_prompts_error)
        compare.suite_started.connect(page.show_running)
        compare.suite_compared.connect(page.show_suite)
        compare.suite_failed.connect(page.show_suite_error)
        page.picks_changed.connect(compare.set_picks)
        page.suite_requested.connect(self.choose_set)
        page.open_case_requested.connect(self._open_case)
        view = window.compare_view
        view.text_b_edited.connect(lambda _text: compare.follow("text_b"))
        view.mode_changed.connect(lambda _mode: compare.follow("mode"))
        view.pages.currentChanged.connect(lambda _index: self._enable())

    def _choices(self, choices: list[Pick]) -> None:
        compare = self.router_compare
        self.page.show_choices(choices, compare.a, compare.b)

    def choose_set(self) -> None:
        """Run a suite or labelled set through the compare view's two routers."""
        path = self.window.dialogs.open_path("Run a set through both routers", _SET_FILTER)
        if path:
            self.router_compare.run_suite(path)

    def _open_case(self, row: CaseRow) -> None:
        self.router_compare.open_case(row)
        self.window.show_tab("Plan")


def _insert_after(window: MainWindow, anchor: QAction, action: QAction) -> None:
    """Put `action` in the menu that holds `anchor`, right after it (and on the window, so its
    shortcut works while presenter mode hides the menus)."""
    for entry in window.menuBar().actions():
        menu = entry.menu()
        if menu is None:
            continue
        actions = menu.actions()  # type: ignore[attr-defined]
        if anchor in actions:
            at = actions.index(anchor)
            following = actions[at + 1] if at + 1 < len(actions) else None
            if following is None:
                menu.addAction(action)  # type: ignore[attr-defined]
            else:
                menu.insertAction(following, action)  # type: ignore[attr-defined]
            break
    window.addAction(action)
