"""`routescope research GOAL`: the deep-research loop from the command line. Offline by default
(the on-machine documentation index and the heuristic model); a provider or model over the
network only when named. Provider failures are not bad input: the report is printed, exit 0."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._errors import ResearchConfigError
from ._parser import UsageError
from ._terminal import escape

if TYPE_CHECKING:
    from ..research import GroundingMode

__all__ = ["cmd_research"]

_GROUNDING: dict[bool | None, GroundingMode] = {
    None: "auto",
    True: "required",
    False: "not_required",
}


def cmd_research(args: argparse.Namespace, goal: str) -> int:
    from .. import research

    settings = research.ResearchSettings(
        search=args.search,
        searxng_url=args.searxng_url or "",
        llm=args.llm,
        llm_url=args.llm_url or "",
        model=args.model,
        max_attempts=args.max_attempts,
        grounding=_GROUNDING[args.require_grounding],
        **({"allowed_hosts": args.allowed_hosts} if args.allowed_hosts is not None else {}),
    )
    store = research.KeyStore()
    keys = store.keys()
    if store.problem and not settings.offline:
        sys.stderr.write(f"routescope: {escape(store.problem)}\n")
    try:
        result = asyncio.run(
            research.run_research(goal, settings, keys=keys, stack_hint=args.stack_hint)
        )
    except ResearchConfigError as exc:
        raise UsageError(str(exc)) from None
    if args.report:
        try:
            research.write_research_report(result, Path(args.report))
        except OSError as exc:
            raise UsageError(f"--report {args.report}: {exc.strerror or exc}") from None
    text = (
        json.dumps(research.research_report_data(result), indent=2, ensure_ascii=False)
        if args.json
        else escape(research.report_markdown(result), one_line=False)
    )
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return 0
