"""Reading a suite's YAML safely (a regression suite, a labelled set kept as a suite): bounded
nesting and alias expansion, checked on the node tree before anything is built, and every
failure one `SuiteError` line with its place."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.composer import MaxDepthExceededError
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ._errors import SuiteError, one_line, quoted

__all__ = ["ALIAS_BUDGET", "MAX_DEPTH", "compose_yaml", "read_yaml"]

MAX_DEPTH = 100
"""How deeply a suite's YAML may nest, aliases expanded (a result is about 8 levels deep)."""
ALIAS_BUDGET = 100_000
"""How many nodes YAML aliases may add to a suite when expanded: sharing an `expect` block
between cases is fine, a billion laughs is refused before anything is built from it."""


class _ValueError(Exception):
    """A scalar that cannot be built (an impossible date, a too long integer), with its node."""

    def __init__(self, node: Node, problem: BaseException) -> None:
        super().__init__(str(problem))
        self.node = node


class _Constructor(SafeConstructor):
    """The safe constructor, but a value that cannot be built names its place."""

    def construct_non_recursive_object(self, node: Any, tag: str | None = None) -> Any:
        try:
            return super().construct_non_recursive_object(node, tag)
        except (ValueError, OverflowError, TypeError) as exc:
            raise _ValueError(node, exc) from None


def read_yaml(text: str, path: Path) -> Any:
    """The data of a suite's YAML text: bounded nesting and alias expansion checked on the
    node tree before anything is built, every failure one `SuiteError` line with its place."""
    yaml = _yaml()
    root = compose_yaml(text, path, yaml)
    if root is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ruamel.yaml's notes on YAML 1.1 floats: not ours
            return yaml.constructor.construct_document(root)
    except _ValueError as exc:
        line = exc.node.start_mark.line + 1
        value = exc.node.value if isinstance(exc.node, ScalarNode) else None
        what = quoted(value, limit=40) if isinstance(value, str) else "a value"
        reason = str(exc).split(";")[0]  # not Python's advice on int_max_str_digits
        raise SuiteError(one_line(f"{path}:{line}: {what} is not valid: {reason}")) from None
    except YAMLError as exc:
        raise SuiteError(one_line(_yaml_problem(path, exc))) from None
    except RecursionError:
        raise SuiteError(one_line(f"{path}: nested too deeply")) from None


def compose_yaml(text: str, path: Path, yaml: YAML | None = None) -> Node | None:
    """The YAML node tree of `text` (None for an empty document), checked like `read_yaml`."""
    yaml = yaml or _yaml()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a reused anchor name is valid YAML (the last wins)
            root: Node | None = yaml.compose(text)
    except MaxDepthExceededError as exc:
        line = f":{exc.problem_mark.line + 1}" if exc.problem_mark is not None else ""
        raise SuiteError(
            one_line(f"{path}{line}: nested more than {MAX_DEPTH} levels deep")
        ) from None
    except YAMLError as exc:
        raise SuiteError(one_line(_yaml_problem(path, exc))) from None
    except RecursionError:  # a ruamel.yaml without `max_depth`
        raise SuiteError(one_line(f"{path}: nested more than {MAX_DEPTH} levels deep")) from None
    if root is not None:
        _check_expansion(root, path)
    return root


def _yaml() -> YAML:
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _Constructor
    yaml.max_depth = MAX_DEPTH  # the composer refuses deeper nesting (no RecursionError)
    return yaml


def _yaml_problem(path: Path, exc: YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    where = f":{mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["?"])[0]
    return f"{path}{where}: not valid YAML: {problem}"


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def _check_expansion(root: Node, path: Path) -> None:
    """Refuse an alias to a value that contains it, and aliases that would expand the document
    beyond `ALIAS_BUDGET` extra nodes or `MAX_DEPTH` levels. Linear in the number of distinct
    nodes: each node's expanded size and depth are computed once."""
    size: dict[int, int] = {}  # exact: a billion laughs is a 30-bit number, not a billion nodes
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    biggest: Node | None = None
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            children = _children(node)
            open_nodes.discard(key)
            size[key] = 1 + sum(size[id(child)] for child in children)
            depth[key] = 1 + max((depth[id(child)] for child in children), default=0)
            if depth[key] > MAX_DEPTH:
                line = node.start_mark.line + 1
                raise SuiteError(
                    one_line(f"{path}:{line}: nested more than {MAX_DEPTH} levels deep")
                )
            continue
        if key in open_nodes:
            line = node.start_mark.line + 1
            raise SuiteError(
                one_line(f"{path}:{line}: an alias refers to a value that contains it")
            )
        if key in size:
            if biggest is None or size[key] > size[id(biggest)]:
                biggest = node  # a shared value: the one whose copies cost the most
            continue
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(_children(node)))
    extra = size[id(root)] - len(size)
    if extra > ALIAS_BUDGET:
        line = (biggest or root).start_mark.line + 1
        raise SuiteError(
            one_line(
                f"{path}:{line}: YAML aliases expand the suite by more than {ALIAS_BUDGET:,} "
                "values; share less, or write the values out"
            )
        )
