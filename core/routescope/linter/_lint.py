"""The query linter: guided / semi / vague by tokens and anchors, deterministic expansion."""

from __future__ import annotations

import heapq
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from .._phrases import PhraseSet, key
from ..rules import LinterRules, RulePack
from ._models import (
    AnchorKind,
    AnchorMatch,
    AnchorsDetected,
    Classification,
    LintResult,
    QueryClass,
)

__all__ = ["MAX_EVIDENCE_PER_KIND", "fold", "lint"]

MAX_EVIDENCE_PER_KIND = 20
"""Anchor matches kept as evidence per kind (strong, weak); full counts are kept apart."""


def _fold_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0xC0, 0x250):
        base = "".join(
            c for c in unicodedata.normalize("NFKD", chr(code)) if not unicodedata.combining(c)
        )
        if len(base) == 1 and base != chr(code):
            table[code] = base.lower()
    return table


_FOLD = _fold_table()


def fold(text: str) -> str | None:
    """Lower-cased, accents removed ("Sesión" -> "sesion"), same length as `text`; None in the
    rare case lowering changes the length (then offsets could not be kept)."""
    folded = text.lower().translate(_FOLD)
    return folded if len(folded) == len(text) else None


def _folded_terms(terms: list[str]) -> list[str]:
    return [fold(t) or t.lower() for t in terms]


_KINDS = ("alias", "strong", "weak", "doc")


@dataclass(frozen=True, eq=False)
class _Compiled:
    terms: PhraseSet
    """Aliases, anchors and doc-intent terms together, found in one pass per query."""
    kinds: dict[str, list[str]]
    """Folded term -> what it is: alias, strong, weak, doc (a term may be several)."""
    alias_anchors: dict[str, tuple[str, list[str]]]
    """Folded alias -> (alias as written in the pack, its anchors)."""
    canonical: dict[str, str]
    """Folded anchor -> anchor as written in the pack."""


def _compile(rules: RulePack) -> _Compiled:
    linter = rules.linter
    anchors = linter.strong_anchors + linter.weak_anchors
    groups = {
        "alias": _folded_terms([a.alias for a in linter.aliases]),
        "strong": _folded_terms(linter.strong_anchors),
        "weak": _folded_terms(linter.weak_anchors),
        "doc": _folded_terms(linter.doc_intent_terms),
    }
    kinds: dict[str, list[str]] = {}
    for kind, terms in groups.items():
        for term in terms:
            kinds.setdefault(key(term), []).append(kind)
    return _Compiled(
        terms=PhraseSet([term for terms in groups.values() for term in terms]),
        kinds=kinds,
        alias_anchors={key(fold(a.alias) or a.alias): (a.alias, a.anchors) for a in linter.aliases},
        canonical={key(fold(a) or a): a for a in anchors},
    )


def _matches(
    text: str, folded: str | None, compiled: _Compiled
) -> dict[str, list[tuple[int, int, str]]]:
    """Every alias, anchor and doc term in the text, by kind, each list in text order."""
    found: dict[str, list[tuple[int, int, str]]] = {kind: [] for kind in _KINDS}
    for phrase, spans in compiled.terms.found(text, folded):
        for kind in compiled.kinds[phrase.text]:
            found[kind] += [(start, end, phrase.text) for start, end in spans]
    for matches in found.values():
        matches.sort()
    return found


