"""Text renderings of results for a terminal: one screen per command, evidence included."""

from __future__ import annotations

import dataclasses
import json
import os
from typing import TYPE_CHECKING, TextIO

from ..toolsearch import score_equation
from ._terminal import escape

if TYPE_CHECKING:
    from .._inspect import Inspection
    from ..contract import RouterDecision
    from ..regress import ClassReport, EvalRow, SuiteResult
    from ..strategy import QueryContext
    from ..toolsearch import ToolSearchResult

__all__ = [
    "Style",
    "clip",
    "decision_text",
    "eval_text",
    "inspection_text",
    "regress_text",
    "tools_text",
]


class Style:
    def __init__(self, stream: TextIO) -> None:
        self.on = stream.isatty() and "NO_COLOR" not in os.environ

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text


def inspection_text(result: Inspection, style: Style) -> str:
    ctx = result.context
    lines = [
        f"{style('strategy', '1')}  {style(result.strategy.upper(), '1;36')}  "
        f"{result.strategy_reason}",
        f"{style('goal', '1')}      {clip(ctx.user_goal)}",
    ]
    entities = " · ".join(
        f"{e.text} {style(f'({e.kind} {e.score:g} @{e.start}–{e.end})', '2')}"
        for e in ctx.entities.details
    )
    lines.append(f"{style('entities', '1')}  {entities or '—'}")
    learned = [note for note in ctx.entities.dropped if "learned score" in note]
    if learned:  # the pack's entity model: each candidate it dropped, with its score
        lines.append(style(f"          dropped: {' · '.join(learned)}", "2"))
    place = ctx.entities.place
    place_text = (
        f"{place.text} {style(f'({place.rule} @{place.start}–{place.end})', '2')}" if place else "—"
    )
    lines.append(f"{style('place', '1')}     {place_text}")
    flags = []
    voted = {v.intent for v in ctx.example_votes if v.decided and not v.rules}
    for name, on in dataclasses.asdict(ctx.intent).items():
        words = sorted(
            {m.text.lower() for m in ctx.intent_matches if m.intent == name and name not in voted}
        )
        words += ["vote"] if name in voted else []
        evidence = f" {style(', '.join(words), '2')}" if words else ""
        flags.append(style(f"● {name}", "1;32") + evidence if on else style(f"○ {name}", "2"))
    lines.append(f"{style('intents', '1')}   " + "   ".join(flags))
    lines += _vote_lines(ctx, style)
    lines.append(f"{style('openclaw', '1')}  {result.plan.openclaw_gate}")
    lines.append(style("actions", "1"))
    for number, action in enumerate(result.actions, start=1):
        lines.append(f"  {number}. [p{action.priority}] {style(clip(action.query), '1')}")
        lines.append(style(f"       from {action.source}", "2"))
        for edit in action.edits:
            lines.append(style(f"       {edit.rule}: {edit.detail}", "33"))
    lines += _lint_lines(result, style)
    if result.decision is not None:
        lines += decision_text(result.decision, style).splitlines()
    if result.tools is not None:
        lines += [style("tools", "1"), tools_text(result.tools, style)]
    task = result.task
    lines.append(
        f"{style('task', '1')}      {style(task.route.upper(), '1;34')}  {clip(task.user_goal)}  "
        + style(f"({task.reason}; {len(task.actions)} search(es) planned)", "2")
    )
    if task.research_query is not None:
        first = task.research_query
        lines.append(
            f"          research searches first: {clip(first.query)}  " + style(first.reason, "2")
        )
    timings = " · ".join(f"{k} {v:,.0f} µs" for k, v in result.timings_us.items())
    lines.append(f"{style('timings', '1')}   {timings}")
    return "\n".join(lines)


def _vote_lines(ctx: QueryContext, style: Style) -> list[str]:
    """Each flag voted by the nearest labelled examples: the vote and its three nearest."""
    lines: list[str] = []
    for vote in ctx.example_votes:
        mark = "●" if vote.decided else "○"
        lines.append(f"{style('votes', '1') if not lines else '     '}     {mark} {vote.reason}")
        for near in vote.neighbours[:3] if vote.decided != vote.rules else ():
            said = "✓" if near.carries else "✗"
            lines.append(
                style(f"            {said} {near.similarity:.2f} {clip(near.text, 80)}", "2")
            )
    return lines


def _lint_lines(result: Inspection, style: Style) -> list[str]:
    lint = result.lint
    anchors = lint.anchors_detected
    found = ", ".join([*anchors.strong, *(f"{w} (weak)" for w in anchors.weak)]) or "none"
    lines = [
        f"{style('lint', '1')}      {style(lint.query_class.upper(), '1;35')}  "
        f"{lint.classification.rule}",
        f"          anchors: {found}"
        + (f" · aliases: {', '.join(anchors.aliases_matched)}" if anchors.aliases_matched else ""),
    ]
    if lint.changed:
        reasons = ", ".join(lint.changes["reasons"])
        lines.append(f"          expanded: {clip(lint.expanded_query)} ({reasons})")
    return lines


