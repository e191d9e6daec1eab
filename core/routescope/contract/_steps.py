"""`prepare_step`: the next tool call of a plan, or why to stop."""

from __future__ import annotations

from ..rules import RulePack, default_rules
from ._models import CallResult, PlanProgress, RouterDecision

__all__ = ["prepare_step"]


def prepare_step(
    decision: RouterDecision, results: list[CallResult], *, rules: RulePack | None = None
) -> PlanProgress:
    """The next tool call of a plan, or why to stop: strict order, stop conditions, aborts.
    `rules` says which tools list yields (default: the built-in pack)."""
    plan = decision.tool_plan
    for index, result in enumerate(results):
        if index >= len(plan) or result.tool != plan[index].tool:
            expected = plan[index].tool if index < len(plan) else "nothing"
            return _stop(f"out of order: step {index + 1} ran {result.tool}, plan says {expected}")
        if not result.ok:
            return _stop(f"step {index + 1} ({result.tool}) failed: stop")
    done = len(results)
    if decision.stop_condition == "none":
        return _stop("stop condition: none")
    if decision.stop_condition == "when_first_yields_result_received":
        contract = (rules or default_rules()).contract
        if any(contract.is_yield_tool(r.tool) for r in results):
            return _stop("stop condition: first yields result received")
    if decision.abort_after is not None and done > decision.abort_after:
        return _stop(f"abort: {plan[decision.abort_after].tool} repeats without new args")
    if done >= len(plan):
        return _stop("tool plan complete")
    return PlanProgress(
        next=plan[done], index=done, done=False, reason=f"step {done + 1} of {len(plan)}"
    )


def _stop(reason: str) -> PlanProgress:
    """The step that says to stop, and why."""
    return PlanProgress(next=None, index=None, done=True, reason=reason)
