"""Close calls: decisions that were near a line. The linter's class one token or anchor away
from another class, the tool search's best score near the fit threshold, the top two tools
within a small margin, and a strategy that won over another matched intent by precedence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._errors import InputError
from ..rules import RulePack, default_rules
from ._models import CloseCall

if TYPE_CHECKING:
    from .._inspect import Inspection
    from ..rules import IntentName, LinterThresholds
    from ..toolsearch import ToolSearchResult

__all__ = ["FIT_MARGIN", "TOOL_MARGIN", "close_calls", "linter_class"]

FIT_MARGIN = 0.15
"""The best tool's score is close to the fit threshold within this share of the threshold."""
TOOL_MARGIN = 0.05
"""The top two tools are close when the runner-up is within this share of the best score."""


def close_calls(
    inspection: Inspection,
    rules: RulePack | None = None,
    *,
    fit_margin: float = FIT_MARGIN,
    tool_margin: float = TOOL_MARGIN,
) -> list[CloseCall]:
    """The decisions of an inspection that were close. `rules`: the pack it ran under (its
    linter thresholds); the built-in pack by default, and it must bear the inspection's pack
    name."""
    pack = rules if rules is not None else default_rules()
    if not isinstance(pack, RulePack):
        raise InputError(f"rules must be a RulePack, not {type(pack).__name__}")
    if pack.name != inspection.rules:
        raise InputError(
            f"the inspection ran under rule pack {inspection.rules!r}, not {pack.name!r}: "
            "pass that pack as rules="
        )
    calls = _linter_calls(inspection, pack.linter.thresholds)
    calls += _strategy_calls(inspection)
    if inspection.tools is not None:
        calls += _tool_calls(inspection.tools, fit_margin, tool_margin)
    return calls


def linter_class(tokens: int, strong: int, weak: int, thresholds: LinterThresholds) -> str:
    """The linter's class from its counts, by the same rule as `routescope.linter.lint`."""
    t = thresholds
    total = strong + weak
    if tokens >= t.guided_min_tokens and (
        strong >= t.guided_min_strong or total >= t.guided_min_total_anchors
    ):
        return "guided"
    if tokens < t.vague_below_tokens or total == 0:
        return "vague"
    return "semi"


def _linter_calls(inspection: Inspection, t: LinterThresholds) -> list[CloseCall]:
    """Move each count one step either way; where the class changes, the call was close. A
    count of anchors at zero is not moved up: a prompt with no anchor (most prose) is not one
    anchor away from anything worth a warning."""
    counts = inspection.lint.classification
    tokens, strong, weak = counts.tokens, counts.strong, counts.weak
    now = linter_class(tokens, strong, weak, t)
    calls: list[CloseCall] = []
    seen: set[tuple[str, str]] = set()
    probes = (
        ("tokens", tokens, (tokens + 1, strong, weak), (tokens - 1, strong, weak)),
        ("strong anchors", strong, (tokens, strong + 1, weak), (tokens, strong - 1, weak)),
        ("total anchors", strong + weak, (tokens, strong, weak + 1), (tokens, strong, weak - 1)),
    )
    for measure, value, more, fewer in probes:
        for step, probe in (("one more", more), ("one fewer", fewer)):
            if min(probe) < 0:
                continue
            if step == "one more" and measure != "tokens" and value == 0:
                continue  # no anchor at all is far from any anchor threshold, not close
            other = linter_class(*probe, t)
            if other == now:
                continue
            against, threshold = _linter_threshold(measure, now, other, t)
            if (measure, against) in seen:
                continue
            seen.add((measure, against))
            margin = value - threshold
            calls.append(
                CloseCall(
                    decision="lint.query_class",
                    outcome=now,
                    measure=measure,
                    value=value,
                    against=against,
                    threshold=threshold,
                    margin=margin,
                    flips_to=other,
                    detail=f"{now}: {measure} {value} against {against} {threshold} "
                    f"(margin {margin:+d}); {step} → {other}",
                )
            )
    return calls


