"""The query linter (seed 002): guided / semi / vague, anchors, aliases, expansion."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._lint import lint as lint
    from ._models import LintResult as LintResult

__getattr__, __dir__, __all__ = lazy_face(__name__)
