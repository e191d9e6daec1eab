"""The research query optimiser's rules (seed 003's `search_query_optimizer` answered without
a model): a goal's terms and words, the stack it implies and its first query. Below both the
task router, which shows the first query of a research route, and research, which searches it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._first_query import FirstQuery as FirstQuery
    from ._first_query import first_query as first_query
    from ._stack import StackHint as StackHint
    from ._stack import infer_stack as infer_stack

__getattr__, __dir__, __all__ = lazy_face(__name__)
