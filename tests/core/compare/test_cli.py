"""`routescope compare` and `routescope inspect --counterfactuals`, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from routescope.cli import main
from tests._support import routescope_cli

ROOT = Path(__file__).resolve().parents[3]
DEFAULT = ROOT / "resources" / "rules" / "default.toml"
SUITE = ROOT / "resources" / "fixtures" / "strategy.yaml"
TODAY = ("--today", "2026-02-05")


def strict(tmp_path: Path) -> Path:
    path = tmp_path / "strict.toml"
    text = DEFAULT.read_text(encoding="utf-8")
    text = text.replace(
        'always_prepositions = ["near", "around"]', 'always_prepositions = ["around"]'
    )
    path.write_text(text.replace('name = "default"', 'name = "strict"'), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_two_prompts_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys,
        "compare",
        *TODAY,
        "Best ramen near Denver, Colorado",
        "Best ramen in Denver, Colorado",
    )
    assert status == 0 and err == ""
    assert "LOCAL → GENERAL" in out and "local ● → ○" in out
    assert "[-near-]" in out and "{+in+}" in out  # no colour when not a terminal
    assert "\x1b[" not in out and out.rstrip().endswith("differs in: strategy, task")


def test_two_prompts_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "compare", "--json", *TODAY, "pizza near me", "pizza near Austin")
    data = json.loads(out)
    assert status == 0 and data["a"]["text"] == "pizza near me"
    assert data["b"]["outcome"]["strategy"] == "local"
    assert {"changed", "sections", "changes", "flags", "queries", "calls", "tools"} <= set(data)


def test_one_prompt_two_packs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "compare", "--json", "--rules-b", str(strict(tmp_path)), "ramen near Denver"
    )
    data = json.loads(out)
    assert status == 0 and data["a"]["text"] == data["b"]["text"] == "ramen near Denver"
    assert data["b"]["rules"].startswith("strict (")
    assert {"field": "strategy", "section": "strategy", "a": "local", "b": "general"} in data[
        "changes"
    ]


def test_the_same_prompt_twice_has_no_differences(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "compare", *TODAY, "How do I install FastAPI?", "How do I install FastAPI?"
    )
    assert status == 0 and out.rstrip().endswith("no differences")


def test_one_prompt_two_catalogs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = ROOT / "examples" / "catalogs" / "mcp-tools-list.json"
    status, out, _ = run(
        capsys, "compare", "--json", "--catalog-b", str(other), "find files named a.txt"
    )
    data = json.loads(out)
    assert status == 0 and data["a"]["tools"] and data["b"]["catalog"] == str(other.resolve())
    assert {m["movement"] for m in data["tools"]} == {"new", "dropped"}


def test_a_suite_under_two_packs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = str(strict(tmp_path))
    suite = str(SUITE)
    status, out, _ = run(capsys, "compare", "--suite", suite, "--rules-b", pack)
    assert status == 0
    assert "65 cases · A passes 65 · B passes 64 · 1 case(s) differ" in out
    assert "local-near-place  pass → FAIL" in out
    status, out, _ = run(capsys, "compare", "--suite", suite, "--rules-b", pack, "--json")
    assert [case["id"] for case in json.loads(out)["differ"]] == ["local-near-place"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "pizza"], "nothing to compare"),
        (["compare"], "give one or two prompts"),
        (["compare", "a", "b", "c"], "give one or two prompts"),
        (["compare", "-", "-"], "only one prompt can come from stdin"),
        (["compare", "--suite", "resources/fixtures/strategy.yaml"], "give the B side"),
        (
            ["compare", "--suite", "resources/fixtures/strategy.yaml", "--rules-b", "x", "hi"],
            "no prompt",
        ),
        (["compare", "--rules-b", "/no/such/pack.toml", "pizza"], "pack.toml"),
        (["compare", "--today", "2026-13-01", "a", "b"], "--today"),
        (["compare", "   ", "b"], "empty"),
        (
            ["compare", "--suite", "/no/such.yaml", "--rules-b", "resources/rules/default.toml"],
            "such.yaml",
        ),
        (["inspect", "--counterfactuals", "  "], "empty"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = run(capsys, *args)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("routescope: error:") and message in err


def test_inspect_counterfactuals_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "inspect",
        "--counterfactuals",
        *TODAY,
        "Best ramen near Denver, Colorado open tonight",
    )
    assert status == 0
    assert "words     removing one word at a time (7 tried): 2 flip a decision" in out
    assert '"near" @11–15  strategy local → general' in out
    assert '"Denver" @16–22  strategy local → general' in out
    assert "close     no decision was close" in out


def test_inspect_counterfactuals_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys,
        "inspect",
        "--json",
        "--no-tools",
        "--counterfactuals",
        *TODAY,
        "fix the readme.md file now",
    )
    data = json.loads(out)
    assert status == 0 and data["strategy"] == "tech" and data["tools"] is None
    found = data["counterfactuals"]
    assert found["baseline"]["lint_class"] == "guided" and found["words_total"] == 5
    # Five tokens, exactly the guided minimum: every word's removal makes it semi.
    assert all(
        {"decision": "lint_class", "before": "guided", "after": "semi"} in w["flips"]
        or w["word"] == "readme.md"
        for w in found["words"]
    )
    assert {c["against"] for c in data["close_calls"]} == {"guided_min_tokens", "guided_min_strong"}


def test_inspect_without_the_option_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "inspect", "--json", "--no-tools", *TODAY, "pizza near me")
    assert status == 0 and "counterfactuals" not in json.loads(out)


def test_stdin_prompt_in_a_subprocess() -> None:
    done = routescope_cli(
        "compare", "--json", *TODAY, "-", "pizza near Austin", stdin="pizza near me"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["a"]["text"] == "pizza near me"


def test_compare_and_counterfactuals_load_no_engine() -> None:
    """Without a catalog nothing loads tantivy, numpy or the regression runner's YAML."""
    code = (
        "import sys; from routescope.compare import compare, counterfactuals, close_calls, trace;"
        "import routescope;"
        "c = compare('pizza near me', 'install FastAPI'); f = counterfactuals('pizza near me');"
        "i = routescope.inspect('pizza near me'); close_calls(i); trace(i, 'pizza');"
        "bad = [m for m in ('tantivy', 'numpy', 'onnxruntime', 'ruamel') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
