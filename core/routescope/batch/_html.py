"""The report as one self-contained HTML page: inline CSS, inline SVG charts, no script, nothing
fetched. Every chart has a table of its numbers beside it, so the page reads as text too;
the leak checks come first, with their counts and the offending prompts."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from .._errors import one_line
from .._files import replace_file
from . import _charts as charts
from ._changes import Change, ChangeGroup, ResultsComparison
from ._figures import Distribution
from ._leaks import LeakFinding
from ._report import NO_CONTRACT, NO_FIT, NONE_LABEL, LeakCheck, Report
from ._report_json import report_data
from ._results import PromptRef

__all__ = ["report_html", "write_report"]

_GREEN = "#2e7d4f"
_PURPLE = "#7b5ea7"
_STRATEGY_COLORS = {"general": charts.BLUE, "local": _GREEN, "tech": _PURPLE}
_GREYED = frozenset({NO_FIT, NO_CONTRACT, NONE_LABEL})
_TRANSITIONS_SHOWN = 15
_LEAKS_VISIBLE = 8
_SIDE_BY_SIDE_SHOWN = 15

_CSS = """
:root { color-scheme: light; --ink: #24292f; --muted: #57606a; --line: #d0d7de;
  --soft: #f6f8fa; --red: #c0392b; --red-soft: #fdf0ef; --green: #2e7d4f;
  --green-soft: #eef8f1; --blue: #3b6ea8; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.45;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 28px 32px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 12px; }
h3 { font-size: 16px; margin: 22px 0 8px; }
.meta { color: var(--muted); margin: 0; }
.meta code { font-size: 13px; }
section { margin: 26px 0 0; padding: 20px 22px; border: 1px solid var(--line);
  border-radius: 10px; }
section.leaks.bad { border: 2px solid var(--red); background: var(--red-soft); }
section.leaks.ok { border: 2px solid var(--green); background: var(--green-soft); }
.headline { display: flex; align-items: baseline; gap: 14px; flex-wrap: wrap; }
.big { font-size: 46px; font-weight: 700; line-height: 1; }
.bad .big, .big.bad { color: var(--red); }
.ok .big, .big.ok { color: var(--green); }
.headline .what { font-size: 20px; font-weight: 600; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr));
  gap: 12px; margin: 16px 0 0; padding: 0; list-style: none; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px;
  padding: 12px 14px; }
.card .n { font-size: 28px; font-weight: 700; display: block; line-height: 1.1; }
.card.bad { border-color: var(--red); }
.card.bad .n { color: var(--red); }
.card.ok .n { color: var(--green); }
.card .t { font-weight: 600; display: block; }
.card .v { display: block; font-size: 15px; margin-top: 4px; }
.cards.three { grid-template-columns: repeat(3, minmax(0, 1fr)); }
.cards.five { grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); }
@media (max-width: 900px) { .cards.three { grid-template-columns: 1fr; } }
table.findings td:nth-child(2) { min-width: 180px; }
table.matrix { font-size: 12.5px; }
table.matrix th, table.matrix td { padding: 4px 6px; }
table.matrix th { white-space: normal; overflow-wrap: anywhere; }
.pair.co { grid-template-columns: minmax(0, 0.8fr) minmax(0, 1.2fr); }
table.findings td:last-child { min-width: 130px; }
section.info { border: 2px solid var(--blue); background: #f1f6fc; }
.info .big { color: var(--blue); }
.card.info .n { color: var(--blue); }
.cards.six { grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); }
a { color: var(--blue); }
.card small { display: block; color: var(--muted); margin-top: 4px; font-size: 12.5px; }
.pair { display: grid; grid-template-columns: minmax(0, 1.15fr) minmax(0, 1fr); gap: 26px;
  align-items: start; }
@media (max-width: 900px) { .pair { grid-template-columns: 1fr; } }
svg.chart { width: 100%; height: auto; display: block; }
.nochart { color: var(--muted); font-style: italic; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; background: #fff; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.where { white-space: nowrap; font-family: ui-monospace, Menlo, Consolas, monospace;
  font-size: 12.5px; }
