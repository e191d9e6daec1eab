"""The report page: self-contained (nothing fetched), leaks first, every number in a table."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from routescope.batch import (
    Report,
    ResultsComparison,
    build_report,
    compare_results,
    report_data,
    write_report,
)
from routescope.batch import _charts as charts
from routescope.batch._html import report_html

from . import _fixtures as fx
from .test_report import _base

Record = dict[str, Any]


@pytest.fixture(scope="module")
def packs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Results files of the built-in suites' prompts: the default pack, the leaky pack."""
    folder = tmp_path_factory.mktemp("packs")
    prompts = fx.suite_prompts()
    search = fx.tool_search(folder / "cache")
    a = fx.write_results(folder / "a.jsonl", fx.records(prompts, tools=search))
    leaky = fx.records(prompts, rules=fx.leaky_rules(folder), tools=search)
    b = fx.write_results(folder / "b.jsonl.gz", leaky)
    return a, b


@dataclass(frozen=True)
class Rendered:
    """The reports of both packs, their comparison, and their pages, rendered once."""

    a: Report
    b: Report
    comparison: ResultsComparison
    page_a: str
    page_b: str
    page_comparison: str


@pytest.fixture(scope="module")
def rendered(packs: tuple[Path, Path]) -> Rendered:
    a, b = build_report(packs[0]), build_report(packs[1])
    comparison = compare_results(*packs)
    return Rendered(a, b, comparison, report_html(a), report_html(b), report_html(comparison))


