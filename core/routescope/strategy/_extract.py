"""QueryContext extraction: entities, place hint, intent flags and the user goal.

All spans are offsets into the text exactly as given (`raw_text`), so a view can highlight them
in place; only the goal and the queries are whitespace-normalised.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Iterator

from ..rules import INTENTS, IntentName, RulePack
from ._compiled import CompiledRules, compile_rules, is_word_char, key, lowered_or_none
from ._entity_model import candidate_features, entity_model
from ._models import (
    Entities,
    EntityCandidate,
    EntityKind,
    IntentFlags,
    KeywordMatch,
    PlaceHint,
    QueryContext,
    Span,
)
from ._places import US_STATE_CODES

__all__ = ["MAX_MATCHES_PER_INTENT", "extract", "normalize_goal"]

MAX_MATCHES_PER_INTENT = 20
"""Evidence kept per intent (and per list of dropped words); full counts are kept apart."""

_SENTENCE_END = frozenset(".!?:;\n\r")
_OPENERS = frozenset(" \t\"'“‘([{«¿¡*-–—•")
_WORD = re.compile(r"\S+")
_YEAR = re.compile(r"(?:19|20)[0-9]{2}(?![\w])")
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?:3[01]|[12][0-9]|0?[1-9])(?:st|nd|rd|th)?"
_DATE = re.compile(
    rf"(?<![\w/\-])(?:{_MONTH}[ \t]++(?:the[ \t]++)?{_DAY}|{_DAY}[ \t]++(?:of[ \t]++)?{_MONTH}"
    r"|(?:19|20)[0-9]{2}-[01]?[0-9]-[0-3]?[0-9]|[01]?[0-9]/[0-3]?[0-9]/(?:19|20)?[0-9]{2})(?!\w)",
    re.IGNORECASE,
)
"""A calendar date: month and day in either order ("April 23rd", "the 9th of march"), or
written in digits ("2023-04-12", "4/23/2023")."""
_URL = re.compile(r"https?://[^\s<>\"'`{}|\\^\[\]]++")
_URL_TAIL = ".,;:!?)]}'\""
_TLD = re.compile(r"\.[a-z]{2,24}(?![\w\-]|\.[A-Za-z0-9])")
_DOMAIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
_CAMEL_STEP = re.compile(r"[A-Z](?<=[a-z].)")  # an upper-case letter after a lower-case one
_WORD_TAIL = re.compile(r"\w*+")
_ABBREVIATIONS = frozenset({"St", "Mt", "Ft"})
_CONTROL_TO_SPACE = dict.fromkeys([*range(0x09), *range(0x0B, 0x20), 0x7F], " ")
_GOAL_EDGES = " \t\"'“”‘’`?!.,;:…"


def normalize_goal(text: str) -> str:
    """The request with whitespace squashed, control characters and edge punctuation removed."""
    squashed = " ".join(text.translate(_CONTROL_TO_SPACE).split())
    return squashed.strip(_GOAL_EDGES) or squashed


def _starts_sentence(text: str, index: int) -> bool:
    while index > 0 and text[index - 1] in _OPENERS:
        index -= 1
    return index == 0 or text[index - 1] in _SENTENCE_END


def _after_word(text: str, index: int) -> bool:
    return index > 0 and is_word_char(text[index - 1])


class _Evidence:
    """Per-intent matches, capped, with full counts."""

    def __init__(self) -> None:
        self.found: dict[IntentName, list[KeywordMatch]] = {name: [] for name in INTENTS}
        self.counts: dict[IntentName, int] = dict.fromkeys(INTENTS, 0)

    def add(self, intent: IntentName, keyword: str, text: str, start: int, end: int) -> None:
        self.counts[intent] += 1
        if self.counts[intent] <= MAX_MATCHES_PER_INTENT:
            self.found[intent].append(KeywordMatch(intent, keyword, text[start:end], start, end))

    def add_all(
        self, intent: IntentName, keyword: str, text: str, spans: list[tuple[int, int]]
    ) -> None:
        room = MAX_MATCHES_PER_INTENT - self.counts[intent]
        self.counts[intent] += len(spans)
        for start, end in spans[: max(room, 0)]:
            self.found[intent].append(KeywordMatch(intent, keyword, text[start:end], start, end))

    def matches(self) -> list[KeywordMatch]:
        return sorted(
            (m for name in INTENTS for m in self.found[name]), key=lambda m: (m.start, m.intent)
        )


def _intents(
    text: str, lowered: str | None, compiled: CompiledRules, today: dt.date | None
) -> _Evidence:
    evidence = _Evidence()
    intents_of = compiled.keyword_intents
    suspended = _suspended(text, lowered, compiled)
    for phrase, spans in compiled.keywords.found(text, lowered):
        for intent in intents_of[phrase.text]:
            kept = spans
            if intent in suspended:
                kept = [span for span in spans if not _inside(span, suspended[intent])]
            evidence.add_all(intent, phrase.text, text, kept)
    rules = compiled.rules.intents
    if rules.year_is_time_sensitive:
        years = [m for m in _YEAR.finditer(text) if not _after_word(text, m.start())]
        label = "4-digit year"
        if rules.year_window is not None and today is not None:
            low, high = today.year + rules.year_window[0], today.year + rules.year_window[1]
            years = [m for m in years if low <= int(m.group()) <= high]
            label = f"year {low}–{high}" if low != high else f"year {low}"
        evidence.add_all("time_sensitive", label, text, [m.span() for m in years])
    if rules.date_is_time_sensitive:
        dates = [m.span() for m in _DATE.finditer(text)]
        evidence.add_all("time_sensitive", "calendar date", text, dates)
    return evidence


def _suspended(
    text: str, lowered: str | None, compiled: CompiledRules
) -> dict[IntentName, list[tuple[int, int]]]:
    """The spans of the pack's exception phrases, by the intent whose keywords they suspend."""
    if not compiled.exceptions:
        return {}
    spans: dict[IntentName, list[tuple[int, int]]] = {}
    for phrase, found in compiled.exceptions.found(text, lowered):
        for intent in compiled.exception_intents[phrase.text]:
            spans.setdefault(intent, []).extend(found)
    return spans


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(start <= span[0] and span[1] <= end for start, end in spans)


