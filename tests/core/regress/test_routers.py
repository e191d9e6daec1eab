"""Suites with external routers (`routescope.regress._routers`): a case expects what a router
decides (`routers.NAME…`, passing or failing like any expectation, its golden accepted by
`--update`) and labels the right route (`labels.routes`, measured as `routescope score`
measures it); each router is asked once a prompt; a suite that names a router its routers
file does not declare is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from routescope.regress import (
    SuiteError,
    SuiteRouters,
    load_suite,
    route_quality,
    run_suite,
    update_goldens,
)
from tests._support import routescope_cli
from tests.core.research._loopback import Reply, Request, json_reply, serving

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "routers"

SUITE = f"""\
suite: support
routers: {EXAMPLES / "routers.toml"}
cases:
  - id: refund
    prompt: I was charged twice, refund please
    expect:
      routers.support.route: billing
      routers.keywords.route: billing
      routers.keywords.signals[*].name: {{contains: refund}}
    labels:
      routes: {{support: billing, keywords: billing}}
  - id: hello
    prompt: hello there
    expect:
      routers.support.route: chitchat
      routers.keywords.route: chitchat   # a wrong golden: keywords has no greeting route
    labels:
      routes: {{support: chitchat, keywords: chitchat}}
  - id: strategy-too
    prompt: How do I export my data to CSV?
    expect:
      strategy: general
      routers.support.route: how_to
"""


def _write(folder: Path, text: str) -> Path:
    path = folder / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_expectations_on_external_routers_pass_fail_and_update(tmp_path: Path) -> None:
    path = _write(tmp_path, SUITE)
    suite = load_suite(path)
    with SuiteRouters(suite) as routers:
        result = run_suite(suite, routers=routers)
        cards = route_quality(suite, routers)
    verdicts = {case.id: case for case in result.cases}
    assert verdicts["refund"].passed and verdicts["strategy-too"].passed
    (diff,) = verdicts["hello"].diffs
    assert (diff.path, diff.expected, diff.actual) == ("routers.keywords.route", "chitchat", None)
    assert set(cards) == {"support", "keywords"}
    assert cards["support"].confusion.accuracy == 1.0
    assert cards["keywords"].confusion.cells[("chitchat", "(none)")] == ["hello"]
    assert update_goldens(suite, result) == 1
    text = path.read_text(encoding="utf-8")
    assert "routers.keywords.route: null   # a wrong golden" in text
    assert run_suite(load_suite(path)).failed == 0  # the routers started for the run alone


def test_each_router_is_asked_once_a_prompt(tmp_path: Path) -> None:
    def service(request: Request) -> Reply:
        prompt = request.json()["prompt"]
        if "slow" in prompt:
            return Reply(200, b'{"route": "late"}', delay_s=3.0)
        return json_reply({"route": "long" if len(prompt) > 12 else "short", "score": 0.5})

    with serving(service) as server:
        routers_file = tmp_path / "routers.toml"
        routers_file.write_text(
            f'[routers.svc]\nkind = "http"\nurl = "{server.url("/r")}"\ntimeout_s = 1\n'
            '[routers.svc.answer]\nroute = "route"\nscore = "score"\n'
        )
        path = _write(
            tmp_path,
            "suite: svc\nrouters: routers.toml\ncases:\n"
            "  - {id: a, prompt: a long prompt here, expect: {routers.svc.route: long,"
            " routers.svc.score: 0.5}, labels: {routes: {svc: long}}}\n"
            "  - {id: b, prompt: tiny, expect: {routers.svc.route: short},"
            " labels: {routes: {svc: long}}}\n"
            "  - {id: c, prompt: a slow one, expect: {routers.svc.error.kind: timeout}}\n",
        )
        suite = load_suite(path)
        with SuiteRouters(suite) as routers:
            result = run_suite(suite, routers=routers)
            cards = route_quality(suite, routers)
        assert server.hits("/r") == 3  # expectations and labels share the decisions
    assert result.failed == 0
    assert cards["svc"].confusion.cells == {("long", "long"): ["a"], ("long", "short"): ["b"]}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "suite: s\ncases:\n  - {id: a, prompt: hi, expect: {routers.x.route: y}}\n",
            "case a expects an external router's decision: name the routers file",
        ),
        (
            f"suite: s\nrouters: {EXAMPLES / 'routers.toml'}\ncases:\n"
            "  - {id: a, prompt: hi, expect: {routers.absent.route: y}}\n",
            "case a: no router 'absent'",
        ),
        (
            f"suite: s\nrouters: {EXAMPLES / 'routers.toml'}\ncases:\n"
            "  - {id: a, prompt: hi, labels: {routes: {nobody: y}}}\n",
            "case a: no router 'nobody'",
        ),
        (
            "suite: s\nrouters: missing.toml\ncases:\n"
            "  - {id: a, prompt: hi, expect: {routers.x.route: y}}\n",
            "routers: ",
        ),
    ],
    ids=["no-file", "unknown-router", "unknown-labelled", "missing-file"],
)
def test_a_suite_naming_a_router_it_cannot_run_is_one_line(
    tmp_path: Path, text: str, said: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    message = str(raised.value)
    assert said in message and str(path) in message and "\n" not in message


def test_regress_prints_the_routes_of_the_labelled_cases(tmp_path: Path) -> None:
    path = _write(tmp_path, SUITE)
    done = routescope_cli("regress", str(path), "--json")
    assert done.returncode == 1, done.stderr  # the wrong golden fails
    data = json.loads(done.stdout)
    cards = data["routes"][str(path)]
    assert cards["support"]["accuracy"] == 1.0 and cards["keywords"]["labelled"] == 2
    assert data["suites"][0]["failed"] == 1
    done = routescope_cli("regress", str(path))
    assert f"routes of the labelled cases of {path}:" in done.stdout
    assert "router keywords: 2 labelled case(s)" in done.stdout
