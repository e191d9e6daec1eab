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

from .._phrases import key
from ..rules import INTENTS, IntentName, RulePack, parse_rules, set_key
from ..rules._vocabularies import vocabularies, vocabulary
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
    "add_vocabulary",
    "date_time_sensitive",
    "dated_year_window",
    "place_preposition",
    "near_preposition",
    "state_codes",
    "local_names",
    "topic_question",
]
_WORD = re.compile(r"[a-z][a-z0-9'+#.\-]*[a-z0-9+#]|[a-z]")
_ANY_CASE_WORD = re.compile(_WORD.pattern, re.IGNORECASE)
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
        if self.kind == "add_vocabulary":
            words = len(vocabulary(self.value).words)
            return f'add the vocabulary "{self.value}" ({words} words) to {self.target()}'
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
            "date_time_sensitive": "a calendar date makes a prompt time-sensitive",
            "dated_year_window": f"count only years {self.value} around today, and calendar "
            "dates of any year, as time-sensitive",
            "place_preposition": f'"{self.value} <place>" gives a place hint (a known place)',
            "near_preposition": f'"{self.value} <Name>" gives a place hint (any capitalized name)',
            "state_codes": 'a US state code after a place preposition is a place ("in MI")',
            "local_names": "in a local request, any capitalized name after a place preposition "
            "is the place",
            "topic_question": f'a place in a question opening "{self.value}" does not make it '
            "local",
        }
        return what[self.kind]

    def target(self) -> str:
        """The list a vocabulary edit adds to: `intents.<intent>`, or without an intent the
        vocabulary's one `entities.` list."""
        if self.intent is not None:
            return f"intents.{self.intent}"
        lists = [t for t in vocabulary(self.value).targets if t.startswith("entities.")]
        return lists[0] if lists else "entities.known"

    def apply(self, pack: RulePack) -> RulePack:
        data: dict[str, Any] = pack.model_dump()
        _EDITORS[self.kind](data, self)
        return RulePack.model_validate({**data, "source": pack.source})

    def keys(self) -> list[tuple[str, str]]:
        """The (table, key) pairs of the pack's TOML the edit changes."""
        if self.kind in ("add_keyword", "drop_keyword"):
            return [("intents", str(self.intent))]
        if self.kind == "add_vocabulary":
            table, name = self.target().split(".")
            return [(table, name)]
        return _KEYS[self.kind]

    def apply_text(self, text: str, source: str = "<editor>", note: str = "") -> str:
        """The pack's TOML text with the edit made, every other line kept (comments too), the
        changed key under a comment that says what the suggestion was (or `note`)."""
        edited = self.apply(parse_rules(text, source)).model_dump()
        for index, (table, name) in enumerate(self.keys()):
            value = edited[table][name]
            notes = [note or f"suggest: {self.describe()}"] if index == 0 else []
            text = set_key(
                text, table, name, list(value) if isinstance(value, tuple) else value, notes
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


def _add_vocabulary(data: dict[str, Any], edit: PackEdit) -> None:
    table, name = edit.target().split(".")
    if edit.target() not in vocabulary(edit.value).targets:
        raise ValueError(f"the vocabulary {edit.value!r} is not for {edit.target()}")
    have = {key(word) for word in data[table][name]}
    new = [word for word in vocabulary(edit.value).words if key(word) not in have]
    data[table][name] = [*data[table][name], *new]


def _date_time_sensitive(data: dict[str, Any], edit: PackEdit) -> None:
    data["intents"]["date_is_time_sensitive"] = True


def _dated_year_window(data: dict[str, Any], edit: PackEdit) -> None:
    _year_window(data, edit)
    _date_time_sensitive(data, edit)


def _place_preposition(data: dict[str, Any], edit: PackEdit) -> None:
    data["place"]["gazetteer_prepositions"] = [
        *data["place"]["gazetteer_prepositions"],
        edit.value,
    ]


def _near_preposition(data: dict[str, Any], edit: PackEdit) -> None:
    data["place"]["always_prepositions"] = [*data["place"]["always_prepositions"], edit.value]


def _state_codes(data: dict[str, Any], edit: PackEdit) -> None:
    data["place"]["state_codes"] = True


def _local_names(data: dict[str, Any], edit: PackEdit) -> None:
    data["place"]["local_names"] = True


def _topic_question(data: dict[str, Any], edit: PackEdit) -> None:
    data["place"]["topic_questions"] = [*data["place"]["topic_questions"], edit.value]


_KEYS: dict[EditKind, list[tuple[str, str]]] = {
    "add_exception": [("intents", "exceptions")],
    "add_entity_stopword": [("entities", "stopwords")],
    "year_window": [("intents", "year_window")],
    "lowercase_places": [("place", "lowercase"), ("place", "geonames")],
    "local_preposition": [("place", "local_intent_prepositions")],
    "not_place": [("place", "not_places")],
    "entity_min_score": [("entities", "min_score")],
    "date_time_sensitive": [("intents", "date_is_time_sensitive")],
    "dated_year_window": [("intents", "year_window"), ("intents", "date_is_time_sensitive")],
    "place_preposition": [("place", "gazetteer_prepositions")],
    "near_preposition": [("place", "always_prepositions")],
    "state_codes": [("place", "state_codes")],
    "local_names": [("place", "local_names")],
    "topic_question": [("place", "topic_questions")],
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
    "add_vocabulary": _add_vocabulary,
    "date_time_sensitive": _date_time_sensitive,
    "dated_year_window": _dated_year_window,
    "place_preposition": _place_preposition,
    "near_preposition": _near_preposition,
    "state_codes": _state_codes,
    "local_names": _local_names,
    "topic_question": _topic_question,
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
        *_vocabulary_edits(pack),
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
            if not keyword or keyword.startswith(("4-digit", "year", "calendar date")):
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
    is labelled false. A part of a name ("Los Angeles" mid-sentence in most of the prompts it
    comes from) is no word of an intent: it is left out."""
    for intent in INTENTS:
        missed = [c for c in part.cases if c.labels.flag(intent) and not _decided(part, c, intent)]
        negative = [c for c in part.cases if c.labels.flag(intent) is False]
        if len(missed) < support:
            continue
        in_missed: Counter[str] = Counter()
        in_names: Counter[str] = Counter()
        for c in missed:
            grams = dict(_grams(c.prompt))
            in_missed.update(grams.keys())
            in_names.update(g for g, named in grams.items() if named)
        in_negative = Counter(g for c in negative for g in dict(_grams(c.prompt)))
        have = {k.lower() for k in getattr(pack.intents, intent)}
        ranked = sorted(
            (
                g
                for g, n in in_missed.items()
                if n >= support and g not in have and 2 * in_names[g] <= n
            ),
            key=lambda g: -(in_missed[g] - 2 * in_negative[g]),
        )
        for gram in ranked[:25]:
            if in_missed[gram] > 2 * in_negative[gram]:
                yield PackEdit("add_keyword", intent, gram)


def _decided(part: _Part, case: LabelledCase, intent: IntentName) -> bool:
    return part.decided[case.id].flags[intent]


def _grams(prompt: str) -> Iterator[tuple[str, bool]]:
    """The prompt's words and two-word phrases, lower case, each with whether it is part of a
    name: a word in it is capitalized and does not start a sentence."""
    words: list[tuple[str, bool]] = []
    for match in _ANY_CASE_WORD.finditer(prompt):
        at = match.start()
        while at > 0 and prompt[at - 1] in " \t":
            at -= 1
        starts = at == 0 or prompt[at - 1] in ".!?:\n\r\"'("
        words.append((match.group().lower(), match.group()[0].isupper() and not starts))
    for index, (word, named) in enumerate(words):
        if word not in _COMMON and len(word) > 2:
            yield word, named
        if index + 1 < len(words):
            following, named_too = words[index + 1]
            if not (word in _COMMON and following in _COMMON):
                yield f"{word} {following}", named or named_too


def _entity_edits(part: _Part) -> Iterator[PackEdit]:
    for floor in ("0.75", "1.5"):  # without sentence-start words; without any single word
        yield PackEdit("entity_min_score", value=floor)
    junk = part.card.entities.junk
    for name, ids in sorted(junk.items(), key=lambda item: -len(item[1]))[:30]:
        if len(ids) >= 2 and " " not in name:
            yield PackEdit("add_entity_stopword", value=name.lower())


_PLACE_PREPOSITIONS = ("to", "at", "from", "into")
"""Prepositions a place follows ("a train to Chennai", "a table at Smithville"), proposed as
gazetteer prepositions: the name after them must be a known place."""
_NEAR_PREPOSITIONS = ("close to", "next to", "not far from", "neighboring", "neighbouring")
"""Phrases that say "near" ("book a spot close to Marion Center"): any capitalized name after
them is a place, as after "near"."""


_TOPIC_QUESTIONS = (
    "who", "whose", "what", "what's", "when", "which", "why", "how many", "how much", "how tall",
    "how old", "how long", "how big", "how far",
)  # fmt: skip
"""Words that open a question about facts ("who were the first settlers in san antonio"):
proposed as `place.topic_questions`."""


def _place_edits(part: _Part, pack: RulePack) -> Iterator[PackEdit]:
    place = pack.place
    if not place.lowercase:
        yield PackEdit("lowercase_places")
    have = {key(p) for p in (*place.gazetteer_prepositions, *place.always_prepositions)}
    for word in _PLACE_PREPOSITIONS:
        if word not in have:
            yield PackEdit("place_preposition", value=word)
    for words in _NEAR_PREPOSITIONS:
        if words not in have:
            yield PackEdit("near_preposition", value=words)
    local = {key(p) for p in place.local_intent_prepositions}
    for word in ("in", *place.gazetteer_prepositions, *place.always_prepositions):
        if key(word) not in local:
            yield PackEdit("local_preposition", value=key(word))
    if not place.state_codes:
        yield PackEdit("state_codes")
    if not place.local_names:
        yield PackEdit("local_names")
    if place.local_intent_prepositions:
        asked = {key(w) for w in place.topic_questions}
        for words in _TOPIC_QUESTIONS:
            if words not in asked:
                yield PackEdit("topic_question", value=words)
    for miss in part.card.misses:
        got = miss.got
        if miss.field == "place_hint" and miss.expected is None and isinstance(got, str):
            yield from [PackEdit("not_place", value=got.lower())] if " " not in got else []


def _year_edits(part: _Part, pack: RulePack) -> Iterator[PackEdit]:
    if not pack.intents.date_is_time_sensitive:
        yield PackEdit("date_time_sensitive")
    if pack.intents.year_window is not None or not pack.intents.year_is_time_sensitive:
        return
    fired = any(
        m.field == "time_sensitive" and any("year" in e.rule for e in m.evidence)
        for m in part.card.misses
    )
    if fired:
        for window in ("-1..1", "0..1"):
            yield PackEdit("year_window", value=window)
            if not pack.intents.date_is_time_sensitive:
                yield PackEdit("dated_year_window", value=window)


def _vocabulary_edits(pack: RulePack) -> Iterator[PackEdit]:
    """Each shipped vocabulary, for each list it is for that lacks some of its words."""
    data = pack.model_dump()
    for item in vocabularies():
        for target in item.targets:
            table, name = target.split(".")
            have = {key(word) for word in data[table][name]}
            if any(key(word) not in have for word in item.words):
                intent = name if table == "intents" else None
                yield PackEdit("add_vocabulary", intent, item.name)  # type: ignore[arg-type]
