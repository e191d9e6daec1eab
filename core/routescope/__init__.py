"""Routescope: inspect what query routers decide about a prompt, and why.

>>> import datetime, routescope
>>> result = routescope.inspect("How do I install FastAPI on Ubuntu?",
...                             today=datetime.date(2026, 2, 5))
>>> result.strategy, [a.query for a in result.actions][:1]
('tech', ['site:docs.* FastAPI (install OR docs OR getting started)'])

Names load on first use (napari's lazy attach): `import routescope` is cheap, and a command
that never ranks tools never imports tantivy, numpy, onnxruntime or httpx. Each public name is
declared once, below (`_lazy.lazy_face`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_face

if TYPE_CHECKING:
    from . import batch as batch
    from . import compare as compare
    from . import contract as contract
    from . import demo as demo
    from . import external as external
    from . import history as history
    from . import linter as linter
    from . import llm as llm
    from . import regress as regress
    from . import research as research
    from . import rules as rules
    from . import strategy as strategy
    from . import task as task
    from . import toolsearch as toolsearch
    from ._errors import BatchError as BatchError
    from ._errors import CatalogError as CatalogError
    from ._errors import ContextError as ContextError
    from ._errors import EmbedderError as EmbedderError
    from ._errors import HistoryError as HistoryError
    from ._errors import InputError as InputError
    from ._errors import LabelsError as LabelsError
    from ._errors import OfflineIndexError as OfflineIndexError
    from ._errors import RecordError as RecordError
    from ._errors import ResearchConfigError as ResearchConfigError
    from ._errors import ResultsError as ResultsError
    from ._errors import RouterError as RouterError
    from ._errors import RoutescopeError as RoutescopeError
    from ._errors import RulePackError as RulePackError
    from ._errors import SuiteError as SuiteError
    from ._inspect import Inspection as Inspection
    from ._inspect import inspect as inspect
    from ._inspect import inspect_all as inspect_all
    from ._inspect import inspection_json as inspection_json
    from ._inspect import warm_up as warm_up
    from ._outcome import Outcome as Outcome
    from ._request import CatalogRef as CatalogRef
    from ._request import Request as Request
    from ._request import RulesRef as RulesRef
    from ._resources import resources_root as resources_root
    from ._version import __version__ as __version__
    from .rules import RulePack as RulePack
    from .rules import default_rules as default_rules
    from .rules import load_rules as load_rules
    from .rules import parse_rules as parse_rules

__getattr__, __dir__, __all__ = lazy_face(__name__)
