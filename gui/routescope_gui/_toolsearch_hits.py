"""A hit's row in the tool search's ranking: its cells and their tips (the rank, the final
score's bar, what moved it — the query words behind its keyword share, each with its sibling
rarity, and the rerank boosts —, the keyword and vector signals, the fusion, the boosts), the
header's tips with the formula of the fusion that made the result, and the hit's children — the
query words behind its keyword share (weighted), BM25 per field with the matched terms, the
rerank's terms. The columns' widths are `_toolsearch_columns`'."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

import routescope

from ._style import colour
from ._toolsearch_rows import (
    EQUATION_ROLE,
    SHARE_COLOURS,
    ordered_shares,
    score_text,
    share_label,
    show_score,
)
from ._widgets import bounded_tip, ensure_children, fill_row

if TYPE_CHECKING:
    from routescope.toolsearch import (
        KeywordSignal,
        SearchSettings,
        Signals,
        ToolHit,
        ToolSearchResult,
    )

__all__ = [
    "COLUMNS",
    "WHY",
    "awaits_explanation",
    "explanation_html",
    "show_columns",
    "show_hit",
    "step_label",
    "why_text",
]

_UNEXPLAINED_ROLE = Qt.ItemDataRole.UserRole + 6
_TOOL_ROLE = Qt.ItemDataRole.UserRole + 7
"""Row data: the hit's per-field explanation is still to be asked for."""
COLUMNS = ("#", "Tool", "Final", "Keyword", "Vector", "Fused", "Boosts", "Why")
WHY = 7
"""The column of what moved a hit's score (shown right after the final score: the detail
columns after it give way in a narrow table, `_toolsearch_columns.fit_columns`)."""
_FUSED = 5
"""The fused column: its title and tip follow the fusion that made the result."""


def _column_tips(fusion: str, settings: SearchSettings, formula: str) -> tuple[str, ...]:
    """The header's tips: the formula of the fusion that made the result, as the core says it."""
    legend = ", ".join(share_label(name) for name in SHARE_COLOURS)
    if fusion == "weighted":
        fused = (
            f"{settings.vector_weight:g} · cosine + {settings.keyword_weight:g} · keyword "
            "evidence, before the boosts"
        )
        keyword = (
            "rank by keyword evidence · the evidence (0–1): the query's words the tool matches, "
            "each by its rarity in the catalog and how well the tool matches it; adds keyword "
            "weight · evidence (hover a cell for the words)"
        )
        vector = "rank · cosine similarity; adds vector weight · cosine"
        words = "; the keyword part is split into the query words that moved it"
    else:
        fused = f"sum of 1/(k + rank) over the keyword and vector lists (k = {settings.rrf_k})"
        keyword = "rank · BM25 with field boosts (Tantivy); adds 1/(k + rank)"
        vector = "rank · cosine similarity; adds 1/(k + rank)"
        words = ""
    return (
        "rank",
        "tool (category on hover)",
        f"{formula}\nThe bar stacks what each adds ({legend}){words}, scaled to the top score; "
        "the mark is the fit threshold",
        keyword,
        vector,
        fused,
        "rerank boosts, on the final score's scale",
        "what moved the score: the query words behind its keyword share, largest first, each "
        "with what it adds (×siblings: the word counts less, its server's other tools share "
        "it), then the rerank boosts; the line under the row adds up every share. Opened, a "
        "row shows BM25 per field and the matched terms",
    )


def _fused_title(fusion: str) -> str:
    """The fused column's title; its tip gives the formula, with the weights."""
    return "Fused" if fusion == "weighted" else "RRF"


def show_columns(table: QTreeWidget, result: ToolSearchResult, settings: SearchSettings) -> None:
    """The fused column's title and every column's tip, for the fusion that made `result`."""
    header = table.headerItem()
    header.setText(_FUSED, _fused_title(result.fusion))
    formula = result.formula or settings.formula()
    for column, tip in enumerate(_column_tips(result.fusion, settings, formula)):
        header.setToolTip(column, bounded_tip(tip))


