"""The values the search providers return: hits, one error taxonomy and a response that records
what was sent and what came back. Failures are values here, never exceptions."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: One taxonomy for every provider (reference §4.1, adapted):
#: ``bad_request`` 400/422 or a query refused before sending · ``unauthorized`` 401/403 or no key ·
#: ``quota`` 402/432/433 · ``rate_limited`` 429 · ``server_error`` 5xx or every upstream engine
#: unresponsive · ``http_error`` any other unexpected status · ``timeout`` · ``network`` ·
#: ``malformed`` a body that is not the documented JSON · ``empty`` no usable result.
ErrorKind = Literal[
    "bad_request",
    "unauthorized",
    "quota",
    "rate_limited",
    "server_error",
    "http_error",
    "timeout",
    "network",
    "malformed",
    "empty",
]

#: What the adapter did with the query before sending it: ``sent`` as given (whitespace
#: collapsed), ``shortened`` to the provider's documented limit on a word boundary, ``refused``
#: (empty, or too long with shortening disabled) and not sent at all.
QueryAction = Literal["sent", "shortened", "refused"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True, allow_inf_nan=False)


class SearchHit(_Frozen):
    """One normalised search result; ``rank`` is 1-based after invalid results and duplicate
    URLs were removed."""

    url: str
    title: str
    snippet: str
    rank: int = Field(ge=1)
    provider: str
    score: float | None = None
    published: str | None = None


class ProviderError(_Frozen):
    """Why a search produced no results. ``retry_after_s`` is what the server asked for (not
    bounded); ``retryable`` says whether trying again later may help."""

    kind: ErrorKind
    message: str
    status: int | None = None
    retry_after_s: float | None = None
    retryable: bool = False


class SearchResponse(_Frozen):
    """Everything one ``search`` call did. ``query`` is the query as sent (or as it would have
    been sent when refused); ``url`` is the request URL with every secret redacted; ``status``
    is the last HTTP status (None when nothing was answered); ``requests`` counts HTTP requests
    made (a 429 is retried once); ``skipped`` counts results dropped for bad fields and
    ``duplicates`` those dropped for a repeated URL."""

    provider: str
    query: str
    original_query: str
    query_action: QueryAction
    status: int | None
    url: str
    results: tuple[SearchHit, ...] = ()
    error: ProviderError | None = None
    duration_ms: float = Field(ge=0.0)
    requests: int = Field(default=0, ge=0)
    skipped: int = Field(default=0, ge=0)
    duplicates: int = Field(default=0, ge=0)

    @property
    def ok(self) -> bool:
        return self.error is None