class _Page(HTMLParser):
    """Every tag with its attributes, the text of each table row, and section ids in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.rows: list[list[str]] = []
        self.sections: list[str] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "section":
            self.sections.append(dict(attrs).get("id") or "")
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def _parse(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    parsed.close()
    return parsed


_OUTSIDE = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)


def _assert_self_contained(page: str) -> None:
    parsed = _parse(page)
    for tag, attrs in parsed.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed", "base"), tag
        for name, value in attrs.items():
            if name in ("src", "href", "xlink:href", "srcset", "action", "data", "poster"):
                assert value is not None
                # "#fragment" links and inline data only
                assert value.startswith("data:") or not _OUTSIDE.match(value), (tag, name)
    assert not re.search(r"https?://", page.split("<body>")[0])  # the head: no fonts, no CSS
    assert "@import" not in page
    assert not re.search(r"url\(\s*['\"]?(?!#)", page)


def test_the_page_fetches_nothing(rendered: Rendered) -> None:
    _assert_self_contained(rendered.page_a)
    _assert_self_contained(rendered.page_b)
    _assert_self_contained(rendered.page_comparison)


def test_charts_are_inline_svg_drawn_by_matplotlib(rendered: Rendered) -> None:
    pytest.importorskip("matplotlib")
    page = rendered.page_b
    svgs = re.findall(r"<svg\b[^>]*>", page)
    assert len(svgs) >= 10
    assert all('role="img"' in svg and "aria-label=" in svg for svg in svgs)
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "element ids repeat across charts"
    for reference in re.findall(r'(?:url\(#|href="#)([^)"]+)', page):
        assert reference in ids, reference


def test_leaks_come_first_with_their_prompts(rendered: Rendered) -> None:
    report, page = rendered.b, rendered.page_b
    parsed = _parse(page)
    assert parsed.sections[0] == "leaks"
    text = " ".join(" ".join(parsed.text).split())
    headline = f"{report.leak_count:,} leaked queries in {report.leak_prompts:,} of"
    assert headline in text
    assert text.index(headline) < text.index("At a glance")
    for check in report.leaks:
        assert f"{check.title}: {check.count:,}" in text
        for finding in check.findings:
            where = f"{finding.ref.source}:{finding.ref.line}"
            row = next(r for r in parsed.rows if r[0] == where and r[2] == finding.query)
            assert row[1] == finding.ref.prompt
    site = report.leak("site_outside_tech").findings[0]
    assert f"<mark>{site.query[site.start : site.end]}</mark>" in page


def test_no_leaks_say_so(rendered: Rendered) -> None:
    text = " ".join(" ".join(_parse(rendered.page_a).text).split())
    assert "0 leaks: every one of" in text
    assert text.count("none found") == 3


def test_every_figure_has_its_numbers_in_a_table(rendered: Rendered) -> None:
    report = rendered.a
    rows = _parse(rendered.page_a).rows
    for figure in report.figures():
        for bar in figure.bars:
            assert [bar.label, f"{bar.count:,}", f"{bar.share:.1%}"] in [r[:3] for r in rows], (
                figure.key,
                bar.label,
            )
    for stage in report.latency:
        assert any(r[0] == stage.stage and r[1] == f"{stage.count:,}" for r in rows)
    co = report.cooccurrence
    matrix = co.matrix()
    for name, values in zip(co.names, matrix, strict=True):
        assert [name, *(f"{v:,}" for v in values)] in rows


def test_without_matplotlib_the_tables_stay(
    rendered: Rendered, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "available", lambda: False)
    page = report_html(rendered.a)
    assert "<svg" not in page
    assert "install matplotlib" in page
    assert "<table" in page


def test_prompts_are_escaped(tmp_path: Path) -> None:
    hostile = '<script>alert("x")</script><img src="https://example.com/x.png">'
    path = fx.write_results(
        tmp_path / "r.jsonl",
        [
            _base(prompt=hostile, queries=[f"{hostile} (site:evil.example)"]),
            _base(line=2, prompt="\x1b[31mred\u202e", entities=["<b>bold</b>"]),
        ],
    )
    page = report_html(build_report(path))
    _assert_self_contained(page)
    assert "&lt;script&gt;" in page
    assert "\x1b" not in page and "\u202e" not in page


def test_report_json(rendered: Rendered, tmp_path: Path) -> None:
    report = rendered.b
    page = write_report(report, tmp_path)
    assert page == tmp_path / "report.html"
    assert page.read_text(encoding="utf-8") == rendered.page_b  # the same bytes each time
    data = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(report_data(report)))
    assert (data["kind"], data["version"], data["prompts"]) == ("routescope.report", 1, 122)
    assert data["leaks"]["count"] == report.leak_count
    assert [c["rule"] for c in data["leaks"]["checks"]] == [c.rule for c in report.leaks]
    finding = data["leaks"]["checks"][0]["findings"][0]
    assert set(finding) == {
        "source", "line", "record", "prompt", "strategy", "query", "start", "end", "detail"
    }  # fmt: skip
    assert set(data["figures"]) == {figure.key for figure in report.figures()}
    strategies = data["figures"]["strategies"]
    assert sum(bar["count"] for bar in strategies["bars"]) == report.prompts
    assert set(strategies["bars"][0]["examples"][0]) == {"source", "line", "record", "prompt"}
    assert data["tools"]["no_fit"] == report.no_fit
    assert [s["stage"] for s in data["latency_us"]][-1] == "total"
    assert len(data["intent_cooccurrence"]["matrix"]) == len(report.cooccurrence.names)


def test_comparison_json_and_page(rendered: Rendered) -> None:
    comparison = rendered.comparison
    data = json.loads(json.dumps(report_data(comparison)))
    assert data["kind"] == "routescope.compare"
    assert data["changed"] == comparison.changed
    assert [c["kind"] for c in data["changes"]] == [
        "strategy", "intents", "lint_class", "agent", "mode", "top_tool", "queries"
    ]  # fmt: skip
    assert data["reports"]["b"]["leaks"]["count"] == comparison.b.leak_count
    assert data["leaks"][0] == {
        "rule": "site_outside_tech",
        "title": comparison.a.leaks[0].title,
        "a": 0,
        "b": comparison.b.leaks[0].count,
    }
    parsed = _parse(rendered.page_comparison)
    assert parsed.sections[:3] == ["changed", "leaks", "kinds"]
    for group in comparison.groups:
        assert [group.title, f"{group.count:,}", f"{group.share:.1%}"] in parsed.rows
        for transition in group.transitions:
            assert any(
                r[0] == transition.label and r[1] == f"{transition.count:,}" for r in parsed.rows
            )


def test_results_without_timings(tmp_path: Path) -> None:
    """`routescope batch --no-timings` writes `timings_us: null`."""
    path = fx.write_results(tmp_path / "r.jsonl", [_base(timings_us=None)])
    report = build_report(path)
    assert report.latency == ()
    assert "The results hold no timings." in report_html(report)


def test_a_batch_without_a_catalog_says_it_ranked_no_tools(tmp_path: Path) -> None:
    """Issue 25 §2: the Top-1 tool section said "install matplotlib" when the batch simply
    ranked no tools (no --catalog)."""
    results = fx.write_results(tmp_path / "r.jsonl", [_base(), _base(line=2)])
    page = report_html(build_report(results))
    section = page[page.index('id="fig-top_tools"') :]
    section = section[: section.index("</section>")]
    assert "ranked no tools" in section and "--catalog" in section
    assert "install matplotlib" not in section and "nothing to draw" in section
