"""The `routescope` command line. Bad input or configuration: one line on stderr, exit 2."""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from pydantic import BaseModel, ValidationError

from ._errors import InputError, RoutescopeError
from ._inspect import Inspection, inspect, validate_text
from ._resources import resources_root
from ._rules import RulePack, default_rules, load_rules
from .contract import RouterContext, RouterDecision, decide
from .regress import ClassReport, SuiteResult, load_suite, run_suite, update_goldens
from .toolsearch import SearchSettings, ToolSearch, ToolSearchResult, evaluate, load_catalog

__all__ = ["main"]

EXIT_USAGE = 2


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="routescope", description="Inspect what query routers decide, and why.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser(
        "inspect", help="route one prompt and show every decision with its evidence"
    )
    run.add_argument("text", metavar="TEXT", help="the prompt; '-' reads it from stdin")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--today", metavar="YYYY-MM-DD", help="the date the routers see")
    run.add_argument("--rules", metavar="FILE", help="a TOML rule pack (default: built-in)")
    run.add_argument("--context", metavar="FILE", help="router contract context (JSON)")
    run.add_argument("--catalog", metavar="PATH", help="tool catalog (default: the sample)")
    run.add_argument("--no-tools", action="store_true", help="skip the tool search")

    contract = commands.add_parser(
        "decide", help="the router contract's decision and tool plan for one user turn"
    )
    contract.add_argument("text", metavar="TEXT", help="the user's text; '-' reads stdin")
    contract.add_argument("--json", action="store_true", help="print one JSON object")
    contract.add_argument("--context", metavar="FILE", help="router context as JSON")
    contract.add_argument("--rules", metavar="FILE", help="a TOML rule pack (default: built-in)")

    tools = commands.add_parser(
        "tools", help="rank the tools of a catalog for a prompt, every rank explained"
    )
    tools.add_argument("text", metavar="TEXT", nargs="?", help="the prompt; '-' reads stdin")
    tools.add_argument("--json", action="store_true", help="print one JSON object")
    tools.add_argument("--catalog", metavar="PATH", help="SKILL.md folder or JSON list")
    tools.add_argument(
        "--strategy", default="auto", choices=["auto", "exact", "semantic", "hybrid"]
    )
    tools.add_argument("-k", type=int, default=10, help="how many tools to show (default 10)")
    tools.add_argument("--eval", metavar="SUITE", help="hit@1, hit@3 and MRR per signal")

    regress = commands.add_parser(
        "regress", help="run regression suites; exit 1 when any case fails"
    )
    regress.add_argument("suites", metavar="SUITE", nargs="+", help="suite files (YAML)")
    regress.add_argument("--json", action="store_true", help="print one JSON object")
    regress.add_argument(
        "--update", action="store_true", help="accept current results as the new goldens"
    )

    schema = commands.add_parser("schema", help="print the JSON Schema of the result models")
    schema.add_argument(
        "model", nargs="?", default="inspection", choices=["inspection", "decision", "context"]
    )
    schema.add_argument("--json", action="store_true", help="accepted for symmetry; always JSON")

    commands.add_parser("gui", help="open the Routescope window")
    return parser


def _read_text(value: str) -> str:
    if value != "-":
        return value
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"stdin is not UTF-8 text (invalid byte at offset {exc.start})") from None


