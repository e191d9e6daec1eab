"""Whether a research goal needs external grounding (seed 003: "routes to Snitch if SDD
requires strong external grounding"), derived from the goal and explained.

No model prior holds current, local or price facts: a goal that is time-sensitive (its answer
depends on when it is asked), local (bound to a physical place) or about a price or a purchase
needs pages that answer it, and weak evidence for it escalates instead of proceeding on the
model prior. The flags follow the labelling guide's definitions
(`shared/reference/labelling-guide.md`): the strategy router's intent flags on the goal (the
rule pack given, default the built-in one), and beside them a short list of research cues the
router's keyword lists do not carry (a weekday after "on", "next week", "how much does",
"cheapest", "exchange rate", …), each found with its span. On a goal about software the
router's bare time words ("latest", "current", "new", "now") do not count unless they qualify
a version, a release or news: "read the latest line of a log file" is not time-sensitive.

`derive_grounding(goal, override=…)` gives a `Grounding`: required or not, whether the goal or
a setting decided (`--require-grounding/--no-require-grounding`, the settings field, the
window's toggle), the flags and the words behind them, and one sentence saying so. Pure and
deterministic."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..rules import RulePack, default_rules
from ..strategy import extract
from ._settings import GROUNDING_MODES, GroundingMode

__all__ = [
    "GROUNDING_FLAGS",
    "GROUNDING_MODES",
    "Grounding",
    "GroundingCue",
    "GroundingFlag",
    "GroundingMode",
    "derive_grounding",
    "mode_override",
]

GroundingFlag = Literal["time_sensitive", "local", "purchase"]
GROUNDING_FLAGS: tuple[GroundingFlag, ...] = ("time_sensitive", "local", "purchase")

_FLAG_WORDS: dict[GroundingFlag, str] = {
    "time_sensitive": "time-sensitive",
    "local": "local",
    "purchase": "price or purchase",
}

_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)"
_PERIODS = r"(?:week|weekend|month|year|season|morning|afternoon|evening|night|" + _DAYS + ")"
_VENUES = (
    r"(?:restaurants?|cafe|cafes|coffee ?(?:shop|house)s?|bars?|pubs?|pizzeria|steakhouse|bistro|"
    r"hotels?|hostels?|motels?|salons?|barbers?|hair ?(?:dresser|stylist|cut)s?|pharmac(?:y|ies)|"
    r"dentists?|doctors?|therapists?|counsel+ors?|cinemas?|movie (?:theat(?:er|re)|house)s?|"
    r"theat(?:er|re)s?|museums?|attractions|venues?|gyms?|supermarkets?|grocer(?:y|ies)|"
    r"gas stations?|parking|babysitters?|cleaners?|maids?|plumbers?|electricians?)"
)
_CURRENCIES = (
    r"(?:euros?|dollars?|pounds? sterling|yen|rupees?|pesos?|francs?|yuan|rubles?|bitcoins?|"
    r"usd|eur|gbp|jpy|nzd|aud|cad|chf|inr|btc)"
)
_CUES: tuple[tuple[GroundingFlag, bool, str], ...] = (
    # (flag, counts on a goal about software too, pattern)
    # when it is asked
    ("time_sensitive", True, r"today(?:'s)?|tonight(?:'s)?|tomorrow(?:'s)?|yesterday(?:'s)?"),
    ("time_sensitive", True, rf"(?:this|next|last|coming|upcoming) {_PERIODS}"),
    ("time_sensitive", True, rf"on {_DAYS}s?"),
    ("time_sensitive", False, r"right now|at the moment|currently|these days|so far this \w+"),
    (
        "time_sensitive",
        False,
        r"weather|forecast|rain(?:y|fall|ing)?|snow(?:ing|fall)?|"
        r"(?:hott|cold|warm|wind)(?:er|est|y)|humid(?:ity)?",
    ),
    (  # the weather asked about, not a hot or cold thing: "will it be cold", "is it hailing"
        "time_sensitive",
        False,
        r"(?:will|is|was) it (?:be |going to be |going to |gonna be |gonna )?"
        r"(?:hot|cold|warm|cool|chilly|freezing|sunny|cloudy|windy|foggy|stormy|humid|"
        r"hail(?:ing)?|rain(?:ing)?|snow(?:ing)?|storm(?:ing)?)",
    ),
    ("time_sensitive", False, r"in (?:a|an|one|a few|\d+) (?:minutes?|hours?)"),
    ("time_sensitive", True, r"showtimes?|movie times|timetable|departures?|arrivals?"),
    ("time_sensitive", False, r"schedules?|scheduled|playing|upcoming|traffic"),
    ("time_sensitive", True, r"(?:live|final) scores?|exchange rates?|stock prices?|news"),
    ("time_sensitive", True, r"open (?:now|today|tonight|late)|opening (?:hours|times)"),
    ("time_sensitive", True, r"(?:current|latest|newest|upcoming) (?:version|release|news)\w*"),
    ("time_sensitive", True, r"(?:when does|when is|when will) .{0,40}(?:come out|start|open|air)"),
    ("time_sensitive", False, r"what time is it|(?:next|new) (?:episode|season|game|match)"),
    ("time_sensitive", True, r"on time|delayed|running late|(?:arrival|departure|boarding) time"),
    ("time_sensitive", True, rf"(?:value|rate|worth|price) of (?:the |a |one )?{_CURRENCIES}"),
    ("time_sensitive", True, rf"{_CURRENCIES} (?:to|in|into|against|relative to|equals) "),
    (
        "time_sensitive",
        False,
        r"who is the (?:current )?(?:prime minister|president|ceo|"
        r"quarterback|coach|chairman|mayor|governor)",
    ),
    # prices and purchases
    (
        "purchase",
        True,
        r"prices?|pricing|cheap(?:est|er)?|expensive|fares?|"
        r"how much (?:does|do|is|are|would|will)",
    ),
    (
        "purchase",
        False,
        r"costs?|for sale|discounts?|coupons?|deals? on|tickets?|rent(?:al)?|"
        r"to buy|buy|order (?:a|an|me|some|the)|in stock|for purchase|reservations?",
    ),
    (
        "purchase",
        True,
        r"book (?:a|an|me|my|us)? ?(?:flight|table|hotel|room|ticket|spot|cab|"
        r"taxi|car|reservation|appointment)s?",
    ),
    (
        "purchase",
        True,
        r"per (?:ounce|gram|barrel|litre|liter|gallon|share|night)|"
        r"(?:dollars?|euros?|yen|pounds|rupees?) (?:to|in|equals)",
    ),
    # a physical place
    (
        "local",
        True,
        r"near me|nearby|nearest|closest|close by|around here|close to me|"
        r"in my area|within walking distance|my location",
    ),
    ("local", False, rf"{_VENUES}"),
    ("local", True, rf"open on {_DAYS}s?"),
    ("local", True, r"(?:ferry|flights?|train|bus|drive|directions) (?:from|to) [A-Z]\w+"),
    ("local", True, r"directions to|how far is|(?:main|high) street"),
    ("local", False, r"delivery|deliver|takeout|take-out|book a table|a table for"),
)
_CUE_PATTERNS = tuple(
    (flag, tech_ok, re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])", re.IGNORECASE))
    for flag, tech_ok, pattern in _CUES
)
_YEAR = "4-digit year"
_NOT_A_PURCHASE = re.compile(
    r"^\W+(?:way|ways|practice|practices|method|methods|approach|option|time|place to start)\b",
    re.IGNORECASE,
)
_BARE_TIME_WORDS = frozenset({"latest", "current", "new", "newest", "now", "recent", "updated"})
"""The router's time words that say nothing of time by themselves (the latest line of a file,
the current directory, a new list, "now" in a sentence): they count when a word of
`_TIMELY` follows within three words, or on a goal not about software."""
_TIMELY = re.compile(
    r"^(?:\W+\w+){0,2}?\W+(?:versions?|releases?|released|news|prices?|rates?|scores?|results|"
    r"standings|events?|weather|updates?|status|season|episodes?|album|movies?|films?|music|"
    r"songs?|president|leader|champions?|winners?|ranking|rankings)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class GroundingCue:
    """A word of the goal that makes it need grounding: the flag, the words as written, their
    span, and what found them (`router`: the strategy router's keyword; `research`: a research
    cue)."""

    flag: GroundingFlag
    text: str
    start: int
    end: int
    source: Literal["router", "research"]


@dataclass(frozen=True, slots=True)
class Grounding:
    """Whether the research needs external grounding, who decided and why."""

    required: bool
    source: Literal["goal", "setting"]
    """`goal`: derived from the goal; `setting`: the user's override."""
    flags: tuple[GroundingFlag, ...] = ()
    """The goal's flags that call for grounding (derived even when a setting decides)."""
    cues: tuple[GroundingCue, ...] = ()
    reason: str = ""
    """One sentence: which applied and why."""

    @property
    def label(self) -> str:
        """A few words for a verdict: "grounding required (from the goal)"."""
        state = "required" if self.required else "not required"
        where = "from the goal" if self.source == "goal" else "set by you"
        return f"grounding {state} ({where})"


