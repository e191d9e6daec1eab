"""Run reports carry the evidence: goal terms with their weights, per page what it supports,
the reasons as data, why the loop stopped and the rule of the next step."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest

from routescope.research._heuristic_chat import HeuristicChat
from routescope.research._loop import deep_research
from routescope.research._models import SearchHit, SearchResponse
from routescope.research._records import DeepResearchResult, PageRead
from routescope.research._report import report_markdown, research_report_data, write_research_report

GOAL = "How do I read a CSV file in Python?"
PAGES = {
    "https://docs.python.org/3/library/csv.html": (
        "csv — CSV parsing and writing.",
        "Use csv.reader to read a CSV file in Python, row by row. " * 10,
    ),
    "https://docs.python.org/3/library/wave.html": (
        "wave — Stuff to parse WAVE files.",
        "Open a WAVE stream and get its frames. " * 10,
    ),
}


class _Search:
    name = "fake"

    def __init__(self, pages: dict[str, tuple[str, str]]) -> None:
        self.pages = pages

    async def search(self, query: str, *, max_results: int = 5) -> SearchResponse:
        hits = tuple(
            SearchHit(url=url, title=title, snippet=text[:80], rank=i, provider="fake")
            for i, (url, (title, text)) in enumerate(self.pages.items(), 1)
        )
        return SearchResponse(
            provider="fake",
            query=query,
            original_query=query,
            query_action="sent",
            status=200,
            url="https://search.example",
            results=hits,
            duration_ms=1.0,
        )


class _Reader:
    def __init__(self, pages: dict[str, tuple[str, str]]) -> None:
        self.pages = pages

    async def read(self, urls: Sequence[str]) -> list[PageRead]:
        return [PageRead(url, True, "offline-index", 200, None, *self.pages[url]) for url in urls]


def research(pages: dict[str, tuple[str, str]] = PAGES) -> DeepResearchResult:
    return asyncio.run(
        deep_research(GOAL, search=_Search(pages), reader=_Reader(pages), llm=HeuristicChat())
    )


def test_the_json_report_carries_the_evidence() -> None:
    data = json.loads(json.dumps(research_report_data(research())))
    assert [t["text"] for t in data["goal_terms"]] == ["read", "CSV", "file", "Python"]
    assert set(data["goal_terms"][0]) == {
        "text",
        "kind",
        "weight",
        "document_frequency",
        "common",
        "named",
    }
    assert data["stop"] == {
        "kind": "target_reached",
        "text": data["termination_reason"],
        "attempt": 1,
    }
    assert data["next_step"]["rule"] == "target_met"
    assert [r["metric"] for r in data["quality"]["evidence_reasons"]] == [
        "relevance",
        "coverage",
        "confidence",
        "retry",
    ]
    csv, wave = data["findings"]
    assert csv["supports"] == ["read", "CSV", "file", "Python"] and csv["about_goal"]
    assert "CSV" in wave["missing"] and wave["relevance"] < csv["relevance"]
    (attempt,) = data["attempts"]
    evidence = attempt["evidence"]
    assert evidence["pages_read"] == 2 and evidence["covered"]
    page = evidence["pages"][0]
    assert {m["where"] for m in page["matches"]} <= {"title", "snippet", "body"}
    assert all(m["excerpt"] for m in page["matches"])
    assert page["reason"].startswith("heuristic: ")


def test_the_markdown_report_shows_what_each_page_supports(tmp_path: Path) -> None:
    result = research()
    text = report_markdown(result)
    assert "- goal terms (weight): `read`" in text
    assert "- next step: proceed — best attempt 1" in text
    assert "supports `read`, `CSV`, `file`, `Python`" in text
    assert "missing `read`, `CSV`, `Python`; not about the goal" in text
    assert "(kept: among the pages read, one with the most of the goal's terms)" in text
    assert "- relevance " in text and "- coverage " in text
    written = write_research_report(result, tmp_path / "run")
    assert written.read_text(encoding="utf-8") == text
    saved = json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"))
    assert saved["findings"][0]["supports"]
    assert saved["findings"][0]["why"].startswith("kept: ")


def test_a_report_is_written_atomically_with_the_modes_of_shared_files(tmp_path: Path) -> None:
    """New files readable as the umask allows; an existing report keeps its mode."""
    umask = os.umask(0o022)
    os.umask(umask)
    result = research(PAGES)
    fresh = write_research_report(result, tmp_path / "fresh")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE((fresh.parent / "report.json").stat().st_mode) == 0o666 & ~umask
    again = tmp_path / "again"
    again.mkdir()
    (again / "report.json").write_text("old", encoding="utf-8")
    os.chmod(again / "report.json", 0o600)
    write_research_report(result, again)
    assert (again / "report.json").read_bytes() == (fresh.parent / "report.json").read_bytes()
    assert stat.S_IMODE((again / "report.json").stat().st_mode) == 0o600
    assert sorted(p.name for p in again.iterdir()) == ["report.json", "report.md"]


@pytest.mark.parametrize("linked", ["report.md", "report.json"])
@pytest.mark.parametrize("dangling", [False, True])
def test_a_report_is_never_written_through_a_link(
    tmp_path: Path, linked: str, dangling: bool
) -> None:
    """Issue 25 §1: a linked report would overwrite the link's target, a dangling link would
    create it. Nothing is written, the target is untouched, the error names the file."""
    folder = tmp_path / "run"
    folder.mkdir()
    target = tmp_path / "precious.txt"
    if not dangling:
        target.write_text("keep me", encoding="utf-8")
    (folder / linked).symlink_to(target)
    with pytest.raises(OSError, match=f"{linked} is a symbolic link"):
        write_research_report(research(PAGES), folder)
    assert [p.name for p in folder.iterdir()] == [linked] and (folder / linked).is_symlink()
    assert target.exists() != dangling
    if not dangling:
        assert target.read_text(encoding="utf-8") == "keep me"
