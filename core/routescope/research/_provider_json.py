"""A search provider's JSON answer read strictly: valid, deduplicated hits (`collect_hits`; a
bad single result is skipped, the good ones kept; repeated URLs dropped), a wrong shape as
`MalformedError`, and an HTTP error status as an entry of the error taxonomy (`status_error`)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .._secrets import Secrets
from ._models import ErrorKind, ProviderError, SearchHit

__all__ = [
    "MalformedError",
    "Parsed",
    "collect_hits",
    "error_detail",
    "require_dict",
    "require_list",
    "status_error",
]

_MAX_URL_CHARS = 2048


class MalformedError(Exception):
    """Raised inside parsing only; becomes a ``malformed`` error value."""


@dataclass
class Parsed:
    hits: list[SearchHit] = field(default_factory=list)
    skipped: int = 0
    duplicates: int = 0
    error: ProviderError | None = None


def _valid_url(value: object) -> str | None:
    if not isinstance(value, str) or not value or len(value) > _MAX_URL_CHARS:
        return None
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        return None
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on an invalid port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return value


def _dedupe_key(url: str) -> str:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    path = parts.path if parts.path not in ("", "/") else ""
    return urlunsplit((scheme, host, path.rstrip("/") or path, parts.query, ""))


def _optional_str(item: Mapping[str, Any], key: str) -> str | None:
    """The string at ``key``; None when absent or null; ``MalformedError`` for another type."""
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise MalformedError(key)
    return value


def _optional_score(item: Mapping[str, Any], key: str) -> float | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedError(key)
    score = float(value)
    if not math.isfinite(score):
        raise MalformedError(key)
    return score


def collect_hits(
    items: Sequence[Any],
    *,
    provider: str,
    max_results: int,
    secrets: Secrets,
    snippet_key: str,
    score_key: str | None,
    published_key: str | None,
) -> Parsed:
    """The valid, deduplicated hits of ``items``, ranked from 1 and capped at ``max_results``."""
    parsed = Parsed()
    seen: set[str] = set()
    for item in items:
        if len(parsed.hits) >= max_results:
            break
        if not isinstance(item, dict):
            parsed.skipped += 1
            continue
        url = _valid_url(item.get("url"))
        try:
            title = _optional_str(item, "title") or ""
            snippet = _optional_str(item, snippet_key) or ""
            score = _optional_score(item, score_key) if score_key else None
            published = _optional_str(item, published_key) if published_key else None
        except MalformedError:
            url = None
        if url is None:
            parsed.skipped += 1
            continue
        key = _dedupe_key(url)
        if key in seen:
            parsed.duplicates += 1
            continue
        seen.add(key)
        parsed.hits.append(
            SearchHit(
                url=secrets.scrub(url),
                title=secrets.scrub(title.strip()),
                snippet=secrets.scrub(snippet.strip()),
                rank=len(parsed.hits) + 1,
                provider=provider,
                score=score,
                published=published if published is None else secrets.scrub(published),
            )
        )
    if not parsed.hits:
        if parsed.skipped and not parsed.duplicates:
            parsed.error = ProviderError(
                kind="malformed",
                message=f"all {parsed.skipped} results had missing or wrongly typed fields",
            )
        else:
            parsed.error = ProviderError(kind="empty", message="no results")
    return parsed


def error_detail(body: bytes) -> str:
    """A short human detail from an error body (``detail``/``error``/``message``), or ''."""
    try:
        payload: object = json.loads(body)
    except (ValueError, RecursionError):
        return ""
    for _ in range(3):
        if isinstance(payload, str):
            return payload
        if not isinstance(payload, dict):
            return ""
        for key in ("detail", "error", "message"):
            if key in payload:
                payload = payload[key]
                break
        else:
            return ""
    return payload if isinstance(payload, str) else ""


def status_error(status: int, detail: str, retry_after: float | None) -> ProviderError:
    """The taxonomy entry for an HTTP error ``status``; ``retry_after`` is kept for a 429."""
    kind: ErrorKind
    if status in (400, 413, 414, 422):
        kind, retryable = "bad_request", False
    elif status in (401, 403):
        kind, retryable = "unauthorized", False
    elif status in (402, 432, 433):
        kind, retryable = "quota", False
    elif status == 429:
        kind, retryable = "rate_limited", True
    elif 500 <= status <= 599:
        kind, retryable = "server_error", True
    else:
        kind, retryable = "http_error", False
    message = f"HTTP {status}"
    if detail:
        message = f"{message}: {detail}"
    return ProviderError(
        kind=kind,
        message=message,
        status=status,
        retry_after_s=retry_after if status == 429 else None,
        retryable=retryable,
    )


def require_dict(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MalformedError(f"{what} is not an object")
    return value


def require_list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise MalformedError(f"{what} is not a list")
    return value
