"""The External panel's rows: one row a router — its route, score, what it is and how long it
took — and under it every route's score as a bar with its evidence (a semantic router's
calibrated confidence against the route's threshold, its best-matching utterances with their
similarity, and why a route was not chosen), the signals that matched with their confidences,
and the tools or flags it chose. A router that failed on the prompt, or cannot start, has one
line saying so instead. Mirrors `routescope route` (`routescope.external.ExternalDecision`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import QTreeWidgetItem

from ._style import colour
from ._widgets import BAR_ROLE, DIM_ROLE, MARK_ROLE, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.external import ExternalDecision, RouteEvidence, Signal

__all__ = [
    "COLUMNS",
    "EXPECTED",
    "LATENCY",
    "NAME",
    "ROUTE",
    "WHY",
    "fill_asking",
    "fill_decision",
    "fill_not_chosen",
    "fill_problem",
    "known_routes",
]

COLUMNS = ("Router", "Route · score", "Evidence", "Latency", "Expected")
NAME, ROUTE, WHY, LATENCY, EXPECTED = range(len(COLUMNS))
_UTTERANCE_CHARS = 60
"""An utterance is cut to this many characters in its row (its tooltip has it whole)."""


def _quote(text: str, limit: int = _UTTERANCE_CHARS) -> str:
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return f"“{shown}”"


def _ink(item: QTreeWidgetItem, column: int, role: str | None) -> None:
    """A cell's text colour: a theme's role, or the view's own (None)."""
    brush = None if role is None else QBrush(colour(role))
    item.setData(column, Qt.ItemDataRole.ForegroundRole, brush)


def _bold(item: QTreeWidgetItem, column: int, bold: bool) -> None:
    font = QFont(item.font(column))
    font.setBold(bold)
    item.setFont(column, font)


def _bar(item: QTreeWidgetItem, fraction: float | None, mark: float | None, dim: bool) -> None:
    item.setData(ROUTE, BAR_ROLE, None if fraction is None else max(0.0, min(1.0, fraction)))
    item.setData(ROUTE, MARK_ROLE, mark)
    item.setData(ROUTE, DIM_ROLE, dim)


def _name_cell(item: QTreeWidgetItem, name: str, kind: str) -> None:
    item.setText(NAME, name)
    item.setToolTip(NAME, f"{name}: a {kind} router of the routers file (tick it to route)")


def _clear(item: QTreeWidgetItem) -> None:
    _bar(item, None, None, False)
    _ink(item, ROUTE, None)
    _ink(item, WHY, None)
    _bold(item, ROUTE, False)


def fill_not_chosen(item: QTreeWidgetItem, name: str, kind: str) -> None:
    """A router that is not asked (unticked)."""
    _clear(item)
    fill_row(item, [name, "—", f"{kind} · not asked: tick it to route the prompt", ""])
    _name_cell(item, name, kind)
    _ink(item, WHY, "muted")
    ensure_children(item, 0)


def fill_problem(item: QTreeWidgetItem, name: str, kind: str, why: str, short: str) -> None:
    """A router that cannot route (it cannot start): why, on one line (`short`: without the
    file and router it names, which the row shows)."""
    _clear(item)
    fill_row(item, [name, "cannot start", short, ""], [None, None, why])
    _name_cell(item, name, kind)
    _ink(item, ROUTE, "bad")
    _ink(item, WHY, "bad")
    ensure_children(item, 0)


def fill_asking(item: QTreeWidgetItem, first: bool) -> None:
    """The router is asked about a newer prompt: what it said about the older one stays until
    its answer comes (`first`: it has said nothing yet)."""
    item.setText(LATENCY, "asking…")
    item.setToolTip(LATENCY, "asked about the prompt as it is now; its answer shows when it comes")
    if first:
        item.setText(ROUTE, "…")


def _score_text(decision: ExternalDecision) -> str:
    if decision.score is None:
        return decision.shown_route
    return f"{decision.shown_route} · {decision.score:.3f}"


def _headline(decision: ExternalDecision) -> str:
    """The decision's evidence in a line: its chosen route's bar, its signals, what it is."""
    parts: list[str] = []
    evidence = decision.routes[0] if decision.routes else None
    if evidence is not None and evidence.route == decision.route:
        parts.append(_threshold(evidence))
    elif evidence is not None and decision.route is None:
        parts.append(f"no route: best {evidence.route!r} {_threshold(evidence)}")
    if decision.signals:
        parts.append(f"{len(decision.signals)} signal(s) matched")
    if decision.tools:
        parts.append(f"tools: {', '.join(decision.tools)}")
    if decision.flags:
        parts.append(f"flags: {', '.join(decision.flags)}")
    parts.append(decision.kind)
    return " · ".join(part for part in parts if part)


def _threshold(evidence: RouteEvidence) -> str:
    if evidence.threshold is None or evidence.margin is None:
        return f"confidence {evidence.confidence:.3f} (no threshold)"
    sign = "≥" if evidence.passed else "<"
    return (
        f"confidence {evidence.confidence:.3f} {sign} threshold {evidence.threshold:.3f} "
        f"({evidence.margin:+.3f})"
    )