def _classify(word_text: str, words: int) -> EntityKind:
    if words > 1:
        return "phrase"
    if word_text.isupper() and sum(c.isalpha() for c in word_text) >= 2:
        return "acronym"
    if not word_text[1:].islower() and any(
        a.islower() and b.isupper() for a, b in itertools.pairwise(word_text)
    ):
        return "camel_case"
    return "word"


_REASONS: dict[EntityKind, str] = {
    "phrase": "capitalized phrase",
    "acronym": "acronym",
    "camel_case": "CamelCase token",
    "word": "capitalized word",
    "openclaw": "explicit OpenClaw mention",
    "url": "URL",
    "domain": "domain name",
    "known": "a name the pack knows",
    "place": "a place",
}


def _capitalized_runs(text: str, compiled: CompiledRules) -> list[tuple[int, int]]:
    """Spans of runs of capitalized words that start a word (not "OS" in "macOS")."""
    return [m.span() for m in compiled.capitalized.finditer(text)]


def _split_run(
    text: str, start: int, end: int, leading: bool, compiled: CompiledRules, dropped: list[str]
) -> Iterator[tuple[int, int, int]]:
    """(start, end, word count) of the entity parts of one capitalized run: sentence-start
    common words and the pronoun "I" are cut out, trailing connectors trimmed."""
    part: list[tuple[int, int]] = []
    for word_match in _WORD.finditer(text, start, end):
        word = key(word_match.group())
        pronoun = _is_pronoun(word_match.group())
        never = word in compiled.entity_stopwords
        if pronoun or never or (leading and word in compiled.stopwords):
            if len(dropped) < MAX_MATCHES_PER_INTENT:
                why = (
                    "pronoun"
                    if pronoun
                    else "entity stopword"
                    if never
                    else ("sentence-start common word")
                )
                dropped.append(f"{word_match.group()!r} @{word_match.start()}: {why}")
            yield from _trimmed(text, part, compiled)
            part = []
            continue
        leading = False
        part.append(word_match.span())
    yield from _trimmed(text, part, compiled)


def _is_pronoun(word: str) -> bool:
    return word == "I" or word.startswith(("I'", "I’"))


