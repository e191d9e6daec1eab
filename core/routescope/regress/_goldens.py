"""Accepting a run's results as the goldens of a suite, and undoing it: the suite file is
edited as text, on its YAML node tree, so that only the changed values change."""

from __future__ import annotations

import copy
import itertools
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from .._diff import FieldDiff, contains_missing
from .._errors import SuiteError, one_line
from .._files import OwnerNotKeptError, TemporaryFileError, read_bytes, replace_file
from .._yaml import compose_yaml, read_yaml
from ._checks import is_matcher
from ._messages import _error
from ._run import SuiteResult
from ._suite import MAX_SUITE_BYTES, Suite
from ._yaml_write import _render, _same

__all__ = [
    "GoldenUpdate",
    "accept_goldens",
    "skipped_goldens",
    "undo_goldens",
    "update_goldens",
]


@dataclass(frozen=True, slots=True)
class GoldenUpdate:
    """What accepting goldens wrote (`accept_goldens`): enough to undo it byte for byte."""

    path: Path
    changed: int
    """How many values changed (0: nothing was written)."""
    before: bytes
    """The suite file as it was."""
    after: bytes
    """The suite file as the update wrote it."""


def update_goldens(suite: Suite, result: SuiteResult, only: set[str] | None = None) -> int:
    """`accept_goldens`, returning how many values changed."""
    return accept_goldens(suite, result, only).changed