def show_hit(
    row: QTreeWidgetItem,
    hit: ToolHit,
    top: float,
    result: ToolSearchResult,
    fields: Iterable[str],
) -> None:
    """Fill `row` with `hit` (its bar scaled to the `top` score); its children list `fields`
    in that order."""
    s, fusion = hit.signals, result.fusion
    boosts = " ".join(f"+{v:.3f} {share_label(k)}" for k, v in s.boosts.items() if v)
    fused, fused_tip = _fused_cell(s, fusion)
    name, name_tip = step_label(hit, result)
    fill_row(
        row,
        [
            f"{hit.rank} =" if hit.tied_with else str(hit.rank),
            name,
            "",
            _keyword_cell(s.keyword),
            f"#{s.vector.rank} · {s.vector.similarity:.3f}" if s.vector else "—",
            fused,
            boosts or "—",
            why_text(s),
        ],
        [
            "tied with " + ", ".join(hit.tied_with) + " (broken by name)"
            if hit.tied_with
            else "rank",
            f"{hit.tool_name}\ncategory {hit.category}{name_tip}",
            None,
            _bounded(_adds(s, "keyword", fusion)),
            _adds(s, "vector", fusion),
            bounded_tip(fused_tip),
            ", ".join(f"{k} {v:.4f}" for k, v in s.boosts.items()),
            bounded_tip(_why_tip(s, fusion) + name_tip),
        ],
    )
    show_score(row, 2, hit, top, result.fit_threshold, fusion)
    row.setToolTip(2, bounded_tip(row.toolTip(2)))
    row.setData(0, EQUATION_ROLE, routescope.toolsearch.score_equation(hit))
    row.setData(1, _TOOL_ROLE, hit.tool_name)
    _show_fields(row, s, fields)


def step_label(hit: ToolHit, result: ToolSearchResult) -> tuple[str, str]:
    """The tool cell of a hit the step merge placed ("search_files · step 2's best") and what
    its tip adds: which step, where the merge put it, and whose score it carries."""
    if hit.step is None or not 0 < hit.step <= len(result.steps):
        return hit.tool_name, ""
    step = result.steps[hit.step - 1]
    whole = {name for name, _ in result.whole_request}
    scored = (
        "its score is the whole request's"
        if hit.tool_name in whole
        else "its score is the step's, searched alone"
    )
    which = (
        f"the best tool for “{step.step.text}” searched alone"
        if hit.step_rank in (None, 1)
        else f"#{hit.step_rank} for “{step.step.text}” searched alone"
    )
    return (
        f"{hit.tool_name} · {hit.step_mark}",
        f"\n{hit.step_mark}: {which}; {scored}\nmerged: {result.merge}",
    )


def tool_of(row: QTreeWidgetItem) -> str:
    """The tool a ranking row shows (its cell may say more: "… · step 2's best")."""
    name = row.data(1, _TOOL_ROLE)
    return name if isinstance(name, str) else row.text(1)


def awaits_explanation(row: QTreeWidgetItem) -> bool:
    """Whether a hit's row still waits for its per-field explanation."""
    return row.parent() is None and bool(row.data(0, _UNEXPLAINED_ROLE))