code, .query { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
mark { background: #ffd7d2; color: #8a1c12; padding: 0 2px; border-radius: 3px; }
details summary { cursor: pointer; color: var(--blue); }
details ul, details ol { margin: 6px 0 4px; padding-left: 18px; }
details li { margin: 2px 0; }
.ref { color: var(--muted); font-family: ui-monospace, Menlo, Consolas, monospace;
  font-size: 12px; margin-right: 6px; }
.note { color: var(--muted); font-size: 13px; margin: 8px 0 0; }
nav { margin: 18px 0 0; font-size: 14px; }
nav a { margin-right: 14px; color: var(--blue); text-decoration: none; }
.delta-up { color: var(--red); font-weight: 600; }
.delta-down { color: var(--green); font-weight: 600; }
.arrow { color: var(--muted); }
footer { margin-top: 30px; color: var(--muted); font-size: 13px; }
"""


def _e(text: object) -> str:
    return html.escape(one_line(text))


def _n(count: int) -> str:
    return f"{count:,}"


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{share:.1%}"


def _page(title: str, body: Iterable[str]) -> str:
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="routescope report">',
            f"<title>{_e(title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            "<main>",
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _ref(ref: PromptRef) -> str:
    return (
        f'<span class="ref" title="results line {ref.record}">{_e(ref.source)}:{ref.line}</span>'
        f"{_e(ref.prompt)}"
    )


def _examples(refs: Sequence[PromptRef], count: int) -> str:
    if not refs:
        return "—"
    shown = "all" if len(refs) >= count else f"first {len(refs)}"
    items = "".join(f"<li>{_ref(ref)}</li>" for ref in refs)
    return f"<details><summary>{shown} ({len(refs)})</summary><ul>{items}</ul></details>"


def _chart(svg: str | None) -> str:
    if svg is not None:
        return f"<div>{svg}</div>"
    return (
        '<p class="nochart">No chart: install matplotlib to draw it; the table has every '
        "number.</p>"
    )


def _table(head: Sequence[tuple[str, bool]], rows: Iterable[Sequence[str]]) -> str:
    """`head`: (title, numeric) per column; cells are HTML already."""
    header = "".join(f'<th class="num">{t}</th>' if num else f"<th>{t}</th>" for t, num in head)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{cell}</td>' if num else f"<td>{cell}</td>"
            for cell, (_, num) in zip(row, head, strict=True)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"


def _colors(key: str, labels: Sequence[str]) -> list[str]:
    """Strategies keep one color each; labels that mean "nothing" are grey."""
    named = _STRATEGY_COLORS if key == "strategies" else {}
    return [charts.GREY if label in _GREYED else named.get(label, charts.BLUE) for label in labels]


# --- one report ---------------------------------------------------------------------------------


def _header(report: Report, title: str = "Routescope batch report") -> str:
    sources = ", ".join(f"<code>{_e(source)}</code>" for source in report.sources)
    days = ""
    if report.first_today:
        days = (
            f" · routed as of {_e(report.first_today)}"
            if report.first_today == report.last_today
            else f" · routed as of {_e(report.first_today)} to {_e(report.last_today)}"
        )
    failed = f" · {_n(report.failed.total)} could not be routed" if report.failed.total else ""
    return (
        f"<header><h1>{title}</h1>"
        f'<p class="meta">{sources} · <strong>{_n(report.prompts)}</strong> prompts'
        f"{failed}{days}</p></header>"
    )


def _mark(finding: LeakFinding) -> str:
    query = finding.query
    start, end = finding.start, finding.end
    return (
        f'<span class="query">{_e(query[:start])}<mark>{_e(query[start:end])}</mark>'
        f"{_e(query[end:])}</span>"
    )


def _leak_cards(checks: Sequence[LeakCheck]) -> str:
    cards = []
    for check in checks:
        state = "bad" if check.count else "ok"
        found = (
            f"offending quer{'y' if check.count == 1 else 'ies'} in {_n(check.prompts)} "
            f"prompt{'s' if check.prompts != 1 else ''}"
            if check.count
            else "none found"
        )
        cards.append(
            f'<li class="card {state}"><span class="n">{_n(check.count)}</span>'
            f'<span class="t">{_e(check.title)}</span>'
            f"<small><strong>{found}</strong> · {_e(check.description)}</small></li>"
        )
    return f'<ul class="cards three">{"".join(cards)}</ul>'


def _leaks(report: Report) -> str:
    count, prompts = report.leak_count, report.leak_prompts
    if count:
        headline = (
            f'<span class="big">{_n(count)}</span><span class="what">leaked '
            f"quer{'y' if count == 1 else 'ies'} in {_n(prompts)} of {_n(report.prompts)} "
            "prompts</span>"
        )
    else:
        headline = (
            '<span class="big">0</span><span class="what">leaks: every one of '
            f"{_n(report.prompts)} prompts keeps the seed's three promises</span>"
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
            f'<p class="note">Listed: the first {_n(shown)} of {_n(check.count)} offending '
            "queries.</p>"
            if shown < check.count
            else ""
        )
        parts += [
            f'<h3 id="leak-{check.rule}">{_e(check.title)}: {_n(check.count)}</h3>',
            _findings(check.findings, visible=_LEAKS_VISIBLE),
            note,
        ]
    parts.append("</section>")
    return "\n".join(parts)


def _findings(findings: Sequence[LeakFinding], *, visible: int | None = None) -> str:
    """The offending queries as a table; past `visible` rows, the rest behind a toggle."""
    head = "".join(f"<th>{t}</th>" for t in ("Source:line", "Prompt", "Offending query", "Why"))

    def table(rows: Sequence[LeakFinding]) -> str:
        body = "".join(
            f'<tr><td class="where">{_e(f.ref.source)}:{f.ref.line}</td>'
            f"<td>{_e(f.ref.prompt)}</td><td>{_mark(f)}</td><td>{_e(f.detail)}</td></tr>"
            for f in rows
        )
        return (
            f'<table class="findings"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        )

    if visible is None or len(findings) <= visible:
        return table(findings)
    rest = findings[visible:]
    return (
        table(findings[:visible])
        + f"<details><summary>{_n(len(rest))} more listed</summary>{table(rest)}</details>"
    )


def _glance(report: Report) -> str:
    def shares(figure: Distribution) -> str:
        return "<br>".join(
            f"{_e(bar.label)} <strong>{_pct(bar.share)}</strong>"
            for bar in figure.bars
            if bar.count
        )

    total = next((stage for stage in report.latency if stage.stage == "total"), None)
    cards = [
        ("Prompts", f'<span class="n">{_n(report.prompts)}</span>', "routed in this file"),
        ("Strategies", f'<span class="v">{shares(report.strategies) or "—"}</span>', ""),
        ("Linter classes", f'<span class="v">{shares(report.lint_classes) or "—"}</span>', ""),
        (
            "No tool fits",
            f'<span class="n">{_pct(report.no_fit_share)}</span>',
            f"{_n(report.no_fit)} of {_n(report.ranked)} prompts with a tool ranking",
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
                f'<span class="n">{_n(report.failed.total)}</span>',
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
    return "<nav>" + "".join(f'<a href="#{key}">{_e(title)}</a>' for key, title in links) + "</nav>"


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
        (_e(bar.label), _n(bar.count), _pct(bar.share), _examples(bar.examples, bar.count))
        for bar in figure.bars
    ]
    notes = [note] if note else []
    if figure.distinct > len(figure.bars):
        notes.append(
            f"The {len(figure.bars)} most frequent of {_n(figure.distinct)} "
            f"{'(or more) ' if figure.approximate else ''}labels; the rest hold "
            f"{_n(figure.other)}."
        )
    if figure.approximate:
        notes.append(
            "Too many labels to count every one: the counts of rare labels are lower bounds."
        )
    table = _table(
        (("Label", False), ("Prompts", True), ("Share", True), ("Prompts behind it", False)), rows
    )
    return (
        f'<section class="figure" id="fig-{figure.key}">'
        f"<h2>{_e(figure.title)}</h2>"
        f'<div class="pair">{_chart(svg)}<div>{table}'
        + "".join(f'<p class="note">{n}</p>' for n in notes)
        + f'<p class="note">Shares are of {_n(figure.total)} {_e(figure.of)}.</p>'
        "</div></div></section>"
    )


def _cooccurrence(report: Report) -> str:
    co = report.cooccurrence
    matrix = co.matrix()
    svg = charts.heatmap(
        "cooccurrence", "Prompts with both intent flags on", list(co.names), matrix
    )
    head = [("Flag", False), *((_e(name).replace("_", "_<wbr>"), True) for name in co.names)]
    rows = [
        (f"<strong>{_e(name)}</strong>", *(_n(value) for value in values))
        for name, values in zip(co.names, matrix, strict=True)
    ]
    pairs = sorted(
        (cell for cell in co.cells if cell.row != cell.column and cell.count),
        key=lambda cell: -cell.count,
    )
    pair_rows = [
        (
            f"{_e(cell.row)} + {_e(cell.column)}",
            _n(cell.count),
            _pct(cell.count / co.total if co.total else None),
            _examples(cell.examples, cell.count),
        )
        for cell in pairs
    ]
    body = (
        _table(head, rows).replace("<table>", '<table class="matrix">', 1)
        if co.names
        else "<p>No intent flag came on.</p>"
    )
    if pair_rows:
        body += "<h3>Pairs</h3>" + _table(
            (("Flags", False), ("Prompts", True), ("Share", True), ("Prompts behind it", False)),
            pair_rows,
        )
    return (
        '<section class="figure" id="fig-cooccurrence"><h2>Intent co-occurrence</h2>'
        f'<div class="pair co">{_chart(svg)}<div>{body}'
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
        (_e(s.stage), _n(s.count), fmt(s.p50), fmt(s.p95), fmt(s.max), fmt(s.mean)) for s in stages
    ]
    table = _table(
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
        f'<div class="pair">{_chart(svg)}<div>{body}<p class="note">{note}</p></div></div>'
        "</section>"
    )


def _failed(report: Report) -> str:
    if not report.failed.total:
        return ""
    rows = [
        (_e(bar.label), _n(bar.count), _examples(bar.examples, bar.count))
        for bar in report.failed.bars
    ]
    table = _table((("Error", False), ("Prompts", True), ("Prompts behind it", False)), rows)
    return f'<section id="failed"><h2>Not routed</h2>{table}</section>'


def _footer(extra: str = "") -> str:
    return (
        "<footer>Written by <code>routescope report</code>. The same numbers are in "
        f"<code>report.json</code> beside this page.{extra}</footer>"
    )


def _report_page(report: Report) -> str:
    tools_note = (
        f"{_n(report.no_fit)} of {_n(report.ranked)} prompts with a tool ranking "
        f"({_pct(report.no_fit_share)}) have no tool that fits; "
        f"{_n(report.prompts - report.ranked)} prompts were not ranked."
    )
    body = [_header(report), _leaks(report), _glance(report)]
    for figure in report.figures():
        if figure.key == "top_tools":
            body.append(_distribution(figure, tools_note))
        else:
            body.append(_distribution(figure))
        if figure.key == "intent_sets":
            body.append(_cooccurrence(report))
    body += [_latency(report), _failed(report), _footer()]
    title = f"Routescope report: {report.prompts:,} prompts, {report.leak_count:,} leaks"
    return _page(title, body)


# --- a comparison -------------------------------------------------------------------------------


def _compare_header(comparison: ResultsComparison) -> str:
    a, b = comparison.a, comparison.b

    def side(name: str, report: Report) -> str:
        source = report.sources[0] if report.sources else "?"
        return f"<strong>{name}</strong> <code>{_e(source)}</code> ({_n(report.prompts)} prompts)"

    return (
        "<header><h1>Routescope comparison</h1>"
        f'<p class="meta">{side("A", a)} · {side("B", b)}</p></header>'
    )


def _compare_headline(comparison: ResultsComparison) -> str:
    changed, matched = comparison.changed, comparison.matched
    state = "info" if changed else "ok"
    cards = [
        ("Matched prompts", comparison.matched, "same source and line in A and B", ""),
        ("Routing changed", changed, "at least one kind of change below", state),
        ("Unchanged", comparison.unchanged, "same routing in A and B", ""),
        ("Only in A", comparison.only_a.count, "no match in B", ""),
        ("Only in B", comparison.only_b.count, "no match in A", ""),
        ("Prompt text differs", comparison.prompt_differs.count, "same place, not compared", ""),
    ]
    items = "".join(
        f'<li class="card {c}"><span class="n">{_n(n)}</span><span class="t">{t}</span>'
        f"<small>{s}</small></li>"
        for t, n, s, c in cards
    )
    return (
        f'<section id="changed" class="leaks {state}"><h2>Changed routing</h2>'
        f'<div class="headline"><span class="big">{_n(changed)}</span>'
        f'<span class="what">of {_n(matched)} matched prompts changed routing</span></div>'
        f'<ul class="cards six">{items}</ul></section>'
    )


def _delta(before: int, after: int, *, worse_when_up: bool = False) -> str:
    change = after - before
    if not change:
        return "0"
    css = ("delta-up" if change > 0 else "delta-down") if worse_when_up else ""
    text = f"{change:+,}"
    return f'<span class="{css}">{text}</span>' if css else text


def _compare_leaks(comparison: ResultsComparison) -> str:
    a, b = comparison.a, comparison.b
    rows = [
        (
            f'<a href="#b-leak-{y.rule}">{_e(x.title)}</a>' if y.count else _e(x.title),
            _n(x.count),
            _n(y.count),
            _delta(x.count, y.count, worse_when_up=True),
        )
        for x, y in zip(a.leaks, b.leaks, strict=True)
    ]
    rows.append(
        (
            "<strong>All leaks</strong>",
            _n(a.leak_count),
            _n(b.leak_count),
            _delta(a.leak_count, b.leak_count, worse_when_up=True),
        )
    )
    worse = b.leak_count > a.leak_count
    state = "bad" if b.leak_count or a.leak_count else "ok"
    table = _table((("Leak check", False), ("A", True), ("B", True), ("B − A", True)), rows)
    findings = []
    for label, report in (("A", a), ("B", b)):
        for check in report.leaks:
            if not check.findings:
                continue
            findings.append(
                f'<details id="{label.lower()}-leak-{check.rule}"><summary>{label}: '
                f"{_e(check.title)}: {_n(check.count)} (first {_n(len(check.findings))})"
                f"</summary>{_findings(check.findings)}</details>"
            )
    headline = (
        f'<div class="headline"><span class="big">{_n(b.leak_count)}</span>'
        f'<span class="what">leaked queries in B, {_n(a.leak_count)} in A'
        f"{' (more in B)' if worse else ''}</span></div>"
    )
    return (
        f'<section id="leaks" class="leaks {state}"><h2>Leak checks, A and B</h2>{headline}'
        f"{table}{''.join(findings)}</section>"
    )


def _change_item(change: Change, kind: str) -> str:
    if kind == "queries":
        before = "".join(f"<li><code>{_e(q)}</code></li>" for q in change.before) or "<li>—</li>"
        after = "".join(f"<li><code>{_e(q)}</code></li>" for q in change.after) or "<li>—</li>"
        return f"<li>{_ref(change.ref)}<br>A:<ol>{before}</ol>B:<ol>{after}</ol></li>"
    return f"<li>{_ref(change.ref)}</li>"


def _change_examples(changes: Sequence[Change], count: int, kind: str) -> str:
    if not changes:
        return "—"
    shown = "all" if len(changes) >= count else f"first {len(changes)}"
    items = "".join(_change_item(change, kind) for change in changes)
    return f"<details><summary>{shown} ({len(changes)})</summary><ul>{items}</ul></details>"


def _kinds(comparison: ResultsComparison) -> str:
    groups = comparison.groups
    svg = charts.bar_chart(
        "kinds",
        "Prompts whose routing changed, by kind: "
        + ", ".join(f"{g.title} {g.count}" for g in groups),
        [g.title for g in groups],
        [g.count for g in groups],
        total=comparison.matched,
        colors=[charts.ORANGE] * len(groups),
        unit="matched prompts",
    )
    rows = [
        (
            f'<a href="#change-{g.kind}">{_e(g.title)}</a>' if g.count else _e(g.title),
            _n(g.count),
            _pct(g.share),
        )
        for g in groups
    ]
    table = _table((("Kind of change", False), ("Prompts", True), ("Of matched", True)), rows)
    return (
        '<section id="kinds"><h2>Changes by kind</h2>'
        f'<div class="pair">{_chart(svg)}<div>{table}<p class="note">A prompt can change in '
        "several ways; it counts once in each.</p></div></div></section>"
    )


def _group(group: ChangeGroup) -> str:
    if not group.count:
        return ""
    shown = group.transitions[:_TRANSITIONS_SHOWN]
    svg = charts.bar_chart(
        f"change-{group.kind}",
        f"{group.title} changes: " + ", ".join(f"{t.label} {t.count}" for t in shown),
        [t.label for t in shown],
        [t.count for t in shown],
        total=group.count,
        colors=[charts.ORANGE] * len(shown),
        unit="prompts",
    )
    title = "How the queries changed" if group.kind == "queries" else "A → B"
    rows = [
        (
            _e(t.label).replace("→", '<span class="arrow">→</span>'),
            _n(t.count),
            _change_examples(t.examples, t.count, group.kind),
        )
        for t in group.transitions
    ]
    table = _table(((title, False), ("Prompts", True), ("Prompts behind it", False)), rows)
    notes = []
    if group.kind == "queries":
        notes.append(
            "added: B plans queries A does not, none dropped; removed: the reverse; reworded: "
            "some dropped and some added; reordered: the same queries in another order. In "
            "brackets: the strategy in A (→ in B)."
        )
    if group.approximate:
        notes.append("Too many different changes to count every one: rare ones are lower bounds.")
    return (
        f'<section id="change-{group.kind}"><h2>{_e(group.title)}: {_n(group.count)} '
        f"prompts changed ({_pct(group.share)})</h2>"
        f'<div class="pair">{_chart(svg)}<div>{table}'
        + "".join(f'<p class="note">{n}</p>' for n in notes)
        + "</div></div></section>"
    )


def _side_by_side(a: Distribution, b: Distribution) -> str:
    labels = list(dict.fromkeys([bar.label for bar in a.bars] + [bar.label for bar in b.bars]))
    labels.sort(key=lambda label: -max(a.count(label), b.count(label)))
    labels = labels[:_SIDE_BY_SIDE_SHOWN]
    a_counts = [a.count(label) for label in labels]
    b_counts = [b.count(label) for label in labels]
    svg = charts.paired_bar_chart(
        f"ab-{a.key}",
        f"{a.title}, A and B",
        labels,
        a_counts,
        b_counts,
        unit=a.of,
    )
    rows = [
        (_e(label), _n(x), _n(y), _delta(x, y))
        for label, x, y in zip(labels, a_counts, b_counts, strict=True)
    ]
    table = _table((("Label", False), ("A", True), ("B", True), ("B − A", True)), rows)
    return (
        f'<section id="ab-{a.key}"><h2>{_e(a.title)}, A and B</h2>'
        f'<div class="pair">{_chart(svg)}<div>{table}</div></div></section>'
    )


def _missing(comparison: ResultsComparison) -> str:
    parts = []
    for bar in (comparison.only_a, comparison.only_b, comparison.prompt_differs):
        if bar.count:
            parts.append(
                f"<h3>{_e(bar.label)}: {_n(bar.count)}</h3>{_examples(bar.examples, bar.count)}"
            )
    if not parts:
        return ""
    return '<section id="unmatched"><h2>Prompts not compared</h2>' + "".join(parts) + "</section>"


def _compare_page(comparison: ResultsComparison) -> str:
    a, b = comparison.a, comparison.b
    nav = (
        "<nav>"
        + "".join(
            f'<a href="#change-{g.kind}">{_e(g.title)}</a>' for g in comparison.groups if g.count
        )
        + '<a href="#ab-strategies">A and B figures</a></nav>'
    )
    body = [
        _compare_header(comparison),
        _compare_headline(comparison),
        _compare_leaks(comparison),
        _kinds(comparison).replace("</section>", nav + "</section>", 1),
        *(_group(group) for group in comparison.groups),
        *(
            _side_by_side(x, y)
            for x, y in (
                (a.strategies, b.strategies),
                (a.lint_classes, b.lint_classes),
                (a.agents, b.agents),
                (a.modes, b.modes),
                (a.top_tools, b.top_tools),
            )
        ),
        _missing(comparison),
        _footer(" It holds each file's full report too."),
    ]
    title = f"Routescope comparison: {comparison.changed:,} of {comparison.matched:,} changed"
    return _page(title, body)


def report_html(value: Report | ResultsComparison) -> str:
    """The page for a report or a comparison: one self-contained HTML document."""
    if isinstance(value, ResultsComparison):
        return _compare_page(value)
    return _report_page(value)


def write_report(value: Report | ResultsComparison, folder: str | Path) -> Path:
    """Write `report.json` and `report.html` into `folder` (made if missing), each replaced
    atomically; returns the page's path. Raises OSError."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data = json.dumps(report_data(value), indent=2, ensure_ascii=False) + "\n"
    replace_file(folder / "report.json", data.encode("utf-8"))
    page = folder / "report.html"
    replace_file(page, report_html(value).encode("utf-8"))
    return page
