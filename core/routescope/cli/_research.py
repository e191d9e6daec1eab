"""`routescope research GOAL`: the deep-research loop from the command line. Offline by default
(the on-machine documentation index and the heuristic model); a provider or model over the
network only when named. Provider failures are not bad input: the report is printed, exit 0."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ._parser import UsageError
from ._terminal import escape

if TYPE_CHECKING:
    import httpx

    from ..llm import ChatClient
    from ..research import PageReader, SearchProvider

__all__ = ["cmd_research"]

_KEYS = {"tavily": "TAVILY_API_KEY", "brave": "BRAVE_API_KEY"}


def _provider(args: argparse.Namespace, client: httpx.AsyncClient) -> SearchProvider:
    from .. import research

    if args.search == "offline":
        return research.OfflineSearch()
    if args.search == "searxng":
        if not args.searxng_url:
            raise UsageError("--search searxng needs --searxng-url URL")
        return research.SearxngSearch(client, args.searxng_url)
    key = os.environ.get(_KEYS[args.search])
    if not key:
        raise UsageError(f"--search {args.search} needs the {_KEYS[args.search]} variable")
    provider = research.TavilySearch if args.search == "tavily" else research.BraveSearch
    return provider(client, key)


def _reader(args: argparse.Namespace, provider: SearchProvider) -> PageReader:
    from .. import research

    if isinstance(provider, research.OfflineSearch):
        return research.OfflineReader(provider)
    return research.WebReader()


def _model(args: argparse.Namespace, client: httpx.AsyncClient) -> tuple[ChatClient, str]:
    from .. import llm, research

    if args.llm == "heuristic":
        return research.HeuristicChat(), "heuristic"
    if not args.llm_url:
        raise UsageError("--llm openai needs --llm-url URL (e.g. http://localhost:11434/v1)")
    chat = llm.OpenAIChat(
        args.llm_url, args.model, api_key=os.environ.get("OPENAI_API_KEY"), client=client
    )
    return chat, args.model


async def _run(args: argparse.Namespace, goal: str) -> object:
    import httpx

    from .. import research

    async with httpx.AsyncClient(trust_env=False, follow_redirects=False) as client:
        provider = _provider(args, client)
        chat, model = _model(args, client)
        stack = args.stack_hint or research.infer_stack(goal).hint
        return await research.deep_research(
            goal,
            search=provider,
            reader=_reader(args, provider),
            llm=chat,
            max_attempts=args.max_attempts,
            stack_hint=stack,
            model=model,
        )


def cmd_research(args: argparse.Namespace, goal: str) -> int:
    from .. import research

    if not 1 <= args.max_attempts <= 10:
        raise UsageError("--max-attempts must be from 1 to 10")
    result = asyncio.run(_run(args, goal))
    assert isinstance(result, research.DeepResearchResult)
    data = research.report_data(result)
    markdown = research.report_markdown(result)
    if args.report:
        folder = Path(args.report)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "report.md").write_text(markdown, encoding="utf-8")
            (folder / "report.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--report {args.report}: {exc.strerror or exc}") from None
    text = (
        json.dumps(data, indent=2, ensure_ascii=False)
        if args.json
        else escape(markdown, one_line=False)
    )
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return 0