def _show_fields(row: QTreeWidgetItem, s: Signals, names: Iterable[str]) -> None:
    """The children of a hit: the query words behind its keyword share (weighted), BM25 per
    field with the matched terms, the rerank's terms. A hit not explained yet has one
    placeholder child for its fields; opening the row asks for it."""
    fields = [(name, s.keyword) for name in names if name in s.keyword.fields] if s.keyword else []
    words = bool(s.keyword and s.keyword.terms)
    unexplained = s.keyword is not None and not s.keyword.fields
    row.setData(0, _UNEXPLAINED_ROLE, unexplained)
    children = ensure_children(row, words + len(fields) + bool(s.boost_terms) + unexplained)
    for child in children:
        child.setFirstColumnSpanned(False)
    if words and s.keyword is not None:  # one line across the row: the words are the point
        share = s.shares.get("keyword", 0.0)
        text = f"      keyword words: +{share:.3f} = {_words_text(s.keyword)}"
        fill_row(
            children[0], [text, "", "", "", "", "", "", ""], [bounded_tip(_words_tip(s.keyword))]
        )
        children[0].setFirstColumnSpanned(True)
        children[0].setData(0, Qt.ItemDataRole.ForegroundRole, colour("term"))
        children = children[1:]
    if unexplained:
        fill_row(children[0], ["", "  fields", "", "", "", "", "explaining…", "explaining…"])
        children[0].setData(6, Qt.ItemDataRole.ForegroundRole, None)
        children[0].setData(WHY, Qt.ItemDataRole.ForegroundRole, None)
    for child, (name, keyword) in zip(children, fields, strict=False):
        terms = ", ".join(keyword.matched_terms.get(name, []))
        fill_row(
            child,
            [
                "",
                f"  {name} field",
                "",
                f"BM25 {keyword.fields[name]:.2f}",
                "",
                "",
                f"matched: {terms}",
                f"BM25 {keyword.fields[name]:.2f} · matched: {terms}",
            ],
        )
        child.setToolTip(3, f"the keyword search's BM25 score of the tool's {name} field")
        for column in (6, WHY):
            child.setData(column, Qt.ItemDataRole.ForegroundRole, colour("term"))
    if s.boost_terms:
        aligned = "aligned terms: " + ", ".join(s.boost_terms)
        fill_row(children[-1], ["", "  rerank", "", "", "", "", aligned, aligned])
        for column in (6, WHY):
            children[-1].setData(column, Qt.ItemDataRole.ForegroundRole, None)


def why_text(s: Signals) -> str:
    """What moved a hit's score, in a line: "hotel +0.046 · book +0.003 · align +0.030" (the
    query words behind its keyword share, largest first, with their notes and sibling rarity;
    then the boosts); "vector only" when no word matched."""
    parts = [_words_text(s.keyword)] if s.keyword is not None and s.keyword.terms else []
    if not parts and s.keyword is not None:  # (canonical: BM25 ranks, no words' shares)
        parts.append(f"keyword #{s.keyword.rank} · BM25 {s.keyword.score:.2f}")
    parts += [f"{share_label(k)} +{v:.3f}" for k, v in s.boosts.items() if v]
    return " · ".join(parts) if parts else "vector only"


def explanation_html(hit: ToolHit, result: ToolSearchResult) -> str:
    """The whole explanation of one hit, in a paragraph that wraps: its rank and tool, its
    score share by share with the words behind the keyword share (and their sibling rarity),
    each signal's rank, and the step that placed it ("#2 WeatherTool · step 2's best — 0.258 =
    vector 0.207 + keyword 0.041 (weather +0.039 …) + align 0.010 — keyword #4 (evidence
    0.17), vector #2 (cos 0.276) — step 2's best: the best tool for “check the weather there”
    searched alone; its score is the whole request's")."""
    s = hit.signals
    name, step_tip = step_label(hit, result)
    shares = []
    for label, value in ((share_label(k), v) for k, v in ordered_shares(hit) if v):
        words = s.keyword is not None and s.keyword.terms and label == "keyword"
        said = f" ({_words_text(s.keyword)})" if words and s.keyword is not None else ""
        shares.append(f"{label} {score_text(value, result.fusion)}{said}")
    ranks = []
    if s.keyword is not None:
        evidence = s.keyword.evidence
        said = f"evidence {evidence:.2f}" if evidence is not None else f"BM25 {s.keyword.score:.2f}"
        ranks.append(f"keyword #{s.keyword.rank} ({said})")
    if s.vector is not None:
        ranks.append(f"vector #{s.vector.rank} (cos {s.vector.similarity:.3f})")
    parts = [f"{score_text(hit.score, result.fusion)} = " + (" + ".join(shares) or "0")]
    parts += [", ".join(ranks)] if ranks else []
    parts += step_tip.strip().splitlines()[:1]  # (which step placed it, whose score it carries)
    return f"<b>#{hit.rank} {html.escape(name)}</b> — " + html.escape(" — ".join(parts))