class _Cover:
    """Spans already taken, merged and sorted, asked about spans in order of their starts: each
    question moves a cursor forward, so a whole query costs one pass, however many anchors."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for start, end in spans:  # sorted by start
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._spans = merged
        self._next = 0

    def overlaps(self, start: int, end: int) -> bool:
        """Whether [start, end) shares a character with a taken span; `start` never decreases
        from one question to the next."""
        spans, index = self._spans, self._next
        while index < len(spans) and spans[index][1] <= start:
            index += 1
        self._next = index
        return index < len(spans) and spans[index][0] < end


class _Anchors:
    """The anchors of a query: evidence capped per kind, full counts, names in order found."""

    __slots__ = ("aliases", "counts", "evidence", "names")

    def __init__(self) -> None:
        self.evidence: list[AnchorMatch] = []
        self.counts: dict[AnchorKind, int] = {"strong": 0, "weak": 0}
        self.names: dict[AnchorKind, dict[str, None]] = {"strong": {}, "weak": {}}
        self.aliases: dict[str, None] = {}

    def add(
        self, kind: AnchorKind, anchor: str, text: str, start: int, end: int, alias: str | None
    ) -> None:
        self.counts[kind] += 1
        self.names[kind].setdefault(anchor)
        if alias is not None:
            self.aliases.setdefault(alias)
        if self.counts[kind] <= MAX_EVIDENCE_PER_KIND:
            self.evidence.append(AnchorMatch(anchor, kind, text[start:end], start, end, alias))


def _anchors(
    text: str, matches: dict[str, list[tuple[int, int, str]]], compiled: _Compiled
) -> _Anchors:
    """Aliases first (each stands for its anchors), then strong anchors that overlap no alias
    or earlier strong anchor, then weak anchors that overlap neither."""
    found = _Anchors()
    alias_spans = [(start, end) for start, end, _ in matches["alias"]]
    for start, end, term in matches["alias"]:
        alias, anchors = compiled.alias_anchors[term]
        for anchor in anchors:
            found.add("strong", anchor, text, start, end, alias)
    aliases = _Cover(alias_spans) if alias_spans else None
    strong: list[tuple[int, int]] = []
    strong_end = -1  # kept strong anchors never overlap: only the furthest end matters
    for start, end, term in matches["strong"]:
        if start < strong_end or (aliases is not None and aliases.overlaps(start, end)):
            continue
        found.add("strong", compiled.canonical.get(term, term), text, start, end, None)
        strong.append((start, end))
        strong_end = end
    if matches["weak"]:
        taken = _Cover(heapq.merge(alias_spans, strong) if alias_spans else strong)
        for start, end, term in matches["weak"]:
            if not taken.overlaps(start, end):
                found.add("weak", compiled.canonical.get(term, term), text, start, end, None)
    return found


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _classify(tokens: int, strong: int, weak: int, linter: LinterRules) -> tuple[QueryClass, str]:
    t = linter.thresholds
    total = strong + weak
    if tokens >= t.guided_min_tokens and (
        strong >= t.guided_min_strong or total >= t.guided_min_total_anchors
    ):
        why = (
            f"strong {strong} ≥ {t.guided_min_strong}"
            if strong >= t.guided_min_strong
            else (f"total anchors {total} ≥ {t.guided_min_total_anchors}")
        )
        return "guided", f"guided: tokens {tokens} ≥ {t.guided_min_tokens} and {why}"
    if tokens < t.vague_below_tokens:
        return "vague", f"vague: tokens {tokens} < {t.vague_below_tokens}"
    if total == 0:
        return "vague", "vague: no anchors (total anchors 0)"
    return "semi", (
        f"semi: not guided (tokens {tokens}, strong {strong}, total {total}) and not vague"
    )


def _expand(
    folded_tokens: set[str], doc_intent: bool, tokens: int, linter: LinterRules
) -> tuple[list[str], list[str]]:
    if doc_intent:
        candidates, reason = linter.doc_boost, "doc_intent_boost"
    elif tokens <= linter.thresholds.default_boost_max_tokens:
        candidates, reason = linter.default_boost, "vague_default_boost"
    else:
        return [], []
    added: list[str] = []
    for anchor in candidates:
        if len(added) >= linter.max_added_strong:
            break
        if (fold(anchor) or anchor.lower()) not in folded_tokens and anchor not in added:
            added.append(anchor)
    return added, [reason] if added else []


def lint(text: str, rules: RulePack) -> LintResult:
    """Classify a search query and, when it is vague, expand it with strong anchors."""
    compiled = rules.derived(_compile)
    linter = rules.linter
    query = " ".join(text.split())
    folded = fold(text)
    matches = _matches(text, folded, compiled)
    found = _anchors(text, matches, compiled)
    strong = list(found.names["strong"])
    weak = list(found.names["weak"])
    aliases = list(found.aliases)
    tokens = len(query.split())
    query_class, rule = _classify(tokens, len(strong), len(weak), linter)
    doc_terms = _unique([term for _, _, term in matches["doc"]])
    added: list[str] = []
    reasons: list[str] = []
    if query_class == "vague":
        folded_tokens = set((fold(query) or query.lower()).split())
        added, reasons = _expand(folded_tokens, bool(doc_terms), tokens, linter)
    changes = {"added_strong": added, "reasons": reasons} if added else {}
    return LintResult(
        query=text,
        query_class=query_class,
        changed=bool(added),
        expanded_query=" ".join([query, *added]),
        changes=changes,
        anchors_detected=AnchorsDetected(strong, weak, aliases),
        classification=Classification(
            tokens, len(strong), len(weak), len(strong) + len(weak), rule
        ),
        evidence=found.evidence,
        doc_intent=doc_terms,
        evidence_counts=found.counts,
    )
