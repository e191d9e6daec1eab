"""The "no tool fits" verdict's model (issue 28): two parts on one logistic scale.

- **The request**: does it ask for something a tool could do at all (an action, a lookup), or
  for an answer a language model writes itself ("Give me a lesson plan for teaching Intro to
  Probability")? MetaTool's task 1, "tool usage awareness": a logistic regression over the
  query's MiniLM embedding, which the search computes anyway. Trained on requests labelled by
  whether they need a tool, not by whether one catalog serves them, so it says nothing about
  a catalog's coverage.
- **This catalog's best match**: the best score, its margin over the second, the best tool's
  cosine and how far that stands above the catalog's mean and second-best cosine, its keyword
  evidence, how many of the query's words it matches and which share of them.

fit = σ(bias + request weight · request logit + Σ weight · (feature − mean) / scale). A best
hit whose score reaches the fit threshold and is corroborated (the rule before the model)
fits only when fit ≥ the model's calibrated threshold too: the model only refuses. Every
number is in `resources/models/fit-verdict.json`, written by `tests/eval/write_fit_model.py`
from the tune parts of `make eval`'s no-fit sets; it applies only to query vectors of the model
it was trained with (`model_id`).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._resources import resources_root
from ._evidence import QueryTerm, query_terms
from ._models import ToolHit

__all__ = ["FIT_FEATURES", "FitJudgement", "FitModel", "fit_inputs", "load_fit_model"]

FIT_MODEL_FILE = ("models", "fit-verdict.json")
FIT_FEATURES = (
    "score",
    "margin",
    "cosine",
    "above_mean",
    "cosine_margin",
    "evidence",
    "words",
    "coverage",
)
"""What the catalog part reads of a search, in the model file's order."""
_WORDS_CAP = 4
_SAID = {
    "score": "best score",
    "margin": "margin over the second",
    "cosine": "cosine",
    "above_mean": "cosine above the catalog's mean",
    "cosine_margin": "cosine margin",
    "evidence": "keyword evidence",
    "words": "matched words",
    "coverage": "share of the query's words matched",
}


def fit_inputs(
    query: str,
    results: list[ToolHit],
    best_cosines: tuple[float, float],
    mean_cosine: float,
    terms: Sequence[QueryTerm] | None = None,
) -> dict[str, float]:
    """What the catalog part reads of a search (weighted fusion, the whole request's ranking
    before any step merge): `best_cosines` are the catalog's two highest cosines, `mean_cosine`
    its mean cosine to the query; `terms`: the query's (`query_terms`), when the keyword side
    has them already."""
    best = results[0]
    signals = best.signals
    keyword = signals.keyword
    matched = keyword.terms if keyword is not None else []
    words = len({t.term for t in matched if not t.note})
    whole = len({t.term for t in (query_terms(query) if terms is None else terms) if not t.note})
    cosine = signals.vector.similarity if signals.vector is not None else 0.0
    return {
        "score": best.score,
        "margin": best.score - results[1].score if len(results) > 1 else best.score,
        "cosine": cosine,
        "above_mean": best_cosines[0] - mean_cosine,
        "cosine_margin": best_cosines[0] - best_cosines[1],
        "evidence": (keyword.evidence or 0.0) if keyword is not None else 0.0,
        "words": float(min(words, _WORDS_CAP)),
        "coverage": words / whole if whole else 0.0,
    }


@dataclass(slots=True)
class FitJudgement:
    """The model's verdict on one search, with what each part added (logit units)."""

    probability: float
    threshold: float
    need: float
    """The request part alone as a probability: does the request ask for a tool at all."""
    request: float
    """What the request part adds to the logit."""
    match: float
    """What the catalog part adds (its features together, the bias included)."""
    contributions: dict[str, float]
    """Per catalog feature: what it adds to the logit (beside its value in `inputs`)."""
    inputs: dict[str, float]

    @property
    def fits(self) -> bool:
        return self.probability >= self.threshold

    @property
    def decided_by(self) -> str:
        """ "both", "the request" or "this catalog's best match": the request part says a tool
        is wanted when its own probability is at least 0.5, the catalog part says a tool fits
        when it reaches the threshold alone (a request part of 0); when they disagree, the one
        the verdict follows outweighed the other."""
        request_says = self.need >= 0.5
        match_says = self.match >= _logit(self.threshold)
        if request_says == match_says:
            return "both"
        return "the request" if request_says == self.fits else "this catalog's best match"

    def as_json(self) -> dict[str, Any]:
        """The verdict for `ToolSearchResult.fit_model` (JSON-ready)."""
        return {
            "probability": self.probability,
            "threshold": self.threshold,
            "need": self.need,
            "request": self.request,
            "match": self.match,
            "decided_by": self.decided_by,
            "inputs": self.inputs,
            "contributions": self.contributions,
        }

    def short(self) -> str:
        """The verdict line's part: the fit against its threshold, which part decided, and the
        request part's probability."""
        sign = "≥" if self.fits else "<"
        asks = "a tool" if self.need >= 0.5 else "no tool"
        return (
            f"fit model {self.probability:.2f} {sign} {self.threshold:.2f}, decided by "
            f"{self.decided_by} (the request asks for {asks}: {self.need:.2f})"
        )

    def said(self) -> str:
        """One line: the fit against its threshold and each part with what it added; the
        catalog part's two largest contributions named."""
        sign = "≥" if self.fits else "<"
        asks = "asks for a tool" if self.need >= 0.5 else "asks for no tool"
        parts = self.contributions
        named = sorted(parts, key=lambda name: -abs(parts[name]))[:2]
        detail = ", ".join(
            f"{_SAID[name]} {self.inputs[name]:.3g} {parts[name]:+.2f}" for name in named
        )
        return (
            f"fit model {self.probability:.2f} {sign} {self.threshold:.2f} "
            f"(decided by {self.decided_by}): the request {asks} ({self.need:.2f}, "
            f"{self.request:+.2f}); this catalog's best match {self.match:+.2f} ({detail})"
        )


