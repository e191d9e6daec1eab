"""The detail pane of the Research tab: one attempt or one page read, spelled out as HTML.

An attempt: its search, the scores' reasons (the pages' evidence reason by reason when the
attempt has it, else the evaluator's sentence), the goal terms covered and not, the scores.
A page: its title, full URL, the policy's verdict, the outcome, what it supports of the goal
and what it misses (with excerpts), the search result's snippet. Any field of an attempt or a
page the pane has no place for yet is listed as it is, so what the core adds is never hidden.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._html import counted
from ._style import css

if TYPE_CHECKING:
    from routescope.research import Attempt, PageRead

__all__ = [
    "attempt_detail",
    "meaning_lines",
    "outcome_text",
    "page_detail",
    "page_evidence",
    "reasons_text",
]

_ATTEMPT_FIELDS = frozenset(
    {
        "index",
        "query",
        "query_source",
        "provider",
        "status",
        "error",
        "results",
        "pages",
        "evaluation",
        "evaluator_error",
        "relevance",
        "confidence",
        "coverage",
        "should_retry",
        "score",
        "duration_ms",
        "evidence",
        "check",
        "disagreement",
    }
)
"""The fields of an `Attempt` the detail pane spells out itself; any other is listed as is."""
_PAGE_FIELDS = frozenset({"url", "allowed", "rule", "status", "error", "title", "text"})
"""Likewise for a `PageRead` (its text is the page: too long for the pane)."""


def attempt_detail(attempt: Attempt, *, best: bool = False) -> str:
    """One attempt spelled out, as HTML: the query and where it came from, the search, the
    scores and the evaluator's reasons, and any field the pane has no place for."""
    star = " ★ the best" if best else ""
    status = attempt.status if attempt.status is not None else "no answer"
    search = f"{html.escape(attempt.provider)} · {status}"
    if attempt.error:
        search += f" · <span style='color:{css('bad')}'>{html.escape(attempt.error)}</span>"
    lines = [
        f"<b>Attempt {attempt.index + 1}{star}</b> — {html.escape(attempt.query)}",
        f"search: {search} · {counted(len(attempt.results), 'result')} · {attempt.fetched} of "
        f"{counted(len(attempt.pages), 'page')} read · {attempt.duration_ms:,.0f} ms",
        *_reason_lines(attempt),
        f"scores: relevance {attempt.relevance:.2f} · confidence {attempt.confidence:.2f} · "
        f"coverage {attempt.coverage:.2f} → score {attempt.score:.2f} · "
        f"{'should retry' if attempt.should_retry else 'no retry needed'}",
        f"query from: {html.escape(attempt.query_source)}",
    ]
    check = str(getattr(attempt, "check", "") or "")
    if check:
        lines.append(f"checked by the evidence: {html.escape(check)}")
    disagreement = str(getattr(attempt, "disagreement", "") or "")
    if disagreement:
        lines.append(f"<span style='color:{css('warn_ink')}'>⚠ {html.escape(disagreement)}</span>")
    lines += _other_fields(attempt, _ATTEMPT_FIELDS)
    return "<br>".join(lines)


def page_detail(page: PageRead, attempt: Attempt | None = None) -> str:
    """One page spelled out, as HTML: its title, full URL, the policy's verdict, the outcome,
    the search result's snippet, and its evidence (any field the pane has no place for)."""
    url = html.escape(page.url)
    verdict = f"{'allowed' if page.allowed else 'blocked'} · {html.escape(page.rule)}"
    if not page.allowed:
        verdict = f"<span style='color:{css('bad')}'>{verdict}</span>"
    lines = [
        f"<b>{html.escape(page.title or '(no title)')}</b>",
        f"<a href='{url}'>{url}</a>",
        f"policy: {verdict}",
        f"outcome: {html.escape(outcome_text(page))}",
    ]
    evidence = page_evidence(attempt, page.url) if attempt is not None else None
    if evidence is not None:
        lines += _page_evidence_lines(evidence)
    hit = next((h for h in attempt.results if h.url == page.url), None) if attempt else None
    if hit is not None and hit.snippet:
        lines.append(f"snippet: {html.escape(hit.snippet)}")
    lines += _other_fields(page, _PAGE_FIELDS)
    if attempt is not None:
        lines.append(
            f"<span style='color:{css('muted')}'>from attempt {attempt.index + 1}: "
            f"{html.escape(attempt.query)}</span>"
        )
    return "<br>".join(lines)


def _other_fields(value: object, known: frozenset[str]) -> list[str]:
    """`name: value` lines for the fields of a dataclass or pydantic model that `known` does
    not name (what the core adds before the pane learns to lay it out)."""
    if dataclasses.is_dataclass(value):
        names = [field.name for field in dataclasses.fields(value)]
    else:
        names = list(getattr(type(value), "model_fields", {}))
    return [
        f"{html.escape(name.replace('_', ' '))}: {html.escape(_plain(getattr(value, name)))}"
        for name in names
        if name not in known and not name.startswith("_")
    ]


