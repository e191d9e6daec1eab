"""A report or a comparison as plain JSON data: what `report.json` holds."""

from __future__ import annotations

from typing import Any

from ._agreement import BUILTIN, Agreement
from ._changes import Change, ResultsComparison
from ._figures import Bar, Distribution
from ._quality import Quality, QualityChange, QualityChanges
from ._report import LeakCheck, Report, RouterFigures
from ._results import PromptRef
from ._vocabulary import VocabularyNote

__all__ = ["REPORT_VERSION", "report_data"]

# ---------------------------------------------------------------------------------------

REPORT_VERSION = 1


def _ref(ref: PromptRef) -> dict[str, Any]:
    return {"source": ref.source, "line": ref.line, "record": ref.record, "prompt": ref.prompt}


def _bar(bar: Bar) -> dict[str, Any]:
    return {
        "label": bar.label,
        "count": bar.count,
        "share": round(bar.share, 6),
        "examples": [_ref(ref) for ref in bar.examples],
    }


def _distribution(figure: Distribution) -> dict[str, Any]:
    return {
        "title": figure.title,
        "of": figure.of,
        "total": figure.total,
        "distinct": figure.distinct,
        "other": figure.other,
        "approximate": figure.approximate,
        "bars": [_bar(bar) for bar in figure.bars],
    }


def _leak(check: LeakCheck) -> dict[str, Any]:
    return {
        "rule": check.rule,
        "title": check.title,
        "description": check.description,
        "count": check.count,
        "prompts": check.prompts,
        "findings": [
            _ref(f.ref)
            | {
                "strategy": f.strategy,
                "query": f.query,
                "start": f.start,
                "end": f.end,
                "detail": f.detail,
            }
            for f in check.findings
        ],
    }


def _quality(quality: Quality | None) -> dict[str, Any] | None:
    """What `routescope score --json` gives, without the misses; `labelled`, `found` and
    `joined` count the set's cases, those in the results and the results scored; `where`: the
    first result of each case found."""
    if quality is None:
        return None
    return {
        "labels": {
            "path": quality.labels,
            "digest": quality.digest,
            "recorded": quality.recorded,
        },
        **quality.score.to_json(),
        "where": {case: _ref(ref) for case, ref in quality.refs.items()},
    }


def _vocabulary(note: VocabularyNote) -> dict[str, Any]:
    return {
        "kind": note.kind,
        "prompts": note.prompts,
        "of": note.of,
        "share": round(note.share, 6),
        "message": note.message,
        "advice": note.advice,
    }


def _agreement(pair: Agreement) -> dict[str, Any]:
    share = pair.share
    return {
        "a": pair.a,
        "b": pair.b,
        "total": pair.total,
        "agreed": pair.agreed,
        "agreed_share": None if share is None else round(share, 6),
        "rows": list(pair.rows),
        "columns": list(pair.columns),
        "matrix": pair.matrix(),
        "cells": [
            {
                "row": cell.row,
                "column": cell.column,
                "count": cell.count,
                "examples": [_ref(ref) for ref in cell.examples],
            }
            for cell in pair.cells
        ],
    }


def _routers(report: Report) -> dict[str, Any] | None:
    """The external routers of the batch: each one's routes and failures (by label), and the
    agreement of every pair, the built-in strategy router (`builtin`) among them."""
    if not report.routers:
        return None

    def router(figures: RouterFigures) -> dict[str, Any]:
        return {
            "prompts": figures.prompts,
            "failed": figures.failed,
            "routes": _distribution(figures.routes),
            "errors": _distribution(figures.errors),
        }

    return {
        "builtin": BUILTIN,
        "names": [figures.name for figures in report.routers],
        "routers": {figures.name: router(figures) for figures in report.routers},
        "agreement": [_agreement(pair) for pair in report.agreement],
    }


