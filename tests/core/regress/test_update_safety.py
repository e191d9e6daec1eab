"""`update_goldens` never harms a user's file (F5, F6, F7): it does not write goldens whose path
is not in the result, never rewrites a value shared through a YAML alias, refuses read-only
suites, hard links and folders it cannot write in (one line, nothing written), writes a link's
target, keeps permissions and owner, and cleans up what a killed update left.

These tests run as root too: the mode bits are checked by the code, not left to `os.access`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from routescope.regress import (
    SuiteError,
    load_suite,
    run_suite,
    skipped_goldens,
    update_goldens,
)

ONE = """\
suite: s
router: strategy
today: 2026-02-05
cases:
  - id: a
    prompt: pizza near me
    expect:
      strategy: general   # wrong: the update makes it local
"""
UPDATED = ONE.replace("strategy: general ", "strategy: local ")


def write(folder: Path, text: str, name: str = "demo.yaml") -> Path:
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    return path


def update(path: Path) -> int:
    suite = load_suite(path)
    return update_goldens(suite, run_suite(suite))


def untouched(path: Path, text: str, before: os.stat_result) -> bool:
    after = path.stat()
    return path.read_text(encoding="utf-8") == text and (after.st_ino, after.st_mtime_ns) == (
        before.st_ino,
        before.st_mtime_ns,
    )


def refused(path: Path, text: str, match: str) -> None:
    """`--update` raises one SuiteError line matching `match` and leaves the file as it was,
    with no temporary file beside it."""
    before = path.stat()
    with pytest.raises(SuiteError, match=match) as info:
        update(path)
    assert "\n" not in str(info.value)
    assert untouched(path, text, before)
    assert not [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]


# -- F5: goldens whose path does not resolve ----------------------------------------------------
TYPO = """\
suite: s
router: strategy
cases:
  - id: a
    prompt: pizza near me
    expect:
      strategy: general
      action[0].query: pizza near me  # typo for actions[0]
      actions[*].nope: [1, 2]          # a field the actions do not have
"""


def test_a_golden_whose_path_is_missing_is_never_written(tmp_path: Path) -> None:
    path = write(tmp_path, TYPO)
    suite = load_suite(path)
    result = run_suite(suite)
    diffs = {d.path: d for d in result.cases[0].diffs}
    assert diffs["action[0].query"].missing and diffs["action[0].query"].actual == "(missing)"
    assert diffs["actions[*].nope"].missing
    assert set(diffs["actions[*].nope"].actual) == {"(missing)"}
    assert not diffs["strategy"].missing
    assert skipped_goldens(result) == [("a", "action[0].query"), ("a", "actions[*].nope")]
    assert skipped_goldens(result, only={"b"}) == []
    assert update_goldens(suite, result) == 1  # strategy only
    assert path.read_text(encoding="utf-8") == TYPO.replace("strategy: general", "strategy: local")
    (left,) = run_suite(load_suite(path)).cases[0].diffs[:1]
    assert left.path == "action[0].query"  # still failing, still saying why


def test_a_malformed_path_never_reaches_update(tmp_path: Path) -> None:
    path = write(tmp_path, ONE + '      "[": golden\n      "...": golden\n')
    with pytest.raises(SuiteError, match=r"case 1 \(a\): expect: '\[': not a path"):
        load_suite(path)


def test_only_missing_values_means_nothing_to_write(tmp_path: Path) -> None:
    text = TYPO.replace("strategy: general", "strategy: local")
    path = write(tmp_path, text)
    before = path.stat()
    assert update(path) == 0
    assert untouched(path, text, before)


# -- F6: a value shared through an alias --------------------------------------------------------
ANCHORED = """\
suite: s
router: strategy
cases:
  - id: l1
    prompt: pizza near me
    expect: &e
      strategy: local
  - id: g1
    prompt: History of jazz music
    expect: *e
  - id: l2
    prompt: coffee shops nearby
    expect: *e
