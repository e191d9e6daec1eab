"""Routescope: inspect what query routers decide about a prompt, and why.

>>> import datetime, routescope
>>> result = routescope.inspect("How do I install FastAPI on Ubuntu?",
...                             today=datetime.date(2026, 2, 5))
>>> result.strategy, [a.query for a in result.actions][:1]
('tech', ['site:docs.* FastAPI (install OR docs OR getting started)'])
"""

from . import contract, linter, regress, strategy, toolsearch
from ._errors import InputError, RoutescopeError, RulePackError
from ._inspect import Inspection, inspect, prepare
from ._resources import resources_root
from ._rules import RulePack, default_rules, load_rules, parse_rules

__all__ = [
    "InputError",
    "Inspection",
    "RoutescopeError",
    "RulePack",
    "RulePackError",
    "contract",
    "default_rules",
    "inspect",
    "linter",
    "load_rules",
    "parse_rules",
    "prepare",
    "regress",
    "resources_root",
    "strategy",
    "toolsearch",
]

__version__ = "0.1.0"
