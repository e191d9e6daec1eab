"""The "no tool fits" verdict's model (issue 28, `routescope.toolsearch._fit_model`): the
request part (does the request ask for a tool at all) and the best match's part on one
logistic scale, read from the shipped file once, explained in the verdict; it only refuses
what the score threshold (the analyst's slider) and the corroboration accept; a request's
steps are judged by the rule alone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from routescope import resources_root
from routescope._json import to_json
from routescope.toolsearch import (
    CALIBRATED_FIT_THRESHOLDS,
    SearchSettings,
    ToolSearch,
    load_catalog,
)
from routescope.toolsearch._embed import default_model_id
from routescope.toolsearch._fit_model import (
    FIT_FEATURES,
    FIT_MODEL_FILE,
    FitModel,
    load_fit_model,
    parse_fit_model,
)

SAMPLE = Path(str(resources_root() / "catalog"))


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> ToolSearch:
    return ToolSearch(load_catalog(SAMPLE), cache=tmp_path_factory.mktemp("cache"))


def shipped() -> FitModel:
    model = load_fit_model()
    assert not isinstance(model, str), model
    return model


def test_the_shipped_model_reads_the_shipped_embedding_model() -> None:
    model = shipped()
    assert model.model_id == default_model_id()
    assert model.request_weights.shape == (384,) and 0 < model.threshold < 1
    assert load_fit_model() is load_fit_model()  # read once
    data = json.loads(resources_root().joinpath(*FIT_MODEL_FILE).read_text(encoding="utf-8"))
    assert tuple(data["features"]) == FIT_FEATURES


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.pop("threshold"), "missing or malformed field"),
        (lambda d: d.update(threshold=1.5), "threshold must be between 0 and 1"),
        (lambda d: d["catalog"].update(scales=[0.0] * len(FIT_FEATURES)), "positive"),
        (lambda d: d["catalog"].update(weights=[1.0]), "expected 8 numbers"),
        (lambda d: d.update(features=["score"]), "features: expected"),
        (lambda d: d["request"].update(bias=float("nan")), "bias: not a finite number"),
    ],
)
def test_a_malformed_model_file_is_refused_in_one_line(change, said) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(resources_root().joinpath(*FIT_MODEL_FILE).read_text(encoding="utf-8"))
    change(data)
    with pytest.raises(ValueError, match=said) as caught:
        parse_fit_model(json.dumps(data))
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="not JSON"):
        parse_fit_model("{")


def test_a_request_for_no_tool_is_refused_and_says_which_part_decided(sample: ToolSearch) -> None:
    result = sample.search("Write a short poem about autumn leaves falling in the park")
    assert not result.fits
    assert (
        result.fit_model["need"] < 0.5
        and result.fit_model["probability"] < (result.fit_model["threshold"])
    )
    assert result.fit_reason.startswith("no tool fits: ")
    assert (
        "the request asks for no tool: " in result.fit_reason and "decided by" in result.fit_reason
    )
    assert "the request asks for no tool (" in result.fit_corroboration
    assert result.fit_corroboration.startswith("vector share 0.") and "; fit model " in (
        result.fit_corroboration
    )
    assert ", corroborated by vector share" in result.fit_reason
    assert set(result.fit_model["inputs"]) == set(FIT_FEATURES)
    parts = result.fit_model["contributions"]
    model = shipped()
    total = result.fit_model["request"] + result.fit_model["match"]
    assert total == pytest.approx(
        model.bias + sum(parts.values()) + result.fit_model["request"], abs=1e-9
    )
    assert json.loads(to_json(result))["fit_model"]["decided_by"] in (
        "both",
        "the request",
        "this catalog's best match",
    )


def test_a_request_a_tool_serves_fits_with_its_parts_said(sample: ToolSearch) -> None:
    result = sample.search("show me the git log of the last ten commits")
    assert result.fits and result.results[0].tool_name == "git.log"
    assert result.fit_model["probability"] >= result.fit_model["threshold"]
    assert result.fit_model["need"] >= 0.5
    assert result.fit_threshold == CALIBRATED_FIT_THRESHOLDS["weighted"]
    assert f"calibrated fit threshold {result.fit_threshold:.3f}, corroborated by " in (
        result.fit_reason
    )
    assert "; fit model " in result.fit_reason
    assert "the request asks for a tool" in result.fit_corroboration


def test_the_analysts_threshold_stays_a_floor_and_off_stays_off(sample: ToolSearch) -> None:
    query = "show me the git log of the last ten commits"
    best = sample.search(query).results[0].score
    above = sample.search(query, SearchSettings(fit_threshold=round(best + 0.01, 3)))
    assert not above.fits and "< fit threshold" in above.fit_reason
    below = sample.search(query, SearchSettings(fit_threshold=0.05))
    assert below.fits and "fit model" in below.fit_reason  # the model still judges
    off = sample.search("Write a short poem about autumn", SearchSettings(fit_threshold=0))
    assert off.fits and off.fit_reason.endswith("fit threshold off")


def test_steps_and_searches_without_vectors_are_judged_by_the_rule_alone(
    sample: ToolSearch,
) -> None:
    result = sample.search("find the config file, then email it to Bob")
    assert result.steps and result.fit_model
    for step in result.steps:
        assert "fit model" not in step.fit_reason
    keyword = sample.search("show me the git log", SearchSettings(strategy="exact"))
    assert (
        keyword.fit_model == {} and keyword.fit_threshold == CALIBRATED_FIT_THRESHOLDS["weighted"]
    )
    assert "fit model" not in keyword.fit_reason
    canonical = sample.search("show me the git log", SearchSettings(fusion="canonical"))
    assert canonical.fit_model == {} and "fit model" not in canonical.fit_reason


def test_which_part_decided() -> None:
    model = FitModel(
        model_id="m",
        request_weights=np.ones(2),
        request_bias=0.0,
        request_weight=1.0,
        means=np.zeros(len(FIT_FEATURES)),
        scales=np.ones(len(FIT_FEATURES)),
        weights=np.eye(len(FIT_FEATURES))[0],
        bias=0.0,
        threshold=0.5,
    )
    inputs = dict.fromkeys(FIT_FEATURES, 0.0)
    wants = np.asarray([1.5, 0.0])
    no_tool = np.asarray([-1.5, 0.0])
    strong = model.judge(wants, {**inputs, "score": 2.0})
    assert strong.fits and strong.decided_by == "both"
    weak_match = model.judge(wants, {**inputs, "score": -1.0})
    assert weak_match.fits and weak_match.decided_by == "the request"
    refused = model.judge(no_tool, {**inputs, "score": 1.0})
    assert not refused.fits and refused.decided_by == "the request"
    by_match = model.judge(wants, {**inputs, "score": -2.0})
    assert not by_match.fits and by_match.decided_by == "this catalog's best match"
    assert "fit model 0.38 < 0.50 (decided by this catalog's best match)" in by_match.said()


def test_the_writer_fits_a_model_the_engine_reads_and_the_same_rows_give_the_same_file() -> None:
    """`tests/eval/write_fit_model.py` on synthetic rows: what it writes parses, twice alike."""
    from tests.eval import write_fit_model as writer

    rng = np.random.default_rng(7)
    rows = writer.Rows()
    for n in range(240):
        impossible = n % 3 == 0
        rows.catalog.append("a" if n % 2 else "b")
        rows.ids.append(f"q{n}")
        rows.source.append(writer.NO_TOOL if impossible else "other")
        rows.impossible.append(impossible)
        vector = rng.standard_normal(384) + (0.5 if impossible else 0.0)
        rows.vectors.append(vector / np.linalg.norm(vector))
        score = rng.uniform(0.1, 0.4) + (0.0 if impossible else 0.2)
        rows.inputs.append([score, *rng.uniform(0, 1, len(FIT_FEATURES) - 1)])
        rows.rule.append(score >= 0.2)
    first, report = writer.fit(rows)
    second, _ = writer.fit(rows)
    assert json.dumps(first) == json.dumps(second) and "threshold" in report
    model = parse_fit_model(json.dumps(first))
    assert model.request_weights.shape == (384,) and 0 < model.threshold < 1
