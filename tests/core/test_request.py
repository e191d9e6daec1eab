"""`Request`: the named input — frozen, picklable, built in one place, with a fingerprint."""

import dataclasses
import datetime as dt
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import routescope
from routescope import CatalogRef, ContextError, Request, RulePackError, RulesRef
from routescope.toolsearch import SearchSettings, load_catalog
from tests._support import TODAY

DEFAULT_PACK = Path(str(routescope.resources_root() / "rules" / "default.toml"))
SAMPLE = Path(str(routescope.resources_root() / "catalog"))
CONTEXT = {"last_action": {"tool": "lend_execute", "args": {"amount": 100}, "status": "failed"}}


def test_build_fills_the_defaults_in_one_place() -> None:
    request = Request.build("Best ramen near Denver")
    assert request.today == dt.date.today()
    assert request.rules == RulesRef.builtin() and request.rules.is_builtin
    assert request.context is None and request.catalog is None
    assert request.search == SearchSettings()


def test_a_request_is_frozen_and_picklable() -> None:
    request = Request.build("try again", today=TODAY, context=CONTEXT, catalog=SAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.text = "other"  # type: ignore[misc]
    copy = pickle.loads(pickle.dumps(request))
    assert copy == request
    assert copy.fingerprint() == request.fingerprint()


def test_a_request_is_frozen_all_the_way_down() -> None:
    boosts = {"tool_name": 2.0}
    request = Request.build(
        "try again",
        today=TODAY,
        context={"last_yield": {"tool": "t", "args": {"a": [1, {"b": 2}]}, "poolSummary": [{}]}},
        search=SearchSettings(k=5, boosts=boosts),
    )
    boosts["tool_name"] = 9.0  # the caller's dict is not the settings' mapping
    assert request.search.boosts == {"tool_name": 2.0}
    assert hash(request) == hash(pickle.loads(pickle.dumps(request)))
    assert {request: 1}[request.replace()] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.search.k = 3  # type: ignore[misc]
    assert request.context is not None and request.context.last_yield is not None
    args = request.context.last_yield.args
    with pytest.raises(TypeError, match="frozen"):
        args["a"] = 1
    with pytest.raises(TypeError, match="frozen"):
        args["a"][1]["b"] = 3
    with pytest.raises(AttributeError):
        args["a"].append(3)
    with pytest.raises(ValueError, match="frozen"):
        request.context.last_yield.tool = "other"
    assert request.context.model_dump(mode="json")["last_yield"]["args"] == {"a": [1, {"b": 2}]}


def test_the_fingerprint_is_stable_across_processes() -> None:
    code = (
        "import datetime, routescope;"
        "r = routescope.Request.build('try again', today=datetime.date(2026, 2, 5));"
        "print(r.fingerprint())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == Request.build("try again", today=TODAY).fingerprint()


def test_the_fingerprint_changes_with_every_input(tmp_path: Path) -> None:
    base = Request.build("try again", today=TODAY)
    pack = tmp_path / "pack.toml"
    pack.write_text(DEFAULT_PACK.read_text().replace("cheapest", "most affordable"))
    changed = [
        base.replace(text="retry"),
        base.replace(today=TODAY + dt.timedelta(days=1)),
        base.replace(rules=RulesRef.from_path(pack)),
        base.replace(context=routescope.contract.parse_context(CONTEXT)),
        base.replace(catalog=CatalogRef.from_path(SAMPLE)),
        base.replace(catalog=CatalogRef.from_path(SAMPLE, model="another-model")),
        base.replace(search=SearchSettings(rrf_k=30)),
    ]
    prints = {request.fingerprint() for request in [base, *changed]}
    assert len(prints) == len(changed) + 1


def test_the_same_pack_text_from_another_file_is_the_same_input(tmp_path: Path) -> None:
    copy = tmp_path / "copy.toml"
    copy.write_text(DEFAULT_PACK.read_text())
    here = Request.build("retry", today=TODAY, rules=copy)
    assert here.rules.source == str(copy) and not here.rules.is_builtin
    assert here.fingerprint() == Request.build("retry", today=TODAY).fingerprint()


def test_inspect_of_a_request_equals_inspect_of_its_parts() -> None:
    request = Request.build("try again", today=TODAY, context=CONTEXT)
    by_request = routescope.inspect(request).model_dump(exclude={"timings_us"})
    by_parts = routescope.inspect(
        "try again", today=TODAY, rules=routescope.default_rules(), context=request.context
    ).model_dump(exclude={"timings_us"})
    assert by_request == by_parts
    with pytest.raises(TypeError, match="come from the request"):
        routescope.inspect(request, today=TODAY)


def test_paths_are_read_and_validated_when_the_request_is_built(tmp_path: Path) -> None:
    context = tmp_path / "context.json"
    context.write_text('{"last_action": {"tool": "swap_execute"}}')
    assert Request.build("x", context=context).context.last_action.tool == "swap_execute"  # type: ignore[union-attr]
    context.write_text('{"last_action": {"status": "ok"}}')
    with pytest.raises(ContextError, match=r"context\.json: invalid context: last_action\.tool"):
        Request.build("x", context=context)
    pack = tmp_path / "bad.toml"
    pack.write_text('name = "bad"\n')
    with pytest.raises(RulePackError, match=r"bad\.toml"):
        Request.build("x", rules=pack)
    with pytest.raises(routescope.CatalogError, match="no such catalog"):
        Request.build("x", catalog=tmp_path / "nothing")


def test_a_catalog_is_named_by_its_tools() -> None:
    ref = CatalogRef.from_path(SAMPLE)
    assert ref.digest == load_catalog(SAMPLE).fingerprint
    assert ref.path == str(SAMPLE.resolve())
    assert ref.model == routescope.toolsearch.default_model_id()


def test_the_sample_catalog_has_one_path(tmp_path: Path) -> None:
    assert CatalogRef.sample_path() == SAMPLE
    sample = CatalogRef.sample()
    assert sample == CatalogRef.from_path(SAMPLE) and sample.is_sample
    linked = tmp_path / "linked"
    linked.symlink_to(SAMPLE, target_is_directory=True)
    assert CatalogRef(str(linked), sample.digest, sample.model).is_sample  # wherever it is
    copy = tmp_path / "tools.json"
    copy.write_text('[{"tool_name": "git.status"}]', encoding="utf-8")
    assert not CatalogRef.from_path(copy).is_sample
