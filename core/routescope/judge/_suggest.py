"""Pack edits suggested by a pack's errors on a labelled set, each with its measured effect.

The errors of the tuning part propose edits: drop a keyword whose matches are mostly false
positives, or suspend it inside the phrase it misfires in; add a phrase common in false
negatives; an entity stopword for a name often decided and never labelled; a year window; lower-
case places and "in <place>" as local. Each edit is applied to a copy of the pack and the set
scored again: its gain is measured on the tuning part, then on the held-out part (a gain that
does not hold there is an overfit, and says so), and on the guard cases (the built-in suites and
the seed's own examples), which an edit may never break.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..rules import INTENTS, IntentName, RulePack, parse_rules, set_key
from ._labels import LabelledCase
from ._metrics import Scorecard, score
from ._predict import predict_strategy

__all__ = ["Effect", "PackEdit", "Suggestion", "apply_edits", "suggest"]

EditKind = Literal[
    "drop_keyword",
    "add_keyword",
    "add_exception",
    "add_entity_stopword",
    "year_window",
    "lowercase_places",
    "local_preposition",
    "not_place",
    "entity_min_score",
]
_WORD = re.compile(r"[a-z][a-z0-9'+#.\-]*[a-z0-9+#]|[a-z]")
_COMMON = frozenset(
    """the a an of to in on for and or is are was were be with
    by at from as it this that what which who whom how why when where do
    does did can could should would will i you we they my your me us our
    its his her their there here not no yes if then than so about into over
    up down out get got have has had make made some any all more most much
    many""".split()  # noqa: SIM905
)


@dataclass(frozen=True, slots=True)
class PackEdit:
    """One change to a rule pack."""

    kind: EditKind
    intent: IntentName | None = None
    value: str = ""

    def describe(self) -> str:
        what = {
            "drop_keyword": f'drop "{self.value}" from intents.{self.intent}',
            "add_keyword": f'add "{self.value}" to intents.{self.intent}',
            "add_exception": f'suspend intents.{self.intent} inside "{self.value}"',
            "add_entity_stopword": f'never take "{self.value}" as an entity',
            "year_window": f"count only years {self.value} around today as time-sensitive",
            "lowercase_places": "find places written in lower case (GeoNames gazetteer)",
            "local_preposition": f'"{self.value} <place>" sets intent.local',
            "not_place": f'never read "{self.value}" as a lower-case place',
            "entity_min_score": f"drop entity candidates scoring below {self.value}",
        }
        return what[self.kind]

    def apply(self, pack: RulePack) -> RulePack:
        data: dict[str, Any] = pack.model_dump()
        _EDITORS[self.kind](data, self)
        return RulePack.model_validate({**data, "source": pack.source})

    def keys(self) -> list[tuple[str, str]]:
        """The (table, key) pairs of the pack's TOML the edit changes."""
        if self.kind in ("add_keyword", "drop_keyword"):
            return [("intents", str(self.intent))]
        return _KEYS[self.kind]

    def apply_text(self, text: str, source: str = "<editor>", note: str = "") -> str:
        """The pack's TOML text with the edit made, every other line kept (comments too), the
        changed key under a comment that says what the suggestion was (or `note`)."""
        edited = self.apply(parse_rules(text, source)).model_dump()
        for index, (table, key) in enumerate(self.keys()):
            value = edited[table][key]
            notes = [note or f"suggest: {self.describe()}"] if index == 0 else []
            text = set_key(
                text, table, key, list(value) if isinstance(value, tuple) else value, notes
            )
        parse_rules(text, source)
        return text


def _drop_keyword(data: dict[str, Any], edit: PackEdit) -> None:
    data["intents"][edit.intent] = [k for k in data["intents"][edit.intent] if k != edit.value]


def _add_keyword(data: dict[str, Any], edit: PackEdit) -> None:
    data["intents"][edit.intent] = [*data["intents"][edit.intent], edit.value]


