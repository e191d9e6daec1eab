"""The built-in `refined` pack: by name everywhere a pack is taken, the seed's examples intact,
better than the seed pack on the public set's held-out part (which never chose an edit)."""

from __future__ import annotations

from routescope import RulesRef, resources_root
from routescope.judge import read_labelled, score_set
from tests._support import routescope_cli

FIXTURES = resources_root() / "fixtures"
PUBLIC = resources_root() / "labelled" / "public" / "public.jsonl"


def test_refined_is_a_built_in_pack_by_name() -> None:
    assert RulesRef.named("refined").load().name == "refined"
    done = routescope_cli("inspect", "--rules", "refined", "hair stylist in fremont ca")
    assert done.returncode == 0 and "strategy  LOCAL" in done.stdout
    unknown = routescope_cli("inspect", "--rules", "refind", "x")
    assert unknown.returncode == 2 and unknown.stderr.count("\n") == 1


def test_refined_keeps_every_seed_example_and_built_in_strategy_case() -> None:
    refined = RulesRef.named("refined").load()
    card = score_set(read_labelled(str(FIXTURES / "strategy.yaml")), refined).whole
    assert card.strategy.accuracy == 1.0 and not card.misses


def test_refined_beats_the_seed_pack_on_the_held_out_part() -> None:
    held = [c for c in read_labelled(str(PUBLIC)) if c.part == "heldout"]
    seed = score_set(held, RulesRef.builtin().load()).whole
    refined = score_set(held, RulesRef.named("refined").load()).whole
    assert (refined.macro_f1 or 0) > (seed.macro_f1 or 0) + 0.2
    assert (refined.strategy.accuracy or 0) > (seed.strategy.accuracy or 0) + 0.1


def test_refined_meets_the_place_target_and_gains_on_every_flag_held_out() -> None:
    from routescope.rules import INTENTS

    held = [c for c in read_labelled(str(PUBLIC)) if c.part == "heldout"]
    seed = score_set(held, RulesRef.builtin().load()).whole
    refined = score_set(held, RulesRef.named("refined").load()).whole
    assert (refined.place.accuracy or 0) >= 0.6
    for name in INTENTS:
        assert (refined.flags[name].f1 or 0) > (seed.flags[name].f1 or 0) + 0.15, name
