"""The sections labels add to a page: a report's Quality against them (it opens the page), a
comparison's labelled fields fixed and broken, and the notes on a vocabulary that does not fit
the log. Every cell lists its prompts (the report's `examples` at most), each with its results
place and its labelled case's id."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..judge import FlagScore, Scorecard
from ._changes import ResultsComparison
from ._html_page import esc, html_table, num, prompt_ref
from ._quality import Quality, QualityChange, QualityChanges
from ._report import Report
from ._vocabulary import VocabularyNote

__all__ = ["notes_section", "quality_changes_section", "quality_section", "vocabulary_section"]

_CLASSES = ("general", "local", "tech")
_LINTER_CLASSES = ("guided", "semi", "vague")
_CHANGES_VISIBLE = 12


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _case(quality: Quality, case_id: str, times: int) -> str:
    ref = quality.refs.get(case_id)
    prompt = prompt_ref(ref) if ref is not None else esc(quality.prompt(case_id))
    more = f" <strong>×{num(times)}</strong>" if times > 1 else ""
    return f'{prompt}{more} <span class="ref" title="labelled case">{esc(case_id)}</span>'


def _cases(quality: Quality, ids: Sequence[str], limit: int) -> str:
    """The prompts behind a cell: each labelled case once (× the results it joined), the first
    `limit` of them."""
    if not ids:
        return "—"
    counts = Counter(ids)
    distinct = list(counts)
    shown = distinct[:limit]
    if not shown:
        return f"{num(len(distinct))} prompts"
    what = "all" if len(shown) == len(distinct) else f"first {len(shown)}"
    items = "".join(f"<li>{_case(quality, case, counts[case])}</li>" for case in shown)
    return f"<details><summary>{what} ({num(len(distinct))})</summary><ul>{items}</ul></details>"


def _flags(quality: Quality, limit: int) -> str:
    card = quality.score.whole
    rows = [
        (
            f"<strong>{esc(name)}</strong>",
            _figure(flag.precision),
            _figure(flag.recall),
            _figure(flag.f1),
            num(len(flag.tp)),
            num(len(flag.fp)),
            num(len(flag.fn)),
            num(flag.labelled),
            _cases(quality, flag.fp, limit),
            _cases(quality, flag.fn, limit),
        )
        for name, flag in card.flags.items()
        if flag.labelled
    ]
    if not rows:
        return "<p>No intent flag is labelled.</p>"
    head = (
        ("Flag", False),
        ("Precision", True),
        ("Recall", True),
        ("F1", True),
        ("TP", True),
        ("FP", True),
        ("FN", True),
        ("Labelled", True),
        ("False positives: on, labelled off", False),
        ("False negatives: off, labelled on", False),
    )
    return html_table(head, rows)


def _confusion(
    quality: Quality, cells: dict[tuple[str, str], list[str]], known: Sequence[str], limit: int
) -> str:
    classes = list(dict.fromkeys([*known, *(c for pair in cells for c in pair)]))
    head = [("labelled ↓ · decided →", False), *((esc(c), False) for c in classes)]
    rows = []
    for expected in classes:
        row = [f"<strong>{esc(expected)}</strong>"]
        for got in classes:
            ids = cells.get((expected, got), [])
            mark = "✓ " if expected == got else ""
            row.append(
                f"{mark}<strong>{num(len(ids))}</strong> {_cases(quality, ids, limit)}"
                if ids
                else "0"
            )
        rows.append(row)
    return html_table(head, rows).replace("<table>", '<table class="confusion">', 1)


def _exact(quality: Quality, limit: int) -> str:
    card = quality.score.whole
    fields = [
        ("Place hint (a place named)", card.place),
        ("No place where none named", card.place_spurious),
        ("Contract agent", card.agent),
        ("Contract mode", card.mode),
        ("Top-1 tool", card.top_tool),
    ]
    rows = [
        (
            esc(title),
            _figure(field.accuracy),
            num(len(field.right)),
            num(len(field.wrong)),
            _cases(quality, field.wrong, limit),
        )
        for title, field in fields
        if field.right or field.wrong
    ]
    if not rows:
        return ""
    head = (
        ("Field", False),
        ("Accuracy", True),
        ("Right", True),
        ("Wrong", True),
        ("Wrong prompts", False),
    )
    return '<h3 id="quality-fields">Place and exact fields</h3>' + html_table(head, rows)


def _names(quality: Quality, names: dict[str, list[str]], top: int, limit: int) -> str:
    ordered = sorted(names.items(), key=lambda item: (-len(item[1]), item[0]))[:top]
    if not ordered:
        return "—"
    items = "".join(
        f"<li><code>{esc(name)}</code> {num(len(ids))} {_cases(quality, ids, limit)}</li>"
        for name, ids in ordered
    )
    more = f" (the {len(ordered)} most frequent of {num(len(names))})" if len(names) > top else ""
    return f"<ul>{items}</ul>{more}"


def _entities(quality: Quality, top: int, limit: int) -> str:
    entities = quality.score.whole.entities
    if not entities.cases:
        return ""
    figures = html_table(
        (
            ("Precision", True),
            ("Recall", True),
            ("TP", True),
            ("FP", True),
            ("FN", True),
            ("Labelled", True),
        ),
        [
            (
                _figure(entities.precision),
                _figure(entities.recall),
                num(entities.tp),
                num(entities.fp),
                num(entities.fn),
                num(entities.cases),
            )
        ],
    )
    return (
        '<h3 id="quality-entities">Entities</h3>'
        + figures
        + '<div class="pair"><div><h3>Decided, not labelled</h3>'
        + _names(quality, entities.junk, top, limit)
        + "</div><div><h3>Labelled, not decided</h3>"
        + _names(quality, entities.missed, top, limit)
        + "</div></div>"
    )


def _cards(card: Scorecard) -> str:
    entities = card.entities
    cards = [
        ("Strategy accuracy", card.strategy.accuracy, f"{num(card.strategy.labelled)} labelled"),
        (
            "Place-hint accuracy",
            card.place.accuracy,
            f"{num(len(card.place.right) + len(card.place.wrong))} labelled with a place",
        ),
        ("Entity precision", entities.precision, f"{num(entities.cases)} labelled"),
        ("Entity recall", entities.recall, f"{num(entities.cases)} labelled"),
    ]
    if card.linter.labelled:
        cards.append(
            ("Linter-class accuracy", card.linter.accuracy, f"{num(card.linter.labelled)} labelled")
        )
    items = "".join(
        f'<li class="card info"><span class="n">{_figure(value)}</span>'
        f'<span class="t">{title}</span><small>{note}</small></li>'
        for title, value, note in cards
    )
    return f'<ul class="cards five">{items}</ul>'


def _labels_meta(quality: Quality, notes: Sequence[str]) -> str:
    how = "recorded by the batch" if quality.recorded else "given to report"
    extra = "".join(f'<p class="note">{esc(note)}</p>' for note in notes)
    return (
        f'<p class="meta">Labels <code>{esc(quality.labels)}</code> ({how}; digest '
        f"<code>{esc(quality.digest)}</code>), joined to the results by prompt text.</p>{extra}"
    )


def quality_section(report: Report) -> str:
    """The Quality section: the report's results scored against labels ("" without labels)."""
    quality = report.quality
    if quality is None:
        return ""
    score = quality.score
    parts = ['<section id="quality" class="info">', "<h2>Quality against labels</h2>"]
    parts.append(_labels_meta(quality, report.notes))
    if not score.found:
        parts.append(
            f'<div class="headline"><span class="big">0</span><span class="what">of '
            f"{num(score.labelled)} labelled prompts are in this file (prompts are joined by "
            "their text, white space normalised)</span></div></section>"
        )
        return "\n".join(parts)
    card = score.whole
    limit = report.examples
    parts += [
        f'<div class="headline"><span class="big">{_figure(card.macro_f1)}</span>'
        f'<span class="what">macro-F1 over the intent flags · {num(score.found)} of '
        f"{num(score.labelled)} labelled prompts found, {num(score.joined)} results scored"
        "</span></div>",
        _cards(card),
        '<nav><a href="#quality-flags">Intent flags</a><a href="#quality-strategy">Strategy</a>'
        '<a href="#quality-fields">Place</a><a href="#quality-entities">Entities</a></nav>',
        '<h3 id="quality-flags">Intent flags</h3>',
        _flags(quality, limit),
    ]
    if card.strategy.labelled:
        parts += [
            f'<h3 id="quality-strategy">Strategy: accuracy {_figure(card.strategy.accuracy)}</h3>',
            _confusion(quality, card.strategy.cells, _CLASSES, limit),
        ]
    parts.append(_exact(quality, limit))
    parts.append(_entities(quality, report.top, limit))
    if card.linter.labelled:
        parts += [
            f"<h3>Linter class: accuracy {_figure(card.linter.accuracy)}</h3>",
            _confusion(quality, card.linter.cells, _LINTER_CLASSES, limit),
        ]
    parts.append(
        '<p class="note">A prompt the results hold several times is scored each time (×N); the '
        "grey name after a prompt is its labelled case. The same figures are under "
        "<code>quality</code> in report.json.</p></section>"
    )
    return "\n".join(parts)


