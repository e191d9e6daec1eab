"""The page of one report: its quality against labels first when there are labels, the notes on
a vocabulary that does not fit the log, the leak checks (counts and offending queries), the
figures at a glance, the external routers and how routers agree (a batch with `--router`), each
figure as a chart beside the table of its numbers, latency, and the lines that could not be
routed."""

from __future__ import annotations

from collections.abc import Sequence

from . import _charts as charts
from ._figures import Distribution
from ._html_page import (
    chart,
    esc,
    examples,
    findings_table,
    footer,
    html_table,
    num,
    page,
    pct,
)
from ._html_quality import notes_section, quality_section, vocabulary_section
from ._html_routers import agreement_section, routers_section
from ._report import NO_CONTRACT, NO_FIT, NONE_LABEL, LeakCheck, Report

__all__ = ["report_page"]

_GREEN = "#2e7d4f"
_PURPLE = "#7b5ea7"
_STRATEGY_COLORS = {"general": charts.BLUE, "local": _GREEN, "tech": _PURPLE}
_GREYED = frozenset({NO_FIT, NO_CONTRACT, NONE_LABEL})
_LEAKS_VISIBLE = 8


def _colors(key: str, labels: Sequence[str]) -> list[str]:
    """Strategies keep one color each; labels that mean "nothing" are grey."""
    named = _STRATEGY_COLORS if key == "strategies" else {}
    return [charts.GREY if label in _GREYED else named.get(label, charts.BLUE) for label in labels]


def _header(report: Report, title: str = "Routescope batch report") -> str:
    sources = ", ".join(f"<code>{esc(source)}</code>" for source in report.sources)
    days = ""
    if report.first_today:
        days = (
            f" · routed as of {esc(report.first_today)}"
            if report.first_today == report.last_today
            else f" · routed as of {esc(report.first_today)} to {esc(report.last_today)}"
        )
    failed = f" · {num(report.failed.total)} could not be routed" if report.failed.total else ""
    return (
        f"<header><h1>{title}</h1>"
        f'<p class="meta">{sources} · <strong>{num(report.prompts)}</strong> prompts'
        f"{failed}{days}</p></header>"
    )


def _leak_cards(checks: Sequence[LeakCheck]) -> str:
    cards = []
    for check in checks:
        state = "bad" if check.count else "ok"
        found = (
            f"offending quer{'y' if check.count == 1 else 'ies'} in {num(check.prompts)} "
            f"prompt{'s' if check.prompts != 1 else ''}"
            if check.count
            else "none found"
        )
        cards.append(
            f'<li class="card {state}"><span class="n">{num(check.count)}</span>'
            f'<span class="t">{esc(check.title)}</span>'
            f"<small><strong>{found}</strong> · {esc(check.description)}</small></li>"
        )
    return f'<ul class="cards three">{"".join(cards)}</ul>'


def _leaks(report: Report) -> str:
    count, prompts = report.leak_count, report.leak_prompts
    if count:
        headline = (
            f'<span class="big">{num(count)}</span><span class="what">leaked '
            f"quer{'y' if count == 1 else 'ies'} in {num(prompts)} of {num(report.prompts)} "
            "prompts</span>"
        )
    else:
        headline = (
            '<span class="big">0</span><span class="what">leaks: every one of '
            f"{num(report.prompts)} prompts keeps the seed's three promises</span>"
        )
    parts = [
        f'<section id="leaks" class="leaks {"bad" if count else "ok"}">',
        "<h2>Leak checks</h2>",
        f'<div class="headline">{headline}</div>',
        _leak_cards(report.leaks),
    ]
    for check in report.leaks:
        if not check.count:
            continue
        shown = len(check.findings)
        note = (
            f'<p class="note">Listed: the first {num(shown)} of {num(check.count)} offending '
            "queries.</p>"
            if shown < check.count
            else ""
        )
        parts += [
            f'<h3 id="leak-{check.rule}">{esc(check.title)}: {num(check.count)}</h3>',
            findings_table(check.findings, visible=_LEAKS_VISIBLE),
            note,
        ]
    parts.append("</section>")
    return "\n".join(parts)


