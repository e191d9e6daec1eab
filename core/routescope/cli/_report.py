"""What `routescope report` prints: a report's or a comparison's headline, its quality against
labels, the labelled fields a comparison fixed and broke, and the vocabulary notes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..batch import QualityChange, Report, ResultsComparison

__all__ = ["report_lines", "router_errors_line"]

CHANGES_LISTED = 10
"""Fixed and broken fields listed each (all are in report.json)."""


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _quality_line(report: Report) -> str | None:
    quality = report.quality
    if quality is None:
        return None
    score = quality.score
    head = f"quality against {quality.labels}: "
    if not score.found:
        return head + (
            f"none of its {score.labelled:,} labelled prompts is in the results "
            "(joined by prompt text)"
        )
    card = score.whole
    entities = card.entities
    parts = [
        f"macro-F1 {_figure(card.macro_f1)}",
        f"strategy accuracy {_figure(card.strategy.accuracy)}",
    ]
    if card.place.right or card.place.wrong:
        parts.append(f"place-hint accuracy {_figure(card.place.accuracy)}")
    if entities.cases:
        parts.append(
            f"entities precision {_figure(entities.precision)} recall {_figure(entities.recall)}"
        )
    return head + (
        f"{score.found:,} of {score.labelled:,} labelled prompts joined "
        f"({score.joined:,} results scored): " + ", ".join(parts)
    )


def _single(report: Report) -> list[str]:
    leaks = ", ".join(f"{check.rule} {check.count:,}" for check in report.leaks)
    lines = [
        f"{report.prompts:,} prompts; {report.leak_count:,} leaked queries in "
        f"{report.leak_prompts:,} prompts ({leaks})"
    ]
    lines += _router_lines(report)
    quality = _quality_line(report)
    if quality is not None:
        lines.append(quality)
    lines += [f"vocabulary: {note.text()}" for note in report.vocabulary]
    lines += [f"note: {note}" for note in report.notes]
    return lines


def router_errors_line(router: str, prompts: int, errors: Mapping[str, int]) -> str:
    """One external router's failures over a batch's prompts, by kind (most first)."""
    failed = sum(errors.values())
    if not failed:
        return f"router {router}: no errors in {prompts:,} prompts"
    kinds = ", ".join(f"{label} {count:,}" for label, count in errors.items())
    plural = "s" if failed != 1 else ""
    return f"router {router}: {failed:,} error{plural} in {prompts:,} prompts ({kinds})"


def _router_lines(report: Report) -> list[str]:
    """Each external router's failures by kind, and how each pair of routers agrees."""
    lines = [
        router_errors_line(
            figures.name, figures.prompts, {bar.label: bar.count for bar in figures.errors.bars}
        )
        for figures in report.routers
    ]
    for pair in report.agreement:
        if pair.agreed is None:
            lines.append(f"agreement {pair.a} × {pair.b}: no label in common")
        else:
            lines.append(
                f"agreement {pair.a} × {pair.b}: {pair.agreed:,} of {pair.total:,} prompts "
                f"({pair.share:.1%}), the same route or both none"
            )
    return lines


def _change(verb: str, change: QualityChange) -> str:
    times = f" ({change.count:,} results)" if change.count > 1 else ""
    return (
        f"  {verb} {change.case} · {change.field}: labelled {change.expected!r}, "
        f"A {change.a!r}, B {change.b!r}{times} — {change.prompt[:100]!r}"
    )


def _quality_changes(comparison: ResultsComparison) -> list[str]:
    changes = comparison.quality_changes
    a, b = comparison.a.quality, comparison.b.quality
    if changes is None or a is None or b is None:
        return []
    first, second = a.score.whole, b.score.whole
    lines = [
        f"quality against {changes.labels}: macro-F1 A {_figure(first.macro_f1)} → B "
        f"{_figure(second.macro_f1)}, strategy accuracy A {_figure(first.strategy.accuracy)} → "
        f"B {_figure(second.strategy.accuracy)}",
        f"labelled fields B fixed: {len(changes.fixed):,}; broke: {len(changes.broken):,}",
    ]
    for verb, listed in (("fixed", changes.fixed), ("broke", changes.broken)):
        lines += [_change(verb, change) for change in listed[:CHANGES_LISTED]]
        if len(listed) > CHANGES_LISTED:
            lines.append(f"  … {len(listed) - CHANGES_LISTED:,} more {verb} in report.json")
    return lines


def _comparison(comparison: ResultsComparison) -> list[str]:
    kinds = ", ".join(f"{group.kind} {group.count:,}" for group in comparison.groups)
    lines = [
        f"{comparison.changed:,} of {comparison.matched:,} matched prompts changed routing "
        f"({kinds})",
        f"leaked queries: A {comparison.a.leak_count:,}, B {comparison.b.leak_count:,}",
        *_quality_changes(comparison),
    ]
    for side, report in (("A", comparison.a), ("B", comparison.b)):
        lines += [f"vocabulary ({side}): {note.text()}" for note in report.vocabulary]
    lines += [f"note: {note}" for note in comparison.a.notes]
    return lines


def report_lines(value: Report | ResultsComparison) -> list[str]:
    """The lines `report` prints before where it wrote (not yet escaped)."""
    from ..batch import ResultsComparison

    if isinstance(value, ResultsComparison):
        return _comparison(value)
    return _single(value)
