"""Exports of one inspection: JSON (the `Inspection` as `inspect --json` prints it) and a
Markdown summary a person reads (strategy and why, planned queries, linter, contract plan, the
top tools, the task router); `export_inspection` writes either atomically, as session files
are written."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._inspect import inspection_json
from ._session import write_file

if TYPE_CHECKING:
    from .._inspect import Inspection
    from .._request import Request

__all__ = ["export_inspection", "export_markdown", "to_json"]

TOP_TOOLS = 5
_CELL_LIMIT = 300
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def to_json(inspection: Inspection) -> str:
    """The inspection as indented JSON (what `routescope inspect --json` prints: the one
    serializer, `routescope.inspection_json`)."""
    return inspection_json(inspection)


def export_inspection(
    path: str | Path,
    inspection: Inspection,
    kind: Literal["json", "md"] = "json",
    request: Request | None = None,
) -> Path:
    """Write one inspection to `path` as JSON (`to_json`) or Markdown (`export_markdown`, which
    names the `request`), atomically. Returns the path; HistoryError (one line) when it cannot
    be written."""
    path = Path(path)
    text = to_json(inspection) if kind == "json" else export_markdown(inspection, request)
    write_file(path, text.encode("utf-8", "surrogatepass"), "export the inspection")
    return path


def _text(value: object, limit: int | None = _CELL_LIMIT) -> str:
    """A value inside Markdown: one line, control characters shown escaped, Markdown's
    special characters escaped (a prompt cannot add links, HTML or table cells)."""
    text = str(value)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    text = "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _code(value: object, limit: int | None = _CELL_LIMIT) -> str:
    """A value as inline code (a fence longer than any run of backticks inside it)."""
    text = str(value)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    text = "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)
    text = text.replace("|", "\\|")  # a table cell ends at a bare pipe, even in code
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _block(text: str) -> list[str]:
    """A multi-line text as a fenced block that nothing inside can close."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = "".join(
        char if char.isprintable() or char in "\n\t" else ascii(char)[1:-1] for char in text
    )
    return [f"{fence}text", *body.splitlines(), fence]


def export_markdown(inspection: Inspection, request: Request | None = None) -> str:
    """A readable summary of one inspection, as Markdown: the prompt, the strategy and why,
    the planned queries, the linter's class and expansion, the contract's plan, the top 5
    tools and the task router's decision. Text from the prompt or the rule pack is escaped."""
    result = inspection
    lines = ["# Routescope inspection", ""]
    lines += _block(result.context.raw_text)
    lines.append("")
    facts = [f"date {_code(result.today.isoformat())}", f"rule pack {_code(result.rules)}"]
    if request is not None:
        facts.append(f"request {_code(request.fingerprint()[:16])}")
        if request.catalog is not None:
            facts.append(f"catalog {_code(request.catalog.path)}")
    lines += [" · ".join(facts), ""]

    lines += [
        f"## Strategy: {_text(result.strategy)}",
        "",
        f"{_text(result.strategy_reason)} (rule {_code(result.strategy_rule)})",
        "",
    ]
    lines += ["### Planned queries", ""]
    if result.actions:
        lines += ["| # | query | priority | from | tool |", "| --- | --- | --- | --- | --- |"]
        for number, action in enumerate(result.actions, start=1):
            lines.append(
                f"| {number} | {_code(action.query)} | {action.priority} | "
                f"{_code(action.source)} | {_code(action.tool)} |"
            )
            lines += [
                f"|  | ↳ {_code(edit.rule)}: {_text(edit.detail)} |  |  |  |"
                for edit in action.edits
            ]
    else:
        lines.append("No search planned.")
    lines.append("")

    lint = result.lint
    lines += [
        f"## Linter: {_text(lint.query_class)}",
        "",
        f"{_text(lint.classification.rule)}",
        "",
    ]
    anchors = lint.anchors_detected
    found = [*anchors.strong, *(f"{word} (weak)" for word in anchors.weak)]
    lines.append("- anchors: " + (", ".join(_code(a) for a in found) if found else "none"))
    if lint.changed:
        reasons = lint.changes.get("reasons") or []
        lines.append(
            f"- expanded: {_code(lint.expanded_query)}"
            + (f" ({', '.join(_text(r) for r in reasons)})" if reasons else "")
        )
    else:
        lines.append("- not expanded")
    lines.append("")

    decision = result.decision
    if decision is None:
        lines += ["## Contract", "", "Disabled by the rule pack.", ""]
    else:
        lines += [
            f"## Contract: {_text(decision.agent)} / {_text(decision.mode)}",
            "",
            f"UI {_code(decision.ui)} · stop {_code(decision.stop_condition)}",
            "",
        ]
        why = "; ".join(
            _code(hit.rule) + (f" ({_code(hit.text)})" if hit.text else "")
            for hit in decision.rules_fired
        )
        if why:
            lines += [f"Why: {why}", ""]
        if decision.tool_plan:
            lines += [
                f"{number}. {_code(call.tool)} {_code(json.dumps(call.args, ensure_ascii=False))}"
                for number, call in enumerate(decision.tool_plan, start=1)
            ]
        else:
            lines.append("No tool planned.")
        lines += [
            f"- guardrail {_code(event.rule)}: {_text(event.detail)}"
            for event in decision.guardrails
        ]
        lines.append("")

    tools = result.tools
    if tools is not None:
        lines += [
            f"## Tools: {_text(tools.strategy)}",
            "",
            f"{_text(tools.strategy_reason)}",
            "",
        ]
        if tools.results:
            lines += ["| # | tool | score | category |", "| --- | --- | --- | --- |"]
            lines += [
                f"| {hit.rank} | {_code(hit.tool_name)} | {hit.score:.4f} | "
                f"{_code(hit.category) if hit.category else '—'} |"
                for hit in tools.results[:TOP_TOOLS]
            ]
        else:
            lines.append("No tool ranked.")
        lines += ["", _text(tools.fit_reason), ""]

    task = result.task
    lines += [
        f"## Task: {_text(task.route)}",
        "",
        f"{_text(task.reason)}",
        "",
        f"- goal: {_code(task.user_goal)}",
    ]
    lines += [f"- search: {_code(action.query)}" for action in task.actions]
    lines.append("")
    return "\n".join(lines)