def decision_text(decision: RouterDecision, style: Style) -> str:
    lines = [
        f"{style('decision', '1')}  {decision.agent} / {decision.mode} / ui {decision.ui} · "
        f"stop {decision.stop_condition}",
        "          why: "
        + "; ".join(f"{h.rule}" + (f' "{h.text}"' if h.text else "") for h in decision.rules_fired),
    ]
    for number, call in enumerate(decision.tool_plan, start=1):
        lines.append(f"  {number}. {call.tool} {json.dumps(call.args)}")
    for event in decision.guardrails:
        lines.append(style(f"       guardrail {event.rule}: {event.detail}", "33"))
    return "\n".join(lines)


def clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} chars)"


def tools_text(result: ToolSearchResult, style: Style) -> str:
    lines = [
        f"{style('strategy', '1')}  {result.strategy}: {result.strategy_reason}",
        f"{style('filter', '1')}    {result.category_filter or '—'} "
        f"({result.category_filter_reason})",
    ]
    if result.semantic != "ready":
        lines.append(style(f"vector    {result.semantic}", "33"))
    lines.append(
        f"  {'#':>2} {'tool':<22}{'score':>9} {'keyword':>16} {'vector':>14} {'boosts':>8}"
    )
    for hit in result.results:
        s = hit.signals
        keyword = f"#{s.keyword.rank} bm25 {s.keyword.score:.1f}" if s.keyword else "—"
        vector = f"#{s.vector.rank} cos {s.vector.similarity:.2f}" if s.vector else "—"
        boosts = sum(s.boosts.values())
        tie = style(f"  tie: {', '.join(hit.tied_with)}", "33") if hit.tied_with else ""
        merged = style(f"  {hit.step_mark}", "36") if hit.step is not None else ""
        lines.append(
            f"  {hit.rank:>2} {hit.tool_name:<22}{hit.score:>9.4f} {keyword:>16} {vector:>14} "
            f"{boosts:>+8.3f}{tie}{merged}"
        )
        if s.keyword and s.keyword.fields:
            parts = ", ".join(
                f"{f} {v:.1f} ({' '.join(s.keyword.matched_terms[f])})"
                for f, v in s.keyword.fields.items()
            )
            lines.append(style(f"       fields: {parts}", "2"))
        lines.append(style(f"       {score_equation(hit)}", "2"))
    if result.runner_up_gap is not None:
        lines.append(f"runner-up gap {result.runner_up_gap:.4f}")
    verdict = style(f"fit       {result.fit_reason}", "1" if result.fits else "1;33")
    lines.append(verdict)
    for number, step in enumerate(result.steps, start=1):
        where = (
            f"split at “{step.step.split_by}” @{step.step.split_at[0]}–{step.step.split_at[1]}"
            if step.step.split_at
            else "start"
        )
        lines.append(f"{style(f'step {number}', '1')}    {step.step.text}  ({where})")
        best = ", ".join(f"{hit.tool_name} {hit.score:.3f}" for hit in step.results[:3])
        fit = "" if step.fits else style("  no tool fits", "33")
        lines.append(f"          {best or '—'}{fit}")
    if result.merge:
        lines.append(style(f"merged    {result.merge}", "2"))
    return "\n".join(lines)


def regress_text(result: SuiteResult, style: Style) -> str:
    """A suite's results; names, ids, paths and values come from the suite file, so each is
    escaped, and values are shown in about 200 characters (`FieldDiff.expected_text`)."""
    title = f"suite {escape(result.suite)} ({escape(result.path)}, router {result.router})"
    lines = [style(title, "1")]
    for case in result.cases:
        mark = style("✓", "32") if case.passed else style("✗", "1;31")
        lines.append(f"  {mark} {escape(case.id)}")
        for diff in case.diffs:
            lines.append(
                f"      {escape(diff.path)}: expected {escape(diff.expected_text)} "
                f"({diff.matcher}), got {escape(diff.actual_text)}"
            )
    lines += [escape(line) for line in _report_lines(result.report)]
    lines.append(f"  {result.passed} cases passed, {result.failed} cases failed")
    return "\n".join(lines)


def _report_lines(report: ClassReport) -> list[str]:
    if not report.labels:
        return []
    width = max(len(label) for label in report.labels) + 2
    head = "expected \\ got".ljust(width + 4) + "".join(
        label.rjust(width) for label in report.labels
    )
    lines = [f"  per {report.field}:", "    " + head]
    for expected in report.labels:
        row = "".join(str(report.matrix[expected][got]).rjust(width) for got in report.labels)
        lines.append("    " + expected.ljust(width + 4) + row)
    for label in report.labels:
        precision, recall = report.precision[label], report.recall[label]
        lines.append(
            f"    {label}: precision {_ratio(precision)} · recall {_ratio(recall)} · "
            f"support {report.support.get(label, 0)}"
        )
    return lines


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def eval_text(rows: list[EvalRow], semantic: str) -> str:
    lines = [f"{'signal':<10}{'cases':>6}{'hit@1':>8}{'hit@3':>8}{'MRR':>8}"]
    lines += [
        f"{r.mode:<10}{r.cases:>6}{r.hit_at_1:>8.2f}{r.hit_at_3:>8.2f}{r.mrr:>8.3f}" for r in rows
    ]
    if semantic != "ready":
        lines.append(f"vector: {semantic}")
    return "\n".join(lines)
