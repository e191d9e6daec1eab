"""A small deterministic embedder for research tests: words hashed into 64 dimensions, with a
few synonyms sharing one, so that "the name of the computer" and "gethostname" meet as the
real model makes them meet — without loading a model."""

from __future__ import annotations

import hashlib
import re

import numpy as np

SYNONYMS = {
    "computer": "host",
    "machine": "host",
    "hostname": "host",
    "gethostname": "host",
    "node": "host",
    "network": "host",
    "save": "store",
    "disk": "store",
    "persist": "store",
    "dump": "store",
    "reopen": "load",
    "read": "load",
    "dict": "mapping",
    "dictionary": "mapping",
    "shelf": "mapping",
}


def _dimension(word: str) -> int:
    return int(hashlib.sha256(word.encode()).hexdigest()[:8], 16) % 64


class FakeEmbedder:
    model_id = "fake-64"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                if len(word) > 2:  # a concept (a synonym's) weighs more than a plain word
                    weight = 3.0 if word in SYNONYMS else 1.0
                    rows[i, _dimension(SYNONYMS.get(word, word))] += weight
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        normalised: np.ndarray = rows / np.maximum(norms, 1e-12)
        return normalised.astype(np.float32)
