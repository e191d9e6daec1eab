"""Read a labelled set: JSON lines, CSV, or a regression suite's YAML — one model for all.

JSON lines (`.jsonl`, `.json` with one object a line):

    {"prompt": "hair stylist in fremont ca", "labels": {"local": true, "place_hint": "fremont ca"}}

`id`, `today` (`YYYY-MM-DD`) and `context` (a router contract context) are read when present;
every other key of the line is kept (`extra`: a public set's `source`, `part`, …). CSV (`.csv`,
`.tsv`): a `prompt` column, optional `id`, `today` and `part` columns, and a column per label
(`true`/`false`, `yes`/`no`, `1`/`0`; an empty cell is not labelled; `entities` separated by `;`
or a JSON list). A suite (`.yaml`, `.yml`): each case's `labels:` mapping, plus what its exact
expectations say about a labelled field (`strategy`, `context.intent.<flag>`,
`context.entities.place_hint`, `context.entities.candidates`, a linter suite's `query_class`, a
contract suite's `agent` and `mode`, a tools suite's `results[0].tool_name`).

A bad line is one `LabelsError` naming the file, the line and the problem — never a partial set.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .._diff import is_matcher
from .._errors import InputError, LabelsError, SuiteError, one_line
from .._files import MB, read_text
from .._input import validate_text
from ._labels import (
    FLAG_KEYS,
    LABEL_KEYS,
    SET_TODAY,
    LabelledCase,
    labels_from_mapping,
)

__all__ = ["MAX_SET_BYTES", "read_labelled"]

MAX_SET_BYTES = 64 * MB
"""A labelled set larger than this is refused before it is read."""
_RESERVED = ("id", "prompt", "labels", "today", "context", "expect", "rules")
_TRUE = frozenset({"true", "yes", "1", "y", "t"})
_FALSE = frozenset({"false", "no", "0", "n", "f"})


def read_labelled(path: str | Path, *, today: dt.date | None = None) -> list[LabelledCase]:
    """The cases of a labelled set or a regression suite (LabelsError: one line). `today`: the
    date of a case that gives none (default: the set's fixed `SET_TODAY`)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return _suite_cases(path)
    text = read_text(path, what="labelled set", limit=MAX_SET_BYTES, error=LabelsError)
    default = today or SET_TODAY
    if suffix in (".csv", ".tsv"):
        cases = list(_csv_cases(path, text, "\t" if suffix == ".tsv" else ",", default))
    else:
        cases = list(_json_cases(path, text, default))
    if not cases:
        raise LabelsError(one_line(f"{path}: no labelled case in the file"))
    _check_unique(path, cases)
    return cases


def _check_unique(path: Path, cases: list[LabelledCase]) -> None:
    seen: dict[str, str] = {}
    for case in cases:
        if case.id in seen:
            raise LabelsError(
                one_line(f"{case.where}: case id {case.id!r} again (first at {seen[case.id]})")
            )
        seen[case.id] = case.where


def _json_cases(path: Path, text: str, default: dt.date) -> Iterator[LabelledCase]:
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except RecursionError:
            raise LabelsError(f"{where}: nested too deeply to be a labelled case") from None
        except ValueError as exc:
            raise LabelsError(one_line(f"{where}: not JSON: {exc}", 200)) from None
        if not isinstance(data, dict):
            raise LabelsError(f"{where}: a labelled case is a JSON object with a prompt")
        labels = data.get("labels", {})
        if labels is None:
            labels = {}
        if not isinstance(labels, dict):
            raise LabelsError(f"{where}: 'labels' must be an object of the guide's keys")
        yield _case(where, data, labels, default, fallback_id=f"{path.name}:{number}")


def _csv_cases(path: Path, text: str, separator: str, default: dt.date) -> Iterator[LabelledCase]:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=separator, strict=True)
    try:
        columns = reader.fieldnames or []
        if "prompt" not in columns:
            raise LabelsError(one_line(f"{path}: a labelled CSV needs a 'prompt' column"))
        for row in reader:
            where = f"{path}:{reader.line_num}"
            labels = {k: _csv_label(where, k, v) for k, v in row.items() if k in LABEL_KEYS}
            rest = {k: v for k, v in row.items() if k not in LABEL_KEYS and k is not None}
            yield _case(where, rest, labels, default, fallback_id=f"{path.name}:{reader.line_num}")
    except csv.Error as exc:
        raise LabelsError(one_line(f"{path}:{reader.line_num}: not CSV: {exc}")) from None


