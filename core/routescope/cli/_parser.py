"""The `routescope` argument parser: usage errors become one line, never argparse's exit."""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["UsageError", "build_parser"]


class UsageError(Exception):
    """Bad arguments or input: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _common(command: argparse.ArgumentParser, text_help: str, *, nargs: str | None = None) -> None:
    command.add_argument("text", metavar="TEXT", nargs=nargs, help=text_help)
    command.add_argument("--json", action="store_true", help="print one JSON object")


class _Version(argparse.Action):
    """`--version`, looked up only when asked (reading package metadata takes ~30 ms)."""

    def __init__(self, option_strings: list[str], dest: str) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        from importlib.metadata import version

        print(f"routescope {version('routescope')}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="routescope", description="Inspect what query routers decide, and why.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser(
        "inspect", help="route one prompt and show every decision with its evidence"
    )
    _common(run, "the prompt; '-' reads it from stdin")
    run.add_argument("--today", metavar="YYYY-MM-DD", help="the date the routers see")
    run.add_argument("--rules", metavar="FILE", help="a TOML rule pack (default: built-in)")
    run.add_argument(
        "--context",
        metavar="FILE|JSON",
        help="router contract context: a JSON file, or the JSON object itself",
    )
    run.add_argument(
        "--catalog",
        metavar="PATH",
        help="rank this catalog's tools too (with --json: the sample catalog by default)",
    )
    run.add_argument("--no-tools", action="store_true", help="skip the tool search")
    run.add_argument(
        "--search",
        metavar="JSON",
        help="the tool search's settings that differ from the defaults, as a JSON object "
        """(e.g. '{"fusion": "canonical", "k": 5}')""",
    )
    run.add_argument(
        "--counterfactuals",
        action="store_true",
        help="also: the words whose removal flips a decision, and the close calls",
    )

    route = commands.add_parser(
        "route",
        help="what external routers (declared in a routers file) decide about one prompt, "
        "with their evidence",
    )
    _common(route, "the prompt; '-' reads it from stdin")
    route.add_argument("--routers", metavar="FILE", required=True, help="the routers file (TOML)")
    route.add_argument(
        "--router",
        metavar="NAME",
        action="append",
        help="a router of the file (again for more; default: every one)",
    )
    route.add_argument("--today", metavar="YYYY-MM-DD", help="the date the routers see")
    route.add_argument("--context", metavar="FILE", help="context fields for the request (JSON)")

    compare = commands.add_parser(
        "compare",
        help="A and B side by side: two prompts, or one prompt under two rule packs, "
        "contexts or catalogs; or a suite under two packs",
    )
    compare.add_argument(
        "texts", metavar="TEXT", nargs="*", help="prompt A, then prompt B (default: A); '-': stdin"
    )
    compare.add_argument("--json", action="store_true", help="print one JSON object")
    compare.add_argument("--today", metavar="YYYY-MM-DD", help="the date the routers see")
    compare.add_argument("--rules", metavar="FILE", help="A's rule pack (default: built-in)")
    compare.add_argument("--rules-b", metavar="FILE", help="B's rule pack (default: A's)")
    compare.add_argument("--context", metavar="FILE", help="A's router context (JSON)")
    compare.add_argument("--context-b", metavar="FILE", help="B's router context (default: A's)")
    compare.add_argument(
        "--catalog",
        metavar="PATH",
        help="rank this catalog's tools on A (with only --catalog-b: the sample catalog)",
    )
    compare.add_argument("--catalog-b", metavar="PATH", help="B's catalog (default: A's)")
    compare.add_argument(
        "--suite", metavar="SUITE", help="run a regression suite on A and B; list cases that differ"
    )

    contract = commands.add_parser(
        "decide", help="the router contract's decision and tool plan for one user turn"
    )
    _common(contract, "the user's text; '-' reads stdin")
    contract.add_argument(
        "--context", metavar="FILE|JSON", help="router context: a JSON file, or the JSON itself"
    )
    contract.add_argument("--rules", metavar="FILE", help="a TOML rule pack (default: built-in)")

    tools = commands.add_parser(
        "tools", help="rank the tools of a catalog for a prompt, every rank explained"
    )
    _common(tools, "the prompt; '-' reads stdin", nargs="?")
    tools.add_argument("--catalog", metavar="PATH", help="SKILL.md folder or JSON list")
    tools.add_argument(
        "--strategy", default="auto", choices=["auto", "exact", "semantic", "hybrid"]
    )
    tools.add_argument(
        "--fusion",
        default="weighted",
        choices=["weighted", "canonical"],
        help="weighted scores (default) or the seed's RRF pipeline exactly",
    )
    tools.add_argument(
        "--fit-threshold",
        type=float,
        metavar="SCORE",
        help="below this best score no tool fits (default: the fusion's calibrated one; 0: off)",
    )
    tools.add_argument(
        "--no-steps", action="store_true", help="do not split the request into steps"
    )
    tools.add_argument("-k", type=int, default=10, help="how many tools to show (default 10)")
    tools.add_argument("--eval", metavar="SUITE", help="hit@1, hit@3 and MRR per signal")

    regress = commands.add_parser(
        "regress",
        help="run regression suites; exit 1 when any case fails, 2 for bad input",
    )
    regress.add_argument("suites", metavar="SUITE", nargs="*", help="suite files (YAML)")
    regress.add_argument(
        "--builtin", action="store_true", help="also run the suites shipped with Routescope"
    )
    regress.add_argument("--json", action="store_true", help="print one JSON object")
    regress.add_argument(
        "--update", action="store_true", help="accept current results as the new goldens"
    )

    score = commands.add_parser(
        "score",
        help="how right a rule pack is on a labelled set or suite: per-flag precision, recall, "
        "F1, macro-F1, the strategy confusion, place and entity accuracy",
    )
    score.add_argument(
        "file", metavar="FILE", help="a labelled set (.jsonl, .csv) or a suite (.yaml)"
    )
    score.add_argument("--rules", metavar="FILE", help="a TOML rule pack (default: built-in)")
    score.add_argument("--catalog", metavar="PATH", help="score `top_tool` labels on this catalog")
    score.add_argument(
        "--routers",
        metavar="FILE",
        help="score external routers of this routers file instead (labels.routes.NAME)",
    )
    score.add_argument(
        "--router", metavar="NAME", action="append", help="only this router (again for more)"
    )
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.add_argument(
        "--misses", type=int, default=10, metavar="N", help="wrong decisions to list (default 10)"
    )

    suggest = commands.add_parser(
        "suggest",
        help="rule pack edits a labelled set's errors propose, each with its measured gain on "
        "the tuning and held-out parts (none may break the built-in suites)",
    )
    suggest.add_argument(
        "--labels", metavar="FILE", required=True, help="a labelled set (.jsonl, .csv, .yaml)"
    )
    suggest.add_argument("--rules", metavar="FILE", help="a TOML rule pack (default: built-in)")
    suggest.add_argument("--limit", type=int, default=20, help="how many edits (default 20)")
    suggest.add_argument("--json", action="store_true", help="print one JSON array")

    research = commands.add_parser(
        "research", help="research a goal on the web in a few scored attempts"
    )
    research.add_argument("text", metavar="GOAL", help="what to research; '-' reads stdin")
    research.add_argument("--json", action="store_true", help="print the report as JSON")
    research.add_argument(
        "--search", default="offline", choices=["offline", "searxng", "tavily", "brave"]
    )
    research.add_argument("--searxng-url", metavar="URL", help="a SearXNG instance (with JSON)")
    research.add_argument("--llm", default="heuristic", choices=["heuristic", "openai"])
    research.add_argument("--llm-url", metavar="URL", help="an OpenAI-compatible /v1 base URL")
    research.add_argument("--model", metavar="NAME", default="gpt-4o-mini")
    research.add_argument("--max-attempts", type=int, default=3, metavar="N")
    research.add_argument("--stack-hint", metavar="S", help="e.g. 'Python GUI' (default: inferred)")
    research.add_argument(
        "--allowed-hosts",
        metavar="HOSTS",
        help="comma-separated hosts whose result pages may be read ('*': any public host; "
        "default: the seed's five documentation hosts)",
    )
    research.add_argument(
        "--require-grounding",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="escalate unless pages meet the target (default: derived from the goal — "
        "time-sensitive, local and price goals need it)",
    )
    research.add_argument("--report", metavar="DIR", help="also write report.md and report.json")

    report = commands.add_parser(
        "report",
        help="an offline HTML page and JSON of batch results; with two files, what changed",
    )
    report.add_argument(
        "results",
        metavar="RESULTS",
        nargs="+",
        help="a results file of 'routescope batch' (JSON Lines, gzip, Parquet); two: compare A, B",
    )
    report.add_argument(
        "--out", metavar="DIR", required=True, help="write report.html and report.json here"
    )
    report.add_argument(
        "--examples", type=int, default=20, metavar="N", help="prompts listed per bar (20)"
    )
    report.add_argument(
        "--top", type=int, default=20, metavar="N", help="bars of entities and tools (20)"
    )
    report.add_argument(
        "--labels",
        metavar="FILE",
        help="score the results against this labelled set (default: the one the batch recorded)",
    )
    report.add_argument("--json", action="store_true", help="also print report.json")

    batch = commands.add_parser(
        "batch",
        help="route every prompt of logs (JSONL, CSV, text, gzip) into one record each",
    )
    batch.add_argument(
        "inputs", metavar="INPUT", nargs="+", help="log files or globs ('logs/*.jsonl.gz')"
    )
    batch.add_argument(
        "--out", metavar="RESULTS", required=True, help="JSON lines, or Parquet (.parquet)"
    )
    batch.add_argument("--field", metavar="PATH", help="dotted path to the prompt; CSV: column")
    batch.add_argument("--workers", type=int, default=1, metavar="N", help="processes (1)")
    batch.add_argument("--today", metavar="YYYY-MM-DD", help="the date the routers see")
    batch.add_argument("--rules", metavar="FILE", help="a TOML rule pack (default: built-in)")
    batch.add_argument("--catalog", metavar="PATH", help="also rank this catalog's tools")
    batch.add_argument("-k", type=int, metavar="N", help="tools kept per prompt (5)")
    batch.add_argument("--engine", default="local", choices=["local", "dask"])
    batch.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler (tcp://…)")
    batch.add_argument(
        "--no-timings", action="store_true", help="leave out timings_us (identical reruns)"
    )
    batch.add_argument(
        "--block-size",
        metavar="SIZE",
        help="input per partition (default 256k; less for a small input and several workers)",
    )
    batch.add_argument(
        "--labels",
        metavar="FILE",
        help="a labelled set: score the results against it (joined by prompt) and record it "
        "for 'report'",
    )
    batch.add_argument(
        "--routers", metavar="FILE", help="a routers file: --router NAME also routes every prompt"
    )
    batch.add_argument(
        "--router",
        metavar="NAME",
        action="append",
        help="an external router of --routers: its decision is a column (again for more)",
    )
    batch.add_argument("--json", action="store_true", help="print the summary as JSON")

    _history(commands)

    schema = commands.add_parser("schema", help="print the JSON Schema of the result models")
    schema.add_argument(
        "model", nargs="?", default="inspection", choices=["inspection", "decision", "context"]
    )
    schema.add_argument("--json", action="store_true", help="accepted for symmetry; always JSON")
    return parser


def _history(commands: argparse._SubParsersAction[_Parser]) -> None:
    """`routescope history ACTION`: the store the window records into, only read."""
    history = commands.add_parser(
        "history",
        help="the prompts the window inspected: list, search, show, rerun, export",
        description="Read the history the window records into (nothing is written to it).",
    )
    actions = history.add_subparsers(dest="action", metavar="ACTION", required=True)
    common = _Parser(add_help=False)
    common.add_argument(
        "--store",
        metavar="FILE",
        help="the history file (default: the window's, history.sqlite3 in the user data folder)",
    )
    common.add_argument("--json", action="store_true", help="print one JSON object")
    filters = _Parser(add_help=False)
    filters.add_argument("--strategy", choices=["general", "local", "tech"])
    filters.add_argument("--lint-class", choices=["guided", "semi", "vague"])
    filters.add_argument("--top-tool", metavar="NAME", help="the best-ranked tool ('': none)")
    filters.add_argument(
        "--rules", metavar="PACK", help="a rule pack's digest, or its source as listed"
    )
    filters.add_argument("--pinned", action="store_true", help="pinned entries only")

    def limited(action: _Parser, default: int | None, what: str) -> None:
        action.add_argument("--limit", type=int, default=default, metavar="N", help=what)

    listing = actions.add_parser("list", parents=[common, filters], help="entries, newest first")
    limited(listing, 20, "entries shown (20)")
    search = actions.add_parser(
        "search",
        parents=[common, filters],
        help="entries whose prompt has these words (each a word's start), newest first",
    )
    search.add_argument("words", metavar="WORD", nargs="+", help="words of the prompt")
    limited(search, 20, "entries shown (20)")
    for name, text in (
        ("show", "one entry and its inspection (--json: what inspect --json prints)"),
        ("rerun", "run an entry's prompt again and say whether the decision changed"),
    ):
        run = actions.add_parser(name, parents=[common], help=text)
        run.add_argument("id", metavar="ID", type=int, help="the entry's id (see list)")
        run.add_argument("--no-tools", action="store_true", help="skip the catalog's tool search")
    export = actions.add_parser(
        "export",
        parents=[common, filters],
        help="entries as JSON lines (all, or those the words and filters find), newest first",
    )
    export.add_argument("words", metavar="WORD", nargs="*", help="words of the prompt")
    export.add_argument("--out", metavar="FILE", required=True, help="the JSON lines file")
    limited(export, None, "entries written (default: all)")
