"""`ExternalDecision`: what an external router decided about one prompt, in one shape whatever
its kind — the route, its score, the score of every route, the tools or flags it chose, the
signals that matched, the semantic-router evidence, and, when it failed on this prompt, why.

A failure is a result, never an exception: `error` says what went wrong (`ErrorKind`), and
the decision holds no route. A batch counts them, the window shows them.

The record a batch writes (`to_record`) keeps the decision and leaves the evidence and the raw
answer out: `{"route", "score", "scores", "tools", "flags", "error", "latency_ms"}`, the error
as `{"kind", "detail"}` and, for an HTTP status, `"status"`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._errors import RecordError

__all__ = [
    "ERROR_KINDS",
    "ErrorKind",
    "ExternalDecision",
    "ExternalFailure",
    "RouteEvidence",
    "Signal",
    "UtteranceMatch",
]

ErrorKind = Literal[
    "timeout", "rate_limited", "http", "network", "too_large", "garbage", "crash", "raised"
]
ERROR_KINDS: tuple[ErrorKind, ...] = (
    "timeout",
    "rate_limited",
    "http",
    "network",
    "too_large",
    "garbage",
    "crash",
    "raised",
)
"""timeout: no complete answer in time (a Python router that hung is stopped); rate_limited:
429 after the retries the deadline allowed; http: another status (5xx, 4xx, a redirect, which
is never followed); network: no answer at all; too_large: the answer passed the size cap;
garbage: not JSON, or no route where the declaration says it is; crash: a Python router's
process died; raised: a Python router raised."""

_SCORE_DIGITS = 6


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Signal(_Frozen):
    """A signal the router says matched (vLLM Semantic Router's `keyword:inflation`), with its
    confidence when it gave one."""

    kind: str = ""
    name: str
    confidence: float | None = None


class UtteranceMatch(_Frozen):
    """One example utterance of a route and how similar the prompt is to it (cosine)."""

    utterance: str
    similarity: float
    in_top_k: bool
    """Whether it is among the router's `top_k` nearest utterances (only those score)."""


class RouteEvidence(_Frozen):
    """Why a semantic-router route was or was not chosen."""

    route: str
    score: float
    """The route's raw score: its `aggregation` of its utterances among the top k (0 if none)."""
    confidence: float
    """The score through the router's calibrator (the raw score without one)."""
    threshold: float | None
    """The confidence the route needs (its own threshold, else the router's; None: none)."""
    margin: float | None
    """confidence − threshold (None without a threshold): how far above or below the bar."""
    passed: bool
    best: list[UtteranceMatch] = Field(default_factory=list)
    why_not: str | None = None
    """For a route that was not chosen: why, in one line."""


class ExternalFailure(_Frozen):
    """Why an external router gave no decision on one prompt (see `ERROR_KINDS`)."""

    kind: ErrorKind
    detail: str
    status: int | None = None
    retry_after_s: float | None = None

    @property
    def label(self) -> str:
        """What a batch counts it as: its kind, and an `http` failure's status class
        (`http 5xx`, `http 4xx`, `http 3xx`: a redirect) when the status is known."""
        if self.kind == "http" and self.status is not None:
            return f"http {self.status // 100}xx"
        return self.kind


class ExternalDecision(_Frozen):
    """What one external router decided about one prompt."""

    router: str
    kind: str
    """The router's kind: `http`, `python` or `semantic-router`."""
    route: str | None = None
    """The chosen route (a category, a model, a decision); None: no route, or an error."""
    score: float | None = None
    calibrated: bool = False
    """Whether `score` is a probability (a calibrated semantic router)."""
    scores: dict[str, float] = Field(default_factory=dict)
    """Every route's score, as the router gave them (best first)."""
    tools: list[str] | None = None
    flags: list[str] | None = None
    signals: list[Signal] = Field(default_factory=list)
    routes: list[RouteEvidence] = Field(default_factory=list)
    """A semantic router's evidence, one entry a route, the chosen one first."""
    error: ExternalFailure | None = None
    latency_ms: float = 0.0
    raw: str = ""
    """The answer as received (secrets masked, cut at 8 KB): what the window's "raw" shows."""

    @classmethod
    def failed(
        cls, router: str, kind: str, failure: ExternalFailure, latency_ms: float, raw: str = ""
    ) -> ExternalDecision:
        """The decision of a router that failed on this prompt: no route, `failure` as why."""
        return cls(router=router, kind=kind, error=failure, latency_ms=latency_ms, raw=raw)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def shown_route(self) -> str:
        """The route as a table cell: the route, `(none)`, or `error: <kind>`."""
        if self.error is not None:
            return f"error: {self.error.kind}"
        return self.route if self.route is not None else "(none)"

    def to_record(self) -> dict[str, Any]:
        """The decision as a batch record keeps it (no evidence, no raw answer)."""
        error = self.error
        return {
            "route": self.route,
            "score": None if self.score is None else round(self.score, _SCORE_DIGITS),
            "scores": {name: round(value, _SCORE_DIGITS) for name, value in self.scores.items()},
            "tools": self.tools,
            "flags": self.flags,
            "error": None if error is None else _error_record(error),
            "latency_ms": round(self.latency_ms, 1),
        }

    @classmethod
    def from_record(cls, router: str, data: object) -> ExternalDecision:
        """A decision read back from a record (RecordError naming the field)."""
        if not isinstance(data, Mapping):
            raise RecordError(f"field 'routers.{router}' must be an object")
        try:
            error = data.get("error")
            return cls(
                router=router,
                kind=str(data.get("kind", "")),
                route=data.get("route"),
                score=data.get("score"),
                scores=dict(data.get("scores") or {}),
                tools=data.get("tools"),
                flags=data.get("flags"),
                error=None if error is None else ExternalFailure.model_validate(error),
                latency_ms=float(data.get("latency_ms") or 0.0),
            )
        except (ValueError, TypeError) as exc:
            raise RecordError(f"field 'routers.{router}' is not a decision: {exc}") from None


def _error_record(error: ExternalFailure) -> dict[str, Any]:
    kept: dict[str, Any] = {"kind": error.kind, "detail": error.detail}
    if error.status is not None:
        kept["status"] = error.status
    return kept