def _glance(report: Report) -> str:
    def shares(figure: Distribution) -> str:
        return "<br>".join(
            f"{esc(bar.label)} <strong>{pct(bar.share)}</strong>"
            for bar in figure.bars
            if bar.count
        )

    total = next((stage for stage in report.latency if stage.stage == "total"), None)
    cards = [
        ("Prompts", f'<span class="n">{num(report.prompts)}</span>', "routed in this file"),
        ("Strategies", f'<span class="v">{shares(report.strategies) or "—"}</span>', ""),
        ("Linter classes", f'<span class="v">{shares(report.lint_classes) or "—"}</span>', ""),
        (
            "No tool fits",
            f'<span class="n">{pct(report.no_fit_share)}</span>',
            f"{num(report.no_fit)} of {num(report.ranked)} prompts with a tool ranking",
        ),
    ]
    if total is not None:
        fmt = charts.format_micros
        cards.append(
            (
                "Latency per prompt",
                f'<span class="v">p50 <strong>{fmt(total.p50)}</strong><br>'
                f"p95 <strong>{fmt(total.p95)}</strong></span>",
                "",
            )
        )
    if report.failed.total:
        cards.append(
            (
                "Not routed",
                f'<span class="n">{num(report.failed.total)}</span>',
                "lines with an error",
            )
        )
    items = "".join(
        f'<li class="card"><span class="t">{t}</span>{v}'
        + (f"<small>{note}</small>" if note else "")
        + "</li>"
        for t, v, note in cards
    )
    return (
        f'<section id="glance"><h2>At a glance</h2><ul class="cards five">{items}</ul>'
        f"{_nav(report)}</section>"
    )


def _nav(report: Report) -> str:
    links = [(f"fig-{figure.key}", figure.title.split(" (")[0]) for figure in report.figures()]
    links.insert(4, ("fig-cooccurrence", "Intent co-occurrence"))
    links.append(("fig-latency", "Latency"))
    if report.routers:
        links += [("routers", "External routers"), ("agreement", "Agreement between routers")]
    return (
        "<nav>" + "".join(f'<a href="#{key}">{esc(title)}</a>' for key, title in links) + "</nav>"
    )


def _distribution(figure: Distribution, note: str = "") -> str:
    labels = [bar.label for bar in figure.bars]
    counts = [bar.count for bar in figure.bars]
    svg = charts.bar_chart(
        figure.key,
        f"{figure.title}: " + ", ".join(f"{bar.label} {bar.count}" for bar in figure.bars),
        labels,
        counts,
        total=figure.total,
        colors=_colors(figure.key, labels),
        unit=figure.of,
    )
    rows = [
        (esc(bar.label), num(bar.count), pct(bar.share), examples(bar.examples, bar.count))
        for bar in figure.bars
    ]
    notes = [note] if note else []
    if figure.distinct > len(figure.bars):
        notes.append(
            f"The {len(figure.bars)} most frequent of {num(figure.distinct)} "
            f"{'(or more) ' if figure.approximate else ''}labels; the rest hold "
            f"{num(figure.other)}."
        )
    if figure.approximate:
        notes.append(
            "Too many labels to count every one: the counts of rare labels are lower bounds."
        )
    table = html_table(
        (("Label", False), ("Prompts", True), ("Share", True), ("Prompts behind it", False)), rows
    )
    return (
        f'<section class="figure" id="fig-{figure.key}">'
        f"<h2>{esc(figure.title)}</h2>"
        f'<div class="pair">{chart(svg, empty=not labels)}<div>{table}'
        + "".join(f'<p class="note">{n}</p>' for n in notes)
        + f'<p class="note">Shares are of {num(figure.total)} {esc(figure.of)}.</p>'
        "</div></div></section>"
    )


