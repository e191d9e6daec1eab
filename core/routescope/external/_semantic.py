"""The `semantic-router` kind: a router file saved by aurelio's semantic-router (`to_yaml` /
`to_json`, read back by its `load_router`) run with the embedding model Routescope ships, when
the file names that model (all-MiniLM-L6-v2), without semantic-router installed.

It routes as semantic-router 1.x's `IndexedRouter` over a local index does, step for step, so
that the decisions are identical (tests/core/external/test_semantic_identity.py runs the
library beside it): the utterances are embedded in one call in the file's order (a repeated
(route, utterance) pair kept once; a route without utterances is not in the index), the prompt
alone; cosine similarity in float64; the `top_k` nearest utterances; each route's score is the
`aggregation` (mean, max or sum) of its utterances among them, 0 for a route with none; the
calibrator (platt or isotonic) turns scores into confidences; routes are ranked by raw score
and the first whose confidence reaches its threshold (its own, else the router's; none: any)
is the route — else no route.

Beside the decision it shows what semantic-router does not: each route's best utterances with
their similarity, its threshold and margin, its calibrated confidence, and why it was not
chosen.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._errors import RouterError, SuiteError, describe, one_line
from .._files import read_text
from ._declare import SemanticRouterSpec
from ._models import ExternalDecision, RouteEvidence, UtteranceMatch
from ._pace import Pace

__all__ = ["SHIPPED_MODEL_NAMES", "SemanticRouter", "SemanticRouterFile", "read_router_file"]

SHIPPED_MODEL_NAMES = ("all-minilm-l6-v2",)
"""What an encoder's `name` ends with when it names the model Routescope ships."""
_ENCODER_TYPES = ("huggingface", "fastembed", "local")
_BEST = 3
_EMBED_BATCH = 64


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class FileRoute(_Loose):
    name: str
    utterances: list[Any] = Field(default_factory=list)
    description: str | None = None
    confidence_threshold: float | None = None


class FileEncoder(_Loose):
    type: str
    name: str | None = None


class FileCalibrator(_Loose):
    method: Literal["platt", "isotonic"]
    params: dict[str, list[float]]


class FileIndex(_Loose):
    type: str = "local"


class SemanticRouterFile(_Loose):
    """The parts of a semantic-router 1.x `indexed` router file Routescope reads."""

    router_type: str
    encoder: FileEncoder
    sparse_encoder: FileEncoder | None = None
    top_k: int = Field(5, ge=1)
    aggregation: Literal["mean", "max", "sum"] = "mean"
    index: FileIndex = FileIndex()
    confidence_threshold: float | None = None
    calibrator: FileCalibrator | None = None
    routes: list[FileRoute] | None = None


def read_router_file(path: Path) -> SemanticRouterFile:
    """The router file (RouterError: one line naming the file and what Routescope cannot run)."""
    text = read_text(path, what="semantic-router file", limit=16 << 20, error=RouterError)
    data = _parse(text, path)
    if not isinstance(data, dict) or "router_type" not in data:
        raise RouterError(
            one_line(f"{path}: not a semantic-router 1.x router file (no router_type)", 300)
        )
    if data["router_type"] != "indexed":
        raise RouterError(
            one_line(
                f"{path}: router_type {data['router_type']!r}: Routescope runs indexed routers "
                "(a decision router needs its model, a chain or merge its parts)",
                300,
            )
        )
    try:
        found = SemanticRouterFile.model_validate(data)
    except ValidationError as exc:
        raise RouterError(one_line(f"{path}: {describe(exc)}", 300)) from None
    _check_runnable(path, found)
    return found


def _parse(text: str, path: Path) -> Any:
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except ValueError as exc:
            raise RouterError(one_line(f"{path}: not JSON: {exc}", 300)) from None
    from .._yaml import read_yaml

    try:
        return read_yaml(text, path)
    except SuiteError as exc:
        raise RouterError(str(exc)) from None


