"""Two routers side by side (`said_by`, `agreement_over`): the examples' routers file — a
semantic-router file (`support`) and a Python function (`keywords`) — and the built-in
strategy, on one prompt and over the examples' labelled set (docs/routers.md's figures)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from routescope.compare import BUILTIN_ROUTERS, Pick, agreement_over, said_by
from routescope.external import RouterPool, load_routers
from routescope.rules import default_rules

pytestmark = pytest.mark.timeout(120)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "routers"
TODAY = dt.date(2026, 1, 15)


@pytest.fixture
def pool() -> Iterator[RouterPool]:
    pool = RouterPool(load_routers(EXAMPLES / "routers.toml"))
    yield pool
    pool.close()


def test_a_pick_reads_back_from_its_key() -> None:
    assert BUILTIN_ROUTERS[0][0] == "strategy"
    for pick in (Pick("builtin", "strategy"), Pick("external", "keywords")):
        assert Pick.of(pick.key) == pick
    assert Pick("builtin", "lint_class").label == "linter class (built-in)"
    assert Pick("external", "keywords").label == "keywords (external)"


def test_each_router_says_its_route_on_a_prompt(
    pool: RouterPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = default_rules()
    text = "I was charged twice, refund please"
    keywords = said_by(Pick("external", "keywords"), text, TODAY, pack, None, pool)
    assert keywords.route == "billing" and not keywords.failed
    strategy = said_by(Pick("builtin", "strategy"), text, TODAY, pack, None, pool)
    assert strategy.route and not strategy.failed
    # A router that cannot start, or no routers file: its result says why, never an exception.
    monkeypatch.delenv("ROUTELLM_API_KEY", raising=False)
    routellm = said_by(Pick("external", "routellm"), text, TODAY, pack, None, pool)
    assert routellm.route == "cannot start" and routellm.failed
    assert "ROUTELLM_API_KEY" in routellm.why
    no_file = said_by(Pick("external", "keywords"), text, TODAY, pack, None, None)
    assert no_file.failed and "open a routers file" in no_file.why


def test_a_labelled_set_through_both_routers(pool: RouterPool) -> None:
    a, b = Pick("external", "support"), Pick("external", "keywords")
    result = agreement_over(EXAMPLES / "labelled.jsonl", a, b, default_rules(), pool, TODAY)
    assert len(result.rows) == 13 and result.errors() == 0
    # docs/routers.md: the semantic router is right on 12 of 13, the keyword router on 10.
    assert result.right("a") == (12, 13) and result.right("b") == (10, 13)
    # A's route × B's route: every case in one cell, agreement on the diagonal.
    routes_a, routes_b = result.routes()
    cells = [result.cell(ra, rb) for ra in routes_a for rb in routes_b]
    assert sum(len(cell) for cell in cells) == 13
    diagonal = sum(len(result.cell(route, route)) for route in routes_a if route in routes_b)
    assert diagonal == result.agreed
    assert all(row.a.route == "billing" for row in result.cell("billing", "billing"))


def test_a_built_in_decision_against_an_external_router(pool: RouterPool) -> None:
    a, b = Pick("builtin", "strategy"), Pick("external", "keywords")
    result = agreement_over(EXAMPLES / "labelled.jsonl", a, b, default_rules(), pool, TODAY)
    assert len(result.rows) == 13
    assert result.right("a") == (0, 0)  # the set labels no strategy
    assert result.right("b") == (10, 13)
    assert all(row.expected_a is None for row in result.rows)