def _cooccurrence(report: Report) -> str:
    co = report.cooccurrence
    matrix = co.matrix()
    svg = charts.heatmap(
        "cooccurrence", "Prompts with both intent flags on", list(co.names), matrix
    )
    head = [("Flag", False), *((esc(name).replace("_", "_<wbr>"), True) for name in co.names)]
    rows = [
        (f"<strong>{esc(name)}</strong>", *(num(value) for value in values))
        for name, values in zip(co.names, matrix, strict=True)
    ]
    pairs = sorted(
        (cell for cell in co.cells if cell.row != cell.column and cell.count),
        key=lambda cell: -cell.count,
    )
    pair_rows = [
        (
            f"{esc(cell.row)} + {esc(cell.column)}",
            num(cell.count),
            pct(cell.count / co.total if co.total else None),
            examples(cell.examples, cell.count),
        )
        for cell in pairs
    ]
    body = (
        html_table(head, rows).replace("<table>", '<table class="matrix">', 1)
        if co.names
        else "<p>No intent flag came on.</p>"
    )
    if pair_rows:
        body += "<h3>Pairs</h3>" + html_table(
            (("Flags", False), ("Prompts", True), ("Share", True), ("Prompts behind it", False)),
            pair_rows,
        )
    return (
        '<section class="figure" id="fig-cooccurrence"><h2>Intent co-occurrence</h2>'
        f'<div class="pair co">{chart(svg)}<div>{body}'
        '<p class="note">Cell (row, column): prompts with both flags on; the diagonal, prompts '
        "with that flag.</p></div></div></section>"
    )


def _latency(report: Report) -> str:
    stages = report.latency
    svg = charts.latency_chart(
        "latency",
        "Per-stage latency, p50 and p95",
        [s.stage for s in stages],
        [s.p50 for s in stages],
        [s.p95 for s in stages],
    )
    fmt = charts.format_micros
    rows = [
        (esc(s.stage), num(s.count), fmt(s.p50), fmt(s.p95), fmt(s.max), fmt(s.mean))
        for s in stages
    ]
    table = html_table(
        (
            ("Stage", False),
            ("Prompts", True),
            ("p50", True),
            ("p95", True),
            ("max", True),
            ("mean", True),
        ),
        rows,
    )
    exact = all(s.exact for s in stages)
    note = (
        "Quantiles by nearest rank over every timing."
        if exact
        else "Quantiles from 1 %-wide buckets (within 1 % of the exact ones)."
    )
    body = table if stages else "<p>The results hold no timings.</p>"
    return (
        '<section class="figure" id="fig-latency"><h2>Per-stage latency</h2>'
        f'<div class="pair">{chart(svg)}<div>{body}<p class="note">{note}</p></div></div>'
        "</section>"
    )


def _failed(report: Report) -> str:
    if not report.failed.total:
        return ""
    rows = [
        (esc(bar.label), num(bar.count), examples(bar.examples, bar.count))
        for bar in report.failed.bars
    ]
    table = html_table((("Error", False), ("Prompts", True), ("Prompts behind it", False)), rows)
    return f'<section id="failed"><h2>Not routed</h2>{table}</section>'


def report_page(report: Report) -> str:
    tools_note = (
        f"{num(report.no_fit)} of {num(report.ranked)} prompts with a tool ranking "
        f"({pct(report.no_fit_share)}) have no tool that fits; "
        f"{num(report.prompts - report.ranked)} prompts were not ranked."
        if report.ranked
        else "The batch ranked no tools: run `routescope batch` with `--catalog` to rank a "
        "catalog's tools for every prompt."
    )
    body = [
        _header(report),
        quality_section(report),
        notes_section(report),
        vocabulary_section(report.vocabulary),
        _leaks(report),
        _glance(report),
        routers_section(report),
        agreement_section(report),
    ]
    for figure in report.figures():
        if figure.key == "top_tools":
            body.append(_distribution(figure, tools_note))
        else:
            body.append(_distribution(figure))
        if figure.key == "intent_sets":
            body.append(_cooccurrence(report))
    body += [_latency(report), _failed(report), footer()]
    title = f"Routescope report: {report.prompts:,} prompts, {report.leak_count:,} leaks"
    return page(title, body)