def notes_section(report: Report) -> str:
    """Notes on how the report was made, when there is no Quality section to hold them."""
    if report.quality is not None or not report.notes:
        return ""
    items = "".join(f"<li>{esc(note)}</li>" for note in report.notes)
    return f'<section id="notes" class="info"><h2>Notes</h2><ul>{items}</ul></section>'


def _advice(text: str) -> str:
    """Advice with its `commands` as code."""
    pieces = text.split("`")
    return "".join(
        f"<code>{esc(piece)}</code>" if index % 2 else esc(piece)
        for index, piece in enumerate(pieces)
    )


def vocabulary_section(notes: Sequence[VocabularyNote], side: str = "") -> str:
    """The vocabularies that do not fit the log, and what to do ("" when they all fit)."""
    if not notes:
        return ""
    items = "".join(
        f"<li><strong>{esc(note.message)}</strong>: {_advice(note.advice)}</li>" for note in notes
    )
    key = f"-{side.lower()}" if side else ""
    title = f"The rule pack's vocabulary does not fit this log{f' ({side})' if side else ''}"
    return (
        f'<section id="vocabulary{key}" class="warn"><h2>{esc(title)}</h2><ul>{items}</ul>'
        "</section>"
    )


# --- a comparison -------------------------------------------------------------------------------