def _check_runnable(path: Path, found: SemanticRouterFile) -> None:
    encoder = found.encoder
    name = (encoder.name or "").lower()
    if encoder.type not in _ENCODER_TYPES or not name.endswith(SHIPPED_MODEL_NAMES):
        raise RouterError(
            one_line(
                f"{path}: encoder {encoder.type}/{encoder.name} is not the model Routescope "
                "ships (all-MiniLM-L6-v2 through huggingface, fastembed or local): its "
                "similarities would not be the router's",
                300,
            )
        )
    if found.sparse_encoder is not None:
        raise RouterError(one_line(f"{path}: a hybrid router (sparse_encoder) is not supported"))
    if found.routes is None or found.index.type not in ("local",):
        raise RouterError(
            one_line(f"{path}: its routes live in a {found.index.type} index, not in the file")
        )


@dataclass(frozen=True, slots=True)
class _Index:
    vectors: np.ndarray
    """float64, one row per (route, utterance) pair kept."""
    routes: np.ndarray
    utterances: list[str]
    names: list[str]
    """The routes in the index, in the order each is first seen."""
    thresholds: dict[str, float | None]


_AGGREGATE: dict[str, Callable[[list[float]], float]] = {
    "mean": lambda v: float(np.mean(v)),
    "max": max,
    "sum": sum,
}