def mode_override(mode: str) -> bool | None:
    """The override a `GroundingMode` stands for (None: derive it from the goal)."""
    return {"required": True, "not_required": False}.get(mode)


def _router_cues(goal: str, rules: RulePack) -> tuple[list[GroundingCue], bool]:
    """The strategy router's grounding keywords in the goal, and whether it is about software."""
    context = extract(goal, rules)
    tech = context.intent.tech or context.intent.troubleshooting
    cues = []
    for match in context.intent_matches:
        if match.intent not in GROUNDING_FLAGS:
            continue
        word = goal[match.start : match.end]
        if match.keyword == _YEAR:
            continue  # a year may be history as well as now: the router cannot tell which
        if match.intent == "purchase" and _NOT_A_PURCHASE.match(goal[match.end : match.end + 30]):
            continue  # "the best way to…" chooses a method, not a product
        if (
            match.intent == "time_sensitive"
            and word.lower() in _BARE_TIME_WORDS
            and (tech or word.lower() == "current")
            and not _TIMELY.match(goal[match.end : match.end + 60])
        ):
            continue
        cues.append(GroundingCue(match.intent, word, match.start, match.end, "router"))
    return cues, tech


def _research_cues(goal: str, tech: bool) -> list[GroundingCue]:
    found = []
    for flag, tech_ok, pattern in _CUE_PATTERNS:
        if tech and not tech_ok:
            continue
        for match in pattern.finditer(goal):
            found.append(GroundingCue(flag, match.group(), match.start(), match.end(), "research"))
    return found