def _delta(a: float | None, b: float | None) -> str:
    if a is None or b is None:
        return "—"
    change = b - a
    if abs(change) < 0.0005:
        return "0"
    css = "delta-down" if change > 0 else "delta-up"  # higher is better: green up, red down
    return f'<span class="{css}">{change:+.3f}</span>'


def _ab_rows(a: Scorecard, b: Scorecard) -> list[tuple[str, str, str, str]]:
    figures: list[tuple[str, float | None, float | None]] = [("macro-F1", a.macro_f1, b.macro_f1)]
    flags: list[tuple[str, FlagScore, FlagScore]] = [
        (name, flag, b.flags[name]) for name, flag in a.flags.items() if flag.labelled
    ]
    figures += [(f"F1 {name}", x.f1, y.f1) for name, x, y in flags]
    figures += [
        ("strategy accuracy", a.strategy.accuracy, b.strategy.accuracy),
        ("place-hint accuracy", a.place.accuracy, b.place.accuracy),
        ("no place where none named", a.place_spurious.accuracy, b.place_spurious.accuracy),
        ("entity precision", a.entities.precision, b.entities.precision),
        ("entity recall", a.entities.recall, b.entities.recall),
        ("linter-class accuracy", a.linter.accuracy, b.linter.accuracy),
    ]
    return [
        (esc(title), _figure(x), _figure(y), _delta(x, y))
        for title, x, y in figures
        if x is not None or y is not None
    ]


def _value(name: str, value: object) -> str:
    if value is None:
        return "—"
    if name == "place_hint" and value == "":
        return "<em>no place named</em>"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return ", ".join(f"<code>{esc(item)}</code>" for item in value) or "<em>none</em>"
    return f"<code>{esc(value)}</code>"


def _changes_table(changes: Sequence[QualityChange]) -> str:
    head = (
        ("Field", False),
        ("Labelled", False),
        ("A", False),
        ("B", False),
        ("Results", True),
        ("Prompt", False),
    )

    def table(listed: Sequence[QualityChange]) -> str:
        return html_table(
            head,
            [
                (
                    esc(change.field),
                    _value(change.field, change.expected),
                    _value(change.field, change.a),
                    _value(change.field, change.b),
                    num(change.count),
                    f"{prompt_ref(change.ref)} "
                    f'<span class="ref" title="labelled case">{esc(change.case)}</span>',
                )
                for change in listed
            ],
        )

    if not changes:
        return "<p>None.</p>"
    if len(changes) <= _CHANGES_VISIBLE:
        return table(changes)
    rest = changes[_CHANGES_VISIBLE:]
    return (
        table(changes[:_CHANGES_VISIBLE])
        + f"<details><summary>{num(len(rest))} more listed</summary>{table(rest)}</details>"
    )


def quality_changes_section(comparison: ResultsComparison) -> str:
    """The labelled fields B fixed and broke, beside A's and B's quality ("" without labels)."""
    changes: QualityChanges | None = comparison.quality_changes
    a, b = comparison.a.quality, comparison.b.quality
    if changes is None or a is None or b is None:
        return ""
    fixed, broken = len(changes.fixed), len(changes.broken)
    state = "bad" if broken > fixed else "ok" if fixed else "info"
    table = html_table(
        (("Figure", False), ("A", True), ("B", True), ("B − A", True)),
        _ab_rows(a.score.whole, b.score.whole),
    )
    return (
        f'<section id="quality-changes" class="leaks {state}"><h2>Labelled prompts fixed and '
        "broken</h2>"
        + _labels_meta(a, comparison.a.notes)
        + f'<div class="headline"><span class="big">{num(fixed)}</span><span class="what">'
        f"labelled fields fixed by B (wrong in A, right in B), {num(broken)} broken (right in "
        f"A, wrong in B); {num(a.score.found)} of {num(a.score.labelled)} labelled prompts found"
        "</span></div>"
        f'<div class="pair"><div><h3>Quality, A and B</h3>{table}</div></div>'
        f"<h3>Fixed: {num(fixed)}</h3>{_changes_table(changes.fixed)}"
        f"<h3>Broken: {num(broken)}</h3>{_changes_table(changes.broken)}"
        '<p class="note">One row a labelled case and field; Results: how many matched results '
        "of that prompt changed so. Both files' full quality is in report.json (under each "
        "report's <code>quality</code>).</p></section>"
    )