def _plain(value: object) -> str:
    """A value as one line of text: numbers rounded, sequences and mappings listed."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "; ".join(f"{key}: {_plain(item)}" for key, item in value.items()) or "—"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if model_fields := getattr(type(value), "model_fields", None):
        return _plain({name: getattr(value, name) for name in model_fields})
    if isinstance(value, Iterable):
        return ", ".join(_plain(item) for item in value) or "—"
    return str(value)


def reasons_text(attempt: Attempt) -> str:
    evaluation = attempt.evaluation
    reasons = evaluation.reasons if evaluation is not None else attempt.evaluator_error
    return reasons or "not evaluated (nothing read)"


# The evidence of an attempt (`Attempt.evidence`: which goal terms each page read supports, the
# scores' reasons as data) is read by attribute: an attempt made without it shows the
# evaluator's reasons alone.


def _reason_lines(attempt: Attempt) -> list[str]:
    """The scores' reasons: the evidence's, one per metric, when the attempt has them (and the
    model's own when another model graded it); else the evaluator's sentence."""
    evidence = getattr(attempt, "evidence", None)
    reasons = tuple(getattr(evidence, "reasons", ()))
    if not reasons:
        return [f"<b>reasons:</b> {html.escape(reasons_text(attempt))}"]
    lines = ["<b>reasons</b> (the pages' evidence):"]
    for reason in reasons:
        metric, text = str(getattr(reason, "metric", "")), str(getattr(reason, "text", reason))
        if not text.startswith(metric):  # (the core's sentences name their metric)
            value = getattr(reason, "value", None)
            text = f"{metric}{f' {value:.2f}' if isinstance(value, float) else ''}: {text}"
        lines.append(f"&nbsp;• {html.escape(text)}")
    own = reasons_text(attempt)
    summary = getattr(evidence, "summary", None)
    if attempt.evaluation is not None and (not callable(summary) or own != summary()):
        lines.append(f"the model's reasons: {html.escape(own)}")
    covered = tuple(getattr(evidence, "covered", ()))
    uncovered = tuple(getattr(evidence, "uncovered", ()))
    unfindable = tuple(getattr(evidence, "unfindable", ()))
    red, green = css("bad"), css("good")
    terms = f"goal terms covered: {_terms(covered, green)} · not covered: {_terms(uncovered, red)}"
    if unfindable:
        terms += f" · in no document of the index: {_terms(unfindable, red)}"
    lines.append(terms)
    return lines


def page_evidence(attempt: Attempt, url: str) -> object | None:
    """The evidence of the page read at `url` (None: none, or the attempt has no evidence)."""
    pages = getattr(getattr(attempt, "evidence", None), "pages", ())
    return next((page for page in pages if getattr(page, "url", None) == url), None)


def _page_evidence_lines(evidence: object) -> list[str]:
    """What one page supports of the goal: its relevance, the terms it supports and misses,
    where each was found (an excerpt), and the reason in a line."""
    relevance = getattr(evidence, "relevance", None)
    about = "about the goal" if getattr(evidence, "about_goal", False) else "not about the goal"
    lines = [
        f"<b>evidence:</b> relevance {relevance:.2f} · {about}"
        if isinstance(relevance, float)
        else f"<b>evidence:</b> {about}",
    ]
    lines += meaning_lines(evidence)
    lines += [
        f"supports: {_terms(tuple(getattr(evidence, 'supports', ())), css('good'))}",
        f"misses: {_terms(tuple(getattr(evidence, 'missing', ())), css('bad'))}",
    ]
    for match in getattr(evidence, "matches", ()):
        lines.append(
            f"&nbsp;• {html.escape(str(getattr(match, 'term', '')))} in "
            f"{html.escape(str(getattr(match, 'where', '')))}: "
            f"<i>{html.escape(str(getattr(match, 'excerpt', '')))}</i>"
        )
    reason = getattr(evidence, "reason", "")
    if reason:
        lines.append(f"why: {html.escape(str(reason))}")
    return lines


def meaning_lines(evidence: object) -> list[str]:
    """The embedding model's reading of a page: how near its nearest passage comes to the goal
    (that passage quoted), the terms' share beside it, and the goal's aspects it answers;
    nothing when the page was read on terms alone."""
    similarity = getattr(evidence, "similarity", None)
    if not isinstance(similarity, float):
        return ["meaning: — (terms only: no embedding model read this page)"]
    semantic = getattr(evidence, "semantic_relevance", None)
    terms = getattr(evidence, "term_relevance", None)
    passage = str(getattr(evidence, "passage", "") or "")
    lines = [
        f"meaning: <b>{semantic:.2f}</b> — the goal against the nearest passage, cosine "
        f"{similarity:.2f}: <i>{html.escape(passage)}</i>"
        if isinstance(semantic, float)
        else f"meaning: cosine {similarity:.2f}",
    ]
    if isinstance(terms, float):
        lines.append(f"terms: {terms:.2f} — the weighted share of the goal's terms it holds")
    answers = tuple(getattr(evidence, "answers", ()))
    scores = tuple(getattr(evidence, "aspect_scores", ()))
    if len(scores) > 1 or answers:
        shown = ", ".join(f"{score:.2f}" for score in scores)
        lines.append(
            f"answers: {_terms(answers, css('good'))} (aspects' nearest passages: {shown})"
        )
    return lines


def _terms(terms: tuple[object, ...], colour: str) -> str:
    if not terms:
        return "—"
    shown = ", ".join(html.escape(str(term)) for term in terms)
    return f"<span style='color:{colour}'>{shown}</span>"


def outcome_text(page: PageRead) -> str:
    if page.error:
        return f"{page.status} · {page.error}" if page.status is not None else page.error
    if page.status is not None:
        return f"{page.status} · {len(page.text):,} chars"
    return "not fetched"
