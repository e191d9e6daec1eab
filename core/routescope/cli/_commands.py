"""The `routescope` commands: each builds a `Request`, runs it and prints text or JSON."""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import functools
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import InputError
from .._input import MAX_INPUT_CHARS
from .._json import to_json
from .._request import CatalogRef, Request
from .._resources import resources_root
from ..toolsearch import SearchSettings
from ._parser import UsageError
from ._render import Style, decision_text, eval_text, inspection_text, regress_text, tools_text
from ._report import router_errors_line
from ._terminal import escape, escaped

if TYPE_CHECKING:
    from ..batch import BatchQuality, BatchSummary
    from ..contract import RouterContext
    from ..judge import RouteScore
    from ..regress import Suite, SuiteResult
    from ..toolsearch import Engines, ToolSearch

# Each command imports what only it needs when it runs: `decide` never loads the strategy
# router or the linter, and no command but those that rank tools loads the engine.

__all__ = ["COMMANDS", "catalog_tools"]


_MAX_STDIN_BYTES = 4 * MAX_INPUT_CHARS
"""UTF-8 takes at most four bytes a character: more cannot be a prompt the routers accept."""
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _read_text(value: str) -> str:
    if value != "-":
        return value
    data = sys.stdin.buffer.read(_MAX_STDIN_BYTES + 1)
    if len(data) > _MAX_STDIN_BYTES:
        raise InputError(f"stdin is too large (more than {_MAX_STDIN_BYTES:,} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"stdin is not UTF-8 text (invalid byte at offset {exc.start})") from None


def _parse_today(value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        if not _DATE.fullmatch(value):
            raise ValueError("not YYYY-MM-DD")
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        shown = escape(repr(value))
        raise UsageError(f"--today: expected a date as YYYY-MM-DD, got {shown} ({exc})") from None


def _context(value: str | None) -> RouterContext | str | None:
    """`--context`: a file's path, or the JSON object itself (what "copy as command line"
    writes: the command then needs no file beside it)."""
    if value is not None and value.lstrip().startswith("{"):
        from ..contract import parse_context

        return parse_context(value, "--context")
    return value


def _search(value: str | None) -> SearchSettings | None:
    """`--search`: the tool search's settings that differ from the defaults, as JSON."""
    if value is None:
        return None
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--search: not JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(data, dict):
        raise UsageError("--search: expected a JSON object of search settings")
    known = [field.name for field in dataclasses.fields(SearchSettings)]
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        shown = escape(repr(unknown[0][:80]))
        raise UsageError(f"--search: no setting {shown} (the settings: {', '.join(known)})")
    return SearchSettings(**data)


_MAX_PROBLEMS_SHOWN = 20
_PROGRESS_FROM_TOOLS = 500


def catalog_tools(path: str | None) -> tuple[CatalogRef, ToolSearch]:
    """A catalog loaded once: its reference for the request, its engine for the search. Skills
    and records that were skipped are reported on stderr, one line each."""
    from ..toolsearch import load_catalog

    folder = Path(path).resolve() if path else CatalogRef.sample_path()
    catalog = load_catalog(folder)
    skipped, more = catalog.skipped(_MAX_PROBLEMS_SHOWN)
    for problem in skipped:
        _warn(f"skipped: {problem}")
    if more:
        _warn(f"… and {more} more skipped")
    return CatalogRef.of(catalog), _engines().of(catalog)


@functools.cache
def _engines() -> Engines:
    """The command's engines: `compare` ranks two catalogs, or one catalog for both sides."""
    from ..toolsearch import Engines

    return Engines(progress=_progress)


def _progress(done: int, total: int) -> None:
    """The first search of a catalog embeds its tools: show how far, on a terminal."""
    if sys.stderr is not None and sys.stderr.isatty() and total >= _PROGRESS_FROM_TOOLS:
        end = "\n" if done >= total else ""
        print(f"\rroutescope: embedding tools {done:,}/{total:,}", end=end, file=sys.stderr)


def _report(search: ToolSearch) -> None:
    """What happened to the caches (rebuilt, a temporary folder used), after the work."""
    if search.cache_status != "ok":
        _warn(search.cache_status)
    for note in search.notes:
        _warn(note)


def _warn(message: str) -> None:
    print(f"routescope: warning: {escape(message)}", file=sys.stderr)


def _write(text: str) -> int:
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk, a stream closed under us
        raise UsageError(f"cannot write the output: {exc.strerror or exc}") from None
    return 0


def _cmd_inspect(args: argparse.Namespace) -> int:
    from .._inspect import inspect, inspect_all, inspection_json, warm_up

    # JSON holds every router, the sample catalog's ranking included; text mode ranks tools
    # only for a catalog named on the command line.
    wants_tools = not args.no_tools and (args.json or args.catalog is not None)
    # (loaded here to report its skipped entries; `inspect_all` finds its engine kept)
    catalog, tools = catalog_tools(args.catalog) if wants_tools else (None, None)
    request = Request.build(
        _read_text(args.text),
        today=_parse_today(args.today),
        rules=args.rules,
        context=_context(args.context),
        catalog=catalog,
        search=_search(args.search),
    )
    # The first prompt of a process compiles the pack's patterns (tens of milliseconds): done on
    # a warm-up prompt first, the timings shown are those of routing this one, as in a batch.
    warm_up(request.rules.load())
    if args.json and not args.counterfactuals:
        # The window's "Export inspection as JSON" is this same call and serializer.
        request, result = inspect_all(request, engines=_engines(), tools=wants_tools)
    else:
        result = inspect(request, tools=tools)
    if args.counterfactuals:
        from ._compare import inspect_why

        return inspect_why(args, request, result, tools)
    if tools is not None:
        _report(tools)
    if args.json:
        return _write(inspection_json(result))
    return _write(inspection_text(escaped(result), Style(sys.stdout)))


def _cmd_route(args: argparse.Namespace) -> int:
    from ._route import cmd_route

    args.today = _parse_today(args.today)
    return cmd_route(args, _read_text(args.text), _write)


def _cmd_compare(args: argparse.Namespace) -> int:
    from ._compare import cmd_compare

    return cmd_compare(args)


def _cmd_decide(args: argparse.Namespace) -> int:
    from .._input import validate_text
    from ..contract import decide

    request = Request.build(_read_text(args.text), rules=args.rules, context=_context(args.context))
    rules = request.rules.load()
    if not rules.contract.enabled:
        raise UsageError(f"the router contract is disabled by rule pack {rules.name!r}")
    decision = decide(validate_text(request.text), request.context, rules)
    if args.json:
        return _write(to_json(decision))
    return _write(decision_text(escaped(decision), Style(sys.stdout)))


def _cmd_tools(args: argparse.Namespace) -> int:
    from .._input import validate_text
    from ..regress import evaluate, load_suite

    if args.k < 1:
        raise UsageError("-k must be at least 1")
    if args.text is None and not args.eval:
        raise UsageError("give a TEXT to search for, or --eval SUITE")
    suite = load_suite(args.eval) if args.eval else None
    catalog, search = catalog_tools(args.catalog)
    if suite is not None:
        rows = evaluate(suite, search)
        _report(search)
        if args.json:
            return _write(json.dumps([_eval_row(r) for r in rows], indent=2))
        return _write(eval_text(escaped(rows), escape(search.semantic_status)))
    request = Request.build(
        validate_text(_read_text(args.text)),
        catalog=catalog,
        search=SearchSettings(
            strategy=args.strategy,
            k=args.k,
            fusion=args.fusion,
            fit_threshold=args.fit_threshold,
            split_steps=not args.no_steps,
        ),
    )
    result = search.search(request.text, request.search)
    _report(search)
    if args.json:
        return _write(to_json(result))
    return _write(tools_text(escaped(result), Style(sys.stdout)))


def _eval_row(row: object) -> object:
    return json.loads(to_json(row))


def _builtin_suites() -> list[Path]:
    return sorted(Path(str(resources_root() / "fixtures")).glob("*.yaml"))


def _cmd_regress(args: argparse.Namespace) -> int:
    from ..regress import load_suite, skipped_goldens, suite_quality, update_goldens
    from ._judge import route_card_lines, scorecard_text

    paths = [Path(p) for p in args.suites] + (_builtin_suites() if args.builtin else [])
    if not paths:
        raise UsageError("give SUITE files, or --builtin for the suites shipped with Routescope")
    if args.update and args.builtin:
        raise UsageError("--update rewrites suite files: name them, not --builtin")
    suites = [load_suite(path) for path in paths]
    results, routes = _run_suites(suites)
    updated = 0
    skipped: list[tuple[str, str]] = []
    if args.update:
        updated = sum(update_goldens(s, r) for s, r in zip(suites, results, strict=True))
        skipped = [pair for result in results for pair in skipped_goldens(result)]
        results, routes = _run_suites([load_suite(suite.path) for suite in suites])
    quality = {str(s.path): q for s in suites if (q := suite_quality(s)) is not None}
    if args.json:
        payload = {
            "suites": [json.loads(to_json(r)) for r in results],
            "updated": updated,
            "quality": {path: score.to_json() for path, score in quality.items()},
            "routes": {
                path: {name: card.to_json() for name, card in cards.items()}
                for path, cards in routes.items()
            },
        }
        _write(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        style = Style(sys.stdout)
        for result in results:
            _write(regress_text(result, style))
        for path, score in quality.items():
            _write(escape(f"quality of the labelled cases of {path}:"))
            _write("\n".join(escape(line) for line in scorecard_text(score).splitlines()))
        for path, cards in routes.items():
            _write(escape(f"routes of the labelled cases of {path}:"))
            for card in cards.values():
                _write("\n".join(escape(line) for line in route_card_lines(card)))
        if args.update:
            _write(f"updated {updated} golden value(s)")
            for case_id, path in skipped:
                _write(escape(f"not accepted: case {case_id}: {path} is not in the result"))
    return 0 if all(r.failed == 0 for r in results) else 1


def _run_suites(
    suites: list[Suite],
) -> tuple[list[SuiteResult], dict[str, dict[str, RouteScore]]]:
    """Each suite's result, and the scorecards of the external routers its cases label (each
    suite's routers started once, for its expectations and its labels)."""
    from ..regress import SuiteRouters, route_quality, run_suite

    results = []
    routes = {}
    for suite in suites:
        if suite.routers is None:
            results.append(run_suite(suite))
            continue
        with SuiteRouters(suite) as routers:
            results.append(run_suite(suite, routers=routers))
            cards = route_quality(suite, routers)
        if cards:
            routes[str(suite.path)] = cards
    return results, routes


def _cmd_score(args: argparse.Namespace) -> int:
    from ._judge import cmd_score

    return cmd_score(args)


def _cmd_suggest(args: argparse.Namespace) -> int:
    from ._judge import cmd_suggest

    return cmd_suggest(args)


def _cmd_schema(args: argparse.Namespace) -> int:
    from pydantic import BaseModel

    from .._inspect import Inspection
    from ..contract import RouterContext, RouterDecision

    schemas: dict[str, type[BaseModel]] = {
        "inspection": Inspection,
        "decision": RouterDecision,
        "context": RouterContext,
    }
    return _write(json.dumps(schemas[args.model].model_json_schema(), indent=2))


def _cmd_research(args: argparse.Namespace) -> int:
    from .._input import validate_text
    from ._research import cmd_research

    return cmd_research(args, validate_text(_read_text(args.text)))


def _cmd_history(args: argparse.Namespace) -> int:
    from ._history import cmd_history

    return cmd_history(args, _write, _engines, _report)


def _cmd_report(args: argparse.Namespace) -> int:
    from ..batch import build_report, compare_results, report_data, write_report
    from ._report import report_lines

    if len(args.results) > 2:
        raise UsageError("report: give one results file, or two (A B) to compare")
    if args.examples < 0 or args.top < 1:
        raise UsageError("--examples must be at least 0 and --top at least 1")
    value = (
        build_report(args.results[0], examples=args.examples, top=args.top, labels=args.labels)
        if len(args.results) == 1
        else compare_results(
            args.results[0],
            args.results[1],
            examples=args.examples,
            top=args.top,
            labels=args.labels,
        )
    )
    try:
        page = write_report(value, Path(args.out))
    except OSError as exc:
        raise UsageError(f"--out {args.out}: {exc.strerror or exc}") from None
    if args.json:
        return _write(json.dumps(report_data(value), indent=2, ensure_ascii=False))
    lines = [*report_lines(value), f"wrote {page} and report.json"]
    return _write("\n".join(escape(line) for line in lines))


_SIZE = re.compile(r"(\d+)\s*([kKmM]?)[bB]?")


def _cmd_batch(args: argparse.Namespace) -> int:
    import logging

    from ..batch import BatchOptions, run_batch

    block_size = None
    if args.block_size is not None:
        size = _SIZE.fullmatch(args.block_size.strip())
        if size is None:
            shown = escape(args.block_size)
            raise UsageError(f"--block-size: a size such as 256k or 4M, not {shown}")
        scale = {"": 1, "k": 1 << 10, "m": 1 << 20}[size.group(2).lower()]
        block_size = int(size.group(1)) * scale
    if args.k is not None and args.catalog is None:
        raise UsageError("-k goes with --catalog")
    if args.engine == "dask":
        logging.getLogger("distributed").setLevel(logging.ERROR)
    try:
        options = BatchOptions(
            field=args.field,
            workers=args.workers,
            today=_parse_today(args.today),
            rules=args.rules,
            catalog=args.catalog,
            k=args.k,
            engine=args.engine,
            scheduler=args.scheduler,
            timings=not args.no_timings,
            block_size=block_size,
            labels=args.labels,
            routers=args.routers,
            router_names=tuple(args.router or ()),
        )
        summary = run_batch(args.inputs, args.out, options)
    except KeyboardInterrupt:
        print("routescope: interrupted: run the same command again to continue", file=sys.stderr)
        return 130
    if args.json:
        return _write(to_json(summary))
    return _write(escape(_batch_text(summary), one_line=False))


def _batch_text(summary: BatchSummary) -> str:
    out = summary.out
    if summary.already_complete:
        head = f"already complete: {summary.prompts:,} prompts in {out}"
    else:
        rate = f"{summary.rate:,.0f} lines/s"
        head = f"{summary.prompts:,} prompts → {out} in {summary.seconds:,.1f} s ({rate})"
        if summary.done_before:
            head += f"; continued after {summary.done_before:,} lines done before"
    lines = [head]
    if summary.bad:
        lines.append(f"{summary.bad:,} bad lines → {summary.bad_lines_file}")
        lines += [f"  {b.source}:{b.line}: {b.reason}" for b in summary.first_bad]
        if summary.first_bad and summary.bad > len(summary.first_bad):
            lines.append(f"  … the rest in {summary.bad_lines_file}")
        if summary.bad_not_listed:
            counted = ", ".join(f"{r}: {n:,}" for r, n in summary.bad_not_listed.items())
            lines.append(f"  past the file's first lines, only counted: {counted}")
    lines += [
        router_errors_line(router, summary.prompts, summary.router_errors.get(router, {}))
        for router in summary.routers
    ]
    quality = summary.quality
    if quality is not None:
        lines.append(_quality_line(quality))
    lines += [f"note: {note}" for note in summary.notes]
    return "\n".join(escape(line) for line in lines)


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _quality_line(quality: BatchQuality) -> str:
    head = f"labels {quality.labels}: "
    if not quality.found:
        return head + (
            f"none of its {quality.labelled:,} labelled prompts is in the results "
            "(joined by prompt text)"
        )
    return head + (
        f"{quality.found:,} of {quality.labelled:,} labelled prompts joined "
        f"({quality.joined:,} results scored): macro-F1 {_figure(quality.macro_f1)}, "
        f"strategy accuracy {_figure(quality.strategy_accuracy)}"
    )


COMMANDS = {
    "inspect": _cmd_inspect,
    "route": _cmd_route,
    "compare": _cmd_compare,
    "decide": _cmd_decide,
    "tools": _cmd_tools,
    "regress": _cmd_regress,
    "score": _cmd_score,
    "suggest": _cmd_suggest,
    "research": _cmd_research,
    "batch": _cmd_batch,
    "schema": _cmd_schema,
    "report": _cmd_report,
    "history": _cmd_history,
}
