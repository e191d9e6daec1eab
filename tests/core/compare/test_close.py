"""Close calls: decisions near a threshold or a runner-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

import routescope
from routescope import Request, RulesRef
from routescope._json import to_json
from routescope.compare import CloseCall, close_calls
from routescope.compare._close import linter_class
from routescope.toolsearch import SearchSettings, ToolSearch, load_catalog
from tests._support import TODAY, run

from ._prompts import texts


def calls(text: str) -> dict[tuple[str, str], CloseCall]:
    return {(c.decision, c.measure): c for c in close_calls(run(text))}


@given(texts)
def test_the_linter_rule_is_mirrored(text: str) -> None:
    lint = run(text).lint
    counts = lint.classification
    thresholds = routescope.default_rules().linter.thresholds
    assert linter_class(counts.tokens, counts.strong, counts.weak, thresholds) == lint.query_class


def test_guided_by_exactly_the_token_threshold() -> None:
    found = calls("fix the readme.md file now")
    tokens = found[("lint.query_class", "tokens")]
    assert (tokens.outcome, tokens.value, tokens.against, tokens.threshold) == (
        "guided",
        5,
        "guided_min_tokens",
        5,
    )
    assert tokens.margin == 0 and tokens.flips_to == "semi"
    strong = found[("lint.query_class", "strong anchors")]
    assert (strong.against, strong.margin, strong.flips_to) == ("guided_min_strong", 0, "vague")


def test_one_token_short_of_guided() -> None:
    found = calls("fix the readme.md now")
    tokens = found[("lint.query_class", "tokens")]
    assert (tokens.outcome, tokens.value, tokens.margin, tokens.flips_to) == (
        "semi",
        4,
        -1,
        "guided",
    )


def test_prose_without_anchors_is_not_close() -> None:
    assert close_calls(run("Best ramen near Denver, Colorado open tonight")) == []


def test_local_wins_over_tech_by_precedence() -> None:
    (call,) = close_calls(run("install a car seat near me"))
    assert (call.decision, call.outcome, call.flips_to, call.margin) == (
        "strategy",
        "local",
        "tech",
        0,
    )


def test_thresholds_come_from_the_pack() -> None:
    text = routescope.resources_root().joinpath("rules", "default.toml").read_text("utf-8")
    text = text.replace("guided_min_tokens = 5", "guided_min_tokens = 4").replace(
        'name = "default"', 'name = "four"'
    )
    pack = RulesRef.from_text(text, "four.toml").load()
    found = routescope.inspect("fix the readme.md now", today=TODAY, rules=pack)
    tokens = next(c for c in close_calls(found, pack) if c.measure == "tokens")
    assert (tokens.outcome, tokens.threshold, tokens.margin) == ("guided", 4, 0)
    with pytest.raises(routescope.InputError, match="rule pack 'four'"):
        close_calls(found)


def test_fit_threshold_and_runner_up(tmp_path: Path) -> None:
    engine = ToolSearch(
        load_catalog(routescope.resources_root() / "catalog"), cache=tmp_path, semantic=False
    )
    request = Request.build("show the git log", today=TODAY)
    plain = routescope.inspect(request, tools=engine)
    assert plain.tools is not None
    best, second = plain.tools.results[0], plain.tools.results[1]
    assert not [c for c in close_calls(plain) if c.decision.startswith("tools")]
    near = request.replace(search=SearchSettings(fit_threshold=round(best.score + 0.01, 3)))
    found = routescope.inspect(near, tools=engine)
    (fit,) = [c for c in close_calls(found) if c.decision == "tools.fits"]
    assert fit.outcome == "no tool fits" and fit.flips_to == "fits" and fit.margin < 0
    assert fit.value == best.score
    (top,) = [c for c in close_calls(plain, tool_margin=0.5) if c.decision == "tools.top"]
    assert (top.outcome, top.flips_to, top.threshold) == ("git.log", second.tool_name, second.score)
    assert top.margin == pytest.approx(best.score - second.score)
    assert '"margin"' in to_json(close_calls(found), list[CloseCall])


def test_the_runner_up_is_the_whole_requests_not_a_steps_best(tmp_path: Path) -> None:
    """Issue 28: a step's best tool merged right after the top one carries its step's score;
    the top tool's rival is the whole request's own second (no negative margin)."""
    engine = ToolSearch(
        load_catalog(routescope.resources_root() / "catalog"), cache=tmp_path, semantic=False
    )
    text = "find the config file, then email it to Bob and show the git log"
    found = routescope.inspect(Request.build(text, today=TODAY), tools=engine)
    assert found.tools is not None and found.tools.whole_request
    assert any(hit.step for hit in found.tools.results)
    (top,) = [c for c in close_calls(found, tool_margin=10.0) if c.decision == "tools.top"]
    second, score = found.tools.whole_request[1]
    assert (top.flips_to, top.threshold) == (second, score) and top.margin >= 0


def test_a_fit_the_corroboration_refused_is_no_close_call_of_the_threshold(tmp_path: Path) -> None:
    """Issue 28: above the threshold but not corroborated, moving the threshold flips nothing."""
    engine = ToolSearch(
        load_catalog(routescope.resources_root() / "catalog"), cache=tmp_path, semantic=False
    )
    request = Request.build("call me a taxi", today=TODAY)
    plain = routescope.inspect(request, tools=engine)
    assert plain.tools is not None and plain.tools.results
    best = plain.tools.results[0].score
    near = request.replace(search=SearchSettings(strategy="exact", fit_threshold=best - 0.001))
    found = routescope.inspect(near, tools=engine)
    assert found.tools is not None and not found.tools.fits
    assert "not corroborated" in found.tools.fit_reason
    assert not [c for c in close_calls(found) if c.decision == "tools.fits"]


def test_a_step_that_leads_is_weighed_against_the_whole_requests_best() -> None:
    """Issue 28: a request of several needs led by a step's best — the close call of the top
    place is that step's score against the whole request's best, which it would flip to; the
    fit is still the whole request's best against the threshold."""
    from routescope.compare._close import _tool_calls
    from routescope.toolsearch import Signals, Step, StepResult, ToolHit, ToolSearchResult
    from routescope.toolsearch._steps import merge_step_tools

    def hits(*scored: tuple[str, float]) -> list[ToolHit]:
        blank = Signals(None, None, [], 0.0, {}, [], 0.0)
        return [ToolHit(r, n, "misc", s, blank) for r, (n, s) in enumerate(scored, start=1)]

    whole = hits(("travel_insurance", 0.500), ("flights", 0.45))
    steps = [
        StepResult(Step(text, 0, 1, "", None), hits((best, score)), True, "")
        for text, best, score in (
            ("book a flight", "flights", 0.510),
            ("find a hotel", "hotels", 0.40),
            ("check the weather", "weather", 0.30),
        )
    ]
    merged, how = merge_step_tools(whole, steps, 5, multi_need=True)
    result = ToolSearchResult(
        "book a flight, find a hotel and check the weather",
        "hybrid",
        "",
        None,
        "",
        merged,
        0.05,
        "ready",
        {},
        fusion="weighted",
        fits=True,
        fit_threshold=0.49,
        steps=steps,
        whole_request=[(h.tool_name, h.score) for h in whole],
        merge=how,
    )
    found = {c.decision: c for c in _tool_calls(result, fit_margin=0.05, tool_margin=0.05)}
    top = found["tools.top"]
    assert (top.outcome, top.flips_to, top.value, top.threshold) == (
        "flights",
        "travel_insurance",
        0.510,
        0.500,
    )
    assert top.margin == pytest.approx(0.010) and "step 1's best" in top.detail
    fit = found["tools.fits"]
    assert (fit.value, fit.measure) == (0.500, "best score (travel_insurance)")
