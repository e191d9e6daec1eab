"""Research from settings: which search provider, which model, where they are, and the one
place they are put together (`run_research`) for the command line and the window alike.

Provider endpoints and model URLs are trusted configuration (the user typed them); only result
URLs go through the web policy. Keys come from the environment or the owner-only key store
(`_keys`); they reach the providers and nothing else."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .._errors import ResearchConfigError
from ._loop import deep_research
from ._records import Attempt, DeepResearchResult, PageReader
from ._settings import KEY_VARIABLES, ResearchSettings

if TYPE_CHECKING:
    import httpx

    from ..llm import ChatClient
    from ._offline import OfflineSearch
    from ._provider_contract import SearchProvider
    from ._semantic import Semantics

__all__ = ["report_folder_name", "run_research"]

_NAME_WORDS = 6
_NAME_CHARS = 60


def _provider(
    settings: ResearchSettings,
    keys: Mapping[str, str],
    client: httpx.AsyncClient,
    offline: Callable[[], OfflineSearch],
) -> SearchProvider:
    from . import _providers

    if settings.search == "offline":
        return offline()
    if settings.search == "searxng":
        return _providers.SearxngSearch(client, settings.searxng_url.strip())
    kind = _providers.TavilySearch if settings.search == "tavily" else _providers.BraveSearch
    return kind(client, keys[KEY_VARIABLES[settings.search]])


def _reader(provider: SearchProvider, settings: ResearchSettings) -> PageReader:
    from ._fetch import SafeFetcher
    from ._offline import OfflineReader, OfflineSearch
    from ._policy import WebPolicy
    from ._reader import WebReader

    if isinstance(provider, OfflineSearch):
        return OfflineReader(provider)
    return WebReader(SafeFetcher(WebPolicy(allowed_hosts=settings.allowlist())))


def _model(
    settings: ResearchSettings, keys: Mapping[str, str], client: httpx.AsyncClient
) -> tuple[ChatClient, str]:
    from ._heuristic import HEURISTIC_MODEL
    from ._heuristic_chat import HeuristicChat

    if settings.llm == "heuristic":
        return HeuristicChat(), HEURISTIC_MODEL
    from ..llm import OpenAIChat

    try:
        chat = OpenAIChat(
            settings.llm_url.strip(),
            settings.model.strip(),
            api_key=keys.get(KEY_VARIABLES["openai"]) or None,
            client=client,
        )
    except ValueError as exc:  # the message names the setting, never the key's value
        raise ResearchConfigError(f"model settings: {exc}") from None
    return chat, settings.model.strip()


def _stack(goal: str, given: str | None, project_context: str | None) -> str:
    """The stack hint the optimiser gets: the caller's (a blank one says none), else the
    language the goal or the project context names — never a kind ("frontend", "CLI")
    inferred from the goal's own words, which would only add a word the goal did not say."""
    from ..optimise._stack import infer_stack

    if given is not None:
        return given.strip()
    inferred = infer_stack(goal, project_context)
    return (inferred.hint if project_context else inferred.language) or ""


def _semantics(goal: str, provider: SearchProvider) -> Semantics | None:
    """The embedding model's reading of the goal: over the offline index's passage vectors
    (built the first time), or over pages embedded as they are read (the web); None without
    the model."""
    from ._offline import OfflineSearch
    from ._semantic import Semantics, bundled_embedder

    if isinstance(provider, OfflineSearch):
        vectors = provider.passage_vectors()
        embedder = provider.query_embedder() if vectors is not None else None
        return Semantics(goal, embedder, vectors) if embedder is not None else None
    model = bundled_embedder()
    return Semantics(goal, model) if model is not None else None


def _default_offline() -> OfflineSearch:
    from ._offline import OfflineSearch

    return OfflineSearch()


async def run_research(
    goal: str,
    settings: ResearchSettings | None = None,
    *,
    keys: Mapping[str, str] | None = None,
    offline: Callable[[], OfflineSearch] = _default_offline,
    stack_hint: str | None = None,
    project_context: str | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
) -> DeepResearchResult:
    """Research `goal` with the backends `settings` name. Raises `ResearchConfigError` (one
    line) when they cannot run; a provider's or a model's failure is in the result instead.
    `offline` makes the offline search (default: the machine's documentation index)."""
    import httpx

    from ._grounding import derive_grounding, mode_override
    from ._run import ResearchOptions

    settings = settings or ResearchSettings()
    keys = keys or {}
    problem = settings.problem(keys)
    if problem is not None:
        raise ResearchConfigError(problem)
    async with httpx.AsyncClient(trust_env=False, follow_redirects=False) as client:
        provider = _provider(settings, keys, client, offline)
        chat, model = _model(settings, keys, client)
        semantics = await asyncio.to_thread(_semantics, goal, provider)
        unread = getattr(provider, "semantic_note", "") if semantics is None else ""
        result = await deep_research(
            goal,
            search=provider,
            reader=_reader(provider, settings),
            llm=chat,
            options=ResearchOptions(
                max_attempts=settings.max_attempts,
                stack_hint=_stack(goal, stack_hint, project_context),
                project_context=project_context,
                grounding=derive_grounding(goal, override=mode_override(settings.grounding)),
                model=model,
                semantics=semantics,
            ),
            on_attempt=on_attempt,
        )
        if unread:
            result.notes.append(unread)
        return result


def report_folder_name(goal: str, when: dt.datetime | None = None) -> str:
    """The name of a new folder for a run's report (`write_research_report`): the time it is saved
    (`when`, default now, local time) and the goal's first words, e.g.
    `20261123-141502-asyncio-event-loop-in-a-thread`; safe as a file name on every system."""
    words = re.findall(r"[a-z0-9]+", goal.lower())[:_NAME_WORDS]
    slug = "-".join(words)[:_NAME_CHARS].rstrip("-") or "research"
    return f"{(when or dt.datetime.now()).strftime('%Y%m%d-%H%M%S')}-{slug}"
