"""Main-text extraction: trafilatura when installed, the linear stdlib fallback otherwise."""

from __future__ import annotations

import importlib.util

import pytest

from routescope.research import _extract
from routescope.research._extract import (
    MIN_CONTENT_CHARS,
    extract_main_text,
    extract_stdlib,
)

ARTICLE = " ".join(
    f"Sentence {index} explains how asyncio runs coroutines on an event loop."
    for index in range(12)
)
PAGE = f"""<!doctype html>
<html><head><title>  Asyncio &amp; you </title>
<script>var tracking = "do not keep me";</script><style>p {{ color: red }}</style></head>
<body>
<header><nav><a href="/">Home</a> <a href="/about">About us</a></nav></header>
<aside>Subscribe to our newsletter!</aside>
<main><article><h1>Asyncio &amp; you</h1><p>{ARTICLE}</p>
<p>Second paragraph with <b>bold</b> text.<br>And a line.</p></article></main>
<footer>Copyright footer text</footer>
</body></html>"""

HAS_TRAFILATURA = importlib.util.find_spec("trafilatura") is not None


def test_stdlib_fallback_keeps_the_main_text_and_title() -> None:
    text, title = extract_stdlib(PAGE)
    assert title == "Asyncio & you"
    assert "Sentence 11 explains" in text and "Second paragraph with bold text." in text
    assert "And a line." in text
    for chrome in ("tracking", "color: red", "About us", "newsletter", "Copyright"):
        assert chrome not in text


def test_stdlib_fallback_uses_the_body_when_there_is_no_main() -> None:
    html = "<html><body><div><p>Plain body text only.</p></div><script>x()</script></body></html>"
    text, title = extract_stdlib(html)
    assert (text, title) == ("Plain body text only.", "")


def test_stdlib_fallback_survives_broken_and_deep_markup() -> None:
    broken = "<html><body><div><p>Unclosed <b>tags <i>everywhere</div></span></body>"
    assert "Unclosed tags everywhere" in extract_stdlib(broken)[0]
    deep = "<div>" * 50_000 + "deep text" + "</div>" * 50_000
    assert extract_stdlib(deep)[0] == "deep text"


def test_the_fallback_is_used_when_trafilatura_is_off_or_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    off = extract_main_text(PAGE, use_trafilatura=False)
    assert off.extractor == "stdlib" and off.title == "Asyncio & you" and off.has_content
    monkeypatch.setattr(_extract, "_trafilatura", lambda: None)
    missing = extract_main_text(PAGE)
    assert missing == off


def test_the_fallback_is_used_when_trafilatura_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        @staticmethod
        def bare_extraction(*args: object, **kwargs: object) -> object:
            raise RuntimeError("boom")

    monkeypatch.setattr(_extract, "_trafilatura", lambda: Broken)
    assert extract_main_text(PAGE).extractor == "stdlib"


@pytest.mark.skipif(not HAS_TRAFILATURA, reason="trafilatura is not installed")
def test_trafilatura_extracts_the_article() -> None:
    result = extract_main_text(PAGE, url="https://docs.example.org/asyncio")
    assert result.extractor == "trafilatura"
    assert "Sentence 11 explains" in result.text
    assert "newsletter" not in result.text and "Copyright" not in result.text
    assert result.title == "Asyncio & you"


def test_input_and_output_are_bounded() -> None:
    huge = "<p>" + "word " * 100_000 + "</p>"
    result = extract_main_text(huge, max_input_chars=10_000, max_text_chars=500)
    assert result.truncated and len(result.text) <= 500
    assert extract_main_text("   ") == _extract.Extracted("", "", "none", False)


def test_thin_pages_have_no_content() -> None:
    result = extract_main_text("<p>Too short.</p>", use_trafilatura=False)
    assert result.text == "Too short." and not result.has_content
    assert MIN_CONTENT_CHARS == 150