def _parse_today(value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise _UsageError(f"--today: expected a date as YYYY-MM-DD, got {value!r}") from None


def _rules(path: str | None) -> RulePack:
    return load_rules(path) if path else default_rules()


def _context(path: str | None) -> RouterContext | None:
    if path is None:
        return None
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _UsageError(f"{path}: cannot read context: {exc}") from None
    try:
        return RouterContext.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise _UsageError(f"{path}: invalid context: {where}: {first['msg']}") from None


class _Style:
    def __init__(self, stream: TextIO) -> None:
        self.on = stream.isatty() and "NO_COLOR" not in os.environ

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text


def _summary(result: Inspection, style: _Style) -> str:
    ctx = result.context
    lines = [
        f"{style('strategy', '1')}  {style(result.strategy.upper(), '1;36')}  "
        f"{result.strategy_reason}",
        f"{style('goal', '1')}      {_clip(ctx.user_goal)}",
    ]
    entities = " · ".join(
        f"{e.text} {style(f'({e.kind} {e.score:g} @{e.start}–{e.end})', '2')}"
        for e in ctx.entities.details
    )
    lines.append(f"{style('entities', '1')}  {entities or '—'}")
    place = ctx.entities.place
    place_text = (
        f"{place.text} {style(f'({place.rule} @{place.start}–{place.end})', '2')}" if place else "—"
    )
    lines.append(f"{style('place', '1')}     {place_text}")
    flags = []
    for name, on in dataclasses.asdict(ctx.intent).items():
        words = sorted({m.text.lower() for m in ctx.intent_matches if m.intent == name})
        evidence = f" {style(', '.join(words), '2')}" if words else ""
        flags.append(style(f"● {name}", "1;32") + evidence if on else style(f"○ {name}", "2"))
    lines.append(f"{style('intents', '1')}   " + "   ".join(flags))
    lines.append(f"{style('openclaw', '1')}  {result.plan.openclaw_gate}")
    lines.append(style("actions", "1"))
    for number, action in enumerate(result.actions, start=1):
        lines.append(f"  {number}. [p{action.priority}] {style(_clip(action.query), '1')}")
        lines.append(style(f"       from {action.source}", "2"))
        for edit in action.edits:
            lines.append(style(f"       {edit.rule}: {edit.detail}", "33"))
    lines += _lint_lines(result, style)
    if result.decision is not None:
        lines += _decision_lines(result.decision, style)
    timings = " · ".join(f"{k} {v:,.0f} µs" for k, v in result.timings_us.items())
    lines.append(f"{style('timings', '1')}   {timings}")
    return "\n".join(lines)


def _lint_lines(result: Inspection, style: _Style) -> list[str]:
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
        lines.append(f"          expanded: {_clip(lint.expanded_query)} ({reasons})")
    return lines


def _decision_lines(decision: RouterDecision, style: _Style) -> list[str]:
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
    return lines


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} chars)"


def _cmd_inspect(args: argparse.Namespace) -> int:
    today = _parse_today(args.today)
    rules = _rules(args.rules)
    context = _context(args.context)
    tools = _catalog(args.catalog) if args.json and not args.no_tools else None
    result = inspect(_read_text(args.text), today=today, rules=rules, context=context, tools=tools)
    if args.json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(_summary(result, _Style(sys.stdout)) + "\n")
    return 0


def _cmd_decide(args: argparse.Namespace) -> int:
    rules = _rules(args.rules)
    if not rules.contract.enabled:
        raise _UsageError(f"the router contract is disabled by rule pack {rules.name!r}")
    context = _context(args.context)
    text = validate_text(_read_text(args.text))
    decision = decide(text, context, rules)
    if args.json:
        sys.stdout.write(decision.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(_decision_lines(decision, _Style(sys.stdout))) + "\n")
    return 0


def _catalog(path: str | None) -> ToolSearch:
    return ToolSearch(load_catalog(path or str(resources_root() / "catalog")))


