"""Routescope: inspect what query routers decide about a prompt, and why.

>>> import datetime, routescope
>>> result = routescope.inspect("How do I install FastAPI on Ubuntu?",
...                             today=datetime.date(2026, 2, 5))
>>> result.strategy, [a.query for a in result.actions][:1]
('tech', ['site:docs.* FastAPI (install OR docs OR getting started)'])

Names load on first use (napari's lazy attach): `import routescope` is cheap, and a command
that never ranks tools never imports tantivy, numpy, onnxruntime or httpx.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import (
        batch,
        compare,
        contract,
        demo,
        history,
        linter,
        llm,
        regress,
        research,
        rules,
        strategy,
        task,
        toolsearch,
    )
    from ._errors import (
        CatalogError,
        ContextError,
        EmbedderError,
        InputError,
        RoutescopeError,
        RulePackError,
        SuiteError,
    )
    from ._inspect import Inspection, inspect, warm_up
    from ._request import CatalogRef, Request, RulesRef
    from ._resources import resources_root
    from .rules import RulePack, default_rules, load_rules, parse_rules

__all__ = [
    "CatalogError",
    "CatalogRef",
    "ContextError",
    "EmbedderError",
    "InputError",
    "Inspection",
    "Request",
    "RoutescopeError",
    "RulePack",
    "RulePackError",
    "RulesRef",
    "SuiteError",
    "__version__",
    "batch",
    "compare",
    "contract",
    "default_rules",
    "demo",
    "history",
    "inspect",
    "linter",
    "llm",
    "load_rules",
    "parse_rules",
    "regress",
    "research",
    "resources_root",
    "rules",
    "strategy",
    "task",
    "toolsearch",
    "warm_up",
]

_SUBPACKAGES = frozenset(
    [
        "batch",
        "compare",
        "contract",
        "demo",
        "history",
        "linter",
        "llm",
        "regress",
        "research",
        "rules",
        "strategy",
        "task",
        "toolsearch",
    ]
)
_NAMES = {
    "CatalogError": "._errors",
    "ContextError": "._errors",
    "EmbedderError": "._errors",
    "InputError": "._errors",
    "RoutescopeError": "._errors",
    "RulePackError": "._errors",
    "SuiteError": "._errors",
    "Inspection": "._inspect",
    "inspect": "._inspect",
    "warm_up": "._inspect",
    "CatalogRef": "._request",
    "Request": "._request",
    "RulesRef": "._request",
    "resources_root": "._resources",
    "RulePack": ".rules",
    "default_rules": ".rules",
    "load_rules": ".rules",
    "parse_rules": ".rules",
}


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        value: Any = importlib.import_module(f".{name}", __name__)
    elif name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name], __name__), name)
    elif name == "__version__":
        from importlib.metadata import version

        value = version("routescope")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
