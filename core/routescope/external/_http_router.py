"""The `http` kind: a routing service asked over HTTP through the core's one HTTP edge
(`_http.send`: a total deadline, a size cap that holds after decompression, `Retry-After`
honoured within the deadline, secrets masked in every message).

The request is the declaration's body (or query) with `{prompt}`, `{today}`, `{context}` and
`{context.<key>}` put in: a value that is exactly a placeholder takes the value itself (a
context object stays an object), a longer text has it written in. Headers may say `{secret}`.
Redirects are never followed (a 3xx is an `http` failure) and the environment's proxies are
not used. Every failure is a decision with an `error`: timeout, rate_limited (a 429 still
refused after the retries the deadline allowed), http, network, too_large, garbage.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from .._errors import one_line
from .._http import Retry, send, tls_context
from .._http_reply import HttpFailure, HttpReply
from .._secrets import Secrets, redact_url
from ._answer import decide
from ._declare import AnswerMap, HttpSpec
from ._models import ErrorKind, ExternalDecision, ExternalFailure
from ._pace import Pace

__all__ = ["RAW_CHARS", "HttpRouter", "fill"]

RAW_CHARS = 8192
"""The raw answer kept with a decision (what the window shows), at most."""


def fill(template: Any, values: Mapping[str, Any]) -> Any:
    """`template` with every `{name}` of `values` put in (see the module's notes)."""
    if isinstance(template, dict):
        return {key: fill(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, values) for value in template]
    if not isinstance(template, str):
        return template
    stripped = template.strip()
    if stripped.startswith("{") and stripped.endswith("}") and stripped[1:-1] in values:
        return values[stripped[1:-1]]
    text = template
    for name, value in values.items():
        marker = "{" + name + "}"
        if marker in text:
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            text = text.replace(marker, shown)
    return text


def _placeholders(
    prompt: str, today: dt.date | None, context: Mapping[str, Any] | None, model: str | None
) -> dict[str, Any]:
    values: dict[str, Any] = {
        "prompt": prompt,
        "today": (today or dt.date.today()).isoformat(),
        "context": dict(context or {}),
    }
    if model is not None:
        values["model"] = model
    for key, value in (context or {}).items():
        values[f"context.{key}"] = value
    return values


class HttpRouter:
    kind = "http"

    def __init__(self, name: str, spec: HttpSpec, secret: str | None) -> None:
        self.name = name
        self.spec = spec
        self.answer: AnswerMap = spec.answer or AnswerMap()
        self._secret = secret
        self.secrets = Secrets([secret])
        self._headers = {k: v.replace("{secret}", secret or "") for k, v in spec.headers.items()}
        self._pace = Pace(spec.rate_per_s)
        self.shown_url = redact_url(spec.url, self.secrets)

    def __repr__(self) -> str:
        return f"HttpRouter({self.name!r}, {self.shown_url!r})"

    # --- calling ---------------------------------------------------------------------------

    def route(
        self,
        prompt: str,
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> ExternalDecision:
        return self.route_many([prompt], today=today, context=context)[0]

    def route_many(
        self,
        prompts: Sequence[str],
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> list[ExternalDecision]:
        """Every prompt's decision, in order, with at most `concurrency` requests in flight and
        at most `rate_per_s` started a second."""
        return asyncio.run(self.aroute_many(prompts, today=today, context=context))

    async def aroute_many(
        self,
        prompts: Sequence[str],
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> list[ExternalDecision]:
        gate = asyncio.Semaphore(self.spec.concurrency)
        limits = httpx.Limits(max_connections=self.spec.concurrency)
        async with httpx.AsyncClient(
            follow_redirects=False, trust_env=False, limits=limits, verify=tls_context()
        ) as client:

            async def one(prompt: str) -> ExternalDecision:
                async with gate:
                    wait = self._pace.reserve()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    return await self._ask(client, prompt, today, context)

            return list(await asyncio.gather(*(one(p) for p in prompts)))

    async def _ask(
        self,
        client: httpx.AsyncClient,
        prompt: str,
        today: dt.date | None,
        context: Mapping[str, Any] | None,
    ) -> ExternalDecision:
        spec = self.spec
        values = _placeholders(prompt, today, context, spec.model)
        params = fill(spec.query, values) if spec.query else None
        body = None if spec.method == "GET" or spec.body is None else fill(spec.body, values)
        request = client.build_request(
            spec.method,
            spec.url,
            params={k: str(v) for k, v in params.items()} if params else None,
            json=body,
            headers={"Accept": "application/json", **self._headers},
        )
        retry = Retry(retries=spec.retries, max_wait_s=spec.timeout_s, named_wait_must_fit=True)
        started = time.perf_counter()
        outcome = await send(
            client,
            request,
            timeout_s=spec.timeout_s,
            max_bytes=spec.max_bytes,
            secrets=self.secrets,
            retry=retry,
        )
        latency_ms = (time.perf_counter() - started) * 1000
        return self._decision(outcome, latency_ms)

    def _decision(self, outcome: HttpReply | HttpFailure, latency_ms: float) -> ExternalDecision:
        if isinstance(outcome, HttpFailure):
            raw = outcome.reply.text()[:RAW_CHARS] if outcome.reply is not None else ""
            failure = _failure(outcome)
            failure = failure.model_copy(update={"detail": self.secrets.scrub(failure.detail)})
            return self._failed(failure, latency_ms, self.secrets.scrub(raw))
        raw = self.secrets.scrub(outcome.text()[:RAW_CHARS])
        try:
            answer = json.loads(outcome.body)
        except (ValueError, RecursionError) as exc:
            failure = ExternalFailure(kind="garbage", detail=one_line(f"not JSON: {exc}", 200))
            return self._failed(failure, latency_ms, raw)
        return decide(
            answer,
            self.answer,
            router=self.name,
            kind=self.kind,
            latency_ms=latency_ms,
            raw=raw,
            scrub=self.secrets.scrub,
        )

    def _failed(self, failure: ExternalFailure, latency_ms: float, raw: str) -> ExternalDecision:
        return ExternalDecision.failed(self.name, self.kind, failure, latency_ms, raw)

    def close(self) -> None:
        """Nothing is held between calls (each call opens its own client)."""


def _failure(failure: HttpFailure) -> ExternalFailure:
    kind: ErrorKind
    detail = failure.message
    if failure.kind == "http" and failure.status == 429:
        kind = "rate_limited"
        detail = f"HTTP 429 after {failure.attempts} attempt(s)"
        if failure.wait_past_deadline_s is not None:
            detail += f"; the server asked to wait {failure.wait_past_deadline_s:g} s"
    elif failure.kind == "http" and failure.status is not None and 300 <= failure.status < 400:
        kind = "http"
        where = failure.reply.headers.get("location", "") if failure.reply is not None else ""
        detail = f"HTTP {failure.status}: a redirect (to {one_line(where, 80)!r}) is never followed"
    elif failure.kind == "malformed":
        kind = "garbage"
    else:
        kind = failure.kind
    return ExternalFailure(
        kind=kind,
        detail=one_line(detail, 300),
        status=failure.status,
        retry_after_s=failure.retry_after_s,
    )
