"""Session files: saved and opened again as equal requests and results; opened elsewhere, the
differences are listed; a hostile file is one `HistoryError` line."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from routescope import RulesRef
from routescope.history import (
    Fingerprints,
    HistoryError,
    SessionEntry,
    open_session,
    save_session,
)

from ._support import plain, result_of, rich, with_tools


def entries(folder: Path) -> list[SessionEntry]:
    full = rich(folder)
    return [
        SessionEntry(*plain("pizza near me")),
        SessionEntry(full, result_of(full.text)),
        SessionEntry(*with_tools("why is my container crashing")),
    ]


def test_a_saved_session_opens_as_the_same_requests_and_results(tmp_path: Path) -> None:
    saved = entries(tmp_path)
    path = save_session(tmp_path / "s.json", saved)
    here = Fingerprints.of_request(saved[-1].request)
    session = open_session(path, here=here)
    assert session.entries == saved
    for (request, _), (again, _) in zip(saved, session.entries, strict=True):
        assert again.fingerprint() == request.fingerprint()
    assert session.fingerprints == here
    # the rich request's catalog is a made-up path: its tools cannot be ranked here
    (warning,) = session.warnings
    assert "is not on this machine" in warning and "catalog" in warning
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "routescope-session" and data["version"] == 1
    assert len(data["rule_packs"]) == 2  # each pack's text once


def test_opening_elsewhere_lists_what_differs(tmp_path: Path) -> None:
    request, result = with_tools("git status please")
    path = save_session(tmp_path / "s.json", [(request, result)])
    assert open_session(path, here=Fingerprints.of_request(request)).warnings == []
    other = Fingerprints(rules="ffffffffffffffff", catalog="eeeeeeeeeeeeeeee", model="other-model")
    warnings = open_session(path, here=other).warnings
    assert len(warnings) == 3
    assert "different rule pack" in warnings[0] and "ffffffffffffffff" in warnings[0]
    assert "different catalog (index)" in warnings[1]
    assert "different embedding model" in warnings[2] and "other-model" in warnings[2]
    unknown = open_session(path, here=Fingerprints()).warnings  # nothing known: nothing to say
    assert unknown == []


def test_the_default_comparison_is_with_the_builtin_pack(tmp_path: Path) -> None:
    full = rich(tmp_path)
    path = save_session(tmp_path / "s.json", [(full, result_of(full.text))])
    warnings = open_session(path).warnings
    assert any(w.startswith("different rule pack") for w in warnings)
    assert any(w.startswith("different embedding model") for w in warnings)


def test_requests_that_hash_differently_here_are_flagged(tmp_path: Path) -> None:
    path = save_session(tmp_path / "s.json", [plain()])
    data = json.loads(path.read_text(encoding="utf-8"))
    data["entries"][0]["request"]["fingerprint"] = "0" * 64
    path.write_text(json.dumps(data), encoding="utf-8")
    warnings = open_session(path, here=Fingerprints()).warnings
    assert warnings == [
        "1 of 1 requests hash differently here (another version of Routescope, or an edited "
        "file): running them again may give other results"
    ]


def test_saving_keeps_permissions_and_writes_a_links_target(tmp_path: Path) -> None:
    path = save_session(tmp_path / "new.json", [plain()])
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    path.chmod(0o640)
    save_session(path, [plain("pizza near me")])
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    link = tmp_path / "link.json"
    link.symlink_to(path)
    save_session(link, [plain()])
    assert link.is_symlink() and open_session(path).entries[0].request == plain()[0]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_saving_where_it_cannot_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="cannot save the session") as caught:
        save_session(tmp_path / "missing" / "s.json", [plain()])
    assert "\n" not in str(caught.value)
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(HistoryError, match="not a regular file"):
        save_session(tmp_path / "folder.json", [plain()])


def valid(folder: Path) -> dict[str, Any]:
    path = save_session(folder / "valid.json", [plain()])
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def edited(change: Any) -> Any:
    def make(folder: Path) -> bytes:
        data = valid(folder)
        change(data)
        return json.dumps(data).encode()

    return make


def raw(content: bytes) -> Any:
    return lambda folder: content


PACK = RulesRef.builtin()

HOSTILE = {
    "empty": (raw(b""), "not JSON"),
    "not JSON": (raw(b"{not json"), "not JSON"),
    "binary": (raw(os.urandom(300) + b"\x00"), "not JSON"),
    "a list": (raw(b"[1, 2]"), "not an object"),
    "another format": (raw(b'{"format": "x", "version": 1}'), "format is not"),
    "newer version": (
        raw(b'{"format": "routescope-session", "version": 7}'),
        "version 7, written by a newer Routescope",
    ),
    "deep nesting": (raw(b"[" * 100_000 + b"]" * 100_000), "not JSON"),
    "huge integer": (
        raw(b'{"format": "routescope-session", "version": ' + b"9" * 5000 + b"}"),
        "not JSON",
    ),
    "NaN": (raw(b'{"format": "routescope-session", "version": NaN}'), "not JSON"),
    "missing entries": (edited(lambda d: d.pop("entries")), "entries: Field required"),
    "unknown field": (edited(lambda d: d.update(extra=1)), "extra: Extra inputs"),
    "wrong result": (
        edited(lambda d: d["entries"][0]["result"].update(strategy="teleport")),
        "entries.0.result.strategy",
    ),
    "deep result": (
        edited(lambda d: d["entries"][0]["result"].update(context=[[[[[[[[[[]]]]]]]]]])),
        "entries.0.result.context",
    ),
    "bad date": (
        edited(lambda d: d["entries"][0]["request"].update(today="2026-02-30")),
        "entries.0.request.today",
    ),
    "bad fingerprint": (
        edited(lambda d: d["entries"][0]["request"].update(fingerprint="\x1b[2J")),
        "entries.0.request.fingerprint",
    ),
    "pack text changed": (
        edited(lambda d: d["rule_packs"].update({PACK.digest: PACK.text + "\n# more\n"})),
        "the rule pack's text does not match its digest",
    ),
    "pack missing": (edited(lambda d: d["rule_packs"].clear()), "is missing"),
    "empty prompt": (
        edited(lambda d: d["entries"][0]["request"].update(text="   ")),
        "entry 1: text is empty",
    ),
    "bad context": (
        edited(lambda d: d["entries"][0]["request"].update(context={"last_action": 5})),
        "entry 1: cannot rebuild the request: context",
    ),
    "bad settings": (
        edited(lambda d: d["entries"][0]["request"]["search"].update(k=0)),
        "entry 1: cannot rebuild the request: search settings",
    ),
    "unknown setting": (
        edited(lambda d: d["entries"][0]["request"]["search"].update(warp=9)),
        "entry 1: cannot rebuild the request: search settings",
    ),
    "escape in a key": (
        edited(lambda d: d.update({"\x1b]0;pwned\x07": 1})),
        "Extra inputs",
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_file_is_one_line(tmp_path: Path, name: str) -> None:
    make, expected = HOSTILE[name]
    path = tmp_path / "hostile.json"
    path.write_bytes(make(tmp_path))
    with pytest.raises(HistoryError) as caught:
        open_session(path)
    message = str(caught.value)
    assert expected in message and str(path) in message
    assert message.isprintable() and len(message) <= 500


@pytest.mark.parametrize(
    "make",
    [lambda p: p.mkdir(), lambda p: os.mkfifo(p), lambda p: p.symlink_to("/dev/zero")],
    ids=["folder", "fifo", "device"],
)
def test_a_session_path_that_is_not_a_file_is_one_line(tmp_path: Path, make: Any) -> None:
    path = tmp_path / "s.json"
    make(path)
    with pytest.raises(HistoryError, match="cannot read session file"):
        open_session(path)


def test_a_too_large_session_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save_session(tmp_path / "s.json", [plain()])
    monkeypatch.setattr("routescope.history._session.MAX_SESSION_BYTES", 100)
    with pytest.raises(HistoryError, match="too large"):
        open_session(path)