def _trimmed(
    text: str, part: list[tuple[int, int]], compiled: CompiledRules
) -> Iterator[tuple[int, int, int]]:
    while part and key(text[part[-1][0] : part[-1][1]]) in compiled.connectors:
        part.pop()
    if part:
        yield part[0][0], part[-1][1], len(part)


def _urls(text: str) -> Iterator[tuple[int, int]]:
    if "://" not in text:
        return
    for match in _URL.finditer(text):
        start = match.start()
        if start > 0 and (is_word_char(text[start - 1]) or text[start - 1] == "/"):
            continue
        yield start, start + len(match.group().rstrip(_URL_TAIL))


def _domains(text: str, urls: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """Host names ending in a TLD-like label, outside URLs, in text order.

    One pass: a run of domain characters is walked once however many TLD-like labels it holds
    (text such as "Wait..what.." or minified content has a label every few characters), the
    last ".." is tracked as the scan moves on, and URLs are passed with a cursor."""
    if "." not in text:
        return
    url_index = 0
    host_start = 0  # start of the match's run of domain characters, past dots and hyphens
    scanned = 0  # text[:scanned] has been searched for ".."
    double_dot = -1  # start of the last ".." in text[:scanned]
    previous_end = 0  # end of the previous match, whose run goes on if nothing breaks it
    for match in _TLD.finditer(text):
        dot, end = match.span()
        while url_index < len(urls) and urls[url_index][1] <= dot:
            url_index += 1
        if url_index < len(urls) and urls[url_index][0] <= dot:
            continue
        start = dot
        while start > previous_end and text[start - 1] in _DOMAIN_CHARS:
            start -= 1
        if start > previous_end or not previous_end:  # a new run starts at `start`
            host_start = start
            while text[host_start] in ".-":  # stops at the TLD's first letter at the latest
                host_start += 1
        previous_end = end
        found = text.rfind("..", max(scanned - 1, 0), end)
        if found >= 0:
            double_dot = found
        scanned = end
        # The host must be labels joined by single dots all the way to the TLD.
        if double_dot >= host_start or host_start == dot:
            continue
        if host_start > 0 and (is_word_char(text[host_start - 1]) or text[host_start - 1] in "@/"):
            continue
        yield host_start, end


def _camel_tokens(text: str) -> Iterator[tuple[int, int]]:
    done = 0
    for match in _CAMEL_STEP.finditer(text):
        if match.start() < done:
            continue
        start = match.start() - 1
        while start > 0 and "a" <= text[start - 1] <= "z":
            start -= 1
        tail = _WORD_TAIL.match(text, match.end())
        end = tail.end() if tail else match.end()
        done = end
        if start > 0 and (is_word_char(text[start - 1]) or text[start - 1] == "-"):
            continue
        yield start, end


class _Candidates:
    """Entity candidates, first mention wins, ranked by kind weight then position."""

    def __init__(self, compiled: CompiledRules) -> None:
        self.compiled = compiled
        self.weights = compiled.rules.entities.weights
        self.openclaw_needle = compiled.rules.openclaw.pattern.lower()
        self.seen: set[str] = set()
        self.scored: list[EntityCandidate] = []
        self.claimed: list[tuple[int, int]] = []
        """Spans of names the pack knows: a capitalized run overlapping one is not a name."""
        self.dropped: list[str] = []
        """Capitalized words left out, each with why."""

    def add(
        self, text: str, kind: EntityKind, start: int, end: int, reason: str, weight: float = 1.0
    ) -> bool:
        """Add a candidate unless its text was seen; whether it was added."""
        folded = key(text)
        if folded in self.seen or folded in self.compiled.entity_stopwords:
            return False
        self.seen.add(folded)
        score = getattr(self.weights, kind) * weight
        self.scored.append(EntityCandidate(text, kind, start, end, score, reason))
        return True

    def add_run_part(self, text: str, start: int, end: int, words: int) -> None:
        """One part of a capitalized run: a phrase, an acronym, a CamelCase token or a word."""
        surface = text[start:end]
        if surface.endswith(("'s", "’s")):
            surface, end = surface[:-2], end - 2
        if self.openclaw_needle in surface.lower():
            return
        if any(a < end and start < b for a, b in self.claimed):
            return
        if self._state_after_city(text, surface, start):
            return
        kind = _classify(surface, words)
        if kind == "word" and _starts_sentence(text, start):
            reason = "capitalized word at sentence start (less certain)"
            self.add(surface, kind, start, end, reason, weight=0.5)
        else:
            self.add(" ".join(surface.split()), kind, start, end, _REASONS[kind])

    def _state_after_city(self, text: str, surface: str, start: int) -> bool:
        """A US state code after "<City>, " is part of the place, not a name of its own
        ("Chicago, IL"), when the pack knows state codes (recorded as dropped)."""
        if not self.compiled.rules.place.state_codes or surface not in US_STATE_CODES:
            return False
        before = text[max(0, start - 40) : start].rstrip(" \t")
        if not before.endswith(",") or not before[:-1].rstrip()[-1:].isalpha():
            return False
        if len(self.dropped) < MAX_MATCHES_PER_INTENT:
            self.dropped.append(f"{surface!r} @{start}: US state code after a city")
        return True

    def ranked(self, text: str, place: PlaceHint | None) -> list[EntityCandidate]:
        floor = self.compiled.rules.entities.min_score
        kept = [c for c in self.scored if c.score >= floor] if floor else self.scored
        if self.compiled.rules.entities.model is not None:
            kept = self._learned(kept, text, place, self.compiled.rules.entities.model)
        kept.sort(key=lambda c: (-c.score, c.start))
        return kept[: self.compiled.rules.entities.max_candidates]

    def _learned(
        self, candidates: list[EntityCandidate], text: str, place: PlaceHint | None, name: str
    ) -> list[EntityCandidate]:
        """The pack's entity model scores each candidate: its probability becomes the score, and
        those below the model's threshold are dropped (each listed with its score)."""
        model = entity_model(name)
        kept = []
        for candidate in candidates:
            p = model.probability(candidate_features(candidate, text, place, len(candidates)))
            said = f"learned score {p:.2f}"
            if p >= model.threshold:
                candidate.score = round(p, 4)
                candidate.reason = f"{candidate.reason}; {said} ≥ {model.threshold:.2f}"
                kept.append(candidate)
            elif len(self.dropped) < MAX_MATCHES_PER_INTENT:
                why = f"{candidate.reason}, {said} < {model.threshold:.2f}"
                self.dropped.append(f"{candidate.text!r} @{candidate.start}: {why}")
        return kept


def _entities(
    text: str,
    compiled: CompiledRules,
    runs: list[tuple[int, int]],
    openclaw: list[Span],
    place: PlaceHint | None,
) -> Entities:
    candidates = _Candidates(compiled)
    dropped = candidates.dropped
    if openclaw:
        canonical = compiled.rules.openclaw.canonical
        candidates.add(
            canonical, "openclaw", openclaw[0].start, openclaw[0].end, _REASONS["openclaw"]
        )
    urls = list(_urls(text))
    for start, end in urls:
        candidates.add(text[start:end], "url", start, end, _REASONS["url"])
    # Domains share one score and come in text order, so once `max_candidates` of them are in,
    # no later one can rank (ties go to the earlier mention), and none can shadow a later
    # candidate of another kind (those never contain a dot): stop there. A run such as
    # "a.b.-c.d.-…" would otherwise add one ever longer host per label.
    room = compiled.rules.entities.max_candidates
    for start, end in _domains(text, urls):
        room -= candidates.add(text[start:end], "domain", start, end, _REASONS["domain"])
        if room <= 0:
            break
    for start, end in _camel_tokens(text):
        candidates.add(text[start:end], "camel_case", start, end, _REASONS["camel_case"])
    if compiled.known:
        for start, end in _known_names(text, compiled):
            candidates.add(text[start:end], "known", start, end, _REASONS["known"])
            candidates.claimed.append((start, end))
    if place is not None and place.rule.startswith("lower-case"):
        start, end = place.start, place.start + len(_before_comma(text[place.start : place.end]))
        candidates.add(text[start:end], "place", start, end, place.rule)
    processed: set[tuple[str, bool]] = set()
    for run_start, run_end in runs:
        surface = text[run_start:run_end]
        leading = _starts_sentence(text, run_start)
        # Only a first mention can become a candidate: skip exact repeats cheaply.
        if (surface, leading) in processed:
            continue
        processed.add((surface, leading))
        if leading or " " in surface or "\t" in surface or _is_pronoun(surface):
            for start, end, words in _split_run(
                text, run_start, run_end, leading, compiled, dropped
            ):
                candidates.add_run_part(text, start, end, words)
        else:  # the common case: one capitalized word mid-sentence
            candidates.add_run_part(text, run_start, run_end, 1)
    details = candidates.ranked(text, place)
    return Entities(
        candidates=[c.text for c in details],
        place_hint=place.text if place else None,
        details=details,
        place=place,
        dropped=dropped,
    )


_VERSION = re.compile(r"[ \t]?+v?[0-9]++(?:\.[0-9]++)*+(?![\w.])")


def _known_names(text: str, compiled: CompiledRules) -> Iterator[tuple[int, int]]:
    """The spans of the names the pack knows, the longest where they overlap ("SQL Server", not
    "SQL" in it), each with the version number that follows it ("RHEL 9.2", "Docker 3.5")."""
    taken = 0
    for start, end, _ in compiled.known.spans(text, lowered_or_none(text)):
        if start < taken:
            continue
        version = _VERSION.match(text, end)
        taken = version.end() if version else end
        yield start, taken


def _place_hint(
    text: str, runs: list[tuple[int, int]], compiled: CompiledRules, local: bool
) -> PlaceHint | None:
    """The first capitalized name after a place preposition that is a place: any name after
    "near" or "around", "City, Region", a gazetteer place, and as the pack asks a US state code
    or (in a prompt already local) any name."""
    place = compiled.rules.place
    words = compiled.preposition_words
    for index, (start, end) in enumerate(runs):
        window = text[max(0, start - 16) : start].lower()
        if not any(word in window for word in words):
            continue  # cheap test before the regex: no preposition just before the name
        before = compiled.preposition_before.search(text, max(0, start - 16), start)
        if before is None:
            continue
        preposition = key(before.group("prep"))
        end = _extend_place(text, runs, index, end)
        name = " ".join(text[start:end].split())
        if preposition in compiled.always_prepositions:
            rule = f'"{preposition} <capitalized name>"'
        elif "," in name:
            rule = f'"{preposition} <City>, <Region>"'
        elif known := _longest_known_prefix(name, compiled):
            if known != name:  # "in Austin Texas" -> "Austin": end after the known words
                end = min(end, _end_of_words(text, start, len(known.split())))
            name, rule = known, f'"{preposition} <gazetteer place>"'
        elif place.state_codes and name in US_STATE_CODES:
            rule = f'"{preposition} <US state code>"'
        elif place.local_names and local:
            rule = f'"{preposition} <capitalized name>" in a local request'
        else:
            continue
        return PlaceHint(name, preposition, start, end, rule, before.start("prep"))
    return None


def _extend_place(text: str, runs: list[tuple[int, int]], index: int, end: int) -> int:
    """Join "St. Louis" and "Denver, Colorado" into one name."""
    following = runs[index + 1 : index + 3]
    for next_start, next_end in following:
        gap = text[end:next_start]
        head = text[runs[index][0] : end]
        if (gap == ". " and head in _ABBREVIATIONS) or gap.strip(" \t") == ",":
            end = next_end
        else:
            break
    return end


def _end_of_words(text: str, start: int, words: int) -> int:
    end = start
    for _, word in zip(range(words), _WORD.finditer(text, start), strict=False):
        end = word.end()
    return end


def _longest_known_prefix(name: str, compiled: CompiledRules) -> str:
    """The longest run of leading words that is a gazetteer place. Only as many words as the
    longest entry has are tried, so a long capitalized run costs no more than a short one."""
    words = name.split(maxsplit=compiled.gazetteer_words)[: compiled.gazetteer_words]
    for count in range(len(words), 0, -1):
        candidate = " ".join(words[:count])
        if key(candidate) in compiled.gazetteer:
            return candidate
    return ""


_PLACE_WORD = re.compile(r"[^\W\d_][\w'’.\-]*+")
_PLACE_GAP = re.compile(r"[ \t]*+,[ \t]*+|[ \t]++")


def _lower_place(text: str, compiled: CompiledRules) -> PlaceHint | None:
    """A place written in any case after a preposition ("hair stylist in fremont ca"), from the
    pack's gazetteer (and GeoNames' when the pack asks): the longest known name wins."""
    places, starts = compiled.lower_places, compiled.lower_place_start
    if places is None or starts is None:
        return None
    for match in starts.finditer(text):
        found = _known_place_at(text, match.end(), places, compiled)
        if found is not None:
            end, what = found
            preposition = key(match.group())
            rule = f'lower-case place after "{preposition}" ({what})'
            name = " ".join(text[match.end() : end].split())
            return PlaceHint(name, preposition, match.end(), end, rule, match.start())
    return None


def _place_words(text: str, start: int, count: int) -> list[tuple[int, int]]:
    words: list[tuple[int, int]] = []
    position = start
    while len(words) < count:
        word = _PLACE_WORD.match(text, position)
        if word is None:
            break
        words.append(word.span())
        gap = _PLACE_GAP.match(text, word.end())
        if gap is None:
            break
        position = gap.end()
    return words


def _known_place_at(
    text: str, start: int, places: dict[str, str], compiled: CompiledRules
) -> tuple[int, str] | None:
    """(end, what it is) of the longest known place starting at `start`, with the US state that
    follows a US city ("fremont ca", "Fremont, California")."""
    words = _place_words(text, start, compiled.gazetteer_words + 2)
    names = compiled.geonames
    for count in range(len(words), 0, -1):
        head = key(" ".join(text[a:b] for a, b in words[:count]))
        what = places.get(head)
        us_city = names is not None and head in names.us_cities
        if what is None and not us_city:
            continue
        state_end = _state_after(text, words[count:], compiled) if us_city else None
        if state_end is not None:
            return state_end, "US city and state"
        if what is not None:
            return words[count - 1][1], what
    return None


def _state_after(text: str, words: list[tuple[int, int]], compiled: CompiledRules) -> int | None:
    names = compiled.geonames
    if names is None:
        return None
    for count in (2, 1):
        if (
            len(words) >= count
            and key(" ".join(text[a:b] for a, b in words[:count])) in names.states
        ):
            return words[count - 1][1]
    return None


def _before_comma(place: str) -> str:
    """A place as one entity: "las vegas, nv" → "las vegas" (the labelling guide's rule)."""
    return place.split(",")[0].strip()


def _topic_question(text: str, compiled: CompiledRules) -> bool:
    """Whether the prompt opens with one of the pack's knowledge-question words."""
    words = compiled.rules.place.topic_questions
    if not words:
        return False
    opening = key(text[:80].lstrip(_GOAL_EDGES))
    return any(opening == w or opening.startswith(w + " ") for w in map(key, words))


def _openclaw(text: str, lowered: str | None, compiled: CompiledRules) -> list[Span]:
    needle = compiled.rules.openclaw.pattern.lower()
    if lowered is not None and needle not in lowered:
        return []
    found = itertools.islice(compiled.openclaw.finditer(text), MAX_MATCHES_PER_INTENT)
    return [Span(m.start(), m.end()) for m in found]


def extract(text: str, rules: RulePack, today: dt.date | None = None) -> QueryContext:
    """Build the QueryContext of a prompt: entities, place hint, intent flags, goal. `today`
    places a pack's year window (without it, any year counts, as the seed says)."""
    compiled = compile_rules(rules)
    lowered = lowered_or_none(text)
    evidence = _intents(text, lowered, compiled, today)
    openclaw = _openclaw(text, lowered, compiled)
    runs = _capitalized_runs(text, compiled)
    local = evidence.counts["local"] > 0
    place = _place_hint(text, runs, compiled, local) or _lower_place(text, compiled)
    if (
        place is not None
        and place.preposition in compiled.local_prepositions
        and not _topic_question(text, compiled)
    ):
        keyword = f"{place.preposition} <place>"
        evidence.add("local", keyword, text, place.preposition_start, place.end)
    counts = evidence.counts
    return QueryContext(
        raw_text=text,
        user_goal=normalize_goal(text),
        entities=_entities(text, compiled, runs, openclaw, place),
        intent=IntentFlags(
            tech=counts["tech"] > 0,
            local=counts["local"] > 0,
            purchase=counts["purchase"] > 0,
            troubleshooting=counts["troubleshooting"] > 0,
            time_sensitive=counts["time_sensitive"] > 0,
        ),
        intent_matches=evidence.matches(),
        intent_match_counts=counts,
        has_openclaw=bool(openclaw),
        openclaw_spans=openclaw,
    )