def _csv_label(where: str, key: str, cell: str | None) -> object:
    value = (cell or "").strip()
    if not value:
        return None
    if key in FLAG_KEYS:
        folded = value.lower()
        if folded in _TRUE or folded in _FALSE:
            return folded in _TRUE
        raise LabelsError(one_line(f"{where}: label {key!r} must be true or false, not {value!r}"))
    if key == "routes":
        try:
            return json.loads(value)
        except ValueError:
            raise LabelsError(one_line(f"{where}: 'routes' is not a JSON object")) from None
    if key == "entities":
        if value.startswith("["):
            try:
                return json.loads(value)
            except ValueError:
                raise LabelsError(one_line(f"{where}: 'entities' is not a JSON list")) from None
        return [part for part in value.split(";") if part.strip()]
    return value


def _case(
    where: str,
    data: Mapping[str, Any],
    labels: Mapping[str, Any],
    default: dt.date,
    *,
    fallback_id: str,
) -> LabelledCase:
    prompt = data.get("prompt")
    try:
        prompt = validate_text(prompt)
        parsed = labels_from_mapping(labels)
    except (InputError, ValueError) as exc:
        raise LabelsError(one_line(f"{where}: {exc}")) from None
    context = data.get("context")
    if context is not None and not isinstance(context, dict):
        raise LabelsError(f"{where}: 'context' must be an object (a router contract context)")
    raw_id = data.get("id")
    return LabelledCase(
        id=str(raw_id) if raw_id not in (None, "") else fallback_id,
        prompt=prompt,
        labels=parsed,
        today=_today(where, data.get("today"), default),
        context=context,
        extra={k: v for k, v in data.items() if k not in _RESERVED},
        where=where,
    )


def _today(where: str, value: object, default: dt.date) -> dt.date:
    if value in (None, ""):
        return default
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise LabelsError(one_line(f"{where}: 'today' must be a date YYYY-MM-DD, not {value!r}"))


# -- regression suites --------------------------------------------------------------------------

_SUITE_PATHS: dict[str, dict[str, str]] = {
    "strategy": {
        "strategy": "strategy",
        "context.entities.place_hint": "place_hint",
        "context.entities.candidates": "entities",
        **{f"context.intent.{flag}": flag for flag in FLAG_KEYS},
    },
    "linter": {"query_class": "linter_class"},
    "contract": {"agent": "agent", "mode": "mode"},
    "tools": {"results[0].tool_name": "top_tool"},
}


def _suite_cases(path: Path) -> list[LabelledCase]:
    from .._yaml import read_yaml

    text = read_text(path, what="suite", limit=MAX_SET_BYTES, error=LabelsError)
    try:
        data = read_yaml(text, path)
    except SuiteError as exc:
        raise LabelsError(str(exc)) from None
    raw_cases = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(raw_cases, list):
        raise LabelsError(one_line(f"{path}: a suite is a mapping with `suite` and `cases`"))
    router = data.get("router", "strategy")
    paths = _SUITE_PATHS.get(router) if isinstance(router, str) else None
    if paths is None:
        raise LabelsError(one_line(f"{path}: unknown router {router!r}"))
    default = _today(str(path), data.get("today"), SET_TODAY)
    cases = [
        case
        for number, raw in enumerate(raw_cases, 1)
        if (case := _suite_case(path, number, raw, paths, default)) is not None
    ]
    if not cases:
        raise LabelsError(one_line(f"{path}: no case of the suite labels a field"))
    _check_unique(path, cases)
    return cases


def _suite_case(
    path: Path, number: int, raw: object, paths: Mapping[str, str], default: dt.date
) -> LabelledCase | None:
    where = f"{path}: case {number}"
    if not isinstance(raw, dict):
        raise LabelsError(f"{where}: a case is a mapping with `id`, `prompt` and `expect`")
    expect = raw.get("expect") or {}
    labels = raw.get("labels") or {}
    if not isinstance(expect, dict) or not isinstance(labels, dict):
        raise LabelsError(f"{where}: `expect` and `labels` are mappings")
    found = {paths[k]: v for k, v in expect.items() if k in paths and not is_matcher(v)}
    if found.get("place_hint", "") is None:
        found["place_hint"] = ""  # a golden `null` says "no place"
    if not {**found, **labels}:
        return None
    data = {**raw, "today": raw.get("today") or default.isoformat()}
    return _case(where, data, {**found, **labels}, default, fallback_id=f"{path.name}:{number}")