def fill_decision(item: QTreeWidgetItem, decision: ExternalDecision) -> None:
    """A router's decision: its row, and under it the routes, signals, tools and flags."""
    _clear(item)
    latency = f"{decision.latency_ms:,.1f} ms"
    if decision.error is not None:
        error = decision.error
        status = f" (HTTP {error.status})" if error.status is not None else ""
        wait = (
            f"; the server asked to wait {error.retry_after_s:g} s" if error.retry_after_s else ""
        )
        why = f"{error.detail}{status}{wait}"
        fill_row(item, [decision.router, decision.shown_route, why, latency])
        _name_cell(item, decision.router, decision.kind)
        _ink(item, ROUTE, "bad")
        _ink(item, WHY, "bad")
        ensure_children(item, 0)
        return
    headline = _headline(decision)
    score_tip = "its score" + (" (calibrated: a probability)" if decision.calibrated else "")
    fill_row(
        item,
        [decision.router, _score_text(decision), headline, latency],
        [None, f"{decision.shown_route}: the route it chose; {score_tip}"],
    )
    _name_cell(item, decision.router, decision.kind)
    _bold(item, ROUTE, decision.route is not None)
    if decision.route is None:
        _ink(item, ROUTE, "muted")
    item.setToolTip(LATENCY, "how long the router took to answer (the whole call)")
    _fill_children(item, decision)


def _fill_children(item: QTreeWidgetItem, decision: ExternalDecision) -> None:
    evidence = {found.route: found for found in decision.routes}
    routes = list(decision.scores) + [name for name in evidence if name not in decision.scores]
    scale = max([1.0, *decision.scores.values()])
    extra = [
        (label, values)
        for label, values in (("tools", decision.tools), ("flags", decision.flags))
        if values
    ]
    signals = 1 if decision.signals else 0
    rows = ensure_children(item, len(routes) + signals + len(extra))
    for row, name in zip(rows, routes, strict=False):
        _route_row(row, decision, name, decision.scores.get(name), evidence.get(name), scale)
    if signals:
        _signals_row(rows[len(routes)], decision.signals)
    for row, (label, values) in zip(rows[len(routes) + signals :], extra, strict=True):
        _clear(row)
        fill_row(row, [label, ", ".join(values), "", ""])
        ensure_children(row, 0)


def _route_row(
    row: QTreeWidgetItem,
    decision: ExternalDecision,
    name: str,
    score: float | None,
    evidence: RouteEvidence | None,
    scale: float,
) -> None:
    _clear(row)
    chosen = name == decision.route
    why = ""
    tip = ""
    if evidence is not None:
        why = _threshold(evidence)
        if evidence.why_not:
            why = f"why not: {evidence.why_not} · {why}"
        nearest = evidence.best[0] if evidence.best else None
        if nearest is not None and not evidence.why_not:
            why += f" · best {_quote(nearest.utterance, 36)} {nearest.similarity:.3f}"
        tip = why
    shown = "—" if score is None else f"{score:.3f}"
    fill_row(row, [("▶ " if chosen else "   ") + name, shown, why, ""], [None, None, tip or None])
    _bold(row, NAME, chosen)
    passed = evidence.passed if evidence is not None else True
    if score is not None:
        uncalibrated = evidence is not None and evidence.confidence == evidence.score
        mark = evidence.threshold if evidence is not None and uncalibrated else None
        _bar(row, score / scale, None if mark is None else mark / scale, not passed)
    if evidence is not None and evidence.why_not:
        _ink(row, WHY, "muted")
    best = evidence.best if evidence is not None else []
    for child, match in zip(ensure_children(row, len(best)), best, strict=True):
        _clear(child)
        among = "among the nearest: it scores" if match.in_top_k else "not among the nearest"
        fill_row(
            child,
            ["", f"{match.similarity:.3f}", f"{_quote(match.utterance)} · {among}", ""],
            [f"an example utterance of {name}", "its cosine similarity to the prompt"],
        )
        _bar(child, match.similarity, None, not match.in_top_k)


def _signals_row(row: QTreeWidgetItem, signals: list[Signal]) -> None:
    _clear(row)
    fill_row(row, ["signals", f"{len(signals)} matched", "what the router says matched", ""])
    for child, signal in zip(ensure_children(row, len(signals)), signals, strict=True):
        _clear(child)
        name = f"{signal.kind}:{signal.name}" if signal.kind else signal.name
        confidence = "—" if signal.confidence is None else f"{signal.confidence:.3f}"
        fill_row(
            child,
            ["", confidence, name, ""],
            [None, "the confidence the router gives it" if signal.confidence is not None else ""],
        )
        if signal.confidence is not None:
            _bar(child, signal.confidence, None, False)


def known_routes(decision: ExternalDecision | None) -> list[str]:
    """The routes a decision names (its scores', its evidence's, its own), in its order: what
    the analyst may expect instead."""
    if decision is None:
        return []
    names = list(decision.scores) + [found.route for found in decision.routes]
    if decision.route is not None:
        names.append(decision.route)
    return list(dict.fromkeys(names))
