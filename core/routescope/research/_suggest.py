"""New words for the refiner (issue 27 §3): not a subset of the first query's words, but the
names the nearest documents use for what the goal asks — a goal says "the name of the computer
I am running on", the documentation says `gethostname()` and `node()`.

`suggested_words` takes them, nearest first, from the passages of the pages read that came
nearest the goal (the function or class a passage introduces, the module a title names) and,
when the offline index has passage vectors, from the corpus's passages nearest the goal on
pages not read yet (the embedding model's neighbours); without the embedding model, from the
pages read that support the most goal terms. Words of the goal and of queries already tried
are left out, and so are stopwords and common words. Pure but for the vectors' product."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._analysis import light_stem
from ..optimise._goal_terms import is_common, words
from ._records import Attempt
from ._semantic import Semantics

__all__ = ["MAX_SUGGESTED", "suggested_words"]

MAX_SUGGESTED = 6
_NEIGHBOURS = 8
"""Documents of the corpus nearest the goal that are looked at."""
_NAME = re.compile(r"^(?:class )?([A-Za-z_][\w.]*)(?:\(\))?(?::| --) \S")
_TITLE = re.compile(r"^([A-Za-z_][\w.\-]*)(?: [\d.]+\w*)? — ")


def _names(passage: str, title: str) -> list[str]:
    """The function or class a passage introduces (`node`, `Path.mkdir`) and the module or
    package a title names (`platform`)."""
    found: list[str] = []
    name = _NAME.match(passage)
    if name:
        found.append(name.group(1).split(".")[-1])
    module = _TITLE.match(title)
    if module:
        found.append(module.group(1))
    return found


def suggested_words(
    goal: str, attempts: Sequence[Attempt], semantics: Semantics | None = None
) -> list[str]:
    """Up to `MAX_SUGGESTED` words the refiner may search with that no query has tried yet."""
    tried = {light_stem(w.lower()) for w in words(goal)}
    for attempt in attempts:
        tried.update(light_stem(w.lower()) for w in words(attempt.query))
    candidates: list[tuple[float, str]] = []
    read: set[str] = set()
    for attempt in attempts:
        for page in attempt.evidence.pages if attempt.evidence else ():
            read.add(page.url)
            nearness = page.similarity if page.similarity is not None else page.relevance
            candidates += [(nearness, w) for w in _names(page.passage, page.title)]
    if semantics is not None and semantics.vectors is not None:
        for url, cosine, passage in semantics.vectors.rank(semantics.goal_vector, _NEIGHBOURS):
            if url in read:
                continue
            known = semantics.vectors.page(url)
            title = known[0][0] if known and known[0] else ""
            candidates += [(cosine, w) for w in _names(passage, title)]
    suggested: list[str] = []
    for _, word in sorted(candidates, key=lambda c: -c[0]):
        stem = light_stem(word.lower())
        if stem in tried or is_common(word) or len(word) < 3:
            continue
        tried.add(stem)
        suggested.append(word)
        if len(suggested) >= MAX_SUGGESTED:
            break
    return suggested
