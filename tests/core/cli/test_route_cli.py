"""`routescope route` and `routescope score --routers`: the example routers file as an
analyst runs it; bad input is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from tests._support import routescope_cli

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "routers"
ROUTERS = str(EXAMPLES / "routers.toml")


def test_route_prints_each_routers_decision_and_evidence() -> None:
    done = routescope_cli(
        "route",
        "--routers",
        ROUTERS,
        "--router",
        "support",
        "--router",
        "keywords",
        "I was charged twice, refund please",
    )
    assert done.returncode == 0, done.stderr
    assert "support (semantic-router): billing" in done.stdout
    assert "why not:" in done.stdout and "keywords (python): billing" in done.stdout


def test_route_json_and_a_failing_router_is_a_result(tmp_path: Path) -> None:
    declared = tmp_path / "routers.toml"
    declared.write_text('[routers.dead]\nkind = "http"\nurl = "http://127.0.0.1:9/r"\n')
    done = routescope_cli("route", "--routers", str(declared), "--json", "hello")
    assert done.returncode == 0, done.stderr
    decision = json.loads(done.stdout)["routers"][0]
    assert decision["router"] == "dead" and decision["error"]["kind"] == "network"


def test_bad_declarations_are_one_line_and_exit_2(tmp_path: Path) -> None:
    declared = tmp_path / "routers.toml"
    declared.write_text('[routers.a]\nkind = "http"\nurl = "nope"\n')
    done = routescope_cli("route", "--routers", str(declared), "hi")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "routers.a.url" in done.stderr and "Traceback" not in done.stderr
    done = routescope_cli("route", "--routers", ROUTERS, "--router", "absent", "hi")
    assert done.returncode == 2 and "no router 'absent'" in done.stderr
    declared.write_text('[routers."my router"]\nkind = "http"\nurl = "http://127.0.0.1:9/r"\n')
    done = routescope_cli("route", "--routers", str(declared), "hi")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "router name 'my router'" in done.stderr and "names columns" in done.stderr


def test_score_scores_each_router_per_route() -> None:
    done = routescope_cli(
        "score",
        str(EXAMPLES / "labelled.jsonl"),
        "--routers",
        ROUTERS,
        "--router",
        "support",
        "--router",
        "keywords",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    cards = json.loads(done.stdout)["routers"]
    assert set(cards) == {"support", "keywords"}
    support = cards["support"]
    assert support["labelled"] == 13 and support["accuracy"] > 0.8
    assert support["routes"]["billing"]["recall"] == 1.0
    assert support["confusion"]["matrix"]["billing"] == {"billing": 3}
