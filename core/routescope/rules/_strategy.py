"""The search-strategy router's configuration: intents, entities, places, templates, sanitizing."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field, field_validator, model_validator

from ._base import Strict, check_term, clean_phrases, clean_terms, require_placeholders

__all__ = [
    "INTENTS",
    "EntityRules",
    "EntityWeights",
    "ExampleVoting",
    "FlagVote",
    "GeneralPack",
    "IntentName",
    "IntentRules",
    "LocalPack",
    "OpenClawRules",
    "PlaceRules",
    "QueryTemplates",
    "SanitizeRules",
    "TechPack",
]

IntentName = Literal["tech", "local", "purchase", "troubleshooting", "time_sensitive"]
INTENTS: tuple[IntentName, ...] = get_args(IntentName)
"""The intent flags, in their fixed order."""


class FlagVote(Strict):
    """How the nearest labelled examples decide one flag: the share of the `k` nearest that
    carry it, each weighted by its cosine similarity to the prompt. At `on` or above, the flag
    is set although no rule fired; below `off` (when given), a flag the rules set is cleared."""

    k: int = Field(ge=1, le=50)
    on: float = Field(gt=0.0, le=1.0)
    off: float | None = Field(default=None, gt=0.0, le=1.0)

    @model_validator(mode="after")
    def _off_below_on(self) -> FlagVote:
        if self.off is not None and self.off >= self.on:
            raise ValueError("off must be below on")
        return self


class ExampleVoting(Strict):
    """Intent flags read from meaning: the prompt is embedded with the shipped model and the
    nearest prompts of a labelled example set vote on each flag named (`flags`). `set` names a
    set shipped in `resources/labelled/examples/` (its prompts and their vectors)."""

    set: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9-]*$")
    flags: dict[IntentName, FlagVote]


class IntentRules(Strict):
    tech: list[str]
    local: list[str]
    purchase: list[str]
    troubleshooting: list[str]
    time_sensitive: list[str]
    year_is_time_sensitive: bool = True
    year_window: tuple[int, int] | None = None
    """Only years from `today`'s year + the first to + the second count ([-1, 1]); None: any
    year from 1900 to 2099, as the seed says."""
    date_is_time_sensitive: bool = False
    """A calendar date ("April 23", "the 9th of march", "2023-04-12", "4/23/2023") makes a
    prompt time-sensitive, whatever its year: a booking, a show or a forecast for a day (the
    seed counts years only)."""
    exceptions: dict[IntentName, list[str]] = {}
    """Phrases inside which a keyword of that intent does not count (`state of`, `post review`)."""
    examples: ExampleVoting | None = None
    """Flags voted by the nearest labelled examples (needs the embedding model); None: rules
    alone, as the seed says."""

    _clean = field_validator(*INTENTS)(clean_phrases)

    @field_validator("exceptions")
    @classmethod
    def _clean_exceptions(cls, value: dict[IntentName, list[str]]) -> dict[IntentName, list[str]]:
        return {name: clean_phrases(phrases) for name, phrases in value.items()}

    @field_validator("year_window")
    @classmethod
    def _ordered(cls, value: tuple[int, int] | None) -> tuple[int, int] | None:
        if value is not None and not -100 <= value[0] <= value[1] <= 100:
            raise ValueError("must be [from, to] years around today, from <= to, within 100")
        return value

    def keywords(self) -> dict[IntentName, list[str]]:
        """Keyword lists by intent name, in the fixed intent order."""
        return {name: getattr(self, name) for name in INTENTS}


class EntityWeights(Strict):
    openclaw: float = 6.0
    known: float = 5.0
    place: float = 3.0
    camel_case: float = 5.0
    url: float = 4.0
    domain: float = 4.0
    phrase: float = 3.0
    acronym: float = 2.0
    word: float = 1.0


class EntityRules(Strict):
    max_candidates: int = Field(6, ge=1, le=50)
    sentence_start_stopwords: list[str] = []
    stopwords: list[str] = []
    """Words never an entity, wherever they stand (`DD`, `YYYY`, `Today`)."""
    known: list[str] = []
    """Names that are entities in any case ("fastapi", "excel"), shown as the pack writes them."""
    phrase_connectors: list[str] = []
    weights: EntityWeights = EntityWeights()
    min_score: float = Field(0.0, ge=0.0, le=100.0)
    """Candidates scoring below this are dropped (a capitalized word that starts a sentence
    scores half its kind's weight: 0.75 drops those); 0 keeps every one, as the seed does."""
    model: str | None = Field(default=None, min_length=1, pattern=r"^[a-z0-9][a-z0-9-]*$")
    """A learned entity model shipped in `resources/labelled/models/` scores each candidate
    (after `min_score`) and drops those below its threshold; None: the kind weights alone, as the
    seed ranks them."""

    _clean = field_validator("sentence_start_stopwords", "stopwords", "known", "phrase_connectors")(
        clean_phrases
    )


class PlaceRules(Strict):
    always_prepositions: list[str] = ["near", "around"]
    gazetteer_prepositions: list[str] = ["in"]
    gazetteer: list[str] = []
    local_intent_prepositions: list[str] = ["near", "around"]
    lowercase: bool = False
    """Also find places written in lower case after a preposition ("in fremont ca"), from the
    gazetteer (the seed takes places from capitals only)."""
    geonames: bool = False
    """The gazetteer also holds GeoNames' places (the `places` extra): countries, US states,
    cities of 100,000 people or more, and any US city of 15,000 when its state follows."""
    not_places: list[str] = []
    """Words never read as a lower-case place ("reading", "mobile")."""
    state_codes: bool = False
    """A US state's two-letter code written in capitals after a gazetteer preposition ("a table
    in MI") is a place, as its name is."""
    topic_questions: list[str] = []
    """Words that open a knowledge question ("who", "what is the", "how many"): in a prompt
    opening with one, a place after a local preposition gives the place hint but does not make
    the prompt local ("who were the first settlers in san antonio")."""
    local_names: bool = False
    """In a prompt its keywords already make local ("weather", "restaurant"), any capitalized
    name after a gazetteer preposition is the place ("will it rain in Tenino"), known or not."""

    _clean = field_validator(
        "always_prepositions",
        "gazetteer_prepositions",
        "gazetteer",
        "local_intent_prepositions",
        "not_places",
        "topic_questions",
    )(clean_phrases)


class GeneralPack(Strict):
    first: str = "{goal}"
    second: str = "{goal} overview"
    second_purchase_or_troubleshooting: str = "{goal} how to"

    @field_validator("first", "second", "second_purchase_or_troubleshooting")
    @classmethod
    def _templates(cls, value: str) -> str:
        return require_placeholders(value, {"goal"}, {"goal"})


class LocalPack(Strict):
    first: str = "{goal} near {place}"
    default_place: str = "me"
    second: str = "{goal} hours reviews"
    second_time_sensitive: str = "{goal} this weekend"
    strip_from_goal: list[str] = []

    _clean = field_validator("strip_from_goal")(clean_phrases)

    @field_validator("first")
    @classmethod
    def _first(cls, value: str) -> str:
        return require_placeholders(value, {"goal", "place"}, {"goal", "place"})

    @field_validator("second", "second_time_sensitive")
    @classmethod
    def _second(cls, value: str) -> str:
        return require_placeholders(value, {"goal"}, {"goal"})


class TechPack(Strict):
    docs: str = "site:docs.* {entity} (install OR docs OR getting started)"
    github: str = "site:github.com {entity} README"
    safety: str = "{goal} (security OR sandbox OR permissions)"
    safety_keywords: list[str] = []

    _clean = field_validator("safety_keywords")(clean_phrases)

    @field_validator("docs", "github")
    @classmethod
    def _entity(cls, value: str) -> str:
        return require_placeholders(value, {"entity"}, {"entity"})

    @field_validator("safety")
    @classmethod
    def _goal(cls, value: str) -> str:
        return require_placeholders(value, {"goal"}, {"goal"})


class QueryTemplates(Strict):
    """The strategy packs' query templates, by strategy."""

    general: GeneralPack = GeneralPack()
    local: LocalPack = LocalPack()
    tech: TechPack = TechPack()


class OpenClawRules(Strict):
    pattern: str = "openclaw"
    canonical: str = "OpenClaw"
    queries: list[str] = Field(min_length=1)

    @field_validator("pattern", "canonical")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return check_term(value.strip())

    _clean = field_validator("queries")(clean_terms)


class SanitizeRules(Strict):
    banned_modifiers: list[str] = []
    as_of: str = "as of {month} {day}, {year}"
    max_query_chars: int = Field(400, ge=40, le=10_000)

    _clean = field_validator("banned_modifiers")(clean_phrases)

    @field_validator("as_of")
    @classmethod
    def _as_of(cls, value: str) -> str:
        require_placeholders(value, {"month", "day", "year"}, set())
        if not value.lower().startswith("as of"):
            raise ValueError('must start with "as of"')
        return value
