"""Keys from the environment or an owner-only key file; shown masked."""

import json
import os
import stat
from pathlib import Path

import pytest

from routescope.research import KeyStore
from routescope.research._keys import default_key_file, mask_key

KEY = "tvly-0123456789abcdef"


def test_saved_keys_are_owner_only_and_read_back(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "config" / "keys.json")
    store.save({"TAVILY_API_KEY": KEY, "BRAVE_API_KEY": "  ", "UNKNOWN": "x"})
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.stored() == {"TAVILY_API_KEY": KEY}
    assert store.problem == ""


def test_the_environment_wins_and_every_key_says_where_it_came_from(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys.json")
    store.save({"TAVILY_API_KEY": KEY, "BRAVE_API_KEY": "BSA-stored-key-0001"})
    resolved = store.resolve({"BRAVE_API_KEY": "BSA-environment-0002"})
    assert resolved["TAVILY_API_KEY"].source == "key file"
    assert resolved["BRAVE_API_KEY"].key == "BSA-environment-0002"
    assert resolved["BRAVE_API_KEY"].source == "environment"
    assert resolved["OPENAI_API_KEY"].source == "" and resolved["OPENAI_API_KEY"].masked == ""
    assert store.keys({}) == {"TAVILY_API_KEY": KEY, "BRAVE_API_KEY": "BSA-stored-key-0001"}


def test_a_key_file_others_can_read_is_not_used(tmp_path: Path) -> None:
    store = KeyStore(tmp_path / "keys.json")
    store.save({"TAVILY_API_KEY": KEY})
    os.chmod(store.path, 0o644)
    assert store.keys({}) == {}
    assert "can be read by others" in store.problem and "chmod 600" in store.problem
    assert KEY not in store.problem


@pytest.mark.parametrize(
    "content", [b"not json", b"[1, 2]", b"\xff\xfe", b'{"TAVILY_API_KEY": 5}', b"{" * 70_000]
)
def test_a_broken_key_file_gives_no_keys_and_one_line(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "keys.json"
    path.write_bytes(content)
    os.chmod(path, 0o600)
    store = KeyStore(path)
    assert store.stored() == {}
    assert "\n" not in store.problem


def test_a_fifo_or_a_missing_file_is_no_keys(tmp_path: Path) -> None:
    assert KeyStore(tmp_path / "missing.json").stored() == {}
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo, 0o600)
    store = KeyStore(fifo)
    assert store.stored() == {} and "not a regular file" in store.problem


def test_keys_are_masked_never_shown_in_full() -> None:
    assert mask_key(KEY) == "tvl…cdef"
    assert mask_key("short") == "••••••"
    assert "0123456789" not in mask_key(KEY)


def test_the_default_key_file_is_in_the_config_folder() -> None:
    # the root conftest points XDG_CONFIG_HOME into a temporary folder
    assert default_key_file().parent.parent == Path(os.environ["XDG_CONFIG_HOME"])
    assert json.dumps(str(default_key_file()))
