"""Research settings: which search provider and which model, where they are, and the key each
one needs. Cheap to import (the window reads them at start); `run_research` uses them."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args
from urllib.parse import urlsplit

__all__ = [
    "DEFAULT_ALLOWED_HOSTS",
    "GROUNDING_MODES",
    "KEY_VARIABLES",
    "MAX_ATTEMPTS",
    "MODEL_NAMES",
    "SEARCH_NAMES",
    "GroundingMode",
    "ModelName",
    "ResearchSettings",
    "SearchName",
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
DEFAULT_ALLOWED_HOSTS = (
    "nodejs.org,docs.python.org,developer.mozilla.org,stackoverflow.com,vitejs.dev"
)
"""The seed's `web.allowedHosts`."""
_HOST = re.compile(
    r"^(?:\*\.)?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$"
)
GroundingMode = Literal["auto", "required", "not_required"]
GROUNDING_MODES: tuple[GroundingMode, ...] = get_args(GroundingMode)
"""Whether research needs external grounding: `auto` derives it from the goal (time-sensitive,
local, price); `required` and `not_required` are the user's word."""


@dataclass(frozen=True, slots=True)
class ResearchSettings:
    """Where research searches and which model plans and grades it."""

    search: SearchName = "offline"
    searxng_url: str = ""
    llm: ModelName = "heuristic"
    llm_url: str = ""
    model: str = "gpt-4o-mini"
    max_attempts: int = 3
    grounding: GroundingMode = "auto"
    """`auto`: derived from the goal; `required` / `not_required`: set by the user (the
    command line's `--require-grounding/--no-require-grounding`, the window's toggle)."""
    allowed_hosts: str = DEFAULT_ALLOWED_HOSTS
    """The hosts whose result pages may be fetched, comma-separated (a name also allows its
    subdomains; `*.name` only them); `*`: any public host. Private, local and metadata
    addresses are refused whatever this says. Default: the seed's five documentation hosts."""

    def allowlist(self) -> tuple[str, ...]:
        """`allowed_hosts` as the web policy takes it (empty: any public host)."""
        hosts = tuple(h.strip() for h in self.allowed_hosts.split(",") if h.strip())
        return () if hosts == ("*",) else hosts

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
        if self.grounding not in GROUNDING_MODES:
            return f"unknown grounding {self.grounding!r} (one of {', '.join(GROUNDING_MODES)})"
        hosts = [h.strip() for h in self.allowed_hosts.split(",") if h.strip()]
        if not hosts:
            return "the host allowlist is empty: name hosts, or '*' for any public host"
        bad = [h for h in hosts if h != "*" and not _HOST.match(h.lower())]
        if bad or ("*" in hosts and len(hosts) > 1):
            shown = bad[0] if bad else "*"
            return f"allowed hosts: {shown!r} is not a host name (or use '*' alone)"
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
        """One line for people: where it searches and what grades it (and, for the web, which
        hosts it reads)."""
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
        if self.search == "offline":
            return f"{search} · {model}"
        hosts = "any public host" if not self.allowlist() else f"{len(self.allowlist())} host(s)"
        return f"{search} · {model} · reads {hosts}"

    def to_json(self) -> str:
        """The settings as one JSON object, for a settings file (`from_json` reads it back)."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ResearchSettings:
        """Settings written by `to_json` (a field left out keeps its default). Raises
        ValueError (one line) when `text` is not such an object: not JSON, an unknown field, a
        value of the wrong type, or settings that cannot run for a reason other than a missing
        key (keys are not settings: they are looked up when a run starts)."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"research settings are not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError("research settings must be a JSON object")
        defaults = {field.name: field.default for field in dataclasses.fields(cls)}
        for name, value in data.items():
            if name not in defaults:
                raise ValueError(f"unknown research setting {name!r}")
            kind = type(defaults[name])
            if type(value) is not kind:  # (exactly: a bool is not a number of attempts)
                what = "an integer" if kind is int else "a string"
                raise ValueError(f"research setting {name!r} must be {what}")
        settings = cls(**data)
        problem = settings.problem(dict.fromkeys(KEY_VARIABLES.values(), "key"))
        if problem is not None:
            raise ValueError(problem)
        return settings


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
