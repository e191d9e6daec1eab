"""`routescope history`: the store the window records into, from the command line — list,
search, show and rerun an entry, export entries as JSON lines.

The store is only read (`History.open(read_only=True)`): nothing is recorded, repaired, moved
aside or trimmed, and a missing store, a file that is not one (left as it is) or an unknown
entry is one line, exit 2. `show` and `rerun` run the stored request (its text, date, rule
pack, context and catalog) through the pipeline again: the store keeps each entry's request
and the summary of its result, not the whole result."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from .._errors import CatalogError, HistoryError
from .._json import to_json
from ._parser import UsageError
from ._render import Style, clip, inspection_text
from ._terminal import escape, escaped

if TYPE_CHECKING:
    from .._inspect import Inspection
    from .._request import Request
    from ..history import Entry, History, Summary
    from ..toolsearch import Engines, ToolSearch

__all__ = ["cmd_history"]

Write = Callable[[str], int]
"""Print text on stdout (one line: "cannot write the output")."""

_COMPARED = ("strategy", "lint_class", "top_tool", "agent", "task_route")
"""The fields of an entry's summary that `rerun` compares (the `Summary` spelling)."""


def cmd_history(
    args: argparse.Namespace,
    write: Write,
    engines: Callable[[], Engines],
    report: Callable[[ToolSearch], None],
) -> int:
    """Run `routescope history ACTION` (`write` prints, `engines` gives the command's tool
    search engines, `report` shows an engine's notes)."""
    if getattr(args, "limit", None) is not None and args.limit < 1:
        raise UsageError("--limit must be at least 1")
    history = _open(args.store)
    try:
        if args.action in ("list", "search"):
            return _list(args, history, write)
        if args.action == "export":
            return _export(args, history, write)
        return _run(args, history, write, engines, report)
    finally:
        history.close()


def _open(store: str | None) -> History:
    """The store, opened to read: HistoryError (one line) when it cannot be."""
    from ..history import History, default_history_path

    history = History.open(Path(store) if store else default_history_path(), read_only=True)
    if not history.enabled:
        _fail(history)
    return history


def _fail(history: History) -> None:
    problem = history.problem
    if problem is not None:
        raise problem


def _filters(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "query": " ".join(getattr(args, "words", None) or []),
        "strategy": args.strategy,
        "lint_class": args.lint_class,
        "top_tool": args.top_tool,
        "pinned": True if args.pinned else None,
        "rules": args.rules,
    }


def _found(history: History, filters: dict[str, Any], limit: int | None) -> tuple[list[Entry], int]:
    """The entries found (newest first; all without a limit) and how many there are."""
    total = history.count(**filters)
    entries = history.search(**filters, limit=total if limit is None else limit)
    _fail(history)  # a read that failed says why (search and count never raise)
    return entries, total


# -- list and search -----------------------------------------------------------------------


def _list(args: argparse.Namespace, history: History, write: Write) -> int:
    entries, total = _found(history, _filters(args), args.limit)
    if args.json:
        import json

        data = {"store": str(history.path), "total": total, "entries": _plain(entries)}
        return write(json.dumps(data, indent=2, ensure_ascii=False))
    return write(_list_text(entries, total, Style(sys.stdout)))


def _plain(entries: list[Entry]) -> list[Any]:
    from pydantic import TypeAdapter

    from ..history import Entry

    return list(TypeAdapter(list[Entry]).dump_python(entries, mode="json"))


def _list_text(entries: list[Entry], total: int, style: Style) -> str:
    if not entries:
        return "no entries" + (f" (of {total:,})" if total else "")
    lines = [
        style(
            f"{'id':>6}  {'last seen (UTC)':<16}  {'strategy':<8} {'lint':<6} "
            f"{'top tool':<20}  prompt",
            "1",
        )
    ]
    for entry in entries:
        summary = entry.summary
        marks = (f"  ×{entry.count}" if entry.count > 1 else "") + (
            "  pinned" if entry.pinned else ""
        )
        lines.append(
            f"{entry.id:>6}  {entry.last_seen:%Y-%m-%d %H:%M}  {summary.strategy:<8} "
            f"{summary.lint_class:<6} {escape(summary.top_tool or '—'):<20}  "
            f"{escape(clip(entry.text, 80))}" + style(marks, "2")
        )
    more = "; --limit N shows more" if total > len(entries) else ""
    lines.append(style(f"{len(entries):,} of {total:,} entries, newest first{more}", "2"))
    return "\n".join(lines)


# -- export --------------------------------------------------------------------------------


def _export(args: argparse.Namespace, history: History, write: Write) -> int:
    from .._files import existing_output, replace_file_with

    target = Path(args.out)
    if _same_file(target, history.path):
        raise UsageError(f"--out {escape(args.out)}: that is the history store itself")
    entries, _total = _found(history, _filters(args), args.limit)
    try:
        like = existing_output(target)
        replace_file_with(target, _lines_writer(entries), like=like, mode=0o666)
    except OSError as exc:
        raise UsageError(f"--out {escape(args.out)}: {exc.strerror or exc}") from None
    if args.json:
        import json

        return write(json.dumps({"out": str(target), "entries": len(entries)}, indent=2))
    return write(escape(f"{len(entries):,} entries → {target}"))


