from pathlib import Path

import pytest

from routescope import RulePackError
from routescope.rules import default_rules_text, load_rules, save_pack


def test_save_pack_writes_the_text(tmp_path: Path) -> None:
    target = tmp_path / "pack.toml"
    text = default_rules_text().replace('"install",', '"install", "kubernetes",', 1)
    pack = save_pack(target, text)
    assert target.read_text(encoding="utf-8") == text
    assert load_rules(target) == pack
    assert [p.name for p in tmp_path.iterdir()] == ["pack.toml"]  # no temporary file left


def test_save_pack_refuses_an_invalid_pack_and_keeps_the_file(tmp_path: Path) -> None:
    target = tmp_path / "pack.toml"
    target.write_text(default_rules_text(), encoding="utf-8")
    with pytest.raises(RulePackError, match=r"pack\.toml"):
        save_pack(target, "this is = = not toml")
    assert target.read_text(encoding="utf-8") == default_rules_text()
