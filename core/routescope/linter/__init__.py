"""The query linter (seed 002): guided / semi / vague, anchors, aliases, expansion."""

from ._lint import fold, lint
from ._models import AnchorMatch, AnchorsDetected, Classification, LintResult, QueryClass

__all__ = [
    "AnchorMatch",
    "AnchorsDetected",
    "Classification",
    "LintResult",
    "QueryClass",
    "fold",
    "lint",
]