def _cues(goal: str, rules: RulePack) -> list[GroundingCue]:
    router, tech = _router_cues(goal, rules)
    cues = router + _research_cues(goal, tech)
    kept: list[GroundingCue] = []
    for cue in sorted(cues, key=lambda c: (c.start, -(c.end - c.start), c.source != "router")):
        if any(c.flag == cue.flag and c.start <= cue.start and cue.end <= c.end for c in kept):
            continue  # inside a cue of the same flag already kept
        kept.append(cue)
    return kept


def _said(cues: list[GroundingCue]) -> str:
    by_flag: dict[GroundingFlag, list[str]] = {}
    for cue in cues:
        words = by_flag.setdefault(cue.flag, [])
        if cue.text.lower() not in (w.lower() for w in words):
            words.append(cue.text)
    return ", ".join(
        f"{_FLAG_WORDS[flag]} ({', '.join(repr(w) for w in words[:3])})"
        for flag, words in by_flag.items()
    )


def derive_grounding(
    goal: str, *, override: bool | None = None, rules: RulePack | None = None
) -> Grounding:
    """Whether researching `goal` needs external grounding: `override` when given (a setting),
    else derived from the goal with the strategy router (`rules`, default the built-in pack)
    and the research cues. The flags and cues are derived either way."""
    cues = _cues(goal, rules or default_rules())
    flags = tuple(flag for flag in GROUNDING_FLAGS if any(c.flag == flag for c in cues))
    derived = bool(flags)
    said = _said(cues)
    if override is not None:
        state = "required" if override else "not required"
        reason = f"grounding {state}: set by you"
        if derived != override:
            reason += (
                f" (the goal alone would {'not ' if not derived else ''}need it"
                + (f": {said}" if said else "")
                + ")"
            )
        return Grounding(override, "setting", flags, tuple(cues), reason)
    if derived:
        reason = (
            f"grounding required: the goal is {said}; no model prior holds current, local or "
            "price facts"
        )
    else:
        reason = "grounding not required: the goal is not time-sensitive, local or about a price"
    return Grounding(derived, "goal", flags, tuple(cues), reason)