"""


def test_a_shared_anchor_is_never_rewritten_under_another_case(tmp_path: Path) -> None:
    path = write(tmp_path, ANCHORED, "anc.yaml")
    refused(path, ANCHORED, r"anc\.yaml:8: case g1: cannot rewrite strategy in place \(it is sh")
    result = run_suite(load_suite(path))
    assert [c.passed for c in result.cases] == [True, False, True]  # as before


@pytest.mark.parametrize(
    "text",
    [
        # the case's whole mapping is the anchor's: the key is written once, for two cases
        "suite: s\nrouter: strategy\ncases:\n"
        "  - {id: l1, prompt: pizza near me, expect: {strategy: &v local}}\n"
        "  - {id: g1, prompt: History of jazz music, expect: {strategy: *v}}\n",
        # a shared list value
        "suite: s\nrouter: strategy\ncases:\n"
        "  - {id: l1, prompt: pizza near me, expect: {'actions[*].priority': &v [9]}}\n"
        "  - {id: g1, prompt: pizza near me, expect: {'actions[*].priority': *v}}\n",
    ],
)
def test_shared_values_are_refused(tmp_path: Path, text: str) -> None:
    refused(write(tmp_path, text, "anc.yaml"), text, r"cannot rewrite .* in place")


# -- F7: read-only files and folders, links, permissions, owner ---------------------------------
@pytest.mark.parametrize("mode", [0o444, 0o400, 0o555])
def test_a_read_only_suite_is_not_updated(tmp_path: Path, mode: int) -> None:
    path = write(tmp_path, ONE)
    path.chmod(mode)
    try:
        refused(path, ONE, rf"demo\.yaml: the suite is read-only \(mode {mode:04o}\); nothing")
        assert stat.S_IMODE(path.stat().st_mode) == mode
    finally:
        path.chmod(0o644)


def test_a_suite_this_user_cannot_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Write bits for someone else only: what `os.access` says for a user who is not root."""
    path = write(tmp_path, ONE)
    path.chmod(0o644)
    monkeypatch.setattr(os, "access", lambda *args, **kwargs: False)
    refused(path, ONE, r"demo\.yaml: the suite is not writable by this user \(mode 0644, owner")


