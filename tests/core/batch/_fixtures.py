"""Results files for the report tests, built with `routescope.inspect` over the prompts of the
built-in suites (until `routescope batch` writes them): one record per prompt with exactly the
fields of the results format, and a leaky rule pack that breaks the seed's promises."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from collections.abc import Iterable
from dataclasses import fields
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

import routescope
from routescope import Inspection, RulePack, resources_root
from routescope.strategy._models import IntentFlags
from routescope.toolsearch import ToolSearch, load_catalog

TODAY = dt.date(2026, 2, 5)
FIXTURES = Path(str(resources_root() / "fixtures"))
CATALOG = Path(str(resources_root() / "catalog"))
DEFAULT_RULES = Path(str(resources_root() / "rules" / "default.toml"))

Prompt = tuple[str, int, str]
"""(source file, line, prompt)"""


def suite_prompts() -> list[Prompt]:
    """Every case prompt of the built-in suites, with its suite file and line."""
    prompts: list[Prompt] = []
    for path in sorted(FIXTURES.glob("*.yaml")):
        cases = YAML(typ="rt").load(path.read_text(encoding="utf-8"))["cases"]
        for index, case in enumerate(cases):
            if isinstance(case.get("prompt"), str):
                line = cases.lc.item(index)[0] + 1
                prompts.append((f"resources/fixtures/{path.name}", line, case["prompt"]))
    return prompts


def tool_search(cache: Path) -> ToolSearch:
    """The sample catalog, keyword-only (no model to load)."""
    return ToolSearch(load_catalog(CATALOG), cache=cache, semantic=False)


def record(source: str, line: int, result: Inspection) -> dict[str, Any]:
    """One results line for an inspection: the fields `routescope batch` writes."""
    intent = result.context.intent
    tools = result.tools
    top = tools.results[0] if tools is not None and tools.results else None
    decision = result.decision
    return {
        "source": source,
        "line": line,
        "prompt": result.context.raw_text,
        "today": result.today.isoformat(),
        "strategy": result.strategy,
        "strategy_rule": result.strategy_rule,
        "intents": [f.name for f in fields(IntentFlags) if getattr(intent, f.name)],
        "entities": list(result.context.entities.candidates),
        "place": result.context.entities.place_hint,
        "has_openclaw": result.context.has_openclaw,
        "queries": [action.query for action in result.actions],
        "raw_queries": [action.raw_query for action in result.actions],
        "edits": [edit.rule for action in result.actions for edit in action.edits],
        "lint_class": result.lint.query_class,
        "lint_rule": result.lint.classification.rule,
        "contract": None
        if decision is None
        else {
            "agent": decision.agent,
            "mode": decision.mode,
            "tools": [call.tool for call in decision.tool_plan],
        },
        "task_route": result.task.route,
        "tools": None if tools is None else [hit.tool_name for hit in tools.results],
        "top_tool": None if top is None else top.tool_name,
        "top_score": None if top is None else top.score,
        "tool_fits": None if tools is None else tools.fits,
        "timings_us": dict(result.timings_us),
    }


def records(
    prompts: Iterable[Prompt], *, rules: RulePack | None = None, tools: ToolSearch | None = None
) -> list[dict[str, Any]]:
    return [
        record(source, line, routescope.inspect(text, today=TODAY, rules=rules, tools=tools))
        for source, line, text in prompts
    ]


def write_results(path: Path, lines: Iterable[dict[str, Any]]) -> Path:
    """JSON Lines; gzip-compressed when the name ends in `.gz`."""
    data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
    return path


def leaky_rules(folder: Path) -> RulePack:
    """The default pack with templates that break the seed's three promises: a `site:` search
    in general queries, the OpenClaw docs search in local ones, and "as of" on every general
    first query (time-sensitive or not); the sanitizer removes `site:` only after white space,
    so the parenthesised operators get through. And "pools" made a tech keyword and a weak
    linter anchor, "show" a decide word of the contract: prompts about pools change strategy,
    linter class and contract mode."""
    text = DEFAULT_RULES.read_text(encoding="utf-8")
    for old, new in (
        ('tech = ["install", ', 'tech = ["pools", "install", '),
        ('  "index", "session", "agent",\n', '  "index", "session", "agent", "pools",\n'),
        ('decide = ["compare", ', 'decide = ["show", "compare", '),
        ('first = "{goal}"\n', 'first = "{goal} as of 2026"\n'),
        ('second = "{goal} overview"', 'second = "{goal} (site:github.com)"'),
        ('second = "{goal} hours reviews"', 'second = "{goal} (site:docs.openclaw.ai)"'),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = folder / "leaky.toml"
    path.write_text(text, encoding="utf-8")
    return routescope.load_rules(path)
