"""Research from settings: which search provider, which model, where they are, and the one
place they are put together (`run_research`) for the command line and the window alike.

Provider endpoints and model URLs are trusted configuration (the user typed them); only result
URLs go through the web policy. Keys come from the environment or the owner-only key store
(`_keys`); they reach the providers and nothing else."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args
from urllib.parse import urlsplit

from .._errors import ResearchConfigError
from ._loop import Attempt, DeepResearchResult, PageReader, deep_research

if TYPE_CHECKING:
    import httpx

    from ..llm import ChatClient
    from ._offline import OfflineSearch
    from ._providers import SearchProvider

__all__ = [
    "KEY_VARIABLES",
    "MODEL_NAMES",
    "SEARCH_NAMES",
    "ModelName",
    "ResearchSettings",
    "SearchName",
    "run_research",
]

SearchName = Literal["offline", "searxng", "tavily", "brave"]
ModelName = Literal["heuristic", "openai"]
SEARCH_NAMES: tuple[SearchName, ...] = get_args(SearchName)
MODEL_NAMES: tuple[ModelName, ...] = get_args(ModelName)
KEY_VARIABLES: dict[str, str] = {
    "tavily": "TAVILY_API_KEY",
    "brave": "BRAVE_API_KEY",
    "openai": "OPENAI_API_KEY",
}
"""The environment variable (and key-store name) of each backend that takes a key."""
MAX_ATTEMPTS = 10


@dataclass(frozen=True, slots=True)
class ResearchSettings:
    """Where research searches and which model plans and grades it."""

    search: SearchName = "offline"
    searxng_url: str = ""
    llm: ModelName = "heuristic"
    llm_url: str = ""
    model: str = "gpt-4o-mini"
    max_attempts: int = 3

    @property
    def offline(self) -> bool:
        """Nothing leaves the machine: the run is cheap enough to follow the typing."""
        return self.search == "offline" and self.llm == "heuristic"

    def problem(self, keys: Mapping[str, str]) -> str | None:
        """Why these settings cannot run (one line), or None. `keys` maps a key variable
        (`KEY_VARIABLES`) to its key."""
        if self.search not in SEARCH_NAMES:
            return f"unknown search provider {self.search!r} (one of {', '.join(SEARCH_NAMES)})"
        if self.llm not in MODEL_NAMES:
            return f"unknown model backend {self.llm!r} (one of {', '.join(MODEL_NAMES)})"
        if not 1 <= self.max_attempts <= MAX_ATTEMPTS:
            return f"max attempts must be from 1 to {MAX_ATTEMPTS}"
        if self.search == "searxng" and not _http_url(self.searxng_url):
            return "SearXNG needs the http(s) URL of an instance with JSON output"
        if self.search in KEY_VARIABLES and not keys.get(KEY_VARIABLES[self.search]):
            return f"{self.search} needs a key: set {KEY_VARIABLES[self.search]} or store one"
        if self.llm == "openai":
            if not _http_url(self.llm_url):
                return "the OpenAI-compatible model needs its /v1 base URL"
            if not self.model.strip():
                return "the OpenAI-compatible model needs a model name"
        return None

    def describe(self) -> str:
        """One line for people: where it searches and what grades it."""
        search = {
            "offline": "offline index",
            "searxng": f"SearXNG at {_host(self.searxng_url)}",
            "tavily": "Tavily",
            "brave": "Brave",
        }[self.search]
        model = (
            "heuristic model"
            if self.llm == "heuristic"
            else f"{self.model} at {_host(self.llm_url)}"
        )
        return f"{search} · {model}"


def _http_url(url: str) -> bool:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or url
    except ValueError:
        return url


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


def _reader(provider: SearchProvider) -> PageReader:
    from ._offline import OfflineReader, OfflineSearch
    from ._reader import WebReader

    if isinstance(provider, OfflineSearch):
        return OfflineReader(provider)
    return WebReader()


def _model(
    settings: ResearchSettings, keys: Mapping[str, str], client: httpx.AsyncClient
) -> tuple[ChatClient, str]:
    from ._heuristic import HEURISTIC_MODEL, HeuristicChat

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


def _default_offline() -> OfflineSearch:
    from ._offline import OfflineSearch

    return OfflineSearch()


async def run_research(
    goal: str,
    settings: ResearchSettings = ResearchSettings(),
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

    from ._quality import infer_stack

    keys = keys or {}
    problem = settings.problem(keys)
    if problem is not None:
        raise ResearchConfigError(problem)
    async with httpx.AsyncClient(trust_env=False, follow_redirects=False) as client:
        provider = _provider(settings, keys, client, offline)
        chat, model = _model(settings, keys, client)
        return await deep_research(
            goal,
            search=provider,
            reader=_reader(provider),
            llm=chat,
            max_attempts=settings.max_attempts,
            stack_hint=stack_hint or infer_stack(goal, project_context).hint,
            project_context=project_context,
            model=model,
            on_attempt=on_attempt,
        )
