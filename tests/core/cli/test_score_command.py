"""`routescope score`: a labelled set or suite, text and JSON, one line for bad input."""

from __future__ import annotations

import json
from pathlib import Path

from routescope import resources_root
from tests._support import routescope_cli

FIXTURES = Path(str(resources_root() / "fixtures"))
LINE = {
    "prompt": "Find me a hair stylist in Fremont, CA",
    "labels": {"local": True, "tech": False, "troubleshooting": False, "place_hint": "Fremont, CA"},
}


def test_json_has_the_documented_keys(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(LINE) + "\n", encoding="utf-8")
    done = routescope_cli("score", str(path), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["flags"]["local"]["tp"], data["flags"]["local"]["fn"]) == (0, 1)
    assert {"precision", "recall", "f1"} <= set(data["flags"]["local"])
    assert data["macro_f1"] == 0.0 and data["strategy"]["accuracy"] == 0.0
    assert data["place"]["accuracy"] == 1.0
    assert {"precision", "recall"} <= set(data["entities"])


def test_text_lists_the_wrong_decisions_with_their_evidence() -> None:
    done = routescope_cli("score", str(FIXTURES / "strategy.yaml"))
    assert done.returncode == 0 and "strategy accuracy 1.000" in done.stdout
    assert "pack default: 65 labelled case(s)" in done.stdout


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"prompt": "x", "labels": {"locale": true}}\n', encoding="utf-8")
    done = routescope_cli("score", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "unknown label 'locale'" in done.stderr
    missing = routescope_cli("score", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