def _linter_threshold(measure: str, now: str, other: str, t: LinterThresholds) -> tuple[str, int]:
    """The threshold a count crosses between two classes."""
    guided = "guided" in (now, other)
    if measure == "tokens":
        if guided:
            return "guided_min_tokens", t.guided_min_tokens
        return "vague_below_tokens", t.vague_below_tokens
    if guided:
        if measure == "strong anchors":
            return "guided_min_strong", t.guided_min_strong
        return "guided_min_total_anchors", t.guided_min_total_anchors
    return "at least one anchor", 1


def _strategy_calls(inspection: Inspection) -> list[CloseCall]:
    """Local and tech (or troubleshooting) both matched: local won by precedence alone."""
    flags = inspection.context.intent
    if inspection.strategy != "local" or not (flags.tech or flags.troubleshooting):
        return []
    counts = inspection.context.intent_match_counts
    loser: IntentName = "tech" if flags.tech else "troubleshooting"
    value, threshold = counts.get("local", 0), counts.get(loser, 0)
    return [
        CloseCall(
            decision="strategy",
            outcome="local",
            measure="local keyword matches",
            value=value,
            against=f"{loser} keyword matches",
            threshold=threshold,
            margin=value - threshold,
            flips_to="tech",
            detail=f"local ({value} match(es)) and {loser} ({threshold}) both matched: local "
            "wins by precedence (local, then tech, then general), not by count",
        )
    ]


def _tool_calls(result: ToolSearchResult, fit_margin: float, tool_margin: float) -> list[CloseCall]:
    calls: list[CloseCall] = []
    hits = result.results
    if not hits:
        return calls
    best = hits[0]
    # the runner-up of the whole request's own ranking: the steps' best tools merged after the
    # best one carry their steps' scores, no rival for the top place (issue 28)
    ranked = result.whole_request or [(hit.tool_name, hit.score) for hit in hits]
    top_name, top_score = ranked[0]
    threshold = result.fit_threshold
    # above the threshold yet no fit: the corroboration decided (issue 28), not the score
    uncorroborated = not result.fits and top_score >= threshold
    if threshold > 0 and not uncorroborated:
        margin = top_score - threshold
        if abs(margin) <= fit_margin * threshold:
            outcome, other = ("fits", "no tool fits") if result.fits else ("no tool fits", "fits")
            calls.append(
                CloseCall(
                    decision="tools.fits",
                    outcome=outcome,
                    measure=f"best score ({top_name})",
                    value=top_score,
                    against="fit_threshold",
                    threshold=threshold,
                    margin=margin,
                    flips_to=other,
                    detail=f"{outcome}: best score {top_score:.4f} against fit threshold "
                    f"{threshold:.4f} (margin {margin:+.4f}, within {fit_margin:.0%})",
                )
            )
    if best.step is not None and best.tool_name != top_name and best.step <= len(result.steps):
        # a step's best leads (a request of several needs): its step's score against the whole
        # request's best decided the top place
        own = result.steps[best.step - 1].results
        value, measure = (own[0].score if own else best.score), f"step {best.step}'s best score"
        rival, rival_score, against = top_name, top_score, f"the whole request's best {top_name}"
        said = f" (step {best.step}'s best)"
    elif len(ranked) > 1:
        value, measure, said = best.score, "score", ""
        rival, rival_score = ranked[1]
        against = f"runner-up {rival}"
    else:
        return calls
    gap = value - rival_score
    tied = rival in best.tied_with
    if tied or gap <= tool_margin * abs(value):
        how = "tied" if tied else f"within {tool_margin:.0%}"
        calls.append(
            CloseCall(
                decision="tools.top",
                outcome=best.tool_name,
                measure=measure,
                value=value,
                against=against,
                threshold=rival_score,
                margin=gap,
                flips_to=rival,
                detail=f"{best.tool_name} {value:.4f}{said} over {rival} {rival_score:.4f} "
                f"(margin {gap:+.4f}, {how})",
            )
        )
    return calls
