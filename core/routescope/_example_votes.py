"""Intent flags read from meaning (a pack's `[intents.examples]`): the prompt is embedded with the
shipped model, its nearest prompts of a labelled example set vote on each flag named, and a vote
sets a flag the rules left off (`on`) or clears one they set (`off`). Each vote is kept as
evidence: the neighbours (text, similarity, label), the share and the thresholds.

An example set is shipped in `resources/labelled/examples/`: `<set>.jsonl` (one example a line:
`prompt` and `flags`, the five intent labels) and `<set>.npy` (its prompts' vectors, float16,
one row a line, made with the bundled model by `tests/eval/write_examples.py`). Both load once
per process; the model loads on the first vote."""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._errors import RulePackError, one_line
from ._resources import resources_root
from .rules import INTENTS, IntentName, RulePack
from .strategy import QueryContext
from .strategy._models import ExampleNeighbour, ExampleVote, IntentFlags, KeywordMatch

if TYPE_CHECKING:
    import numpy as np

    from ._embedding import MiniLMOnnx

__all__ = ["ExampleSet", "example_set", "vote_on_examples"]

EXAMPLES_DIR = ("labelled", "examples")
VOTE_KEYWORD = "nearest examples"
"""The keyword a flag set by a vote is cited as, over the whole prompt."""


@dataclass(frozen=True, slots=True)
class ExampleSet:
    name: str
    texts: tuple[str, ...]
    labels: dict[IntentName, np.ndarray]
    """One boolean per example and flag."""
    vectors: np.ndarray
    """L2-normalised float32 rows, one per example."""


@functools.cache
def example_set(name: str) -> ExampleSet:
    """The shipped example set `name` (RulePackError, one line, when missing or malformed)."""
    import numpy as np

    folder = resources_root().joinpath(*EXAMPLES_DIR)
    texts: list[str] = []
    labels: dict[IntentName, list[bool]] = {flag: [] for flag in INTENTS}
    try:
        lines = folder.joinpath(f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        for line in lines:
            if not line.strip():
                continue
            record = json.loads(line)
            texts.append(str(record["prompt"]))
            for flag in INTENTS:
                labels[flag].append(bool(record["flags"][flag]))
        with folder.joinpath(f"{name}.npy").open("rb") as handle:
            vectors = np.load(handle, allow_pickle=False).astype(np.float32)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RulePackError(one_line(f"example set {name!r} cannot be read: {exc}")) from None
    if vectors.ndim != 2 or vectors.shape[0] != len(texts) or not np.isfinite(vectors).all():
        raise RulePackError(
            one_line(f"example set {name!r}: {vectors.shape} vectors for {len(texts)} prompts")
        )
    return ExampleSet(
        name,
        tuple(texts),
        {flag: np.array(values, dtype=bool) for flag, values in labels.items()},
        vectors,
    )


_LOADING = threading.Lock()
_MODEL: list[MiniLMOnnx] = []


def _embedder() -> MiniLMOnnx:
    """The bundled model, loaded once per process (a window votes from two worker threads)."""
    with _LOADING:
        if not _MODEL:
            from ._embedding import MiniLMOnnx

            _MODEL.append(MiniLMOnnx())
        return _MODEL[0]


def vote_on_examples(context: QueryContext, rules: RulePack) -> QueryContext:
    """`context` with the flags the pack's example votes decide, and the votes as evidence;
    unchanged when the pack has no `[intents.examples]`."""
    voting = rules.intents.examples
    if voting is None or not voting.flags:
        return context
    import numpy as np

    from ._embedding import one_blas_thread

    examples = example_set(voting.set)
    query = _embedder().embed([context.raw_text])[0]
    if query.shape[0] != examples.vectors.shape[1]:
        raise RulePackError(
            one_line(
                f"example set {voting.set!r} has {examples.vectors.shape[1]}-wide vectors; "
                f"the embedding model makes {query.shape[0]}"
            )
        )
    with one_blas_thread():
        similarities = examples.vectors @ query
    order = np.argsort(-similarities, kind="stable")
    flags = dataclasses.asdict(context.intent)
    matches = list(context.intent_matches)
    counts = dict(context.intent_match_counts)
    votes: list[ExampleVote] = []
    for flag in INTENTS:
        rule = voting.flags.get(flag)
        if rule is None:
            continue
        nearest = order[: rule.k]
        weights = np.maximum(similarities[nearest], 0.0)
        carries = examples.labels[flag][nearest]
        total = float(weights.sum())
        share = float(weights[carries].sum()) / total if total > 0 else 0.0
        before = bool(flags[flag])
        decided = before
        overruled: list[KeywordMatch] = []
        if not before and share >= rule.on:
            decided = True
            keyword = f"{VOTE_KEYWORD} (share {share:.2f} ≥ {rule.on:.2f})"
            matches.append(KeywordMatch(flag, keyword, context.raw_text, 0, len(context.raw_text)))
            counts[flag] = 1
        elif before and rule.off is not None and share < rule.off:
            decided = False
            overruled = [m for m in matches if m.intent == flag]
            matches = [m for m in matches if m.intent != flag]
            counts[flag] = 0
        flags[flag] = decided
        neighbours = [
            ExampleNeighbour(examples.texts[i], round(float(similarities[i]), 4), bool(c))
            for i, c in zip(nearest.tolist(), carries.tolist(), strict=True)
        ]
        votes.append(
            ExampleVote(
                flag,
                voting.set,
                round(share, 4),
                rule.on,
                rule.off,
                before,
                decided,
                neighbours,
                overruled,
            )
        )
    matches.sort(key=lambda m: (m.start, m.intent))
    return dataclasses.replace(
        context,
        intent=IntentFlags(**flags),
        intent_matches=matches,
        intent_match_counts=counts,
        example_votes=votes,
    )
