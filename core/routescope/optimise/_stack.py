"""A tech stack inferred from a research goal (and an optional project description): the
language family and the kind of software, with the words that suggested them. Deterministic;
the optimiser adds the hint's words to a first query."""

from __future__ import annotations

from dataclasses import dataclass

from .._analysis import ASCII_TECH_WORD

__all__ = ["StackHint", "infer_stack"]


@dataclass(frozen=True, slots=True)
class StackHint:
    """A tech stack hint ("Python GUI") and the words that suggested it, with their spans
    (into the goal, or into the project context after the goal and a newline)."""

    hint: str | None
    evidence: list[tuple[str, int, int]]
    language: str | None = None
    """The language family alone ("Python"), when one was found."""


# (family, words); the first family with evidence names the language, the others the kind.
_LANGUAGES: list[tuple[str, tuple[str, ...]]] = [
    ("Python", ("python", "pyside6", "pyqt", "django", "flask", "fastapi", "pip", "pytest")),
    ("TypeScript", ("typescript", "tsx", "ts-node", "deno")),
    ("JavaScript", ("javascript", "node", "nodejs", "npm", "express")),
    ("Rust", ("rust", "cargo", "tokio")),
    ("Go", ("golang",)),
]
_KINDS: list[tuple[str, tuple[str, ...]]] = [
    ("GUI", ("gui", "desktop", "qt", "pyside6", "pyqt", "tkinter", "window", "widget")),
    ("Vite React frontend", ("react", "vite", "jsx", "tsx")),
    ("frontend", ("css", "html", "frontend", "front-end", "browser", "dom")),
    ("backend", ("api", "backend", "server", "django", "flask", "fastapi", "express")),
    ("CLI", ("cli", "command-line", "terminal", "argparse", "click")),
]


def infer_stack(goal: str, project_context: str | None = None) -> StackHint:
    """A deterministic stack hint from the goal and an optional project description."""
    text = goal if not project_context else f"{goal}\n{project_context}"
    words = [(m.group().rstrip(".-"), m.start()) for m in ASCII_TECH_WORD.finditer(text.lower())]
    evidence: list[tuple[str, int, int]] = []

    def first(families: list[tuple[str, tuple[str, ...]]]) -> str | None:
        for name, vocabulary in families:
            hits = [(w, s, s + len(w)) for w, s in words if w in vocabulary]
            if hits:
                evidence.extend(hits[:3])
                return name
        return None

    language, kind = first(_LANGUAGES), first(_KINDS)
    unique = list(dict.fromkeys(evidence))
    if kind == "Vite React frontend":
        return StackHint(kind, unique, language)
    hint = " ".join(part for part in (language, kind) if part) or None
    return StackHint(hint, unique, language)
