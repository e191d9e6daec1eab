"""Judging the External panel's routers: the route each router should choose for the prompt,
kept in the current judged set as the labelling guide's `routes` label (router name → route,
`""`: no route is right) — the label `routescope score --routers` scores.

On a router's row (or any row under it): R — right, the route it chose; W — wrong, choose the
right one from the routes it knows (or type one); N — no route is right; Del — forget the
label. The Expected column (shown while a router of the prompt is judged) marks each: ✓ on the
hit colour, ✗ on the miss colour, with why the router did not choose the expected route when
its evidence says (a semantic router's "why not").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QModelIndex, QObject
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QMenu, QTreeWidgetItem

import routescope

from ._external_rows import EXPECTED, known_routes
from ._judge_controls import AskText, Judgments, judging_key, mark_expected

if TYPE_CHECKING:
    from routescope.external import ExternalDecision
    from routescope.judge import Labels

    from ._external_view import ExternalView

__all__ = ["ExternalJudge", "Shown"]

_NO_ROUTE = "(none)"
_KEYS = "R right · W wrong (choose the route) · N no route · Del forget"


@dataclass(frozen=True, slots=True)
class Shown:
    """The prompt the panel shows (on its date, with its router context)."""

    prompt: str
    today: dt.date
    context: Mapping[str, Any] | None


def _route_text(route: str) -> str:
    return route or _NO_ROUTE


class ExternalJudge(QObject):
    """The expected route of each router of the panel, for the prompt shown.

    Attributes:
        shown: the prompt judged (None: none).
    """

    def __init__(
        self,
        view: ExternalView,
        judgments: Judgments,
        decided: Callable[[str, Shown], ExternalDecision | None],
        *,
        ask: AskText,
        parent: QObject | None = None,
    ) -> None:
        """`decided(name, shown)` gives a router's decision about the prompt shown (None: it
        has not decided about that prompt); `ask` asks for a route that is not listed."""
        super().__init__(parent or view)
        self.view = view
        self.model = judgments
        self.decided = decided
        self.ask = ask
        self.shown: Shown | None = None
        view.tree.installEventFilter(self)
        view.menu_entries = self._menu_entries
        view.tree.headerItem().setToolTip(EXPECTED, f"the route expected: {_KEYS}")

    def show(self, shown: Shown | None) -> None:
        self.shown = shown
        self.refresh()

    def labels(self) -> Labels | None:
        shown = self.shown
        return None if shown is None else self.model.judgment(shown.prompt, shown.today)

    def judged(self, prompt: str, today: dt.date) -> None:
        """`prompt` was judged (on `today`): marked again if it is the one shown."""
        shown = self.shown
        if shown is not None and (shown.prompt, shown.today) == (prompt, today):
            self.refresh()

    def refresh(self) -> None:
        """Each router's expected route beside its decision (shown while one is judged)."""
        labels = self.labels()
        expected = dict(labels.routes or ()) if labels is not None else {}
        view, shown = self.view, self.shown
        for number in range(view.tree.topLevelItemCount()):
            item = view.tree.topLevelItem(number)
            if item is None:
                continue
            name = view.router_of(item) or ""
            route = expected.get(name)
            decision = self.decided(name, shown) if shown is not None else None
            self._mark(item, route, decision)
        view.tree.setColumnHidden(EXPECTED, not expected)

    def _mark(
        self, item: QTreeWidgetItem, route: str | None, decision: ExternalDecision | None
    ) -> None:
        if route is None:
            mark_expected(item, "", f"not judged — {_KEYS}", None, EXPECTED)
            return
        wanted = _route_text(route)
        if decision is None:
            mark_expected(item, wanted, f"expected {wanted} (not decided yet)", None, EXPECTED)
            return
        got = decision.shown_route
        if wanted == got:
            mark_expected(item, wanted, f"right: expected {wanted}", True, EXPECTED)
            return
        tip = f"expected {wanted}; decided {got}"
        why_not = next((e.why_not for e in decision.routes if e.route == route), None)
        if why_not:
            tip += f"\nwhy not {wanted}: {why_not}"
        mark_expected(item, wanted, tip, False, EXPECTED)

    # -- judging -----------------------------------------------------------------------------
    def expect(self, name: str, route: str | None) -> None:
        """Judge that `name` should choose `route` for the prompt shown (`""`: no route;
        None: forget its label). The other routers' labels stay."""
        shown = self.shown
        if shown is None:
            return
        labels = self.labels()
        routes = dict(labels.routes or ()) if labels is not None else {}
        if route is None:
            if routes.pop(name, None) is None:
                return
        else:
            routes[name] = route
        value: object = routes if routes else routescope.history.CLEAR
        self.model.judge(shown.prompt, shown.today, {"routes": value}, shown.context)

    def right(self, name: str) -> None:
        """The router chose right: its route (or no route) is the expected one. A router that
        failed on the prompt chose nothing to call right."""
        shown = self.shown
        decision = self.decided(name, shown) if shown is not None else None
        if decision is not None and decision.ok:
            self.expect(name, decision.route or "")

    def ask_route(self, name: str) -> None:
        """Ask for the route `name` should choose (typed)."""
        answer = self.ask(
            "Expected route", f"The route {name} should choose (blank: no route is right):", ""
        )
        if answer is not None:
            self.expect(name, " ".join(answer.split()))

    # -- keys and menus ----------------------------------------------------------------------
    def actions_for(
        self, item: QTreeWidgetItem | None
    ) -> list[tuple[str, str, Callable[[], None]]]:
        """The judging actions of a row's router: (text, key, what it does)."""
        name = self.view.router_of(item)
        shown = self.shown
        if name is None or shown is None:
            return []
        decision = self.decided(name, shown)
        found: list[tuple[str, str, Callable[[], None]]] = []
        if decision is not None and decision.ok:
            route = _route_text(decision.route or "")
            found.append((f"✓ Right: {name} chooses {route}", "R", lambda: self.right(name)))
        found.append((f"✗ Wrong: the route {name} should choose…", "W", lambda: None))
        found.append((f"✗ No route is right for {name}", "N", lambda: self.expect(name, "")))
        found.append((f"Forget {name}'s expected route", "Del", lambda: self.expect(name, None)))
        return found

    def _routes_menu(self, menu: QMenu, name: str) -> None:
        """W's submenu: each route the router knows, or another one typed."""
        decision = self.decided(name, self.shown) if self.shown is not None else None
        decided = decision.route if decision is not None else None
        for route in known_routes(decision):
            if route != decided:
                action = menu.addAction(route)
                action.triggered.connect(lambda _c=False, r=route: self.expect(name, r))
        other = menu.addAction("Another route…")
        other.triggered.connect(lambda: self.ask_route(name))

    def _menu_entries(self, menu: QMenu, index: QModelIndex) -> None:
        """The tree's context menu: its Copy, then the row's judging actions."""
        item = self.view.tree.itemFromIndex(index) if index.isValid() else None
        actions = self.actions_for(item)
        if not actions:
            return
        menu.addSeparator()
        name = self.view.router_of(item) or ""
        for text, key, act in actions:
            if key == "W":
                self._routes_menu(menu.addMenu(text.rstrip("…")), name)
                continue
            action = menu.addAction(f"{text}\t{key}")
            action.triggered.connect(act)

    def press(self, item: QTreeWidgetItem | None, key: str) -> bool:
        """Do what `key` does on a row (as its menu says); False: nothing."""
        key = {"Delete": "Del", "Backspace": "Del"}.get(key, key)
        name = self.view.router_of(item)
        if key == "W" and name is not None and self.shown is not None:
            menu = QMenu(self.view.tree)
            self._routes_menu(menu, name)
            rect = self.view.tree.visualItemRect(item) if item is not None else None
            where = rect.bottomLeft() if rect is not None else self.view.tree.rect().center()
            menu.popup(self.view.tree.viewport().mapToGlobal(where))
            return True
        for _text, shown, act in self.actions_for(item):
            if shown == key:
                act()
                return True
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view.tree and isinstance(event, QKeyEvent):
            key = judging_key(event)
            if key not in ("R", "W", "N", "Delete", "Backspace"):
                return super().eventFilter(watched, event)
            if event.type() == QEvent.Type.KeyPress:
                return self.press(self.view.tree.currentItem(), key)
            if event.type() == QEvent.Type.ShortcutOverride and self.shown is not None:
                event.accept()  # the row's key, not a shortcut of the window
                return True
        return super().eventFilter(watched, event)
