"""The learned entity scorer (`[entities] model`, on in `refined` and `refined-semantic`): each
candidate gets a probability from a logistic model trained on the public set's tuning part;
those below the threshold are dropped, and both carry their score as evidence."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

import routescope
from routescope import RulesRef, resources_root
from routescope._errors import RulePackError
from routescope.rules import builtin_rules_text, parse_rules
from routescope.strategy import _entity_model
from routescope.strategy._entity_model import ENTITY_FEATURES, entity_model
from tests._support import routescope_cli

TODAY = dt.date(2026, 11, 27)
MODEL = resources_root() / "labelled" / "models" / "public-tune-entities.json"
PROMPT = "Find me a Horror movie with Arthur Lowe in it in Fremont, CA"


def _entities(text: str, pack: routescope.rules.RulePack) -> routescope.strategy.Entities:
    return routescope.inspect(text, today=TODAY, rules=pack).context.entities


def _without_model() -> routescope.rules.RulePack:
    text = builtin_rules_text("refined").replace('model = "public-tune-entities"', "")
    return parse_rules(text, "refined.toml")


def test_only_the_refined_packs_score_entities() -> None:
    assert RulesRef.builtin().load().entities.model is None
    for name in ("refined", "refined-semantic"):
        assert RulesRef.named(name).load().entities.model == "public-tune-entities"


def test_the_model_loads_and_the_same_prompt_gets_the_same_scores() -> None:
    model = entity_model("public-tune-entities")
    assert 0 < model.threshold < 1 and len(model.weights) == len(ENTITY_FEATURES)
    refined = RulesRef.named("refined").load()
    first, second = _entities(PROMPT, refined), _entities(PROMPT, refined)
    assert first == second
    assert all(0 < d.score <= 1 for d in first.details)


def test_the_shipped_weights_are_what_the_script_writes() -> None:
    """Trained on the tuning part only, deterministically (Newton's method from zero)."""
    from routescope.judge import read_labelled
    from routescope.rules import RulePack
    from tests.eval import write_entity_model as script

    shipped = json.loads(MODEL.read_text(encoding="utf-8"))
    cases = [
        c for c in read_labelled(script.SET) if c.part == "tune" and c.labels.entities is not None
    ]
    refined: RulePack = parse_rules(builtin_rules_text("refined"), "refined.toml")
    rows = script.candidate_rows(cases, refined)
    scale = script.Standardised(rows.features)
    weights, bias = script.fit_logistic(scale(rows.features), rows.named, shipped["penalty"])
    assert weights.tolist() == pytest.approx(shipped["weights"], abs=1e-4)
    assert bias == pytest.approx(shipped["bias"], abs=1e-4)


def test_a_known_prompt_flips_and_every_candidate_says_its_score() -> None:
    plain = _entities(PROMPT, _without_model())
    assert {"Horror", "Arthur Lowe"} <= set(plain.candidates)
    learned = _entities(PROMPT, RulesRef.named("refined").load())
    assert "Horror" not in learned.candidates
    assert learned.candidates == ["Fremont"]
    assert all("learned score" in d.reason and "≥" in d.reason for d in learned.details)
    horror = next(note for note in learned.dropped if note.startswith("'Horror'"))
    assert "learned score" in horror and "<" in horror


def test_the_cli_lists_what_the_model_dropped() -> None:
    done = routescope_cli("inspect", "--rules", "refined", PROMPT)
    assert done.returncode == 0, done.stderr
    assert "entities  Fremont (word 0.9" in done.stdout
    assert "dropped: 'Horror' @10: capitalized word, learned score" in done.stdout


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda m: "{not json", "cannot be read"),
        (lambda m: {**m, "features": m["features"][:-1]}, "trained on other features"),
        (lambda m: {**m, "weights": [*m["weights"][:-1], float("nan")]}, "do not fit"),
        (lambda m: {**m, "threshold": 1.5}, "out of range"),
        (lambda m: {k: v for k, v in m.items() if k != "bias"}, "cannot be read"),
    ],
)
def test_a_bad_weight_file_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: object, said: str
) -> None:
    folder = tmp_path / "labelled" / "models"
    folder.mkdir(parents=True)
    changed = change(json.loads(MODEL.read_text(encoding="utf-8")))  # type: ignore[operator]
    text = changed if isinstance(changed, str) else json.dumps(changed)
    (folder / "bad.json").write_text(text, encoding="utf-8")
    monkeypatch.setattr(_entity_model, "resources_root", lambda: tmp_path)
    entity_model.cache_clear()
    try:
        with pytest.raises(RulePackError, match=said) as caught:
            entity_model("bad")
    finally:
        entity_model.cache_clear()
    assert "\n" not in str(caught.value) and "entity model 'bad'" in str(caught.value)


def test_a_pack_naming_a_missing_model_exits_with_one_line(tmp_path: Path) -> None:
    text = builtin_rules_text("refined").replace(
        'model = "public-tune-entities"', 'model = "nowhere"'
    )
    pack = tmp_path / "pack.toml"
    pack.write_text(text, encoding="utf-8")
    done = routescope_cli("inspect", "--rules", str(pack), PROMPT)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "entity model 'nowhere' cannot be read" in done.stderr