def _report_data(report: Report) -> dict[str, Any]:
    share = report.no_fit_share
    return {
        "kind": "routescope.report",
        "version": REPORT_VERSION,
        "sources": list(report.sources),
        "prompts": report.prompts,
        "today": {"first": report.first_today, "last": report.last_today},
        "quality": _quality(report.quality),
        "vocabulary": [_vocabulary(note) for note in report.vocabulary],
        "notes": list(report.notes),
        "leaks": {
            "count": report.leak_count,
            "prompts": report.leak_prompts,
            "checks": [_leak(check) for check in report.leaks],
        },
        "failed": _distribution(report.failed),
        "routers": _routers(report),
        "figures": {figure.key: _distribution(figure) for figure in report.figures()},
        "intent_cooccurrence": {
            "names": list(report.cooccurrence.names),
            "total": report.cooccurrence.total,
            "matrix": report.cooccurrence.matrix(),
            "cells": [
                {
                    "row": cell.row,
                    "column": cell.column,
                    "count": cell.count,
                    "examples": [_ref(ref) for ref in cell.examples],
                }
                for cell in report.cooccurrence.cells
            ],
        },
        "tools": {
            "ranked": report.ranked,
            "no_fit": report.no_fit,
            "no_fit_share": None if share is None else round(share, 6),
        },
        "latency_us": [
            {
                "stage": stage.stage,
                "count": stage.count,
                "p50": round(stage.p50, 3),
                "p95": round(stage.p95, 3),
                "max": round(stage.max, 3),
                "mean": round(stage.mean, 3),
                "exact": stage.exact,
            }
            for stage in report.latency
        ],
        "limits": {"examples": report.examples, "top": report.top},
    }


def _change(change: Change) -> dict[str, Any]:
    return _ref(change.ref) | {"before": list(change.before), "after": list(change.after)}


def _quality_change(change: QualityChange) -> dict[str, Any]:
    return {
        "case": change.case,
        "prompt": change.prompt,
        "field": change.field,
        "expected": change.expected,
        "a": change.a,
        "b": change.b,
        "source": change.ref.source,
        "line": change.ref.line,
        "record": change.ref.record,
        "count": change.count,
    }


def _quality_changes(changes: QualityChanges | None) -> dict[str, Any] | None:
    if changes is None:
        return None
    return {
        "labels": changes.labels,
        "fixed": [_quality_change(change) for change in changes.fixed],
        "broken": [_quality_change(change) for change in changes.broken],
    }


def _comparison_data(comparison: ResultsComparison) -> dict[str, Any]:
    a, b = comparison.a, comparison.b
    return {
        "kind": "routescope.compare",
        "version": REPORT_VERSION,
        "a": {"source": a.sources[0] if a.sources else None, "prompts": a.prompts},
        "b": {"source": b.sources[0] if b.sources else None, "prompts": b.prompts},
        "matched": comparison.matched,
        "changed": comparison.changed,
        "unchanged": comparison.unchanged,
        "only_a": _bar(comparison.only_a),
        "only_b": _bar(comparison.only_b),
        "prompt_differs": _bar(comparison.prompt_differs),
        "quality_changes": _quality_changes(comparison.quality_changes),
        "leaks": [
            {"rule": x.rule, "title": x.title, "a": x.count, "b": y.count}
            for x, y in zip(a.leaks, b.leaks, strict=True)
        ],
        "changes": [
            {
                "kind": group.kind,
                "title": group.title,
                "count": group.count,
                "share": round(group.share, 6),
                "approximate": group.approximate,
                "transitions": [
                    {
                        "label": t.label,
                        "count": t.count,
                        "examples": [_change(change) for change in t.examples],
                    }
                    for t in group.transitions
                ],
            }
            for group in comparison.groups
        ],
        "reports": {"a": _report_data(a), "b": _report_data(b)},
    }


def report_data(value: Report | ResultsComparison) -> dict[str, Any]:
    """A report or a comparison as plain JSON data (what `report.json` holds)."""
    if isinstance(value, ResultsComparison):
        return _comparison_data(value)
    return _report_data(value)
