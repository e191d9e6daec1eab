"""The page of a comparison of two results files: how many matched prompts changed routing,
with labels the labelled fields B fixed and broke, the leak checks of A and B, each kind of
change with its transitions and prompts, A's and B's figures side by side, and the prompts not
compared."""

from __future__ import annotations

from collections.abc import Sequence

from . import _charts as charts
from ._changes import Change, ChangeGroup, ResultsComparison
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
    prompt_ref,
)
from ._html_quality import quality_changes_section, vocabulary_section
from ._report import Report

__all__ = ["compare_page"]

_TRANSITIONS_SHOWN = 15
_SIDE_BY_SIDE_SHOWN = 15


def _compare_header(comparison: ResultsComparison) -> str:
    a, b = comparison.a, comparison.b

    def side(name: str, report: Report) -> str:
        source = report.sources[0] if report.sources else "?"
        return f"<strong>{name}</strong> <code>{esc(source)}</code> ({num(report.prompts)} prompts)"

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
        f'<li class="card {c}"><span class="n">{num(n)}</span><span class="t">{t}</span>'
        f"<small>{s}</small></li>"
        for t, n, s, c in cards
    )
    return (
        f'<section id="changed" class="leaks {state}"><h2>Changed routing</h2>'
        f'<div class="headline"><span class="big">{num(changed)}</span>'
        f'<span class="what">of {num(matched)} matched prompts changed routing</span></div>'
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
            f'<a href="#b-leak-{y.rule}">{esc(x.title)}</a>' if y.count else esc(x.title),
            num(x.count),
            num(y.count),
            _delta(x.count, y.count, worse_when_up=True),
        )
        for x, y in zip(a.leaks, b.leaks, strict=True)
    ]
    rows.append(
        (
            "<strong>All leaks</strong>",
            num(a.leak_count),
            num(b.leak_count),
            _delta(a.leak_count, b.leak_count, worse_when_up=True),
        )
    )
    worse = b.leak_count > a.leak_count
    state = "bad" if b.leak_count or a.leak_count else "ok"
    table = html_table((("Leak check", False), ("A", True), ("B", True), ("B − A", True)), rows)
    findings = []
    for label, report in (("A", a), ("B", b)):
        for check in report.leaks:
            if not check.findings:
                continue
            findings.append(
                f'<details id="{label.lower()}-leak-{check.rule}"><summary>{label}: '
                f"{esc(check.title)}: {num(check.count)} (first {num(len(check.findings))})"
                f"</summary>{findings_table(check.findings)}</details>"
            )
    headline = (
        f'<div class="headline"><span class="big">{num(b.leak_count)}</span>'
        f'<span class="what">leaked queries in B, {num(a.leak_count)} in A'
        f"{' (more in B)' if worse else ''}</span></div>"
    )
    return (
        f'<section id="leaks" class="leaks {state}"><h2>Leak checks, A and B</h2>{headline}'
        f"{table}{''.join(findings)}</section>"
    )


def _change_item(change: Change, kind: str) -> str:
    if kind == "queries":
        before = "".join(f"<li><code>{esc(q)}</code></li>" for q in change.before) or "<li>—</li>"
        after = "".join(f"<li><code>{esc(q)}</code></li>" for q in change.after) or "<li>—</li>"
        return f"<li>{prompt_ref(change.ref)}<br>A:<ol>{before}</ol>B:<ol>{after}</ol></li>"
    return f"<li>{prompt_ref(change.ref)}</li>"


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
            f'<a href="#change-{g.kind}">{esc(g.title)}</a>' if g.count else esc(g.title),
            num(g.count),
            pct(g.share),
        )
        for g in groups
    ]
    table = html_table((("Kind of change", False), ("Prompts", True), ("Of matched", True)), rows)
    return (
        '<section id="kinds"><h2>Changes by kind</h2>'
        f'<div class="pair">{chart(svg)}<div>{table}<p class="note">A prompt can change in '
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
            esc(t.label).replace("→", '<span class="arrow">→</span>'),
            num(t.count),
            _change_examples(t.examples, t.count, group.kind),
        )
        for t in group.transitions
    ]
    table = html_table(((title, False), ("Prompts", True), ("Prompts behind it", False)), rows)
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
        f'<section id="change-{group.kind}"><h2>{esc(group.title)}: {num(group.count)} '
        f"prompts changed ({pct(group.share)})</h2>"
        f'<div class="pair">{chart(svg)}<div>{table}'
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
        (esc(label), num(x), num(y), _delta(x, y))
        for label, x, y in zip(labels, a_counts, b_counts, strict=True)
    ]
    table = html_table((("Label", False), ("A", True), ("B", True), ("B − A", True)), rows)
    return (
        f'<section id="ab-{a.key}"><h2>{esc(a.title)}, A and B</h2>'
        f'<div class="pair">{chart(svg)}<div>{table}</div></div></section>'
    )


def _missing(comparison: ResultsComparison) -> str:
    parts = []
    for bar in (comparison.only_a, comparison.only_b, comparison.prompt_differs):
        if bar.count:
            parts.append(
                f"<h3>{esc(bar.label)}: {num(bar.count)}</h3>{examples(bar.examples, bar.count)}"
            )
    if not parts:
        return ""
    return '<section id="unmatched"><h2>Prompts not compared</h2>' + "".join(parts) + "</section>"


def compare_page(comparison: ResultsComparison) -> str:
    a, b = comparison.a, comparison.b
    nav = (
        "<nav>"
        + "".join(
            f'<a href="#change-{g.kind}">{esc(g.title)}</a>' for g in comparison.groups if g.count
        )
        + '<a href="#ab-strategies">A and B figures</a></nav>'
    )
    body = [
        _compare_header(comparison),
        _compare_headline(comparison),
        quality_changes_section(comparison),
        vocabulary_section(a.vocabulary, "A"),
        vocabulary_section(b.vocabulary, "B"),
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
        footer(" It holds each file's full report too."),
    ]
    title = f"Routescope comparison: {comparison.changed:,} of {comparison.matched:,} changed"
    return page(title, body)
