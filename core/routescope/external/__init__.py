"""External routers: the routers people already run — an HTTP routing service (vLLM Semantic
Router, a model router behind an OpenAI-compatible endpoint, any JSON API), a Python function,
a semantic-router file — declared in one TOML file (`load_routers`), started by name
(`open_router`, or once each and shared: `RouterPool`), each answering with one
`ExternalDecision` a prompt: the route, its score, the score of every route, the evidence, and,
when it failed on that prompt, why (never an exception). See docs/routers.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from .._errors import RouterError as RouterError
    from ._declare import PRESETS as PRESETS
    from ._declare import AnswerMap as AnswerMap
    from ._declare import HttpSpec as HttpSpec
    from ._declare import PythonSpec as PythonSpec
    from ._declare import Routers as Routers
    from ._declare import SemanticRouterSpec as SemanticRouterSpec
    from ._declare import load_routers as load_routers
    from ._declare import parse_routers as parse_routers
    from ._models import ERROR_KINDS as ERROR_KINDS
    from ._models import ErrorKind as ErrorKind
    from ._models import ExternalDecision as ExternalDecision
    from ._models import ExternalFailure as ExternalFailure
    from ._models import RouteEvidence as RouteEvidence
    from ._models import Signal as Signal
    from ._models import UtteranceMatch as UtteranceMatch
    from ._open import ExternalRouter as ExternalRouter
    from ._open import open_router as open_router
    from ._paths import parse_path as parse_path
    from ._pool import RouterPool as RouterPool
    from ._semantic import SemanticRouter as SemanticRouter
    from ._semantic import read_router_file as read_router_file

__getattr__, __dir__, __all__ = lazy_face(__name__)
