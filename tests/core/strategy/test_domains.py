"""Domain names (F1): one pass over the text, the same hosts as the walk-back reference."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from routescope.strategy._compiled import is_word_char
from routescope.strategy._extract import _domains, _urls
from tests._support import run

_TLD = re.compile(r"\.[a-z]{2,24}(?![\w\-]|\.[A-Za-z0-9])")
_DOMAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*+(?:\.[A-Za-z0-9\-]++)*+")
_DOMAIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")


def reference(text: str, urls: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The former scan: for each TLD-like label, walk back to the start of its run of domain
    characters and match the host from there (quadratic on "x.ab..ab..ab.", but plain)."""
    if "." not in text:
        return
    for match in _TLD.finditer(text):
        end = match.end()
        if any(s <= match.start() < e for s, e in urls):
            continue
        start = match.start()
        while start > 0 and text[start - 1] in _DOMAIN_CHARS:
            start -= 1
        while start < end and text[start] in ".-":
            start += 1
        whole = _DOMAIN.match(text, start, end)
        if whole is None or whole.end() != end or whole.start() == match.start():
            continue
        if start > 0 and (is_word_char(text[start - 1]) or text[start - 1] in "@/"):
            continue
        yield start, end


_PIECES = st.sampled_from(
    [
        *[".", "..", "-", ".-", "a", "ab", "Ab", "com", "io", "x1", "_", "@", "/", " ", "é"],
        *[":", "?", "https://", "www.", ".md", "readme", "github.com", "...", "\n"],
    ]
)


@given(st.lists(_PIECES, max_size=40).map("".join))
def test_the_same_hosts_as_the_reference(text: str) -> None:
    urls = list(_urls(text))
    assert list(_domains(text, urls)) == list(reference(text, urls))


def test_hosts_in_ordinary_text() -> None:
    text = "see docs.python.org, mail bob@example.com, https://a.b.io/x and foo..bar.com"
    urls = list(_urls(text))
    hosts = [text[s:e] for s, e in _domains(text, urls)]
    assert hosts == ["docs.python.org"]
    assert hosts == [text[s:e] for s, e in reference(text, urls)]


def test_runs_of_dots_and_labels_are_scanned_once() -> None:
    """The findings' shapes (23 s at 64 KB before): now a few milliseconds; this checks what
    comes out, the bench how fast (tests/bench/bench_scaling.py: "domain-like", "double dots")."""
    hosts = {"x" + ".ab." * 16_000: ["x.ab"], "Wait..what.." * 8000: []}
    for text, expected in hosts.items():
        result = run(text)
        assert result.actions
        details = result.context.entities.details
        assert [d.text for d in details if d.kind == "domain"] == expected


def test_a_run_of_hosts_keeps_the_first_few() -> None:
    """In "x.ab.-x.ab.-…" every label ends a longer host; hosts rank by position, so only the
    first `max_candidates` can be listed and the rest are not built at all."""
    text = "x.ab.-" * 20_000
    details = run(text).context.entities.details
    assert [d.text for d in details] == ["x.ab", "x.ab.-x.ab", "x.ab.-x.ab.-x.ab"] + [
        "x.ab" + ".-x.ab" * n for n in range(3, 6)
    ]
    assert all(d.kind == "domain" and d.start == 0 for d in details)