@dataclass(frozen=True)
class FitModel:
    model_id: str
    """The embedding model whose query vectors the request part reads."""
    request_weights: np.ndarray
    request_bias: float
    request_weight: float
    """The request logit's weight in the fit logit."""
    means: np.ndarray
    scales: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float
    """The fit probability from which the best hit fits (calibrated on the tune parts)."""

    def request_logit(self, vector: np.ndarray) -> float:
        """The request part alone: log-odds that the request asks for a tool at all."""
        weights = self.request_weights
        if vector.dtype != weights.dtype:
            vector = vector.astype(weights.dtype)
        return float(np.dot(weights, vector)) + self.request_bias

    def judge(self, vector: np.ndarray, inputs: dict[str, float]) -> FitJudgement:
        logit = self.request_logit(vector)
        # eight numbers: plain floats (numpy's per-call cost would be most of the time)
        contributions = {
            name: weight * (inputs[name] - mean) / scale
            for name, weight, mean, scale in self._terms
        }
        request = self.request_weight * logit
        match = sum(contributions.values()) + self.bias
        return FitJudgement(
            probability=_sigmoid(request + match),
            threshold=self.threshold,
            need=_sigmoid(logit),
            request=request,
            match=match,
            contributions=contributions,
            inputs=inputs,
        )

    @functools.cached_property
    def _terms(self) -> tuple[tuple[str, float, float, float], ...]:
        """Per catalog feature: its name, weight, mean and scale, as plain floats."""
        return tuple(
            zip(
                FIT_FEATURES,
                self.weights.tolist(),
                self.means.tolist(),
                self.scales.tolist(),
                strict=True,
            )
        )


def _sigmoid(value: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, value))))


def _logit(probability: float) -> float:
    p = min(max(probability, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def _numbers(data: dict[str, object], key: str, size: int | None = None) -> np.ndarray:
    values = np.asarray(data[key], dtype=np.float64)
    if values.ndim != 1 or (size is not None and len(values) != size):
        raise ValueError(f"{key}: expected {size} numbers")
    if not np.isfinite(values).all():
        raise ValueError(f"{key}: not finite")
    return values


def _number(data: dict[str, object], key: str) -> float:
    value = data[key]
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{key}: not a finite number")
    return float(value)


def parse_fit_model(text: str) -> FitModel:
    """The model from its JSON text; ValueError (one line) when anything is off."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        if tuple(data["features"]) != FIT_FEATURES:
            raise ValueError(f"features: expected {', '.join(FIT_FEATURES)}")
        request = data["request"]
        catalog = data["catalog"]
        if not isinstance(request, dict) or not isinstance(catalog, dict):
            raise ValueError("request and catalog must be objects")
        weights = _numbers(request, "weights")
        size = len(FIT_FEATURES)
        scales = _numbers(catalog, "scales", size)
        if (scales <= 0).any():
            raise ValueError("scales must be positive")
        threshold = _number(data, "threshold")
        if not 0 < threshold < 1:
            raise ValueError("threshold must be between 0 and 1")
        return FitModel(
            model_id=str(data["model_id"]),
            request_weights=weights.astype(np.float32),
            request_bias=_number(request, "bias"),
            request_weight=_number(catalog, "request_weight"),
            means=_numbers(catalog, "means", size),
            scales=scales,
            weights=_numbers(catalog, "weights", size),
            bias=_number(catalog, "bias"),
            threshold=threshold,
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"missing or malformed field {exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg})") from None


@functools.cache
def load_fit_model() -> FitModel | str:
    """The shipped model, read once; or why there is none (one line)."""
    path = resources_root().joinpath(*FIT_MODEL_FILE)
    try:
        return parse_fit_model(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return f"fit model not readable: {exc.strerror or exc}"
    except ValueError as exc:
        return f"fit model {FIT_MODEL_FILE[-1]} refused: {exc}"
