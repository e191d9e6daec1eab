"""A learned score for entity candidates (a pack's `entities.model`): a logistic model over what
each candidate is — which source proposed it (a name the pack knows, a capitalized run, an
acronym, a word that only starts a sentence, the gazetteer, …), its length, its position,
whether it is the place hint, whether its words are common words — gives each a probability of
being an entity a labeller names; candidates below the model's threshold are dropped, each with
its score as the evidence.

A model is a JSON file in `resources/labelled/models/<name>.json` (written by
`tests/eval/write_entity_model.py`, trained and its threshold chosen by cross-validation on the
public set's tuning part): the feature names, their centring and scale, the weights, the bias and
the threshold. Pure Python (a score is some twenty products): no numpy on the typing path."""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass

from .._errors import RulePackError, one_line
from .._resources import resources_root
from ._models import EntityCandidate, EntityKind, PlaceHint

__all__ = ["ENTITY_FEATURES", "EntityModel", "candidate_features", "entity_model"]

MODELS_DIR = ("labelled", "models")
_KINDS: tuple[EntityKind, ...] = (
    "openclaw",
    "known",
    "camel_case",
    "url",
    "domain",
    "place",
    "phrase",
    "acronym",
    "word",
)
ENTITY_FEATURES: tuple[str, ...] = (
    *(f"kind {kind}" for kind in _KINDS),
    "starts a sentence",
    "words",
    "characters",
    "position",
    "has a digit",
    "all capitals",
    "written in lower case",
    "is the place hint",
    "in quotes",
    "candidates in the prompt",
    "prompt length",
    "common words",
)
"""The features, in the order of a model's weights."""
_DIGIT = re.compile(r"[0-9]")
_QUOTES = frozenset("\"'`“”‘’")


@dataclass(frozen=True, slots=True)
class EntityModel:
    name: str
    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float

    def probability(self, features: list[float]) -> float:
        """The chance the candidate with these features is an entity a labeller names."""
        logit = self.bias + sum(
            w * (x - m) / s
            for w, x, m, s in zip(self.weights, features, self.mean, self.scale, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, logit))))


def candidate_features(
    candidate: EntityCandidate, text: str, place: PlaceHint | None, count: int
) -> list[float]:
    """What the model reads of one candidate of `text` (`count` candidates in all)."""
    surface = candidate.text
    letters = [c for c in surface if c.isalpha()]
    before = text[candidate.start - 1] if candidate.start > 0 else ""
    after = text[candidate.end] if candidate.end < len(text) else ""
    overlaps_place = place is not None and place.start < candidate.end < place.end + 1
    return [
        *(1.0 if candidate.kind == kind else 0.0 for kind in _KINDS),
        1.0 if "sentence start" in candidate.reason else 0.0,
        float(len(surface.split())),
        math.log1p(len(surface)),
        candidate.start / max(1, len(text)),
        1.0 if _DIGIT.search(surface) else 0.0,
        1.0 if letters and all(c.isupper() for c in letters) else 0.0,
        1.0 if letters and all(c.islower() for c in letters) else 0.0,
        1.0 if overlaps_place or (place is not None and place.text == surface) else 0.0,
        1.0 if before in _QUOTES or after in _QUOTES else 0.0,
        math.log1p(count),
        math.log1p(len(text)),
        1.0 if all(word in _common_words() for word in surface.lower().split()) else 0.0,
    ]


@functools.cache
def _common_words() -> frozenset[str]:
    """The whole words of the bundled model's word-piece vocabulary (some 22,000 common English
    words and names): a candidate made only of these is more often a plain word."""
    path = resources_root().joinpath("models", "all-MiniLM-L6-v2", "tokenizer.json")
    try:
        vocabulary = json.loads(path.read_text(encoding="utf-8"))["model"]["vocab"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RulePackError(one_line(f"the model's vocabulary cannot be read: {exc}")) from None
    return frozenset(word for word in vocabulary if word.isalpha())


@functools.cache
def entity_model(name: str) -> EntityModel:
    """The shipped entity model `name` (RulePackError, one line, when missing or malformed)."""
    path = resources_root().joinpath(*MODELS_DIR, f"{name}.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        features = tuple(str(f) for f in data["features"])
        model = EntityModel(
            name,
            tuple(float(w) for w in data["weights"]),
            float(data["bias"]),
            tuple(float(m) for m in data["mean"]),
            tuple(float(s) for s in data["scale"]),
            float(data["threshold"]),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RulePackError(one_line(f"entity model {name!r} cannot be read: {exc}")) from None
    if features != ENTITY_FEATURES:
        raise RulePackError(f"entity model {name!r} was trained on other features: rewrite it")
    sizes = {len(model.weights), len(model.mean), len(model.scale)}
    numbers = (*model.weights, *model.mean, *model.scale, model.bias, model.threshold)
    if sizes != {len(features)} or not all(math.isfinite(x) for x in numbers):
        raise RulePackError(f"entity model {name!r}: weights do not fit its features")
    if not 0.0 < model.threshold < 1.0 or min(model.scale) <= 0.0:
        raise RulePackError(f"entity model {name!r}: threshold or scale out of range")
    return model
