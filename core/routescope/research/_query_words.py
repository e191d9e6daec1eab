"""The words of a goal as the heuristic model puts them into a query: content words without
stopwords or repeats, the strategy router's entities, the query limits (`fit_query`), where a
stack's documentation lives (`doc_domains`) and the label every heuristic reason carries.
Shared by the optimiser's and the refiner's rules (`_heuristic`)."""

from __future__ import annotations

from collections.abc import Iterable

from .._analysis import COMPOUND_WORD, light_stem
from ..rules import default_rules
from ..strategy import QueryContext, extract
from ._goal_terms import STOPWORDS, GoalTerm

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_QUERY_WORDS",
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
    return COMPOUND_WORD.findall(text)


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