def _why_tip(s: Signals, fusion: str) -> str:
    """The Why cell's tip: what each share adds, then each word's rarity and match."""
    terms = [f"{share_label(name)} {value:.4f}" for name, value in s.shares.items() if value]
    lines = [f"{s.final:.4f} = " + (" + ".join(terms) or "0") + f" ({fusion} fusion)"]
    if s.keyword is not None and s.keyword.terms:
        lines.append(_words_tip(s.keyword))
    return "\n".join(lines)


def _bounded(tip: str | None) -> str | None:
    return None if tip is None else bounded_tip(tip)


def _adds(s: Signals, source: str, fusion: str) -> str | None:
    """The tip of a keyword or vector cell: what the signal adds to the final score (and for
    the weighted keyword share, the words that moved it)."""
    share = s.shares.get(source)
    if share is None:
        return None
    decimals = 3 if fusion == "weighted" else 4
    text = f"adds {share:.{decimals}f} to the final score"
    if source == "keyword" and s.keyword is not None and s.keyword.terms:
        return f"{text}: {_words_text(s.keyword)} (BM25 {s.keyword.score:.2f})\n" + _words_tip(
            s.keyword
        )
    return text


def _keyword_cell(keyword: KeywordSignal | None) -> str:
    """ "#2 · 0.57": the rank and the keyword evidence (weighted), or the rank and BM25."""
    if keyword is None:
        return "—"
    if keyword.evidence is not None:
        return f"#{keyword.rank} · {keyword.evidence:.2f}"
    return f"#{keyword.rank} · {keyword.score:.2f}"


def _words_text(keyword: KeywordSignal) -> str:
    """ "crashing +0.071 · container +0.047 · report +0.006 (path)": largest first."""
    terms = sorted(keyword.terms, key=lambda t: -t.share)
    return " · ".join(
        f"{t.word} +{t.share:.3f}"
        + (f" ({_SHORT_NOTES.get(t.note, t.note)})" if t.note else "")
        + (f" (siblings ×{t.siblings:.2f})" if t.siblings < 1.0 else "")
        for t in terms
    )


def _words_tip(keyword: KeywordSignal) -> str:
    """One line per word: what it adds, why (rarity, match), and why it counts less."""
    lines = []
    for t in sorted(keyword.terms, key=lambda t: -t.share):
        held = f"{t.tools} tool{'s' if t.tools != 1 else ''} hold{'s' if t.tools == 1 else ''} it"
        match = "the best match" if t.match >= 1.0 else f"match {t.match:.2f} of the best"
        note = f"; {t.note}" if t.note else ""
        if t.siblings < 1.0:  # issue 28: a word its server's other tools share counts less
            note += f"; ×{t.siblings:.2f}, shared by its server's other tools"
        lines.append(
            f"{t.word} (“{t.term}”) +{t.share:.3f}: weight {t.weight:.2f} ({held}), {match}{note}"
        )
    return "\n".join(lines)


_SHORT_NOTES = {
    "in a URL or path": "path",
    "a request phrase": "request",
    "a number": "number",
    "a date or time format": "format",
    "a URL in the request": "a URL",
    "a file path in the request": "a path",
}


def _fused_cell(s: Signals, fusion: str) -> tuple[str, str]:
    """The fused column: the RRF sum and its terms, or the weighted sum and its two shares."""
    if fusion != "weighted":
        rrf = " + ".join(f"1/({t.k}+{t.rank})" for t in s.rrf)
        return (f"{s.fused:.4f}", f"{s.fused:.5f} = {rrf}") if rrf else ("0", "in no list")
    evidence = s.keyword.evidence if s.keyword is not None else None
    parts = [
        f"{label} {s.shares[name]:.3f}" + detail
        for name, label, detail in (
            ("vector", "vector", f" (cos {s.vector.similarity:.3f})" if s.vector else ""),
            ("keyword", "keyword", f" (evidence {evidence:.2f})" if evidence is not None else ""),
        )
        if name in s.shares
    ]
    return f"{s.fused:.3f}", f"{s.fused:.3f} = " + (" + ".join(parts) or "0")
