import json
import subprocess
import sys
from pathlib import Path

import pytest

import routescope
from routescope.cli import main


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "routescope", *args], input=stdin, capture_output=True, timeout=60
    )


def test_inspect_json_contract() -> None:
    done = cli("inspect", "--json", "--today", "2026-02-05", "Latest OpenClaw install error?")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    ctx = data["context"]
    assert ctx["raw_text"] == "Latest OpenClaw install error?"
    assert ctx["user_goal"] == "Latest OpenClaw install error"
    assert ctx["entities"]["candidates"][0] == "OpenClaw"
    assert ctx["entities"]["place_hint"] is None
    assert set(ctx["intent"]) == {"tech", "local", "purchase", "troubleshooting", "time_sensitive"}
    assert ctx["has_openclaw"] is True
    assert {"start", "end", "text", "keyword", "intent"} <= set(ctx["intent_matches"][0])
    assert data["strategy"] == "tech"
    assert data["strategy_reason"].startswith("intent.tech")
    first = data["actions"][0]
    assert set(first) >= {"tool", "query", "raw_query", "priority", "edits"}
    assert first["tool"] == "google_search" and first["priority"] == 0
    assert set(data["timings_us"]) == {
        "extract",
        "route",
        "plan",
        "sanitize",
        "lint",
        "decide",
        "task",
        "tools",
        "total",
    }


def test_inspect_reads_stdin() -> None:
    done = cli("inspect", "--json", "-", stdin=b"pizza near me")
    assert json.loads(done.stdout)["strategy"] == "local"


def test_human_summary_has_no_colour_when_piped() -> None:
    done = cli("inspect", "How do I install FastAPI on Ubuntu?")
    out = done.stdout.decode()
    assert done.returncode == 0 and "\x1b[" not in out
    assert "TECH" in out and "site:github.com FastAPI README" in out


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["inspect", ""], None, "empty"),
        (["inspect", "   "], None, "empty"),
        (["inspect", "-"], b"", "empty"),
        (["inspect", "\x07"], None, ": text is only control characters (U+0007)\n"),
        (["inspect", "-"], b"\x00", ": text is only control characters (U+0000)\n"),
        (
            ["inspect", "-"],
            b"\x1b\n",
            ": text is only whitespace and control characters (U+001B)\n",
        ),
        (
            ["inspect", "\u200b\ufeff"],
            None,
            ": text is only invisible characters (U+200B, U+FEFF)\n",
        ),
        (["inspect", "-"], b"\xff\xfe\x00", "not UTF-8"),
        (["inspect", "--today", "yesterday", "x"], None, "YYYY-MM-DD"),
        (["inspect", "--rules", "/nonexistent.toml", "x"], None, "cannot read rule pack"),
        (["inspect"], None, "required"),
        (["frobnicate"], None, "invalid choice"),
        ([], None, "required"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], stdin: bytes | None, message: str
) -> None:
    done = cli(*args, stdin=stdin)
    err = done.stderr.decode()
    assert done.returncode == 2
    assert err.count("\n") == 1 and err.startswith("routescope: error:")
    assert message in err
    assert "Traceback" not in err


def test_bad_rule_pack_exits_2(tmp_path: Path) -> None:
    pack = tmp_path / "p.toml"
    pack.write_text("name = 1\n")
    done = cli("inspect", "--rules", str(pack), "x")
    assert done.returncode == 2 and str(pack) in done.stderr.decode()


def test_one_megabyte_stdin() -> None:
    done = cli("inspect", "--json", "-", stdin=b"latest install error near me " * 36_000)
    assert done.returncode == 0
    assert all(len(a["query"]) <= 400 for a in json.loads(done.stdout)["actions"])


def test_schema_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "Inspection"


def test_decide_json_with_context(tmp_path: Path) -> None:
    context = tmp_path / "ctx.json"
    context.write_text(
        json.dumps(
            {"last_action": {"tool": "lend_execute", "args": {"amount": 1}, "status": "cancelled"}}
        )
    )
    done = cli("decide", "--json", "--context", str(context), "try again")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) >= {
        "agent",
        "mode",
        "ui",
        "tool_plan",
        "stop_condition",
        "layout",
        "guardrails",
    }
    assert data["tool_plan"][-1] == {"tool": "lend_execute", "args": {"amount": 1}}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "invalid context"),
        ('{"last_action": {"tool": 5}}', "last_action.tool"),
        ('{"history": []}', "history"),
    ],
)
def test_decide_bad_context_exits_2(tmp_path: Path, content: str, message: str) -> None:
    context = tmp_path / "ctx.json"
    context.write_text(content)
    done = cli("decide", "--context", str(context), "try again")
    assert done.returncode == 2 and message in done.stderr.decode()
    assert done.stderr.decode().count("\n") == 1


def test_inspect_json_has_lint_and_decision() -> None:
    data = json.loads(cli("inspect", "--json", "config").stdout)
    assert data["lint"]["query_class"] == "vague"
    assert data["lint"]["changes"]["reasons"] == ["vague_default_boost"]
    assert data["decision"]["agent"] == "knowledge"


def test_schema_for_the_decision() -> None:
    data = json.loads(cli("schema", "decision").stdout)
    assert data["title"] == "RouterDecision" and "tool_plan" in data["properties"]


def test_version_is_the_package_version() -> None:
    from importlib.metadata import version

    done = cli("--version")
    assert done.returncode == 0
    assert done.stdout.decode().strip() == f"routescope {version('routescope')}"


def test_regress_builtin_runs_the_shipped_suites() -> None:
    done = cli("regress", "--builtin")
    assert done.returncode == 0, done.stderr
    for name in ("strategy", "linter", "contract", "tools"):
        assert f"suite {name} (" in done.stdout.decode()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give SUITE files, or --builtin"),
        (["--builtin", "--update"], "--update rewrites suite files"),
        (["missing.yaml"], "cannot read suite"),
    ],
)
def test_regress_bad_input_exits_2_not_1(args: list[str], message: str) -> None:
    """1 means a case failed; bad input is 2, so a script can tell them apart."""
    done = cli("regress", *args)
    assert done.returncode == 2
    (line,) = done.stderr.decode().splitlines()
    assert message in line


def test_regress_internal_error_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import routescope.regress

    def broken(suite: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(routescope.regress, "run_suite", broken)
    suite = str(routescope.resources_root() / "fixtures" / "linter.yaml")
    assert main(["regress", suite]) == 2
    assert capsys.readouterr().err.strip() == "routescope: internal error: RuntimeError: boom"


def test_inspect_text_mode_ranks_tools_only_for_a_named_catalog() -> None:
    sample = str(routescope.resources_root() / "catalog")
    plain = cli("inspect", "find files named config.yaml")
    ranked = cli("inspect", "--catalog", sample, "find files named config.yaml")
    assert plain.returncode == ranked.returncode == 0
    assert b"files." not in plain.stdout
    assert b"tools" in ranked.stdout and b"files.find" in ranked.stdout