def _add_exception(data: dict[str, Any], edit: PackEdit) -> None:
    exceptions = data["intents"].setdefault("exceptions", {})
    exceptions[edit.intent] = [*exceptions.get(edit.intent, []), edit.value]


def _add_entity_stopword(data: dict[str, Any], edit: PackEdit) -> None:
    data["entities"]["stopwords"] = [*data["entities"]["stopwords"], edit.value]


def _year_window(data: dict[str, Any], edit: PackEdit) -> None:
    low, high = (int(part) for part in edit.value.split(".."))
    data["intents"]["year_window"] = (low, high)


def _lowercase_places(data: dict[str, Any], edit: PackEdit) -> None:
    data["place"]["lowercase"] = data["place"]["geonames"] = True


def _local_preposition(data: dict[str, Any], edit: PackEdit) -> None:
    data["place"]["local_intent_prepositions"] = [
        *data["place"]["local_intent_prepositions"],
        edit.value,
    ]


def _not_place(data: dict[str, Any], edit: PackEdit) -> None:
    data["place"]["not_places"] = [*data["place"]["not_places"], edit.value]


def _entity_min_score(data: dict[str, Any], edit: PackEdit) -> None:
    data["entities"]["min_score"] = float(edit.value)


_KEYS: dict[EditKind, list[tuple[str, str]]] = {
    "add_exception": [("intents", "exceptions")],
    "add_entity_stopword": [("entities", "stopwords")],
    "year_window": [("intents", "year_window")],
    "lowercase_places": [("place", "lowercase"), ("place", "geonames")],
    "local_preposition": [("place", "local_intent_prepositions")],
    "not_place": [("place", "not_places")],
    "entity_min_score": [("entities", "min_score")],
}

_EDITORS: dict[EditKind, Callable[[dict[str, Any], PackEdit], None]] = {
    "drop_keyword": _drop_keyword,
    "add_keyword": _add_keyword,
    "add_exception": _add_exception,
    "add_entity_stopword": _add_entity_stopword,
    "year_window": _year_window,
    "lowercase_places": _lowercase_places,
    "local_preposition": _local_preposition,
    "not_place": _not_place,
    "entity_min_score": _entity_min_score,
}


def apply_edits(pack: RulePack, edits: Sequence[PackEdit]) -> RulePack:
    for edit in edits:
        pack = edit.apply(pack)
    return pack


@dataclass(frozen=True, slots=True)
class Effect:
    """What an edit changes on one part: the figures' differences and the cases it fixes and
    breaks (a case is fixed when a field of it goes from wrong to right)."""

    macro_f1: float
    strategy: float
    place: float
    entity_f1: float
    fixed: tuple[str, ...]
    broken: tuple[str, ...]

    @property
    def gain(self) -> float:
        return self.macro_f1 + self.strategy + self.place + self.entity_f1

    def to_json(self) -> dict[str, object]:
        return {
            "macro_f1": round(self.macro_f1, 4),
            "strategy_accuracy": round(self.strategy, 4),
            "place_accuracy": round(self.place, 4),
            "entity_f1": round(self.entity_f1, 4),
            "fixed": list(self.fixed),
            "broken": list(self.broken),
        }


@dataclass(frozen=True, slots=True)
class Suggestion:
    edit: PackEdit
    tune: Effect
    heldout: Effect | None
    guards_broken: tuple[str, ...]

    @property
    def holds(self) -> bool:
        """The gain holds on the held-out part (or there is none to check) and no guard breaks."""
        held = self.heldout is None or self.heldout.gain > 0
        return held and not self.guards_broken

    def to_json(self) -> dict[str, object]:
        return {
            "edit": {"kind": self.edit.kind, "intent": self.edit.intent, "value": self.edit.value},
            "describe": self.edit.describe(),
            "tune": self.tune.to_json(),
            "heldout": self.heldout.to_json() if self.heldout else None,
            "guards_broken": list(self.guards_broken),
            "holds": self.holds,
        }


