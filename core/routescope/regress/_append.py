"""Save a prompt as a regression case: append it, with its current results as exact
expectations, to a suite file (or start a new suite).

The expectations depend on the suite's router: `strategy` and the planned queries
(`actions[*].query`) for a strategy suite, the class (`query_class`) for a linter suite, the
agent, mode and planned tools (`tool_plan[*].tool`) for a contract suite, the top tool's
family (`results[:1].tool_name: {any_startswith: [family.]}`) for a tools suite. The case
gets the request's date, context and rule pack (a file, named relative to the suite) where
they differ from the suite's defaults.

The file is edited as text, like `--update` does: the new case goes after the last one in the
style of the last one (a block or a one-line mapping), and nothing else in the file changes
(comments, order, quoting, line endings). The new text must read back as the old suite plus
exactly the new case, the case must pass when run, and the write is atomic and keeps the
file's permissions, owner and a link's target; otherwise nothing is written (SuiteError).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from pydantic import ValidationError
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from .._diff import preview, resolve
from .._errors import RoutescopeError, SuiteError, describe, one_line
from .._files import read_bytes, replace_file
from .._request import CatalogRef, Request, RulesRef
from .._yaml import compose_yaml, read_yaml
from ..toolsearch import SearchSettings
from ._goldens import _end, _value_node, _write_atomically
from ._messages import _label, _where
from ._run import _ROOTS, run_case
from ._suite import MAX_SUITE_BYTES, SUITE_TODAY, Case, Router, Suite
from ._yaml_write import _key, _plain_ok, _render, _same, _string

if TYPE_CHECKING:
    from .._inspect import Inspection

__all__ = ["append_case", "case_expectations"]

_ROUTERS: tuple[str, ...] = get_args(Router)


def case_expectations(router: str, inspection: Inspection) -> dict[str, Any]:
    """The exact expectations a new case of a `router` suite gets from a result: what the
    router decided, so the case fails when that changes (SuiteError when the result has no
    such decision: a disabled contract, no tool search, no tool ranked)."""
    if router not in _ROUTERS:
        raise SuiteError(f"router must be one of {', '.join(_ROUTERS)}, not {_label(router)}")
    dumped = inspection.model_dump(mode="json", exclude={"timings_us"})
    root = _ROOTS[router]
    data: Any = dumped if root is None else dumped.get(root)
    if router == "strategy":
        return {"strategy": data["strategy"], "actions[*].query": resolve(data, "actions[*].query")}
    if router == "linter":
        return {"query_class": data["query_class"]}
    if router == "contract":
        if data is None:
            raise SuiteError("the rule pack disables the contract: there is no decision to save")
        return {
            "agent": data["agent"],
            "mode": data["mode"],
            "tool_plan[*].tool": resolve(data, "tool_plan[*].tool"),
        }
    if data is None:
        raise SuiteError("the result has no tool search (inspect with a catalog)")
    results = data.get("results") or []
    if not results:
        raise SuiteError("no tool ranked for this prompt: there is no tool family to expect")
    top = str(results[0]["tool_name"])
    family = top.split(".")[0] + "." if "." in top else top
    return {"results[:1].tool_name": {"any_startswith": [family]}}


def append_case(
    path: str | Path,
    case_id: str,
    request: Request,
    inspection: Inspection,
    *,
    router: str | None = None,
    verify: bool = True,
    cache: Path | None = None,
) -> Case:
    """Append the case `case_id` (the request's prompt, date, context and rule pack; the
    inspection's results as expectations, see `case_expectations`) to the suite at `path`.
    A missing or empty file becomes a new suite of `router` (default `strategy`), named after
    the file. `router`, when given, must be the suite's. `verify`: run the new case first and
    refuse one that would fail (`cache`: where tool-search indexes are kept). Refuses (nothing
    written, SuiteError) a duplicate id and any suite `--update` would refuse to write."""
    path = Path(path)
    if not isinstance(case_id, str) or not case_id.strip():
        raise SuiteError(f"{path}: a case id must be a non-empty text")
    text = _existing_text(path)
    if text is None:
        chosen = router or "strategy"
        if chosen not in _ROUTERS:
            raise SuiteError(
                one_line(f"router must be one of {', '.join(_ROUTERS)}, not {_label(chosen)}")
            )
        old_text, document, suite = "", None, None
    else:
        document = read_yaml(text, path)
        suite = _suite(path, document)
        chosen = suite.router
        if router is not None and router != chosen:
            raise SuiteError(
                one_line(f"{path}: the suite is a {chosen} suite, not a {_label(router)} suite")
            )
        if any(case.id == case_id for case in suite.cases):
            raise SuiteError(
                one_line(f"{path}: case id {_label(case_id)} is already in the suite; pick another")
            )
        old_text = text
    # A new suite takes the request's date as its own: its cases need not repeat it.
    today = request.today if suite is None else suite.today or SUITE_TODAY
    fields = _case_fields(path, case_id, request, inspection, chosen, suite, today)
    if text is None or document is None:
        header: dict[str, Any] = {"suite": path.stem, "router": chosen, "today": request.today}
        if chosen == "tools" and request.catalog is not None:
            catalog = _catalog_path(path, request.catalog.path)
            if catalog is not None:
                header["catalog"] = catalog
        new_text = _new_suite(header, fields)
        expected: Any = {**header, "cases": [fields]}
    else:
        new_text = _appended(path, old_text, fields)
        expected = copy.deepcopy(document)
        expected["cases"].append(fields)
    try:
        reread = read_yaml(new_text, path)
    except SuiteError:
        reread = None
    if reread is None or not _same(reread, expected):
        raise SuiteError(
            one_line(
                f"{path}: cannot append case {_label(case_id)} in place (the suite's layout is "
                "unusual); add it by hand (nothing was written)"
            )
        )
    new_suite = _suite(path, reread)
    case = new_suite.cases[-1]
    if verify:
        _check_passes(path, case, new_suite, cache)
    data = new_text.encode("utf-8")
    if text is None:
        _create(path, data)
    else:
        _write_atomically(path, data)
    return case


def _existing_text(path: Path) -> str | None:
    """The suite's text; None when there is no file (or an empty one) to append to."""
    if not path.exists() and not path.is_symlink():
        if not path.parent.is_dir():
            raise SuiteError(one_line(f"{path}: no such folder: {path.parent}"))
        return None
    raw = read_bytes(path, what="suite", limit=MAX_SUITE_BYTES, error=SuiteError, streams=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteError(one_line(f"{path}: suite is not UTF-8 text (byte {exc.start})")) from None
    return text if text.strip() else None


def _suite(path: Path, document: Any) -> Suite:
    if not isinstance(document, dict):
        raise SuiteError(one_line(f"{path}: a suite is a mapping with `suite` and `cases`"))
    try:
        return Suite.model_validate({**document, "path": path})
    except ValidationError as exc:
        raise SuiteError(
            one_line(describe(exc, lambda loc: f"{path}: {_where(loc, document)}"))
        ) from None
    except RecursionError:
        raise SuiteError(one_line(f"{path}: nested too deeply")) from None


def _case_fields(
    path: Path,
    case_id: str,
    request: Request,
    inspection: Inspection,
    router: str,
    suite: Suite | None,
    default_today: dt.date,
) -> dict[str, Any]:
    """The new case as data, in the order it is written (`today` only when it is not
    `default_today`, the suite's)."""
    try:
        expect = case_expectations(router, inspection)
    except SuiteError as exc:
        raise SuiteError(one_line(f"{path}: cannot save case {_label(case_id)}: {exc}")) from None
    if inspection.context.raw_text != request.text:
        raise SuiteError(
            one_line(f"{path}: case {_label(case_id)}: the result is not the request's")
        )
    fields: dict[str, Any] = {"id": case_id, "prompt": request.text}
    if request.today != default_today:
        fields["today"] = request.today
    if request.context is not None:
        context = json.loads(request.context.model_dump_json(by_alias=True, exclude_defaults=True))
        if context:
            fields["context"] = context
    if not request.rules.is_builtin:
        fields["rules"] = _rules_path(path, case_id, request.rules)
    if router == "tools":
        _check_catalog(path, case_id, request, suite)
    fields["expect"] = expect
    return fields


def _rules_path(path: Path, case_id: str, rules: RulesRef) -> str:
    """The pack's file, relative to the suite: it must still hold the text that ran."""
    source = Path(rules.source)
    try:
        same = source.is_file() and RulesRef.from_path(source).digest == rules.digest
    except (RoutescopeError, OSError):
        same = False
    if not same:
        raise SuiteError(
            one_line(
                f"{path}: case {_label(case_id)}: its rule pack is not a file that holds the "
                f"text it ran with ({rules.source}); save the pack as a file first"
            )
        )
    relative = os.path.relpath(source.resolve(), path.resolve().parent)
    return Path(relative).as_posix()


def _check_catalog(path: Path, case_id: str, request: Request, suite: Suite | None) -> None:
    """A tools case runs on its suite's catalog with the default settings: the request must."""
    label = _label(case_id)
    if request.catalog is None:
        raise SuiteError(one_line(f"{path}: case {label}: the request has no catalog"))
    if request.search != SearchSettings():
        raise SuiteError(
            one_line(
                f"{path}: case {label}: a tools suite runs with the default search settings; "
                "reset them before saving the case"
            )
        )
    if suite is None:
        return  # a new suite names the request's catalog
    expected = suite.catalog_ref()
    if expected.digest != request.catalog.digest:
        raise SuiteError(
            one_line(
                f"{path}: case {label}: the suite's catalog ({expected.path}) is not the one "
                f"the request ranked ({request.catalog.path})"
            )
        )


# -- writing the case ------------------------------------------------------------------------


def _scalar(value: Any, *, flow: bool) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    return _render(value, flow=flow)


def _value(value: Any) -> str:
    """A value after `key: ` in a block mapping (a collection in flow style)."""
    if isinstance(value, str):
        return _string(value, flow=False, quote=None)
    return _scalar(value, flow=True)


def _block_key(key: str) -> str:
    if ":" not in key and "#" not in key and _plain_ok(key, flow=False, key=False):
        return key
    return _key(key)


def _flow_case(fields: dict[str, Any]) -> str:
    parts = []
    for key, value in fields.items():
        if key == "expect":
            inner = ", ".join(f"{_key(k)}: {_render(v, flow=True)}" for k, v in value.items())
            parts.append(f"expect: {{{inner}}}")
        else:
            parts.append(f"{key}: {_scalar(value, flow=True)}")
    return "{" + ", ".join(parts) + "}"


def _block_case(fields: dict[str, Any], dash: int, offset: int) -> list[str]:
    lead = " " * dash + "-" + " " * (offset - 1)
    inner = " " * (dash + offset)
    lines: list[str] = []
    for key, value in fields.items():
        start = lead if not lines else inner
        if key == "expect":
            lines.append(f"{start}expect:")
            lines += [f"{inner}  {_block_key(k)}: {_value(v)}" for k, v in value.items()]
        else:
            lines.append(f"{start}{key}: {_value(value)}")
    return lines


def _new_suite(header: dict[str, Any], fields: dict[str, Any]) -> str:
    lines = [
        "# Saved from Routescope. Exact values are goldens (`routescope regress --update`",
        "# rewrites them); see Routescope's docs/regress.md.",
        *(f"{key}: {_value(value)}" for key, value in header.items()),
        "cases:",
        *_block_case(fields, 2, 2),
    ]
    return "\n".join(lines) + "\n"


def _catalog_path(path: Path, catalog: str) -> str | None:
    """How a new tools suite names the request's catalog: None for the sample (the default),
    else relative to the suite."""
    folder = Path(catalog).resolve()
    if folder == CatalogRef.sample_path().resolve():
        return None
    return Path(os.path.relpath(folder, path.resolve().parent)).as_posix()


def _appended(path: Path, text: str, fields: dict[str, Any]) -> str:
    """`text` with the case written after the last case, in the style of the last case."""
    root = compose_yaml(text, path)
    cases = _value_node(root, "cases")
    if not isinstance(cases, SequenceNode) or not cases.value:
        raise SuiteError(one_line(f"{path}: `cases` is not a list; add the case by hand"))
    last: Node = cases.value[-1]
    newline = "\r\n" if "\r\n" in text else "\n"
    if cases.flow_style:
        at = _end(text, last)
        return text[:at] + ", " + _flow_case(fields) + text[at:]
    dash, offset = _dash(text, cases.value[0], cases)
    if isinstance(last, MappingNode) and last.flow_style:
        lines = [" " * dash + "-" + " " * (offset - 1) + _flow_case(fields)]
    else:
        lines = _block_case(fields, dash, offset)
    end = _end(text, last)
    line_end = text.find("\n", end)
    if line_end == -1:
        return text + newline + newline.join(lines) + newline
    at = line_end + 1
    return text[:at] + newline.join(lines) + newline + text[at:]


def _dash(text: str, first: Node, cases: SequenceNode) -> tuple[int, int]:
    """The column of the items' dash and how far their content is from it."""
    start = first.start_mark.index
    line_start = text.rfind("\n", 0, start) + 1
    found = re.fullmatch(r"( *)-( +)", text[line_start:start])
    if found:
        return len(found.group(1)), 1 + len(found.group(2))
    return cases.start_mark.column, 2


def _check_passes(path: Path, case: Case, suite: Suite, cache: Path | None) -> None:
    try:
        result = run_case(case, suite, cache=cache)
    except SuiteError as exc:
        raise SuiteError(one_line(f"{exc}; nothing was written")) from None
    if not result.passed:
        diff = result.diffs[0]
        raise SuiteError(
            one_line(
                f"{path}: case {_label(case.id)} would fail when the suite runs ({diff.path}: "
                f"saved {preview(diff.expected, 80)}, the suite gives {preview(diff.actual, 80)}); "
                "nothing was written",
                400,
            )
        )


def _create(path: Path, data: bytes) -> None:
    """A new suite file, written atomically, readable as the user's umask allows."""
    try:
        replace_file(path, data, mode=0o666)
    except OSError as exc:
        raise SuiteError(
            one_line(f"{path}: cannot write the suite: {exc.strerror or exc}; nothing written")
        ) from None
