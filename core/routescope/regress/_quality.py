"""A suite's quality figures: when its cases carry `labels:` (what a right decision is, by the
labelling guide), the same scorecard `routescope score` gives a labelled set."""

from __future__ import annotations

from ..judge import LabelledCase, SetScore, labels_from_mapping, score_set
from ._suite import Suite

__all__ = ["suite_quality"]


def suite_quality(suite: Suite) -> SetScore | None:
    """The scorecard of the suite's labelled cases under their pack (the built-in one unless
    every labelled case names the same pack file); None when no case labels a field of the
    pack's routers (the routes of external routers are `route_quality`'s)."""
    labelled = [case for case in suite.cases if set(case.labels or {}) - {"routes"}]
    if not labelled:
        return None
    cases = [
        LabelledCase(
            id=case.id,
            prompt=case.prompt,
            labels=labels_from_mapping(case.labels or {}),
            today=case.request(suite).today,
            context=case.context,
            where=f"{suite.path}: case {case.id}",
        )
        for case in labelled
    ]
    packs = {case.request(suite).rules.digest: case.request(suite).rules for case in labelled}
    rules = next(iter(packs.values())) if len(packs) == 1 else None
    pack = rules.load() if rules is not None else labelled[0].request(suite).rules.builtin().load()
    return score_set(cases, pack)
