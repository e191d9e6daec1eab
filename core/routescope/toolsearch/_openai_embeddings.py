"""An OpenAI-compatible `/v1/embeddings` endpoint as an embedder: a total deadline and a body
limit per request, every failure one line with the credentials hidden, a dead endpoint not
asked again for a while, and the answer checked before a row of it is kept."""

from __future__ import annotations

import json
import math
import re
import threading
import time
import urllib.parse
from typing import Any

import httpx
import numpy as np

from .._errors import EmbedderError, one_line
from .._files import MB
from .._http import send_sync
from .._http_reply import HttpFailure
from .._secrets import Secrets, redact_url
from ._rows import MAX_DIMENSION, normalise

__all__ = ["OpenAIEmbeddings", "shown_url"]


def _url_secrets(url: str) -> list[str]:
    """The credentials a URL carries (userinfo parts, query values), raw and percent-decoded."""
    found: list[str] = []
    userinfo = re.match(r"^(?:[^:/?#]*://)?([^/?#]*)@", url)
    if userinfo:
        found += userinfo.group(1).split(":", 1)
    found += re.findall(r"[?&;][^=&;#]*=([^&;#]*)", url)
    fragment = url.partition("#")[2]
    if fragment:
        found.append(fragment)
    found += [urllib.parse.unquote(value) for value in found]
    return [value for value in dict.fromkeys(found) if len(value) >= 4]


def shown_url(url: str) -> str:
    """`url` for a `model_id` and messages: each value its query carries (4 characters or more)
    is hidden too, whatever the parameter's name."""
    return redact_url(url, _url_secrets(url))


def _endpoint(base_url: str) -> str:
    """`base_url` + `/embeddings`, appended to the path (a query string stays at the end)."""
    try:
        parts = urllib.parse.urlsplit(base_url)
    except ValueError:
        return base_url.rstrip("/") + "/embeddings"
    return urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/embeddings"))


def _json_int(text: str) -> int | float:
    return int(text) if len(text) <= 4_000 else float("inf")


_FLOAT32_MAX = float(np.finfo(np.float32).max)