def _cmd_tools(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise _UsageError("-k must be at least 1")
    search = _catalog(args.catalog)
    if args.eval:
        rows = evaluate(load_suite(args.eval), search)
        if args.json:
            sys.stdout.write(json.dumps([dataclasses.asdict(r) for r in rows], indent=2) + "\n")
        else:
            sys.stdout.write(f"{'signal':<10}{'cases':>6}{'hit@1':>8}{'hit@3':>8}{'MRR':>8}\n")
            for r in rows:
                sys.stdout.write(
                    f"{r.mode:<10}{r.cases:>6}{r.hit_at_1:>8.2f}{r.hit_at_3:>8.2f}{r.mrr:>8.3f}\n"
                )
            if search.vector is None:
                sys.stdout.write(f"vector: {search.semantic_status}\n")
        return 0
    if args.text is None:
        raise _UsageError("give a TEXT to search for, or --eval SUITE")
    text = validate_text(_read_text(args.text))
    result = search.search(text, SearchSettings(strategy=args.strategy, k=args.k))
    if args.json:
        sys.stdout.write(
            json.dumps(dataclasses.asdict(result), indent=2, ensure_ascii=False) + "\n"
        )
    else:
        sys.stdout.write(_tools_text(result, search, _Style(sys.stdout)) + "\n")
    return 0


def _tools_text(result: ToolSearchResult, search: ToolSearch, style: _Style) -> str:
    lines = [
        f"{style('strategy', '1')}  {result.strategy}: {result.strategy_reason}",
        f"{style('filter', '1')}    {result.category_filter or '—'} "
        f"({result.category_filter_reason})",
    ]
    if search.vector is None:
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
        lines.append(
            f"  {hit.rank:>2} {hit.tool_name:<22}{hit.score:>9.4f} {keyword:>16} {vector:>14} "
            f"{boosts:>+8.3f}{tie}"
        )
        if s.keyword and s.keyword.fields:
            parts = ", ".join(
                f"{f} {v:.1f} ({' '.join(s.keyword.matched_terms[f])})"
                for f, v in s.keyword.fields.items()
            )
            lines.append(style(f"       fields: {parts}", "2"))
    if result.runner_up_gap is not None:
        lines.append(f"runner-up gap {result.runner_up_gap:.4f}")
    return "\n".join(lines)


def _cmd_regress(args: argparse.Namespace) -> int:
    suites = [load_suite(path) for path in args.suites]
    results = [run_suite(suite) for suite in suites]
    updated = 0
    if args.update:
        updated = sum(update_goldens(s, r) for s, r in zip(suites, results, strict=True))
        results = [run_suite(load_suite(suite.path)) for suite in suites]
    if args.json:
        payload = {"suites": [dataclasses.asdict(r) for r in results], "updated": updated}
        sys.stdout.write(json.dumps(payload, indent=2, default=str) + "\n")
    else:
        style = _Style(sys.stdout)
        for result in results:
            sys.stdout.write(_regress_text(result, style) + "\n")
        if args.update:
            sys.stdout.write(f"updated {updated} golden value(s)\n")
    return 0 if all(r.failed == 0 for r in results) else 1


def _regress_text(result: SuiteResult, style: _Style) -> str:
    lines = [style(f"suite {result.suite} ({result.path}, router {result.router})", "1")]
    for case in result.cases:
        mark = style("✓", "32") if case.passed else style("✗", "1;31")
        lines.append(f"  {mark} {case.id}")
        for diff in case.diffs:
            lines.append(
                f"      {diff.path}: expected {_show(diff.expected)} ({diff.matcher}), "
                f"got {_show(diff.actual)}"
            )
    lines += _report_lines(result.report)
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


def _show(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


_SCHEMAS: dict[str, type[BaseModel]] = {
    "inspection": Inspection,
    "decision": RouterDecision,
    "context": RouterContext,
}


def _cmd_schema(args: argparse.Namespace) -> int:
    schema = _SCHEMAS[args.model].model_json_schema()
    sys.stdout.write(json.dumps(schema, indent=2) + "\n")
    return 0


def _cmd_gui(_: argparse.Namespace) -> int:
    try:
        from routescope_gui.app import main as gui_main
    except ImportError as exc:
        raise _UsageError(f"the GUI is not installed ({exc}); install routescope[gui]") from None
    return gui_main([])


_COMMANDS = {
    "inspect": _cmd_inspect,
    "decide": _cmd_decide,
    "tools": _cmd_tools,
    "regress": _cmd_regress,
    "schema": _cmd_schema,
    "gui": _cmd_gui,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit status."""
    try:
        args = _build_parser().parse_args(argv)
        return _COMMANDS[args.command](args)
    except (_UsageError, RoutescopeError) as exc:
        print(f"routescope: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of ours.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug of ours: still one line, never a traceback
        print(f"routescope: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
