"""BFCL's relevance detection as BFCL defines it (issue 28): each question searched against the
functions it comes with, not the 1,244 of every question together.

BFCL guarantees that an irrelevance question's own functions do not answer it; against the
union of every question's functions many of them do have a fitting tool ("the area of a
rectangle" and `rectangle.area`, "book a cab using Uber" and `RideSharing_2_GetRide`), so the
false accepts measured there are an upper bound. Here each question of `irrelevance` and
`live_irrelevance` (the impossible ones) and each single-function question (the answerable
ones: its own functions include the one its answer calls) gets a catalog of its own functions,
with or without their parameter schemas, through Routescope's loader, and the default search's
verdict (`ToolSearchResult.fits`) is read. Questions without a function are left out.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from routescope.toolsearch import SearchSettings, ToolSearch, ToolSearchResult, load_catalog
from routescope.toolsearch._embed import Embedder
from tests.eval._bfcl import (
    SINGLE_SETS,
    Bfcl,
    _answers,
    _list_shape,
    _openai_shape,
    _records,
    _user_text,
)

__all__ = ["IRRELEVANCE_SETS", "OwnQuestion", "own_questions", "search_own"]

IRRELEVANCE_SETS = ("irrelevance", "live_irrelevance")


@dataclass(frozen=True, slots=True)
class OwnQuestion:
    id: str
    text: str
    functions: dict[str, dict[str, Any]]
    """The question's own function docs by name (the first of a name kept)."""
    impossible: bool
    source: str
    """The BFCL set it comes from."""


def own_questions(bfcl: Bfcl) -> list[OwnQuestion]:
    """The irrelevance questions, then the single-function questions, each with its own
    functions."""
    found: list[OwnQuestion] = []
    with zipfile.ZipFile(bfcl.wheel) as wheel:
        for name in IRRELEVANCE_SETS:
            for record in _records(wheel, f"BFCL_v4_{name}.json"):
                found.append(_question(record, True, name))
        for name in SINGLE_SETS:
            answers = _answers(wheel, f"BFCL_v4_{name}.json")
            for record in _records(wheel, f"BFCL_v4_{name}.json"):
                if len(record["question"]) == 1 and len(answers[record["id"]]) == 1:
                    found.append(_question(record, False, name))
    return [q for q in found if q.functions]


def _question(record: dict[str, Any], impossible: bool, source: str) -> OwnQuestion:
    functions: dict[str, dict[str, Any]] = {}
    for function in record["function"]:
        functions.setdefault(str(function["name"]), function)
    return OwnQuestion(
        record["id"], _user_text(record["question"][0]), functions, impossible, source
    )


def search_own(
    questions: list[OwnQuestion],
    parameters: bool,
    embedder: Embedder,
    settings: SearchSettings,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[OwnQuestion, ToolSearchResult]]:
    """Each question searched over a catalog of its own functions (in a temporary folder, its
    index and vectors there too)."""
    with tempfile.TemporaryDirectory(prefix="bfcl-own-") as scratch:
        folder = Path(scratch)
        path = folder / "catalog.json"
        for done, question in enumerate(questions, start=1):
            shape = _openai_shape if parameters else _list_shape
            path.write_text(json.dumps(shape(question.functions)), encoding="utf-8")
            engine = ToolSearch(load_catalog(path), embedder=embedder, cache=folder / "cache")
            yield question, engine.search(question.text, settings)
            if progress is not None:
                progress(done, len(questions))