class OpenAIEmbeddings:
    """An OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp).

    Every request has a total deadline (`timeout_s`, the caller waits no longer whatever the
    server does, trickling included) and a body limit (`max_body_bytes`, also scaled down for
    small requests); every failure is an `EmbedderError` of one line, with the URL's
    credentials and the API key hidden. After a failure the endpoint is not asked again for
    `retry_after_s`: the same error comes at once, so a dead endpoint costs the deadline once
    per process, not once per query.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        client: httpx.Client | None = None,
        timeout_s: float = 30.0,
        max_body_bytes: int = 64 * MB,
        retry_after_s: float = 60.0,
    ) -> None:
        self.model_id = f"openai:{model}@{shown_url(base_url)}"
        self.dimension: int | None = None
        """The vector width, known after the first answer; later answers must match it."""
        self.timeout_s = timeout_s
        self.max_body_bytes = max_body_bytes
        self.retry_after_s = retry_after_s
        self._model = model
        self._url = _endpoint(base_url)
        self._secrets = Secrets([*_url_secrets(base_url), api_key])
        self._where = f"embeddings endpoint {redact_url(self._url, self._secrets)}"
        self._headers = {"Accept-Encoding": "identity"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._down: tuple[float, str] | None = None
        self._lock = threading.Lock()
        try:
            url = httpx.URL(self._url)
        except (httpx.InvalidURL, ValueError, TypeError) as exc:
            raise EmbedderError(self._line(f"{self._where}: invalid URL: {exc}")) from None
        if url.scheme not in ("http", "https") or not url.host:
            raise EmbedderError(
                self._line(f"{self._where}: invalid URL: expected http:// or https:// and a host")
            )
        self._owned = client is None
        self._client = client or httpx.Client(timeout=timeout_s)

    def close(self) -> None:
        """Close the connections of the client this embedder made (not of one passed in)."""
        if self._owned:
            self._client.close()

    def __enter__(self) -> OpenAIEmbeddings:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _line(self, text: str) -> str:
        """One line of at most 300 characters, with every credential replaced by ***."""
        return one_line(self._secrets.scrub(text), 300, collapse=True)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Rows in the order of `texts` (the answer's `index` decides, not its list order).
        Every failure is an `EmbedderError` with a one-line message."""
        with self._lock:
            down = self._down
        if down is not None:
            left = down[0] - time.monotonic()
            if left > 0:
                raise EmbedderError(f"{down[1]} (not asked again for {left:.0f} s)")
        try:
            matrix = self._vectors(self._post(texts), len(texts))
        except EmbedderError as exc:
            message = self._line(str(exc))
            with self._lock:
                self._down = (time.monotonic() + self.retry_after_s, message)
            raise EmbedderError(message) from None
        with self._lock:
            self._down = None
        return matrix

    # -- the request, within a total deadline ------------------------------------------------
    def _post(self, texts: list[str]) -> bytes:
        """The body of a 2xx answer, within `timeout_s` and a limit scaled to the request."""
        limit = min(self.max_body_bytes, MB + len(texts) * 512 * 1024)
        request = self._client.build_request(
            "POST", self._url, json={"model": self._model, "input": texts}, headers=self._headers
        )
        outcome = send_sync(
            self._client, request, timeout_s=self.timeout_s, max_bytes=limit, secrets=self._secrets
        )
        if isinstance(outcome, HttpFailure):
            raise self._failed(outcome, limit)
        return outcome.body

    def _failed(self, failure: HttpFailure, limit: int) -> EmbedderError:
        where, reply = self._where, failure.reply
        if failure.kind == "http" and reply is not None:
            detail = one_line(
                reply.body[:4096].decode("utf-8", errors="replace"), 200, collapse=True
            )
            answered = f"{where} answered HTTP {reply.status} {reply.reason}"
            return EmbedderError(answered + (f": {detail}" if detail else ""))
        if failure.kind == "too_large":
            declared = reply.headers.get("content-length", "") if reply is not None else ""
            if declared.isdigit() and int(declared) > limit:
                return EmbedderError(
                    f"{where} answered {int(declared):,} bytes, more than {limit:,}"
                )
            return EmbedderError(f"{where} answered more than {limit:,} bytes")
        if failure.kind == "timeout":
            return EmbedderError(f"{where} did not answer within {self.timeout_s:g} s")
        if failure.kind == "malformed":
            return EmbedderError(f"{where} answered a body it cannot decode: {failure.detail}")
        return EmbedderError(f"{where} unreachable: {failure.detail or failure.exception}")

    # -- the answer --------------------------------------------------------------------------
    def _vectors(self, body: bytes, count: int) -> np.ndarray:
        where = self._where
        try:
            payload = json.loads(body, parse_int=_json_int)
        except (ValueError, RecursionError):
            raise EmbedderError(
                f"{where} did not answer JSON: "
                + (
                    one_line(body[:4096].decode(errors="replace"), 200, collapse=True)
                    or "(empty body)"
                )
            ) from None
        not_a_list = EmbedderError(
            f"{where} answered JSON that is not an embeddings list "
            '({"data": [{"index": …, "embedding": [numbers]}, …]})'
        )
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise not_a_list
        by_index: dict[int, Any] = {}
        for item in data:
            if not isinstance(item, dict):
                raise not_a_list
            index, vector = item.get("index"), item.get("embedding")
            if type(index) is not int or vector is None:
                raise not_a_list
            by_index[index] = vector
        if len(data) != count:
            raise EmbedderError(f"{where} returned {len(data)} vectors for {count} texts")
        if sorted(by_index) != list(range(count)):
            raise EmbedderError(
                f"{where} answered indices that are not 0 to {count - 1}, once each"
            )
        rows = [by_index[i] for i in range(count)]
        not_vectors = EmbedderError(
            f"{where} returned vectors that are not lists of numbers of one length"
        )
        width = len(rows[0]) if rows and isinstance(rows[0], list) else 0
        if not 0 < width <= MAX_DIMENSION:
            raise not_vectors
        for row in rows:
            if (
                not isinstance(row, list)
                or len(row) != width
                or not set(map(type, row)) <= {int, float}
            ):
                raise not_vectors
        try:
            wide = np.array(rows, dtype=np.float64)
        except (OverflowError, ValueError, TypeError):
            wide = np.array([math.inf])
        if not np.isfinite(wide).all() or (wide.size and float(np.abs(wide).max()) > _FLOAT32_MAX):
            raise EmbedderError(f"{where} returned vectors with values that are not finite numbers")
        if self.dimension is not None and width != self.dimension:
            raise EmbedderError(
                f"{where} returned vectors of {width} dimensions, earlier ones had {self.dimension}"
            )
        self.dimension = width
        return normalise(wide.astype(np.float32))
