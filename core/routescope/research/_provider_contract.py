"""What every search provider promises (`SearchProvider`: one call, one `SearchResponse`,
failures as values) and takes (`ProviderOptions`), with the query and secret handling the
adapters share: `shorten_query` cuts a query to a provider's limits, `redact` keeps API keys
out of every string."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypedDict, runtime_checkable

from .._http import Sleep
from .._secrets import Secrets
from ._models import SearchResponse

__all__ = ["REDACTED", "ProviderOptions", "SearchProvider", "redact", "shorten_query"]

REDACTED = "[REDACTED]"


class ProviderOptions(TypedDict, total=False):
    """The options every adapter takes besides its client, endpoint and key."""

    #: Shorten an over-long query on a word boundary (True) or refuse it unsent (False).
    shorten_long_queries: bool
    #: The total deadline of one search: connecting, reading, the retry and its wait.
    timeout_s: float
    #: The most a 429's ``Retry-After`` may make us wait before the single retry.
    max_retry_wait_s: float
    retry_on_429: bool
    #: The response body is not read past this many bytes (``malformed``).
    max_body_bytes: int
    #: The sleep used for ``Retry-After`` (injectable for tests).
    sleep: Sleep


@runtime_checkable
class SearchProvider(Protocol):
    """The normalised contract: one call, one ``SearchResponse``, failures as values."""

    @property
    def name(self) -> str: ...

    async def search(self, query: str, *, max_results: int = 10) -> SearchResponse: ...


# --- secrets ---------------------------------------------------------------------------------


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every non-empty secret, raw or URL-encoded, replaced by ``[REDACTED]``."""
    return Secrets(secrets, REDACTED).scrub(text)


# --- queries ---------------------------------------------------------------------------------


def shorten_query(query: str, *, max_chars: int | None, max_words: int | None) -> str:
    """``query`` with whitespace collapsed, cut on a word boundary to at most ``max_words``
    words and ``max_chars`` characters (a single over-long word is cut hard)."""
    words = query.split()
    if max_words is not None:
        words = words[:max_words]
    text = " ".join(words)
    if max_chars is None or len(text) <= max_chars:
        return text
    cut = text[: max_chars + 1]
    space = cut.rfind(" ")
    return cut[:space] if space > 0 else text[:max_chars]
