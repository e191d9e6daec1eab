"""Research quality (seed 003): how an attempt scores, which attempt is best, what comes next,
and the stack hint a goal implies. Pure functions; every decision says why."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "NextStep",
    "Scores",
    "StackHint",
    "Thresholds",
    "best_attempt",
    "infer_stack",
    "next_step",
    "score",
]

Outcome = Literal["proceed", "research_again", "escalate"]


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The seed's thresholds: lenient to start with ("refine based on experience")."""

    weak_relevance: float = 0.6
    """Below this, even the best attempt warns "web research weak; relying more on model prior"."""
    good_relevance: float = 0.7
    good_coverage: float = 0.6
    """At or above both, research is good enough: no further attempts."""
    hopeless_relevance: float = 0.3
    """Below this in every attempt, and grounding is required: escalate."""


@dataclass(frozen=True, slots=True)
class Scores:
    """One attempt's evaluation. `fetched` is how many pages it read: an attempt that read
    nothing scores 0 whatever an evaluator says."""

    relevance: float
    confidence: float
    coverage: float
    fetched: int = 1


def score(scores: Scores) -> float:
    """0.5·relevance + 0.3·coverage + 0.2·confidence, or 0 when nothing was fetched."""
    if scores.fetched <= 0:
        return 0.0
    return round(0.5 * scores.relevance + 0.3 * scores.coverage + 0.2 * scores.confidence, 4)


def best_attempt(attempts: list[Scores]) -> int | None:
    """The index of the best attempt: highest score, then higher relevance, then earlier."""
    if not attempts:
        return None
    ranked = sorted(
        range(len(attempts)),
        key=lambda i: (-score(attempts[i]), -_relevance(attempts[i]), i),
    )
    return ranked[0]


def _relevance(scores: Scores) -> float:
    return scores.relevance if scores.fetched > 0 else 0.0


@dataclass(frozen=True, slots=True)
class NextStep:
    outcome: Outcome
    reason: str
    warnings: list[str] = field(default_factory=list)


_WEAK = "web research weak; relying more on model prior"


def next_step(
    attempts: list[Scores],
    max_attempts: int,
    *,
    requires_grounding: bool = False,
    thresholds: Thresholds = Thresholds(),
) -> NextStep:
    """What the planner does after research: proceed, research again, or escalate (the seed's
    "route to Snitch"), with the rule that decided."""
    best = best_attempt(attempts)
    if best is None:  # nothing was found to rely on: say so as loudly as a weak result
        return NextStep("research_again", "no attempt yet", [_WEAK])
    top = attempts[best]
    relevance = _relevance(top)
    warnings = []
    if relevance < thresholds.weak_relevance:
        warnings.append(_WEAK)
    if requires_grounding and all(_relevance(a) < thresholds.hopeless_relevance for a in attempts):
        return NextStep(
            "escalate",
            f"relevance below {thresholds.hopeless_relevance:g} in all {len(attempts)} attempts "
            "and the task requires external evidence",
            warnings,
        )
    if relevance >= thresholds.good_relevance and top.coverage >= thresholds.good_coverage:
        return NextStep(
            "proceed",
            f"best attempt {best + 1}: relevance {relevance:.1f} ≥ {thresholds.good_relevance:g} "
            f"and coverage {top.coverage:.1f} ≥ {thresholds.good_coverage:g}",
            warnings,
        )
    if len(attempts) >= max_attempts:
        return NextStep(
            "proceed",
            f"{len(attempts)} of {max_attempts} attempts made: no more research",
            warnings,
        )
    return NextStep(
        "research_again",
        f"best attempt {best + 1}: relevance {relevance:.1f}, coverage {top.coverage:.1f} — "
        f"below {thresholds.good_relevance:g} / {thresholds.good_coverage:g}",
        warnings,
    )


@dataclass(frozen=True, slots=True)
class StackHint:
    """A tech stack hint ("Python GUI") and the words that suggested it, with their spans
    (into the goal, or into the project context after the goal and a newline)."""

    hint: str | None
    evidence: list[tuple[str, int, int]]


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
_WORD = re.compile(r"[a-z0-9][a-z0-9+#.\-]*")


def infer_stack(goal: str, project_context: str | None = None) -> StackHint:
    """A deterministic stack hint from the goal and an optional project description."""
    text = goal if not project_context else f"{goal}\n{project_context}"
    words = [(m.group().rstrip(".-"), m.start()) for m in _WORD.finditer(text.lower())]
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
        return StackHint(kind, unique)
    return StackHint(" ".join(part for part in (language, kind) if part) or None, unique)