def accept_goldens(suite: Suite, result: SuiteResult, only: set[str] | None = None) -> GoldenUpdate:
    """Accept the current results as the goldens of failing exact expectations (all failing
    cases, or the ids in `only`). Returns what was written (`GoldenUpdate`: how many values
    changed, and the file's bytes before and after, for `undo_goldens`).

    The file is edited as text: only the changed values are replaced, each by one line of YAML
    (flow style, quoted where needed, the old quoting kept where it fits), so comments, order,
    indentation, line endings and everything else stay byte for byte; tolerant matchers are
    never rewritten, nor is a golden whose path is not in the result (`FieldDiff.missing`: a
    typo in the path, not a new value). The new text is read back and must differ from the old
    in exactly the changed values, or nothing is written (SuiteError); so must a golden shared
    with another place through a YAML alias, a read-only suite, a suite with hard links or a
    folder that cannot take the temporary file. The file (a link's target) is replaced
    atomically, keeping its permissions and owner; temporary files left by a killed update
    of the same suite are removed."""
    path = suite.path
    wanted: dict[str, dict[str, Any]] = {}
    for case in result.cases:
        if case.passed or (only is not None and case.id not in only):
            continue
        for diff in case.diffs:
            if diff.matcher == "equals" and not _is_missing(diff):
                wanted.setdefault(case.id, {})[diff.path] = diff.actual
    if not wanted:
        return GoldenUpdate(path, 0, b"", b"")
    raw = read_bytes(path, what="suite", limit=MAX_SUITE_BYTES, error=SuiteError, streams=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _error(f"{path}: suite is not UTF-8 text any more (byte {exc.start})") from None
    document = read_yaml(text, path)
    root = compose_yaml(text, path)  # a tree of its own: building `document` merged `<<` keys
    edits = _golden_edits(path, text, document, root, wanted)
    if not edits:
        return GoldenUpdate(path, 0, raw, raw)
    new_text = _apply(text, edits, path)
    _verify(path, text, document, new_text, edits)
    data = new_text.encode("utf-8")
    _write_atomically(path, data)
    return GoldenUpdate(path, len(edits), raw, data)


def undo_goldens(update: GoldenUpdate) -> None:
    """Put the suite back as it was before `update` (`accept_goldens`), byte for byte, with
    the same atomic write. Refuses (SuiteError, nothing written) when the file is no longer
    what the update wrote: an edit made since would be lost."""
    if not update.changed:
        return
    path = update.path
    now = read_bytes(path, what="suite", limit=MAX_SUITE_BYTES, error=SuiteError, streams=False)
    if now != update.after:
        raise _error(f"{path}: the suite changed since the goldens were accepted; nothing undone")
    _write_atomically(path, update.before)


def skipped_goldens(result: SuiteResult, only: set[str] | None = None) -> list[tuple[str, str]]:
    """The (case id, path) of the failing exact goldens `update_goldens` leaves alone because
    their path is not in the result (a typo, or a field the router does not have): what to tell
    the user after an update, since those cases still fail."""
    return [
        (case.id, diff.path)
        for case in result.cases
        if not case.passed and (only is None or case.id in only)
        for diff in case.diffs
        if diff.matcher == "equals" and _is_missing(diff)
    ]


def _is_missing(diff: FieldDiff) -> bool:
    return diff.missing or contains_missing(diff.actual)


# -- accepting goldens: text edits -------------------------------------------------------------

_STR = "tag:yaml.org,2002:str"
_SPACE = " \t\r\n"


@dataclass(slots=True)
class _Edit:
    """Replace text[start:end] with `new`: the golden `key` of case `case_id` becomes `value`."""

    start: int
    end: int
    new: str
    case_id: str
    key: str
    value: Any
    line: int
    """1-based line of the golden's key, for messages."""


def _golden_edits(
    path: Path, text: str, document: Any, root: Node | None, wanted: dict[str, dict[str, Any]]
) -> list[_Edit]:
    """Where each wanted golden sits in the text (`root` is its node tree, `document` its
    data) and what replaces it (exact goldens only)."""
    cases = document.get("cases") if isinstance(document, dict) else None
    cases_node = _value_node(root, "cases")
    if not isinstance(cases, list) or not isinstance(cases_node, SequenceNode):
        raise _error(f"{path}: `cases` is not a list any more; run the suite again")
    data = _by_id(cases)
    shared = _shared_nodes(root)
    nodes: dict[str, MappingNode] = {}
    for item in cases_node.value:
        id_node = _value_node(item, "id")
        if isinstance(item, MappingNode) and isinstance(id_node, ScalarNode):
            nodes.setdefault(id_node.value, item)
    edits = []
    for case_id, values in wanted.items():
        case, node = data.get(case_id), nodes.get(case_id)
        if case is None or node is None:
            raise _error(f"{path}: case {case_id!r} is not in the file any more; run again")
        expect = case.get("expect")
        expect_node = _value_node(node, "expect")
        line = node.start_mark.line + 1
        if not isinstance(expect, dict) or not isinstance(expect_node, MappingNode):
            raise _error(f"{path}:{line}: case {case_id}: `expect` is not a mapping")
        for key, value in values.items():
            if key not in expect:
                raise _error(f"{path}:{line}: case {case_id} no longer expects {key}")
            if is_matcher(expect[key]):
                continue  # tolerant (or `{equals: …}`): never rewritten
            pair = _pair(expect_node, key)
            if pair is None:  # from a merge key or an alias: not in this case's text
                raise SuiteError(
                    one_line(
                        f"{path}:{line}: case {case_id}: cannot rewrite {key} in place (it is "
                        "not written in the case itself); edit it by hand"
                    )
                )
            if shared.intersection(map(id, (node, expect_node, *pair))):
                raise _error(
                    f"{path}:{line}: case {case_id}: cannot rewrite {key} in place (it is "
                    "shared with another place through a YAML alias); edit it by hand"
                )
            edits.append(_edit(text, case_id, key, value, *pair, flow=bool(expect_node.flow_style)))
    return edits


def _shared_nodes(root: Node | None) -> set[int]:
    """The ids of the nodes reached more than once in the tree: aliased (anchored) values."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [] if root is None else [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            shared.add(id(node))
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            stack.extend(part for pair in node.value for part in pair)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return shared


def _by_id(cases: list[Any]) -> dict[Any, dict[str, Any]]:
    """The cases of a loaded suite by id (the first of each id, as in the node tree)."""
    found: dict[Any, dict[str, Any]] = {}
    for case in cases:
        if isinstance(case, dict):
            found.setdefault(case.get("id"), case)
    return found


def _value_node(node: Node | None, name: str) -> Node | None:
    pair = _pair(node, name) if isinstance(node, MappingNode) else None
    return None if pair is None else pair[1]


def _pair(node: Node | None, name: str) -> tuple[Node, Node] | None:
    """The key and value nodes of a string key of a mapping node."""
    if not isinstance(node, MappingNode):
        return None
    for key, value in node.value:
        if isinstance(key, ScalarNode) and str(key.tag) == _STR and key.value == name:
            return key, value
    return None


def _edit(
    text: str, case_id: str, key: str, value: Any, key_node: Node, node: Node, *, flow: bool
) -> _Edit:
    """The text edit that makes `node` (the value of `key_node`) read `value`."""
    stored = {"equals": value} if is_matcher(value) else value  # else it would read as a matcher
    style = node.style if isinstance(node, ScalarNode) else None
    new = _render(stored, flow=flow, quote=style if style in ("'", '"') else None)
    start, end = node.start_mark.index, _end(text, node)
    line = key_node.start_mark.line + 1
    if isinstance(node, CollectionNode) and not node.flow_style:
        # A block list or mapping: the flow value goes after the colon when only blanks are
        # in between, else where the block started (more indented than its key).
        colon = _colon_after(text, key_node.end_mark.index)
        if colon is not None and not text[colon + 1 : start].strip(_SPACE):
            start, new = colon + 1, " " + new
        elif node.start_mark.column <= key_node.start_mark.column:
            new = " " + new
    elif start == end:
        # An empty value (null): its marks are where the next token starts, maybe on the next
        # line, so the value goes right after the colon.
        colon = _colon_after(text, key_node.end_mark.index)
        if colon is not None:
            start = end = colon + 1
            new = " " + new
    return _Edit(start, end, new, case_id, key, stored, line)


def _end(text: str, node: Node) -> int:
    """Where a value's own text ends: a block collection ends with its last entry (its end
    mark is where the next token starts), a block scalar before its trailing line breaks."""
    if isinstance(node, CollectionNode) and not node.flow_style and node.value:
        last = node.value[-1]
        return _end(text, last[1] if isinstance(last, tuple) else last)
    end: int = node.end_mark.index
    if isinstance(node, ScalarNode) and node.style in ("|", ">"):
        while end > node.start_mark.index and text[end - 1] in _SPACE:
            end -= 1
    return end


def _colon_after(text: str, index: int) -> int | None:
    while index < len(text) and text[index] in " \t":
        index += 1
    return index if index < len(text) and text[index] == ":" else None


def _apply(text: str, edits: list[_Edit], path: Path) -> str:
    ordered = sorted(edits, key=lambda e: e.start)
    for before, after in itertools.pairwise(ordered):
        if before.end > after.start:  # an alias: two goldens share one text
            raise _error(
                f"{path}:{after.line}: case {after.case_id}: cannot rewrite {after.key} in place "
                "(its text is shared with another golden); edit it by hand"
            )
    for edit in reversed(ordered):
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text


def _verify(path: Path, old: str, document: Any, new: str, edits: list[_Edit]) -> None:
    """The new text must read as the old (`document`) with exactly the edited goldens changed."""
    if _reads_as(path, document, new, edits):
        return
    culprit = next(
        (e for e in edits if not _reads_as(path, document, _apply(old, [e], path), [e])),
        edits[0],
    )
    raise _error(
        f"{path}:{culprit.line}: case {culprit.case_id}: cannot rewrite {culprit.key} in place; "
        "edit it by hand (nothing was written)"
    )


def _reads_as(path: Path, document: Any, new: str, edits: list[_Edit]) -> bool:
    expected = copy.deepcopy(document)
    try:
        actual = read_yaml(new, path)
    except SuiteError:
        return False
    cases = _by_id(expected["cases"])
    for edit in edits:
        cases[edit.case_id]["expect"][edit.key] = edit.value
    return _same(actual, expected)


def _write_atomically(path: Path, data: bytes) -> None:
    """Replace the suite (the target of a link) with `data`, keeping its owner and permissions
    (`_files.replace_file`). Refuses (SuiteError, nothing written) a read-only suite, one with
    hard links (a rename would split them) and a folder that cannot take the temporary file."""
    try:
        target = path.resolve(strict=True)
        info = target.stat()
    except (OSError, RuntimeError) as exc:
        raise _error(f"{path}: cannot update suite: {_reason(exc)}") from None
    mode = stat.S_IMODE(info.st_mode)
    if not stat.S_ISREG(info.st_mode):
        raise _error(f"{path}: cannot update suite: not a regular file")
    # Root may write anything: the mode bits say whether the file is meant to be written.
    if not mode & 0o222:
        raise _error(f"{path}: the suite is read-only (mode {mode:04o}); nothing written")
    if not os.access(target, os.W_OK):
        raise _error(
            f"{path}: the suite is not writable by this user (mode {mode:04o}, owner "
            f"{info.st_uid}); nothing written"
        )
    if info.st_nlink > 1:
        raise _error(
            f"{path}: the suite has {info.st_nlink} hard links, which an update would split; "
            "nothing written"
        )
    try:
        replace_file(target, data, like=info)
    except TemporaryFileError as exc:
        raise _error(
            f"{path}: cannot write the updated suite into {target.parent}: {_reason(exc)}; "
            "nothing written"
        ) from None
    except OwnerNotKeptError:
        raise _error(
            f"{path}: cannot keep the suite's owner ({info.st_uid}:{info.st_gid}) in an "
            "update; nothing written"
        ) from None
    except OSError as exc:
        raise _error(f"{path}: cannot update suite: {_reason(exc)}; nothing written") from None


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__