def test_a_folder_that_cannot_take_the_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root writes into a 0555 folder anyway, so the refusal is simulated as a user sees it."""

    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    path = write(tmp_path, ONE)
    monkeypatch.setattr(tempfile, "mkstemp", denied)
    refused(path, ONE, r"demo\.yaml: cannot write the updated suite into .*: Permission denied")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores folder modes")
def test_a_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    path = write(folder, ONE)
    folder.chmod(0o555)
    try:
        refused(path, ONE, r"cannot write the updated suite into .*; nothing written")
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("mode", [0o644, 0o664, 0o600, 0o666])
def test_permissions_are_kept(tmp_path: Path, mode: int) -> None:
    path = write(tmp_path, ONE)
    path.chmod(mode)
    assert update(path) == 1
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert path.read_text(encoding="utf-8") == UPDATED


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_root_keeps_the_owner(tmp_path: Path) -> None:
    path = write(tmp_path, ONE)
    os.chown(path, 1000, 1000)
    path.chmod(0o664)
    assert update(path) == 1
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (1000, 1000, 0o664)


def test_an_owner_that_cannot_be_kept_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user updating someone else's group-writable suite cannot give the file back."""
    path = write(tmp_path, ONE)
    real = os.stat(path)
    fake = os.stat_result((real.st_mode, *real[1:4], real.st_uid + 1, *real[5:]))
    original_stat = Path.stat
    resolved = path.resolve()

    def other_owner(self: Path, **kwargs: Any) -> os.stat_result:
        return fake if self == resolved else original_stat(self, **kwargs)

    def denied(*args: Any) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(Path, "stat", other_owner)
    monkeypatch.setattr(os, "fchown", denied)
    with pytest.raises(SuiteError, match=r"cannot keep the suite's owner .*; nothing written"):
        update(path)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == ONE
    assert [p.name for p in tmp_path.iterdir()] == ["demo.yaml"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_link_stays_a_link_and_its_target_is_updated(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = write(tmp_path / "real", ONE, "s.yaml")
    target.chmod(0o644)
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    assert update(link) == 1
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert target.read_text(encoding="utf-8") == UPDATED
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.yaml", "real"]


@pytest.mark.skipif(not hasattr(os, "link"), reason="no hard links")
def test_hard_links_are_not_split(tmp_path: Path) -> None:
    path = write(tmp_path, ONE)
    os.link(path, tmp_path / "other.yaml")
    refused(path, ONE, r"demo\.yaml: the suite has 2 hard links, which an update would split")
    assert (tmp_path / "other.yaml").stat().st_ino == path.stat().st_ino


# -- stray temporary files ------------------------------------------------------------------------
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file locks")
def test_strays_of_a_killed_update_are_removed_by_the_next(tmp_path: Path) -> None:
    import fcntl

    path = write(tmp_path, ONE)
    strays = [".demo.yaml.abcd1234.tmp", ".demo.yaml.x_9zz0qq.tmp"]
    kept = [
        ".demo.yaml.in_use00.tmp",  # another update holds it locked right now
        ".demo.yaml.tmp",  # not mkstemp's pattern
        ".demo.yaml.abc.tmp",
        ".other.yaml.abcd1234.tmp",  # another suite's
        "demo.yaml.abcd1234.tmp",
        ".demo.yaml.ABCD1234.tmp",
    ]
    for name in strays + kept:
        (tmp_path / name).write_text("partial", encoding="utf-8")
    (tmp_path / ".demo.yaml.linkxxxx.tmp").symlink_to(tmp_path / "precious")
    (tmp_path / "precious").write_text("keep me", encoding="utf-8")
    with (tmp_path / ".demo.yaml.in_use00.tmp").open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        assert update(path) == 1
    names = sorted(p.name for p in tmp_path.iterdir())
    # a link is not a temporary file of ours: neither it nor its target is touched
    assert names == sorted([*kept, ".demo.yaml.linkxxxx.tmp", "demo.yaml", "precious"])
    assert (tmp_path / "precious").read_text(encoding="utf-8") == "keep me"


def big_suite(cases: int) -> str:
    lines = ["# a big suite for the kill test", "suite: big", "router: strategy", "cases:"]
    for i in range(cases):
        lines += [
            f"  - id: c{i}",
            f"    prompt: pizza near me number {i}",
            "    expect:",
            "      strategy: general  # wrong on purpose",
        ]
    return "\n".join(lines) + "\n"


def run_update(path: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "routescope", "regress", "--update", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def finish(process: subprocess.Popen[bytes], timeout: float = 300) -> int:
    try:
        return process.wait(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        process.wait()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_kill_9_during_update_leaves_the_old_or_the_new_file(tmp_path: Path) -> None:
    """`routescope regress --update` killed at several moments: the suite is always either the
    original or the fully updated text, and one more update leaves no temporary file."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    original = big_suite(400)
    updated = original.replace("strategy: general  #", "strategy: local  #")
    path = write(tmp_path, original, "big.yaml")
    started = time.monotonic()
    assert finish(run_update(path, env)) == 0  # the failures are accepted: all pass
    took = time.monotonic() - started  # only to spread the kills over a run, never asserted
    assert path.read_text(encoding="utf-8") == updated
    for fraction in (0.2, 0.5, 0.8, 0.9, 0.95, 0.99, 1.02):
        path.write_text(original, encoding="utf-8")
        process = run_update(path, env)
        time.sleep(took * fraction)
        process.send_signal(signal.SIGKILL)
        finish(process)
        text = path.read_text(encoding="utf-8")
        assert text in (original, updated)
    path.write_text(original, encoding="utf-8")
    assert finish(run_update(path, env)) == 0
    assert path.read_text(encoding="utf-8") == updated
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["big.yaml"]


CAPSH = "/usr/sbin/capsh" if Path("/usr/sbin/capsh").exists() else "/sbin/capsh"


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0 or not Path(CAPSH).exists(),
    reason="needs root and capsh to drop the right to write anywhere",
)
def test_a_read_only_folder_as_root_without_dac_override(tmp_path: Path) -> None:
    """F7 as reported: root without CAP_DAC_OVERRIDE, a 0555 folder: exit 2, one line."""
    folder = tmp_path / "ro"
    folder.mkdir()
    path = write(folder, ONE)
    folder.chmod(0o555)
    command = f"{sys.executable} -m routescope regress --update {path}"
    try:
        done = subprocess.run(
            [CAPSH, "--drop=cap_dac_override,cap_fowner", "--", "-c", command],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
        )
    finally:
        folder.chmod(0o755)
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "cannot write the updated suite into" in line and "internal error" not in line
    assert path.read_text(encoding="utf-8") == ONE
    assert [p.name for p in folder.iterdir()] == ["demo.yaml"]
