"""`routescope history`: list, search, show, rerun and export the store the window records
into; only ever read (a missing store, a file that is not one, an unknown id: one line, exit 2,
and the file left byte for byte as it was)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from routescope.cli import main
from routescope.history import History

from ..history._foreign import NOT_A_STORE, MakeAt, snapshot
from ..history._support import TODAY, plain, result_of, rich

TEXTS = ["History of jazz music", "pizza near me", "How do I install FastAPI on Ubuntu?"]


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        self.now += 60.0
        return self.now


def record(path: Path, texts: list[str] = TEXTS) -> list[int]:
    """A store with these prompts, recorded in this order (the last one newest); their ids."""
    history = History.open(path, clock=Clock())
    ids = []
    for text in texts:
        entry = history.record(*plain(text))
        assert entry is not None
        ids.append(entry.id)
    history.close()
    return ids


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "history.sqlite3"
    record(path)
    return path


Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """`routescope ARGS` in this process: its exit status, stdout and stderr."""

    def call(*args: str | Path) -> tuple[int, str, str]:
        status = main([str(arg) for arg in args])
        out, err = capsys.readouterr()
        return status, out, err

    return call


def one_error_line(status: int, out: str, err: str) -> str:
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("routescope: error: "), err
    return err


# -- list and search -----------------------------------------------------------------------


def test_list_shows_the_newest_first(run: Run, store: Path) -> None:
    status, out, err = run("history", "list", "--store", store)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert "strategy" in lines[0] and "prompt" in lines[0]
    assert [line.split()[0] for line in lines[1:4]] == ["3", "2", "1"]
    assert TEXTS[2] in lines[1] and "tech" in lines[1] and "local" in lines[2]
    assert lines[-1] == "3 of 3 entries, newest first"
    status, out, _ = run("history", "list", "--limit", "2", "--store", store)
    assert [line.split()[0] for line in out.splitlines()[1:3]] == ["3", "2"]
    assert out.splitlines()[-1] == "2 of 3 entries, newest first; --limit N shows more"


def test_list_json_holds_the_entries(run: Run, store: Path) -> None:
    status, out, _ = run("history", "list", "--json", "--limit", "2", "--store", store)
    data = json.loads(out)
    assert status == 0 and data["store"] == str(store) and data["total"] == 3
    first = data["entries"][0]
    assert [e["text"] for e in data["entries"]] == [TEXTS[2], TEXTS[1]]
    assert first["today"] == TODAY.isoformat() and first["rules_source"] == "default.toml"
    assert first["summary"]["strategy"] == "tech" and first["summary"]["top_tool"] is None
    assert first["count"] == 1 and first["pinned"] is False and first["catalog"] is None


def test_search_by_words_and_filters(run: Run, store: Path, tmp_path: Path) -> None:
    def ids(*args: str) -> list[int]:
        status, out, err = run("history", "search", *args, "--json", "--store", store)
        assert status == 0, err
        return [entry["id"] for entry in json.loads(out)["entries"]]

    assert ids("jazz") == [1]
    assert ids("install", "ubu") == [3]
    assert ids("near", "--strategy", "local") == [2]
    assert ids("near", "--strategy", "tech") == []
    history = History.open(store)
    full = rich(tmp_path)
    entry = history.record(full, result_of(full.text))
    assert entry is not None and history.pin(1)
    history.close()
    assert ids("USDC", "--rules", full.rules.digest) == [entry.id]
    assert ids("USDC", "--rules", "default.toml") == []
    assert ids("music", "--pinned") == [1] and ids("pizza", "--pinned") == []
    assert ids("pizza", "--lint-class", result_of(TEXTS[1]).lint.query_class) == [2]


def test_text_from_the_store_is_escaped(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    record(path, ["jazz \x1b[2J\x1b]0;pwned\x07 clubs"])
    for action in (["list"], ["show", "1"]):
        status, out, _ = run("history", *action, "--store", path)
        assert status == 0 and "\x1b" not in out and "\x07" not in out
        assert "\\x1b[2J" in out


# -- show and rerun ------------------------------------------------------------------------


def test_show_json_is_what_inspect_json_prints(run: Run, store: Path) -> None:
    status, out, _ = run("history", "show", "3", "--json", "--store", store)
    shown = json.loads(out)
    status_b, out_b, _ = run(
        "inspect", "--json", "--no-tools", "--today", TODAY.isoformat(), TEXTS[2]
    )
    inspected = json.loads(out_b)
    assert status == status_b == 0
    assert set(shown["timings_us"]) == set(inspected["timings_us"])
    del shown["timings_us"], inspected["timings_us"]
    assert shown == inspected


def test_show_names_the_entry_then_inspects_it(run: Run, store: Path) -> None:
    status, out, _ = run("history", "show", "2", "--store", store)
    lines = out.splitlines()
    assert status == 0 and lines[0].startswith("entry 2 ") and "seen 1×" in lines[0]
    assert lines[1].split(None, 1) == ["prompt", TEXTS[1]]
    assert lines[2].split() == ["date", TODAY.isoformat()]
    assert lines[3].startswith("rules     default.toml (digest ")
    assert "strategy local" in lines[6]
    assert any(line.startswith("strategy  LOCAL") for line in lines[7:])


def test_rerun_says_the_decision_still_holds(run: Run, store: Path) -> None:
    status, out, _ = run("history", "rerun", "2", "--store", store)
    assert status == 0 and "LOCAL" in out
    assert out.splitlines()[-1] == "same decision as stored in entry 2"
    status, out, _ = run("history", "rerun", "2", "--json", "--store", store)
    data = json.loads(out)
    assert data["same"] is True and data["changes"] == [] and data["entry"]["id"] == 2
    assert data["inspection"]["strategy"] == "local"


def test_rerun_says_what_differs_from_the_stored_decision(run: Run, store: Path) -> None:
    db = sqlite3.connect(store)  # as an older Routescope (or another pack) decided it
    db.execute("UPDATE entries SET strategy = 'tech', task_route = 'research' WHERE id = 2")
    db.commit()
    db.close()
    status, out, _ = run("history", "rerun", "2", "--store", store)
    assert status == 0
    last = out.splitlines()[-1]
    assert last.startswith("differs from entry 2: strategy tech → local; task_route research → ")
    status, out, _ = run("history", "rerun", "2", "--json", "--store", store)
    data = json.loads(out)
    assert data["same"] is False
    assert data["changes"][0] == {"field": "strategy", "stored": "tech", "now": "local"}
    assert [change["field"] for change in data["changes"]] == ["strategy", "task_route"]


def test_rerun_uses_the_stored_request(run: Run, tmp_path: Path) -> None:
    """Its date, its rule pack's text (the file may be gone) and its context; a catalog that
    cannot be loaded is one line, and --no-tools runs the rest."""
    path = tmp_path / "history.sqlite3"
    full = rich(tmp_path)
    history = History.open(path)
    entry = history.record(full, result_of(full.text))
    history.close()
    assert entry is not None
    (tmp_path / "custom.toml").unlink()
    err = one_error_line(*run("history", "rerun", str(entry.id), "--store", path))
    assert "catalog" in err and "--no-tools" in err
    status, out, _ = run("history", "rerun", str(entry.id), "--no-tools", "--json", "--store", path)
    data = json.loads(out)
    assert status == 0 and data["inspection"]["context"]["raw_text"] == full.text
    decision = data["inspection"]["decision"]
    assert decision["tool_plan"][-1]["tool"] == "lend_execute"  # the context's cancelled action
    status, out, _ = run("history", "show", str(entry.id), "--no-tools", "--store", path)
    assert status == 0 and "date      2026-03-01" in out and "custom.toml" in out
    assert '"status":"cancelled"' in out


def test_an_unknown_id_is_one_line(run: Run, store: Path) -> None:
    for action in ("show", "rerun"):
        err = one_error_line(*run("history", action, "99", "--store", store))
        assert "no entry 99" in err and str(store) in err
    err = one_error_line(*run("history", "show", "x", "--store", store))
    assert "invalid int value" in err


# -- export --------------------------------------------------------------------------------


def test_export_writes_every_entry_as_a_json_line(run: Run, store: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "entries.jsonl"
    status, out, _ = run("history", "export", "--out", out_file, "--store", store)
    assert status == 0 and out.strip() == f"3 entries → {out_file}"
    lines = out_file.read_text(encoding="utf-8").splitlines()
    _, listed, _ = run("history", "list", "--json", "--store", store)
    assert [json.loads(line) for line in lines] == json.loads(listed)["entries"]
    status, out, _ = run(
        "history", "export", "pizza", "--json", "--out", out_file, "--store", store
    )
    assert json.loads(out) == {"out": str(out_file), "entries": 1}
    assert [json.loads(line)["text"] for line in out_file.read_text().splitlines()] == [TEXTS[1]]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_export_never_writes_through_a_link_nor_over_the_store(
    run: Run, store: Path, tmp_path: Path
) -> None:
    mine = tmp_path / "mine.txt"
    mine.write_text("my notes\n")
    link = tmp_path / "entries.jsonl"
    link.symlink_to(mine)
    err = one_error_line(*run("history", "export", "--out", link, "--store", store))
    assert "symbolic link" in err
    assert mine.read_text() == "my notes\n" and link.is_symlink()
    data = store.read_bytes()
    err = one_error_line(*run("history", "export", "--out", store, "--store", store))
    assert "the history store itself" in err and store.read_bytes() == data
    folder = tmp_path / "a-folder"
    folder.mkdir()
    err = one_error_line(*run("history", "export", "--out", folder, "--store", store))
    assert "a directory" in err


# -- where the store is, and what is not one -----------------------------------------------


def test_the_default_store_is_the_windows(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    from routescope.history import default_history_path

    assert default_history_path() == tmp_path / "routescope" / "history.sqlite3"
    err = one_error_line(*run("history", "list"))
    assert "no history here" in err and str(default_history_path()) in err
    assert not (tmp_path / "routescope").exists()  # nothing made
    history = History.open()  # as the window opens it
    history.record(*plain())
    history.close()
    status, out, _ = run("history", "list")
    assert status == 0 and TEXTS[0] in out


@pytest.mark.parametrize(("make", "said"), NOT_A_STORE)
def test_what_is_not_a_store_is_one_line_and_never_written(
    run: Run, tmp_path: Path, make: MakeAt, said: str
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "history.sqlite3"
    if make is not None:
        make(path)
    before = snapshot(folder)
    out_file = tmp_path / "entries.jsonl"
    for action in (["list"], ["search", "jazz"], ["show", "1"], ["rerun", "1"]):
        err = one_error_line(*run("history", *action, "--store", path))
        assert said in err and str(path) in err
    err = one_error_line(*run("history", "export", "--out", out_file, "--store", path))
    assert said in err and not out_file.exists()
    assert snapshot(folder) == before  # the same bytes, and nothing made beside them


def test_history_goes_through_the_command_line(tmp_path: Path) -> None:
    """As installed: `python -m routescope history …`, bad input one line, exit 2."""
    path = tmp_path / "history.sqlite3"
    record(path, TEXTS[:1])
    command = [sys.executable, "-m", "routescope", "history"]
    done = subprocess.run(
        [*command, "list", "--store", str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and TEXTS[0] in done.stdout and done.stderr == ""
    for args in ([], ["list", "--limit", "0"], ["frobnicate"]):
        done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("routescope: error:")
