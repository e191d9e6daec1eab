"""Invariants of the strategy router over generated prompts."""

import datetime as dt
import re

from hypothesis import given
from hypothesis import strategies as st

import routescope
from routescope._input import is_blank
from routescope.linter._lint import MAX_EVIDENCE_PER_KIND

_VOCAB = [
    "install",
    "setup",
    "api",
    "error",
    "log",
    "near me",
    "nearby",
    "city",
    "hours",
    "this weekend",
    "best",
    "buy",
    "price",
    "vs",
    "fix",
    "crash",
    "bug",
    "issue",
    "how to fix",
    "latest",
    "today",
    "now",
    "recent",
    "2024",
    "1999",
    "OpenClaw",
    "openclaw",
    "FastAPI",
    "Ubuntu",
    "in Austin",
    "near Denver, Colorado",
    "gaming engine",
    "security",
    "sandbox",
    "pizza",
    "history",
    "the",
    "a",
    "of",
    "my",
    "code",
    "weather",
    "restaurants",
    "How",
    "What",
    "?",
    ".",
    ",",
    "docs.python.org",
    "https://example.com/x",
    "near me near me",
    "tissue",
    "know",
    "vsc",
    "日本語",
    "مرحبا",
    "🚀",
    "\x00",
    "\t",
    "\n",
    "x" * 120,
    "readme.md",
    "docs/readme.md",
    "session append",
    "telemetry",
    "Wait..what..",
    "x.ab..ab.",
    "a.b.-c.io",
    "\u200b",
    "\ufeff",
]
_WORD = st.one_of(st.sampled_from(_VOCAB), st.text(min_size=1, max_size=12))
_PROMPT = (
    st.lists(_WORD, min_size=1, max_size=40)
    .map(" ".join)
    .filter(lambda t: "as of" not in t.lower() and not is_blank(t))
)
_DATES = st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2090, 12, 31))


@given(_PROMPT, _DATES)
def test_router_invariants(text: str, today: dt.date) -> None:
    result = routescope.inspect(text, today=today)
    intent, strategy = result.context.intent, result.strategy
    # The strategy agrees with the flags.
    expected = (
        "local" if intent.local else "tech" if intent.tech or intent.troubleshooting else "general"
    )
    assert strategy == expected
    assert result.actions, "never zero queries"
    queries = [a.query for a in result.actions]
    if strategy in ("general", "local"):
        assert not any("site:" in q for q in queries)
    canonical = [a for a in result.actions if a.source.startswith("openclaw.")]
    assert bool(canonical) == (strategy == "tech" and result.context.has_openclaw)
    assert all(a.priority == 0 for a in canonical)
    for query in queries:
        assert 0 < len(query) <= 400
        assert query == " ".join(query.split())
        as_of_count = len(re.findall(r"(?i)\bas of\b", query))
        if intent.time_sensitive and "site:" not in query:
            assert as_of_count == 1
        else:
            assert as_of_count == 0
        assert not re.search(r"(?i)\bnear me near me\b", query)


@given(_PROMPT)
def test_same_input_same_output(text: str) -> None:
    today = dt.date(2026, 2, 5)
    first = routescope.inspect(text, today=today).model_dump(exclude={"timings_us"})
    second = routescope.inspect(text, today=today).model_dump(exclude={"timings_us"})
    assert first == second


@given(_PROMPT)
def test_evidence_spans_point_into_the_text(text: str) -> None:
    ctx = routescope.inspect(text, today=dt.date(2026, 2, 5)).context
    for match in ctx.intent_matches:
        assert text[match.start : match.end] == match.text
    for entity in ctx.entities.details:
        assert 0 <= entity.start < entity.end <= len(text)
    if ctx.entities.place is not None:
        place = ctx.entities.place
        assert " ".join(text[place.start : place.end].split()) == place.text


@given(_PROMPT)
def test_lint_evidence_is_capped_and_counted(text: str) -> None:
    lint = routescope.inspect(text, today=dt.date(2026, 2, 5)).lint
    for kind in ("strong", "weak"):
        kept = [m for m in lint.evidence if m.kind == kind]
        assert len(kept) == min(lint.evidence_counts[kind], MAX_EVIDENCE_PER_KIND)
    for match in lint.evidence:
        assert text[match.start : match.end] == match.text
    assert {m.anchor for m in lint.evidence if m.kind == "strong"} <= set(
        lint.anchors_detected.strong
    )
