"""The frame of the report page and what both pages (one report, a comparison) build with:
the CSS, escaping and numbers, tables, lists of example prompts, charts or their stand-in, and
the table of offending queries."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from .._errors import one_line
from ._leaks import LeakFinding
from ._results import PromptRef

__all__ = [
    "chart",
    "esc",
    "examples",
    "findings_table",
    "footer",
    "html_table",
    "num",
    "page",
    "pct",
    "prompt_ref",
]

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
section.warn { border: 2px solid #b7791f; background: #fff8e6; }
section.warn li { margin: 4px 0; }
table.confusion td { min-width: 90px; }
"""


def esc(text: object) -> str:
    return html.escape(one_line(text))


def num(count: int) -> str:
    return f"{count:,}"


def pct(share: float | None) -> str:
    return "—" if share is None else f"{share:.1%}"


def page(title: str, body: Iterable[str]) -> str:
    return "\n".join(
        [
            "<!doctype html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="routescope report">',
            f"<title>{esc(title)}</title>",
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


def prompt_ref(ref: PromptRef) -> str:
    return (
        f'<span class="ref" title="results line {ref.record}">{esc(ref.source)}:{ref.line}</span>'
        f"{esc(ref.prompt)}"
    )


def examples(refs: Sequence[PromptRef], count: int) -> str:
    if not refs:
        return "—"
    shown = "all" if len(refs) >= count else f"first {len(refs)}"
    items = "".join(f"<li>{prompt_ref(ref)}</li>" for ref in refs)
    return f"<details><summary>{shown} ({len(refs)})</summary><ul>{items}</ul></details>"


def chart(svg: str | None, *, empty: bool = False) -> str:
    """The chart, or why there is none: nothing to draw (`empty`), or no matplotlib."""
    if svg is not None:
        return f"<div>{svg}</div>"
    if empty:
        return '<p class="nochart">No chart: nothing to draw.</p>'
    return (
        '<p class="nochart">No chart: install matplotlib to draw it; the table has every '
        "number.</p>"
    )


def html_table(head: Sequence[tuple[str, bool]], rows: Iterable[Sequence[str]]) -> str:
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


def _mark(finding: LeakFinding) -> str:
    query = finding.query
    start, end = finding.start, finding.end
    return (
        f'<span class="query">{esc(query[:start])}<mark>{esc(query[start:end])}</mark>'
        f"{esc(query[end:])}</span>"
    )


def findings_table(findings: Sequence[LeakFinding], *, visible: int | None = None) -> str:
    """The offending queries as a table; past `visible` rows, the rest behind a toggle."""
    head = "".join(f"<th>{t}</th>" for t in ("Source:line", "Prompt", "Offending query", "Why"))

    def table(rows: Sequence[LeakFinding]) -> str:
        body = "".join(
            f'<tr><td class="where">{esc(f.ref.source)}:{f.ref.line}</td>'
            f"<td>{esc(f.ref.prompt)}</td><td>{_mark(f)}</td><td>{esc(f.detail)}</td></tr>"
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
        + f"<details><summary>{num(len(rest))} more listed</summary>{table(rest)}</details>"
    )


def footer(extra: str = "") -> str:
    return (
        "<footer>Written by <code>routescope report</code>. The same numbers are in "
        f"<code>report.json</code> beside this page.{extra}</footer>"
    )
