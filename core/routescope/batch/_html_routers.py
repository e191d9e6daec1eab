"""The sections external routers add to a report's page (a batch run with `--router`): each
router's failures by kind and its routes, then the agreement of every pair of routers, the
built-in strategy router among them — a matrix of route × route whose every cell lists the
prompts behind it, as the report's other figures do."""

from __future__ import annotations

from ._agreement import Agreement, can_agree
from ._html_page import esc, examples, html_table, num, pct
from ._report import Report, RouterFigures

__all__ = ["agreement_section", "routers_section"]


def _router(figures: RouterFigures) -> str:
    state = "bad" if figures.failed else "ok"
    failed = (
        f'<span class="big {state}">{num(figures.failed)}</span><span class="what">of '
        f"{num(figures.prompts)} prompts failed</span>"
    )
    parts = [f'<h3 id="router-{esc(figures.name)}">{esc(figures.name)}</h3>']
    parts.append(f'<div class="headline">{failed}</div>')
    if figures.failed:
        rows = [
            (esc(bar.label), num(bar.count), pct(bar.share), examples(bar.examples, bar.count))
            for bar in figures.errors.bars
        ]
        parts.append(
            html_table(
                (
                    ("Failure", False),
                    ("Prompts", True),
                    ("Share", True),
                    ("Prompts behind it", False),
                ),
                rows,
            )
        )
    routes = figures.routes
    rows = [
        (esc(bar.label), num(bar.count), pct(bar.share), examples(bar.examples, bar.count))
        for bar in routes.bars
    ]
    parts.append(
        html_table(
            (("Route", False), ("Prompts", True), ("Share", True), ("Prompts behind it", False)),
            rows,
        )
    )
    if routes.distinct > len(routes.bars):
        parts.append(
            f'<p class="note">The {len(routes.bars)} most frequent of {num(routes.distinct)} '
            f"routes; the rest hold {num(routes.other)}.</p>"
        )
    return "".join(parts)


def routers_section(report: Report) -> str:
    """Each external router: how many prompts it failed on, by kind, and its routes."""
    if not report.routers:
        return ""
    body = "".join(_router(figures) for figures in report.routers)
    return (
        '<section id="routers"><h2>External routers</h2>'
        '<p class="note">A failure (a timeout, an HTTP status, a rate limit, an answer that '
        "holds no route) is that prompt's result: counted here, never a lost line.</p>"
        f"{body}</section>"
    )


def _matrix(pair: Agreement) -> str:
    head = [
        (f"{esc(pair.a)} ↓ · {esc(pair.b)} →", False),
        *((esc(column), False) for column in pair.columns),
    ]
    rows = []
    for row in pair.rows:
        cells = [f"<strong>{esc(row)}</strong>"]
        for column in pair.columns:
            cell = pair.cell(row, column)
            if cell is None:
                cells.append("0")
                continue
            mark = "✓ " if row == column and can_agree(row) else ""
            cells.append(
                f"{mark}<strong>{num(cell.count)}</strong> {examples(cell.examples, cell.count)}"
            )
        rows.append(cells)
    return html_table(head, rows).replace("<table>", '<table class="confusion">', 1)


def _pair(pair: Agreement) -> str:
    if pair.agreed is None:
        said = (
            f"no label in common: how the routes of {esc(pair.a)} line up with those of "
            f"{esc(pair.b)} over {num(pair.total)} prompts"
        )
    else:
        said = (
            f"they agree on <strong>{num(pair.agreed)}</strong> of {num(pair.total)} prompts "
            f"({pct(pair.share)}): the same route, or both none"
        )
    return (
        f"<h3>{esc(pair.a)} × {esc(pair.b)}</h3><p>{said}</p>{_matrix(pair)}"
        '<p class="note">Cell (row, column): prompts the first router gave the row and the '
        "second the column; ✓ marks where they agree.</p>"
    )


def agreement_section(report: Report) -> str:
    """Every pair of routers: a matrix of route × route with the prompts behind every cell."""
    if not report.agreement:
        return ""
    body = "".join(_pair(pair) for pair in report.agreement)
    return f'<section id="agreement"><h2>Agreement between routers</h2>{body}</section>'