class _Part:
    """One part of the set under one pack: its scorecard, kept to compare edits against."""

    def __init__(self, cases: Sequence[LabelledCase], pack: RulePack) -> None:
        self.cases = list(cases)
        self.predictions = [predict_strategy(case, pack) for case in self.cases]
        self.card = score(zip(self.cases, self.predictions, strict=True))
        self.decided = {c.id: p for c, p in zip(self.cases, self.predictions, strict=True)}

    def effect_of(self, pack: RulePack) -> Effect:
        after = score((case, predict_strategy(case, pack)) for case in self.cases)
        return _effect(self.card, after)


def _entity_f1(card: Scorecard) -> float:
    p, r = card.entities.precision or 0.0, card.entities.recall or 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def _effect(before: Scorecard, after: Scorecard) -> Effect:
    wrong_before = {(m.case, m.field) for m in before.misses}
    wrong_after = {(m.case, m.field) for m in after.misses}
    return Effect(
        macro_f1=(after.macro_f1 or 0.0) - (before.macro_f1 or 0.0),
        strategy=(after.strategy.accuracy or 0.0) - (before.strategy.accuracy or 0.0),
        place=(after.place.accuracy or 0.0) - (before.place.accuracy or 0.0),
        entity_f1=_entity_f1(after) - _entity_f1(before),
        fixed=tuple(sorted({case for case, _ in wrong_before - wrong_after})),
        broken=tuple(sorted({case for case, _ in wrong_after - wrong_before})),
    )


def suggest(
    cases: Sequence[LabelledCase],
    pack: RulePack,
    *,
    guards: Sequence[LabelledCase] = (),
    limit: int = 20,
    support: int = 3,
) -> list[Suggestion]:
    """The best edits the tuning part's errors propose, best first: those whose gain holds on
    the held-out part and break no guard before those that do not. Without parts, the whole
    set tunes and nothing is held out. `support`: how many false negatives a new phrase must
    come from."""
    tune_cases = [c for c in cases if c.part in (None, "tune")]
    held_cases = [c for c in cases if c.part not in (None, "tune")]
    tune = _Part(tune_cases, pack)
    held = _Part(held_cases, pack) if held_cases else None
    guard = _Part(guards, pack) if guards else None
    measured: list[tuple[PackEdit, Effect]] = []
    for edit in _candidates(tune, pack, support):
        effect = tune.effect_of(edit.apply(pack))
        if effect.gain > 0:
            measured.append((edit, effect))
    measured.sort(key=lambda pair: -pair[1].gain)
    found = [_checked(edit, effect, pack, held, guard) for edit, effect in measured[: limit * 2]]
    found.sort(key=lambda s: (not s.holds, -s.tune.gain))
    return found[:limit]


def _checked(
    edit: PackEdit, effect: Effect, pack: RulePack, held: _Part | None, guard: _Part | None
) -> Suggestion:
    edited = edit.apply(pack)
    heldout = held.effect_of(edited) if held is not None else None
    broken = guard.effect_of(edited).broken if guard is not None else ()
    return Suggestion(edit, effect, heldout, broken)


# -- candidates ---------------------------------------------------------------------------------


def _candidates(part: _Part, pack: RulePack, support: int) -> Iterator[PackEdit]:
    seen: set[PackEdit] = set()
    for edit in (
        *_keyword_edits(part),
        *_phrase_edits(part, pack, support),
        *_entity_edits(part),
        *_place_edits(part, pack),
        *_year_edits(part, pack),
    ):
        if edit not in seen:
            seen.add(edit)
            yield edit


