"""The query linter (seed 002): guided / semi / vague, anchors, aliases, expansion."""

from ._lint import MAX_EVIDENCE_PER_KIND, fold, lint
from ._models import (
    AnchorKind,
    AnchorMatch,
    AnchorsDetected,
    Classification,
    LintResult,
    QueryClass,
)

__all__ = [
    "MAX_EVIDENCE_PER_KIND",
    "AnchorKind",
    "AnchorMatch",
    "AnchorsDetected",
    "Classification",
    "LintResult",
    "QueryClass",
    "fold",
    "lint",
]