class SemanticRouter:
    kind = "semantic-router"

    def __init__(
        self, name: str, spec: SemanticRouterSpec, file: Path, embedder: Any = None
    ) -> None:
        self.name = name
        self.spec = spec
        self.file = file
        self.config = read_router_file(file)
        if embedder is None:
            from ..toolsearch import MiniLMOnnx

            embedder = MiniLMOnnx()
        self._embedder = embedder
        self._index = self._build()
        self._pace = Pace(spec.rate_per_s)

    def __repr__(self) -> str:
        return f"SemanticRouter({self.name!r}, {str(self.file)!r})"

    def _build(self) -> _Index:
        rows: dict[tuple[str, str], int] = {}
        texts: list[str] = []
        names: list[str] = []
        thresholds: dict[str, float | None] = {}
        for route in self.config.routes or ():
            for utterance in route.utterances:
                key = (route.name, str(utterance))
                if key not in rows:
                    rows[key] = len(texts)
                    texts.append(str(utterance))
                    names.append(route.name)
                thresholds.setdefault(route.name, route.confidence_threshold)
        if not texts:
            raise RouterError(one_line(f"{self.file}: no route has an utterance"))
        vectors = np.asarray(self._embedder.embed(texts), dtype=np.float64)
        order = list(dict.fromkeys(names))
        return _Index(vectors, np.array(names), texts, order, thresholds)

    @property
    def routes(self) -> list[str]:
        return list(self._index.names)

    # --- calling ---------------------------------------------------------------------------

    def route(
        self,
        prompt: str,
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> ExternalDecision:
        started = time.perf_counter()
        vector = np.asarray(self._embedder.embed([prompt]), dtype=np.float64)[0]
        return self._decide(vector, (time.perf_counter() - started) * 1000)

    def route_many(
        self,
        prompts: Sequence[str],
        *,
        today: dt.date | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> list[ExternalDecision]:
        """Every prompt's decision, the prompts embedded in batches (the model's batched
        throughput); latency is each batch's time shared out."""
        decisions: list[ExternalDecision] = []
        for start in range(0, len(prompts), _EMBED_BATCH):
            part = list(prompts[start : start + _EMBED_BATCH])
            began = time.perf_counter()
            vectors = np.asarray(self._embedder.embed(part), dtype=np.float64)
            share = (time.perf_counter() - began) * 1000 / len(part)
            decisions += [self._decide(vector, share) for vector in vectors]
        return decisions

    def _decide(self, vector: np.ndarray, embed_ms: float) -> ExternalDecision:
        started = time.perf_counter()
        index, config = self._index, self.config
        similarities = np.dot(index.vectors, vector.T) / (
            np.linalg.norm(index.vectors, axis=1) * np.linalg.norm(vector.T)
        )
        top_k = min(config.top_k, similarities.shape[0])
        chosen = np.argpartition(similarities, -top_k)[-top_k:]
        top_scores = similarities[chosen]
        order = np.argsort(top_scores)
        top_scores, chosen = top_scores[order], chosen[order]
        hits: dict[str, list[float]] = {name: [] for name in index.names}
        for position, score in zip(chosen, top_scores, strict=True):
            hits.setdefault(str(index.routes[position]), []).append(float(score))
        aggregate = _AGGREGATE[config.aggregation]
        scores = {name: aggregate(values) if values else 0.0 for name, values in hits.items()}
        confidences = self._confidences(scores)
        ranked = sorted(scores, key=scores.__getitem__, reverse=True)
        route = next(
            (
                name
                for name in ranked
                if (bar := self._bar(name)) is None or confidences[name] >= bar
            ),
            None,
        )
        evidence = self._evidence(similarities, set(chosen.tolist()), scores, confidences, route)
        latency = embed_ms + (time.perf_counter() - started) * 1000
        return ExternalDecision(
            router=self.name,
            kind=self.kind,
            route=route,
            score=None if route is None else confidences[route],
            calibrated=config.calibrator is not None,
            scores={name: scores[name] for name in ranked},
            routes=evidence,
            latency_ms=latency,
        )

    def _bar(self, name: str) -> float | None:
        own = self._index.thresholds.get(name)
        return own if own is not None else self.config.confidence_threshold

    def _confidences(self, scores: dict[str, float]) -> dict[str, float]:
        calibrator = self.config.calibrator
        if calibrator is None:
            return scores
        names = list(scores)
        raw = np.array([scores[n] for n in names], dtype=float)
        if calibrator.method == "platt":
            a, b = calibrator.params["a"][0], calibrator.params["b"][0]
            probs = 1.0 / (1.0 + np.exp(-(a * raw + b)))
        else:
            probs = np.interp(raw, calibrator.params["x"], calibrator.params["y"])
        return dict(zip(names, map(float, probs), strict=True))

    def _evidence(
        self,
        similarities: np.ndarray,
        top: set[int],
        scores: dict[str, float],
        confidences: dict[str, float],
        route: str | None,
    ) -> list[RouteEvidence]:
        index = self._index
        ranked = sorted(scores, key=lambda n: (n != route, -scores[n]))
        chosen_score = scores.get(route) if route is not None else None
        evidence = []
        for name in ranked:
            rows = np.flatnonzero(index.routes == name)
            best = sorted(rows.tolist(), key=lambda r: -similarities[r])[:_BEST]
            bar = self._bar(name)
            passed = bar is None or confidences[name] >= bar
            evidence.append(
                RouteEvidence(
                    route=name,
                    score=scores[name],
                    confidence=confidences[name],
                    threshold=bar,
                    margin=None if bar is None else confidences[name] - bar,
                    passed=passed,
                    best=[
                        UtteranceMatch(
                            utterance=index.utterances[r],
                            similarity=float(similarities[r]),
                            in_top_k=r in top,
                        )
                        for r in best
                    ],
                    why_not=None
                    if name == route
                    else _why_not(
                        scores[name],
                        confidences[name],
                        bar,
                        any(int(r) in top for r in rows),
                        self.config.top_k,
                        route,
                        chosen_score,
                    ),
                )
            )
        return evidence

    def close(self) -> None:
        """Nothing to release: the index is memory."""


def _why_not(
    score: float,
    confidence: float,
    bar: float | None,
    has_hit: bool,
    top_k: int,
    route: str | None,
    chosen_score: float | None,
) -> str:
    """Why a route that was not chosen was not: no utterance near enough, under its bar, or
    outscored."""
    if not has_hit:
        return f"none of its utterances is among the {top_k} nearest, so it scores 0"
    if bar is not None and confidence < bar:
        return f"confidence {confidence:.3f} is below its threshold {bar:.3f}"
    if route is not None and chosen_score is not None:
        return f"scores {score:.3f}, below {route!r} at {chosen_score:.3f}"
    return "not reached"