def _keyword_edits(part: _Part) -> Iterator[PackEdit]:
    """For each keyword behind false positives: drop it, or suspend it in the two-word phrase
    it misfires in."""
    misfired: Counter[tuple[IntentName, str]] = Counter()
    phrases: Counter[tuple[IntentName, str]] = Counter()
    for miss in part.card.misses:
        if miss.field not in INTENTS or miss.expected is not False:
            continue
        intent: IntentName = miss.field
        for item in miss.evidence:
            keyword = item.rule.split('"')[1] if '"' in item.rule else ""
            if not keyword or keyword.startswith(("4-digit", "year")):
                continue
            misfired[intent, keyword] += 1
            for phrase in _around(miss.prompt, item.start, item.end):
                phrases[intent, phrase] += 1
    for (intent, keyword), count in misfired.most_common(40):
        if count >= 2:
            yield PackEdit("drop_keyword", intent, keyword)
    for (intent, phrase), count in phrases.most_common(40):
        if count >= 2:
            yield PackEdit("add_exception", intent, phrase)


def _around(prompt: str, start: int, end: int) -> Iterator[str]:
    """The keyword with the word before it and with the word after it, lower case."""
    before = _WORD.findall(prompt[max(0, start - 30) : start].lower())
    after = _WORD.findall(prompt[end : end + 30].lower())
    word = prompt[start:end].lower()
    if before:
        yield f"{before[-1]} {word}"
    if after:
        yield f"{word} {after[0]}"


def _phrase_edits(part: _Part, pack: RulePack, support: int) -> Iterator[PackEdit]:
    """Words and two-word phrases common in a flag's false negatives and rare where the flag
    is labelled false."""
    for intent in INTENTS:
        missed = [c for c in part.cases if c.labels.flag(intent) and not _decided(part, c, intent)]
        negative = [c for c in part.cases if c.labels.flag(intent) is False]
        if len(missed) < support:
            continue
        in_missed = Counter(g for c in missed for g in set(_grams(c.prompt)))
        in_negative = Counter(g for c in negative for g in set(_grams(c.prompt)))
        have = {k.lower() for k in getattr(pack.intents, intent)}
        ranked = sorted(
            (g for g, n in in_missed.items() if n >= support and g not in have),
            key=lambda g: -(in_missed[g] - 2 * in_negative[g]),
        )
        for gram in ranked[:25]:
            if in_missed[gram] > 2 * in_negative[gram]:
                yield PackEdit("add_keyword", intent, gram)


def _decided(part: _Part, case: LabelledCase, intent: IntentName) -> bool:
    return part.decided[case.id].flags[intent]


def _grams(prompt: str) -> Iterator[str]:
    words = _WORD.findall(prompt.lower())
    for index, word in enumerate(words):
        if word not in _COMMON and len(word) > 2:
            yield word
        if index + 1 < len(words) and not (word in _COMMON and words[index + 1] in _COMMON):
            yield f"{word} {words[index + 1]}"


def _entity_edits(part: _Part) -> Iterator[PackEdit]:
    for floor in ("0.75", "1.5"):  # without sentence-start words; without any single word
        yield PackEdit("entity_min_score", value=floor)
    junk = part.card.entities.junk
    for name, ids in sorted(junk.items(), key=lambda item: -len(item[1]))[:30]:
        if len(ids) >= 2 and " " not in name:
            yield PackEdit("add_entity_stopword", value=name.lower())


def _place_edits(part: _Part, pack: RulePack) -> Iterator[PackEdit]:
    if not pack.place.lowercase:
        yield PackEdit("lowercase_places")
    if "in" not in pack.place.local_intent_prepositions:
        yield PackEdit("local_preposition", value="in")
    for miss in part.card.misses:
        got = miss.got
        if miss.field == "place_hint" and miss.expected is None and isinstance(got, str):
            yield from [PackEdit("not_place", value=got.lower())] if " " not in got else []


def _year_edits(part: _Part, pack: RulePack) -> Iterator[PackEdit]:
    if pack.intents.year_window is not None or not pack.intents.year_is_time_sensitive:
        return
    fired = any(
        m.field == "time_sensitive" and any("year" in e.rule for e in m.evidence)
        for m in part.card.misses
    )
    if fired:
        yield PackEdit("year_window", value="-1..1")
        yield PackEdit("year_window", value="0..1")
