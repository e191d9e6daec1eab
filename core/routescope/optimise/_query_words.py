"""The words of a goal as the heuristic model puts them into a query: content words without
stopwords or repeats, the strategy router's entities, the query limits (`fit_query`), where a
stack's documentation lives (`doc_domains`) and the label every heuristic reason carries.
Shared by the optimiser's and the refiner's rules (`_heuristic`); `Ranking` is how the refiner
weighs the words of the previous query."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .._analysis import COMPOUND_WORD, light_stem
from ..rules import default_rules
from ..strategy import QueryContext, extract
from ._goal_terms import POSSESSIVE, STOPWORDS, GoalTerm
from ._stack import infer_stack

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_QUERY_WORDS",
    "Ranking",
    "content_words",
    "doc_domains",
    "fit_query",
    "labelled",
    "quoted",
    "router_context",
    "router_entities",
    "spellings",
    "stem_of",
    "stems_of",
    "words_of",
]

MAX_QUERY_WORDS = 12
MAX_QUERY_CHARS = 200

_LABEL = "heuristic: "
_REASON_CHARS = 1_900

_OPERATOR = re.compile(r"\b[a-z]+:\S+", re.IGNORECASE)

_DOMAINS: dict[str, tuple[str, ...]] = {
    "python": ("docs.python.org",),
    "asyncio": ("docs.python.org",),
    "tkinter": ("docs.python.org",),
    "pip": ("pip.pypa.io",),
    "pytest": ("docs.pytest.org",),
    "pyside6": ("doc.qt.io",),
    "pyqt": ("doc.qt.io",),
    "pyqt6": ("doc.qt.io",),
    "qt": ("doc.qt.io",),
    "gui": (),
    "django": ("docs.djangoproject.com",),
    "flask": ("flask.palletsprojects.com",),
    "fastapi": ("fastapi.tiangolo.com",),
    "pydantic": ("docs.pydantic.dev",),
    "numpy": ("numpy.org",),
    "pandas": ("pandas.pydata.org",),
    "react": ("react.dev",),
    "vite": ("vite.dev",),
    "typescript": ("www.typescriptlang.org",),
    "javascript": ("developer.mozilla.org",),
    "node": ("nodejs.org",),
    "nodejs": ("nodejs.org",),
    "node.js": ("nodejs.org",),
    "npm": ("docs.npmjs.com",),
    "css": ("developer.mozilla.org",),
    "html": ("developer.mozilla.org",),
    "frontend": ("developer.mozilla.org",),
    "rust": ("doc.rust-lang.org",),
    "cargo": ("doc.rust-lang.org",),
    "tokio": ("docs.rs",),
    "go": ("go.dev",),
    "golang": ("go.dev",),
    "docker": ("docs.docker.com",),
    "kubernetes": ("kubernetes.io",),
    "ubuntu": ("help.ubuntu.com",),
    "git": ("git-scm.com",),
}
"""Stack or entity word (lower-cased) → where its documentation lives."""
_QA_DOMAIN = "stackoverflow.com"


def stem_of(word: str) -> str:
    return light_stem(word)


def words_of(text: str) -> list[str]:
    """The words of `text` (a possessive's `'s` dropped)."""
    return COMPOUND_WORD.findall(POSSESSIVE.sub("", text))


def content_words(words: Iterable[str]) -> list[str]:
    """`words` without stopwords and repeats (by stem), in their order."""
    seen: set[str] = set()
    kept: list[str] = []
    for word in words:
        stem = stem_of(word)
        if word.lower() in STOPWORDS or stem in seen:
            continue
        seen.add(stem)
        kept.append(word)
    return kept


def stems_of(text: str) -> set[str]:
    return {stem_of(word) for word in COMPOUND_WORD.findall(text)}


def router_context(text: str) -> QueryContext:
    return extract(text, default_rules())


def router_entities(context: QueryContext) -> list[str]:
    """The router's entities, best first, without those made only of stopwords."""
    return [
        entity
        for entity in context.entities.candidates
        if any(word.lower() not in STOPWORDS for word in words_of(entity))
    ]


def labelled(text: str) -> str:
    text = _LABEL + text
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


def quoted(words: Iterable[str], limit: int = 6) -> str:
    items = list(words)
    shown = ", ".join(f"'{word}'" for word in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def fit_query(words: list[str], rank: list[int]) -> list[str]:
    """`words` cut to the query limits by dropping the lowest ranked, latest words first."""
    keep = list(range(len(words)))

    def too_long() -> bool:
        kept = [words[i] for i in keep]
        return len(kept) > MAX_QUERY_WORDS or len(" ".join(kept)) > MAX_QUERY_CHARS

    while keep and too_long():
        drop = min(keep, key=lambda i: (rank[i], -i))
        keep.remove(drop)
    return [words[i][:MAX_QUERY_CHARS] for i in keep]


def spellings(term: GoalTerm) -> list[str]:
    """How a term goes into a query: a hyphenated compound also joined up (`SHA-256` and
    `SHA256`), as documents often write it."""
    if term.kind == "phrase" and "-" in term.text and " " not in term.text:
        return [term.text, term.text.replace("-", "")]
    return [term.text]


def doc_domains(words: Iterable[str]) -> list[str]:
    domains: list[str] = []
    for word in words:
        for domain in _DOMAINS.get(word.lower(), ()):
            if domain not in domains:
                domains.append(domain)
    if domains:
        domains.append(_QA_DOMAIN)
    return domains[:5]


@dataclass(frozen=True, slots=True)
class Ranking:
    """The refiner's view of the words: the previous query's (or the goal's), ranked 3 for an
    entity, 2 for the stack, 1 for another goal word, 0 for a word off the goal."""

    words: list[str]
    goal_words: list[str]
    stack: str
    entities: set[str]
    goal_stems: set[str]
    stack_stems: set[str]

    @classmethod
    def of(cls, goal: str, stack_hint: str | None, previous: str) -> Ranking:
        """The ranking of `previous` (a query) for `goal`, with `stack_hint` or the stack the
        goal implies."""
        context = router_context(goal)
        entities = {stem_of(w) for entity in router_entities(context) for w in words_of(entity)}
        goal_words = content_words(words_of(context.user_goal or goal))
        stack = (stack_hint or "").strip() or infer_stack(goal).hint or ""
        words = words_of(_OPERATOR.sub(" ", previous)) or goal_words or words_of(goal)
        return cls(
            words,
            goal_words,
            stack,
            entities,
            {stem_of(w) for w in goal_words},
            {stem_of(w) for w in content_words(words_of(stack))},
        )

    def rank(self, word: str) -> int:
        stem = stem_of(word)
        if stem in self.entities:
            return 3
        if stem in self.stack_stems:
            return 2
        return 1 if stem in self.goal_stems and word.lower() not in STOPWORDS else 0

    def candidates(
        self, findings: str, low_relevance: bool, low_coverage: bool
    ) -> list[tuple[list[str], str]]:
        """The queries worth trying, best first, each with why."""
        words, rank = self.words, self.rank
        present = {stem_of(w) for w in words}
        candidates: list[tuple[list[str], str]] = []
        missing_stack = [
            w for w in content_words(words_of(self.stack)) if stem_of(w) not in present
        ]
        off_goal = [w for w in words if rank(w) == 0]
        missing_goal = sorted(
            (w for w in self.goal_words if stem_of(w) not in present),
            key=lambda w: -rank(w),
        )[:3]
        found = stems_of(findings)
        uncovered = [w for w in self.goal_words if stem_of(w) not in found]
        if low_relevance and missing_stack:
            candidates.append(
                (words + missing_stack, f"added the stack '{self.stack}' to keep results on it")
            )
        if low_relevance and off_goal:
            kept = [w for w in words if rank(w) > 0]
            candidates.append((kept, f"removed over-specific words {quoted(off_goal)}"))
        if missing_goal:
            candidates.append((words + missing_goal, f"added goal words {quoted(missing_goal)}"))
        if low_coverage and uncovered:
            anchors = [w for w in words if rank(w) >= 2]
            focus = [w for w in content_words([*anchors, *uncovered])]
            candidates.append((focus, f"focused on what no source covered: {quoted(uncovered)}"))
        return candidates