def _same_file(target: Path, store: Path) -> bool:
    try:
        return target.exists() and target.samefile(store)
    except OSError:
        return False


def _lines_writer(entries: list[Entry]) -> Callable[[BinaryIO], None]:
    """Writes one JSON object a line (the entries `list --json` prints), newest first."""

    def write(stream: BinaryIO) -> None:
        for line in _json_lines(entries):
            stream.write(line)

    return write


def _json_lines(entries: Iterable[Entry]) -> Iterator[bytes]:
    from pydantic import TypeAdapter

    from ..history import Entry

    adapter = TypeAdapter(Entry)
    for entry in entries:
        yield adapter.dump_json(entry) + b"\n"


# -- show and rerun ------------------------------------------------------------------------


def _run(
    args: argparse.Namespace,
    history: History,
    write: Write,
    engines: Callable[[], Engines],
    report: Callable[[ToolSearch], None],
) -> int:
    """`show ID` (the entry, then its inspection) and `rerun ID` (the inspection, then whether
    the decision is still the stored one)."""
    from .._inspect import inspect, warm_up

    entry = history.get(args.id)
    _fail(history)
    if entry is None:
        raise HistoryError(
            f"{history.path}: no entry {args.id} ('routescope history list' shows the ids)"
        )
    request = history.reopen(entry.id)
    tools = None
    if request.catalog is not None and not args.no_tools:
        try:
            tools = engines().get(request.catalog)
        except CatalogError as exc:
            raise CatalogError(f"{exc} (--no-tools runs the entry without its tools)") from None
    warm_up(request.rules.load())
    result = inspect(request, tools=tools)
    if tools is not None:
        report(tools)
    if args.action == "show":
        if args.json:
            return write(to_json(result))
        style = Style(sys.stdout)
        return write(_entry_text(entry, request, style) + "\n" + _inspection(result, style))
    changes = _changes(entry.summary, result, ranked=tools is not None)
    if args.json:
        return write(_rerun_json(entry, changes, result))
    style = Style(sys.stdout)
    return write(_inspection(result, style) + "\n" + _verdict(entry, changes, tools, style))


def _inspection(result: Inspection, style: Style) -> str:
    return inspection_text(escaped(result), style)


def _changes(stored: Summary, result: Inspection, *, ranked: bool) -> list[tuple[str, Any, Any]]:
    """(field, stored, now) for each summary field that differs; the top tool only when the
    tools were ranked again."""
    from ..history import Summary

    now = Summary.of(result.outcome)
    return [
        (name, getattr(stored, name), getattr(now, name))
        for name in _COMPARED
        if (ranked or name != "top_tool") and getattr(stored, name) != getattr(now, name)
    ]


def _rerun_json(entry: Entry, changes: list[tuple[str, Any, Any]], result: Inspection) -> str:
    import json

    data = {
        "entry": _plain([entry])[0],
        "same": not changes,
        "changes": [{"field": name, "stored": old, "now": new} for name, old, new in changes],
        "inspection": json.loads(to_json(result)),
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


def _verdict(
    entry: Entry, changes: list[tuple[str, Any, Any]], tools: ToolSearch | None, style: Style
) -> str:
    skipped = "" if tools is not None or entry.catalog is None else " (tools not ranked)"
    if not changes:
        return style(f"same decision as stored in entry {entry.id}{skipped}", "1;32")
    differs = "; ".join(
        f"{name} {escape(str(old or '—'))} → {escape(str(new or '—'))}"
        for name, old, new in changes
    )
    return style(f"differs from entry {entry.id}{skipped}: {differs}", "1;33")


def _entry_text(entry: Entry, request: Request, style: Style) -> str:
    seen = (
        f"seen {entry.count}× · first {entry.first_seen:%Y-%m-%d %H:%M} · last "
        f"{entry.last_seen:%Y-%m-%d %H:%M} UTC" + (" · pinned" if entry.pinned else "")
    )
    catalog = entry.catalog
    where = "—" if catalog is None else f"{catalog.path} (digest {catalog.digest}, {catalog.model})"
    context = request.context
    given = (
        "—" if context is None else context.model_dump_json(by_alias=True, exclude_defaults=True)
    )
    summary = entry.summary
    stored = (
        f"strategy {summary.strategy} · lint {summary.lint_class} · top tool "
        f"{summary.top_tool or '—'} · agent {summary.agent or '—'} · task {summary.task_route}"
    )
    rows = [
        (f"entry {entry.id}", seen),
        ("prompt", clip(entry.text)),
        ("date", entry.today.isoformat()),
        ("rules", f"{entry.rules_source} (digest {entry.rules_digest})"),
        ("catalog", where),
        ("context", clip(given)),
        ("stored", stored),
    ]
    return "\n".join(style(name.ljust(10), "1") + escape(value) for name, value in rows) + "\n"
