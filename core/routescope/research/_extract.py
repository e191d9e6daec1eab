"""Main text and title from a fetched HTML page (reference §7).

trafilatura (``favor_precision=True``) when it is installed and finds content; otherwise a
small, linear fallback on the standard library's ``html.parser`` that drops scripts, styles and
page chrome and prefers ``<main>``/``<article>`` text. Input and output are bounded. Never
fetches anything itself (``trafilatura.fetch_url`` would bypass the safe fetcher).
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any, Final, Literal

MAX_INPUT_CHARS: Final = 2_000_000
MAX_TEXT_CHARS: Final = 100_000
# Below this many characters a page counts as "no content" (STORM uses 150).
MIN_CONTENT_CHARS: Final = 150

Extractor = Literal["trafilatura", "stdlib", "none"]


@dataclass(frozen=True, slots=True)
class Extracted:
    """The page's main text and title, which extractor produced them, and whether the input
    or the text was cut to its bound."""

    text: str
    title: str
    extractor: Extractor
    truncated: bool = False

    @property
    def has_content(self) -> bool:
        return len(self.text) >= MIN_CONTENT_CHARS


def _trafilatura() -> Any:
    try:
        return importlib.import_module("trafilatura")
    except ImportError:
        return None


_SKIP: Final = frozenset(
    {"script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas"}
    | {"nav", "header", "footer", "aside", "form", "button", "select", "textarea", "dialog"}
)
_VOID: Final = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    | {"track", "wbr", "param"}
)
_BLOCK: Final = frozenset(
    {"p", "div", "section", "li", "ul", "ol", "table", "tr", "td", "th", "pre", "blockquote"}
    | {"h1", "h2", "h3", "h4", "h5", "h6", "dd", "dt", "dl", "figure", "figcaption", "br"}
    | {"main", "article", "hr"}
)
_MAIN: Final = frozenset({"main", "article"})
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


class _TextParser(HTMLParser):
    """One pass: all visible text, the text inside main/article, and the title."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._stack: list[str] = []
        self._open: Counter[str] = Counter()
        self._skip_depth = 0
        self._main_depth = 0
        self._in_title = False
        self.title_parts: list[str] = []
        self.body: list[str] = []
        self.main: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag in ("br", "hr"):
                self._text("\n")
            return
        self._stack.append(tag)
        self._open[tag] += 1
        if tag in _SKIP:
            self._skip_depth += 1
        elif tag in _MAIN:
            self._main_depth += 1
        elif tag == "title":
            self._in_title = True
        if tag in _BLOCK:
            self._text("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not self._open[tag]:
            return
        while self._stack:  # close anything left open inside (linear overall)
            open_tag = self._stack.pop()
            self._open[open_tag] -= 1
            if open_tag in _SKIP:
                self._skip_depth -= 1
            elif open_tag in _MAIN:
                self._main_depth -= 1
            elif open_tag == "title":
                self._in_title = False
            if open_tag == tag:
                break
        if tag in _BLOCK:
            self._text("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
        elif self._skip_depth == 0:
            self._text(data)

    def _text(self, data: str) -> None:
        if self._skip_depth:
            return
        self.body.append(data)
        if self._main_depth:
            self.main.append(data)


def _tidy(parts: list[str]) -> str:
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(line for line in lines if line)).strip()


def extract_stdlib(html: str) -> tuple[str, str]:
    """Main text and title with ``html.parser`` only (linear in the input)."""
    parser = _TextParser()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # pragma: no cover - html.parser is lenient
        pass
    title = _SPACES.sub(" ", "".join(parser.title_parts)).strip()
    main = _tidy(parser.main)
    text = main if len(main) >= MIN_CONTENT_CHARS else _tidy(parser.body)
    return text, title


def _extract_trafilatura(module: Any, html: str, url: str | None) -> tuple[str, str] | None:
    try:
        document = module.bare_extraction(
            html,
            url=url,
            include_comments=False,
            favor_precision=True,
            with_metadata=True,
        )
    except Exception:  # a third-party parser: any failure means "use the fallback"
        return None
    if document is None:
        return None
    text = getattr(document, "text", None)
    title = getattr(document, "title", None)
    if not isinstance(text, str) or not text.strip():
        return None
    return text.strip(), title.strip() if isinstance(title, str) else ""


def extract_main_text(
    html: str,
    *,
    url: str | None = None,
    max_input_chars: int = MAX_INPUT_CHARS,
    max_text_chars: int = MAX_TEXT_CHARS,
    use_trafilatura: bool = True,
) -> Extracted:
    """The main text and title of ``html`` (trafilatura, else the stdlib fallback)."""
    truncated = len(html) > max_input_chars
    html = html[:max_input_chars]
    if not html.strip():
        return Extracted("", "", "none", truncated)
    module = _trafilatura() if use_trafilatura else None
    found = _extract_trafilatura(module, html, url) if module is not None else None
    extractor: Extractor = "trafilatura"
    fallback_title = ""
    if found is None or not found[1]:
        text, fallback_title = extract_stdlib(html)
        if found is None:
            found, extractor = (text, fallback_title), "stdlib"
    text, title = found
    if len(text) > max_text_chars:
        text, truncated = text[:max_text_chars], True
    return Extracted(text, title or fallback_title, extractor if text else "none", truncated)
