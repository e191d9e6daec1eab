"""`routescope compare`: A and B side by side (two prompts, or one prompt under two rule packs,
contexts or catalogs; or a regression suite under two packs), and the `--counterfactuals`
section of `routescope inspect`. Text from prompts, packs and catalogs is escaped piece by
piece, so the word spans of the diff still point at the right characters."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from .._diff import preview
from .._json import to_json
from .._request import Request
from ._parser import UsageError
from ._render import Style, clip
from ._terminal import escape

if TYPE_CHECKING:
    from .._inspect import Inspection
    from ..compare import (
        CloseCall,
        Comparison,
        Counterfactuals,
        Decisions,
        SuiteComparison,
        TextSpan,
    )
    from ..toolsearch import ToolSearch

__all__ = [
    "close_call_lines",
    "cmd_compare",
    "comparison_text",
    "counterfactual_lines",
    "inspect_why",
    "suite_comparison_text",
    "why_json",
    "why_text",
]

_REMOVED, _ADDED = "1;31", "1;32"


def cmd_compare(args: argparse.Namespace) -> int:
    from ._commands import _write

    if args.suite is not None:
        return _suite(args)
    texts = list(args.texts)
    if not texts or len(texts) > 2:
        raise UsageError(
            "compare: give one or two prompts (or --suite SUITE with --rules-b / --catalog-b)"
        )
    if len(texts) == 1 and not (args.rules_b or args.context_b or args.catalog_b):
        raise UsageError(
            "compare: nothing to compare: give a second prompt, or --rules-b, --context-b or "
            "--catalog-b"
        )
    if texts.count("-") > 1:
        raise UsageError("compare: only one prompt can come from stdin")
    comparison = _compare_prompts(args, texts)
    if args.json:
        return _write(to_json(comparison))
    return _write(comparison_text(comparison, Style(sys.stdout)))


def _compare_prompts(args: argparse.Namespace, texts: list[str]) -> Comparison:
    from .._input import validate_text
    from ..compare import compare_requests
    from ._commands import _parse_today, _read_text, _report, catalog_tools

    prompts = [validate_text(_read_text(text)) for text in texts]
    today = _parse_today(args.today)
    ranks = args.catalog is not None or args.catalog_b is not None
    catalog_a = tools_a = catalog_b = tools_b = None
    if ranks:
        catalog_a, tools_a = catalog_tools(args.catalog)
        if args.catalog_b is None or args.catalog_b == args.catalog:
            catalog_b, tools_b = catalog_a, tools_a
        else:
            catalog_b, tools_b = catalog_tools(args.catalog_b)
    request_a = Request.build(
        prompts[0], today=today, rules=args.rules, context=args.context, catalog=catalog_a
    )
    request_b = Request.build(
        prompts[-1],
        today=request_a.today,
        rules=args.rules_b if args.rules_b is not None else request_a.rules,
        context=args.context_b if args.context_b is not None else request_a.context,
        catalog=catalog_b,
    )
    comparison = compare_requests(request_a, request_b, tools_a, tools_b)
    for engine in {id(e): e for e in (tools_a, tools_b) if e is not None}.values():
        _report(engine)
    return comparison


def _suite(args: argparse.Namespace) -> int:
    from ..compare import compare_suite
    from ._commands import _write

    if args.texts:
        raise UsageError("compare --suite takes no prompt: the suite's cases are the prompts")
    if args.rules_b is None and args.catalog_b is None:
        raise UsageError("compare --suite: give the B side, --rules-b FILE or --catalog-b PATH")
    if args.context is not None or args.context_b is not None or args.today is not None:
        raise UsageError("compare --suite: the cases give their own context and date")
    result = compare_suite(
        args.suite,
        rules=args.rules,
        rules_b=args.rules_b,
        catalog=args.catalog,
        catalog_b=args.catalog_b,
    )
    if args.json:
        return _write(to_json(result))
    return _write(suite_comparison_text(result, Style(sys.stdout)))


# -- text ------------------------------------------------------------------------------------


def comparison_text(comparison: Comparison, style: Style, indent: str = "") -> str:
    """A comparison for a terminal: the headline decisions A → B, then what changed in each
    router; changed words in red (A) and green (B), or `[-…-]` and `{+…+}` without colour."""
    a, b = comparison.a, comparison.b
    lines = [
        f"{style('A', _REMOVED)}         {_side(a.text, a.rules, a.catalog)}",
        f"{style('B', _ADDED)}         {_side(b.text, b.rules, b.catalog)}",
    ]
    changes = {change.field: change for change in comparison.changes}
    oa, ob = a.outcome, b.outcome
    rule = changes.get("strategy_rule")
    why = f"  ({escape(str(rule.a))} → {escape(str(rule.b))})" if rule else ""
    lines.append(f"{style('strategy', '1')}  {_pair(oa.strategy, ob.strategy, style)}{why}")
    for flip in comparison.flags:
        evidence = flip.evidence_a if flip.a else flip.evidence_b
        words = ", ".join(f'"{escape(span.value)}"' for span in evidence[:4])
        lines.append(
            f"          {flip.flag} {_mark(flip.a)} → {_mark(flip.b)}"
            + (f"  ({'A' if flip.a else 'B'}: {words})" if words else "")
        )
    lines += _others(comparison, "strategy", {"strategy", "strategy_rule"})
    lines += _query_lines(comparison, style)
    lines.append(f"{style('lint', '1')}      {_pair(oa.lint_class, ob.lint_class, style)}")
    lines += _others(comparison, "lint", {"lint.query_class"})
    contract_a = f"{oa.agent} / {oa.mode}" if oa.agent else "disabled"
    contract_b = f"{ob.agent} / {ob.mode}" if ob.agent else "disabled"
    lines.append(f"{style('contract', '1')}  {_pair(contract_a, contract_b, style)}")
    lines += _others(comparison, "contract", {"decision.agent", "decision.mode"})
    for call in comparison.calls:
        if call.kind == "changed":
            lines.append(f"  ~ {escape(call.tool)} {_args(call.args_a)} → {_args(call.args_b)}")
        elif call.kind == "added":
            lines.append(style(f"  + {escape(call.tool)} {_args(call.args_b)}", "32"))
        else:
            lines.append(style(f"  − {escape(call.tool)} {_args(call.args_a)}", "31"))
    lines.append(f"{style('task', '1')}      {_pair(oa.task_route, ob.task_route, style)}")
    lines += _others(comparison, "task", {"task.route"})
    if comparison.tools is not None:
        lines += _tool_lines(comparison, oa, ob, style)
    sections = ", ".join(comparison.sections)
    summary = f"differs in: {sections}" if comparison.changed else "no differences"
    lines.append(style(summary, "1"))
    return "\n".join(indent + line for line in lines)


def _side(text: str, rules: str, catalog: str | None) -> str:
    where = f"  · rules {escape(rules)}" + (f" · catalog {escape(catalog)}" if catalog else "")
    return f"{escape(clip(text))}{where}"


def _pair(a: str | None, b: str | None, style: Style, *, upper: bool = True) -> str:
    shown_a, shown_b = escape(str(a)), escape(str(b))
    if upper:
        shown_a, shown_b = shown_a.upper(), shown_b.upper()
    if a == b:
        return f"{style(shown_a, '1;36')}  (same)"
    return f"{style(shown_a, _REMOVED)} → {style(shown_b, _ADDED)}"


def _mark(on: bool) -> str:
    return "●" if on else "○"


def _args(args: dict[str, Any] | None) -> str:
    return escape(preview(args or {}))


def _others(comparison: Comparison, section: str, shown: set[str]) -> list[str]:
    lines = []
    for change in comparison.changes:
        if change.section != section or change.field in shown:
            continue
        if change.field == "task.actions":  # the same searches the queries above show
            lines.append(f"          task searches changed ({len(change.a)} → {len(change.b)})")
            continue
        lines.append(
            f"          {escape(change.field)}: {escape(preview(change.a))} → "
            f"{escape(preview(change.b))}"
        )
    return lines


def _query_lines(comparison: Comparison, style: Style) -> list[str]:
    if not comparison.queries:
        return []
    lines = [style("queries", "1")]
    for row in comparison.queries:
        if row.kind == "same":
            shown = f"  = [{escape(row.source_a or '')}] {escape(clip(row.a or ''))}"
            lines.append(style(shown, "2"))
        elif row.kind == "removed":
            lines.append(
                f"  − [{escape(row.source_a or '')}] "
                + _highlight(row.a or "", row.removed, style, removed=True)
            )
        elif row.kind == "added":
            lines.append(
                f"  + [{escape(row.source_b or '')}] "
                + _highlight(row.b or "", row.added, style, removed=False)
            )
        else:
            source = escape(row.source_a or "")
            if row.source_b != row.source_a:
                source += f" → {escape(row.source_b or '')}"
            lines.append(f"  ~ [{source}]")
            lines.append("      A " + _highlight(row.a or "", row.removed, style, removed=True))
            lines.append("      B " + _highlight(row.b or "", row.added, style, removed=False))
    return lines


def _highlight(text: str, spans: tuple[TextSpan, ...], style: Style, *, removed: bool) -> str:
    """`text` with the words of `spans` coloured (or bracketed when there is no colour)."""
    pieces: list[str] = []
    position = 0
    for span in spans:
        if span.start < position or span.end > len(text):
            continue
        pieces.append(escape(text[position : span.start]))
        word = escape(text[span.start : span.end])
        if style.on:
            pieces.append(style(word, _REMOVED if removed else _ADDED))
        else:
            pieces.append(f"[-{word}-]" if removed else f"{{+{word}+}}")
        position = span.end
    pieces.append(escape(text[position:]))
    return "".join(pieces)


def _tool_lines(comparison: Comparison, oa: Decisions, ob: Decisions, style: Style) -> list[str]:
    lines = [
        f"{style('tools', '1')}     top {_pair(oa.top_tool, ob.top_tool, style, upper=False)} · "
        f"fit {_pair(oa.tool_fit, ob.tool_fit, style, upper=False)}"
    ]
    lines += _others(comparison, "tools", {"tools.top", "tools.fits"})
    lines.append(f"  {'A':>4} {'B':>4}  {'tool':<28} move")
    for move in comparison.tools or ():
        rank_a = f"#{move.rank_a}" if move.rank_a is not None else "—"
        rank_b = f"#{move.rank_b}" if move.rank_b is not None else "—"
        if move.movement == "up":
            how = style(f"↑{move.delta}", "32")
        elif move.movement == "down":
            how = style(f"↓{-(move.delta or 0)}", "31")
        elif move.movement == "new":
            how = style("new", "32")
        elif move.movement == "dropped":
            how = style("dropped", "31")
        else:
            how = style("=", "2")
        lines.append(f"  {rank_a:>4} {rank_b:>4}  {escape(move.tool):<28} {how}")
    return lines


def suite_comparison_text(result: SuiteComparison, style: Style) -> str:
    title = f"suite {escape(result.suite)} ({escape(result.path)}, router {result.router})"
    lines = [
        style(title, "1"),
        f"  A: {escape(result.a)}",
        f"  B: {escape(result.b)}",
        f"  {result.cases} cases · A passes {result.passed_a} · B passes {result.passed_b} · "
        f"{len(result.differ)} case(s) differ",
    ]
    for case in result.differ:
        verdict = f"{_verdict(case.passed_a, style)} → {_verdict(case.passed_b, style)}"
        failing = ", ".join(escape(path) for path in case.failed_b)
        lines.append(
            f"  {style(escape(case.id), '1')}  {verdict}"
            + (f"  (B fails: {failing})" if failing else "")
        )
        lines.append(comparison_text(case.comparison, style, indent="      "))
    return "\n".join(lines)


def _verdict(passed: bool, style: Style) -> str:
    return style("pass", "32") if passed else style("FAIL", "1;31")


# -- inspect --counterfactuals ---------------------------------------------------------------


def inspect_why(
    args: argparse.Namespace, request: Request, inspection: Inspection, tools: ToolSearch | None
) -> int:
    """`inspect --counterfactuals`: the inspection, then the words whose removal flips a
    decision and the close calls (JSON: `counterfactuals` and `close_calls` added)."""
    from ..compare import close_calls, counterfactuals
    from ._commands import _report, _write
    from ._render import inspection_text
    from ._terminal import escaped

    found = counterfactuals(request, tools)
    calls = close_calls(inspection, request.rules.load())
    if tools is not None:
        _report(tools)
    if args.json:
        return _write(why_json(inspection, found, calls))
    style = Style(sys.stdout)
    text = inspection_text(escaped(inspection), style)
    return _write(f"{text}\n{why_text(found, calls, style)}")


def why_json(inspection: Inspection, found: Counterfactuals, calls: list[CloseCall]) -> str:
    """The inspection's JSON object with `counterfactuals` and `close_calls` added."""
    from ..compare import CloseCall

    data = json.loads(to_json(inspection))
    data["counterfactuals"] = json.loads(to_json(found))
    data["close_calls"] = json.loads(to_json(calls, list[CloseCall]))
    return json.dumps(data, indent=2, ensure_ascii=False)


def why_text(found: Counterfactuals, calls: list[CloseCall], style: Style) -> str:
    return "\n".join([*counterfactual_lines(found, style), *close_call_lines(calls, style)])


def counterfactual_lines(found: Counterfactuals, style: Style) -> list[str]:
    flipping = found.flipping()
    lines = [
        f"{style('words', '1')}     removing one word at a time ({len(found.words)} tried): "
        + (f"{len(flipping)} flip a decision" if flipping else "none flips a decision")
    ]
    for effect in flipping:
        what = " · ".join(
            f"{flip.decision} {escape(str(flip.before))} → {escape(str(flip.after))}"
            for flip in effect.flips
        )
        word = style(f'"{escape(effect.word)}"', "1")
        lines.append(f"  {word} @{effect.start}–{effect.end}  {what}")
    lines += [style(f"  note: {escape(note)}", "2") for note in found.notes]
    return lines


def close_call_lines(calls: list[CloseCall], style: Style) -> list[str]:
    if not calls:
        return [f"{style('close', '1')}     no decision was close"]
    lines = [f"{style('close', '1')}     {len(calls)} close call(s)"]
    lines += [style(f"  {call.decision}: {escape(call.detail)}", "33") for call in calls]
    return lines
