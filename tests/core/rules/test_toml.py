from pathlib import Path

import pytest

import routescope
from routescope import RulePackError, load_rules, parse_rules, resources_root


def default_text() -> str:
    return (resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")


def test_default_pack_reproduces_the_seed() -> None:
    rules = routescope.default_rules()
    assert rules.intents.tech == [
        "install",
        "setup",
        "repo",
        "api",
        "sdk",
        "error",
        "log",
        "stacktrace",
        "documentation",
    ]
    assert rules.intents.local == [
        "near me",
        "nearby",
        "city",
        "state",
        "zip",
        "hours",
        "this weekend",
    ]
    assert rules.intents.purchase == ["best", "buy", "price", "review", "vs"]
    assert rules.sanitize.banned_modifiers == ["gaming engine"]
    assert rules.sanitize.max_query_chars == 400
    assert rules.entities.max_candidates == 6


def test_a_custom_pack_changes_behaviour(tmp_path: Path) -> None:
    pack = tmp_path / "mine.toml"
    pack.write_text(default_text().replace('"gaming engine"', '"free download"'), encoding="utf-8")
    rules = load_rules(pack)
    result = routescope.inspect("free download of vlc", rules=rules)
    assert result.actions[0].query == "of vlc"


def test_invalid_toml_names_file_and_line(tmp_path: Path) -> None:
    pack = tmp_path / "broken.toml"
    pack.write_text('name = "x"\n[intents\n', encoding="utf-8")
    with pytest.raises(RulePackError, match=r"broken\.toml: not valid TOML: .*line 2"):
        load_rules(pack)


def test_invalid_field_names_file_line_and_field(tmp_path: Path) -> None:
    pack = tmp_path / "bad.toml"
    pack.write_text(default_text().replace("max_candidates = 6", "max_candidates = 0"))
    with pytest.raises(RulePackError) as info:
        load_rules(pack)
    message = str(info.value)
    line = default_text().splitlines().index("max_candidates = 6") + 1
    assert message.startswith(f"{pack}:{line}: field entities.max_candidates:")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('first = "{goal} near {place}"', 'first = "{goal} near"', "packs.local.first"),
        ('as_of = "as of {month} {day}, {year}"', 'as_of = "on {date}"', "sanitize.as_of"),
        ('name = "default"', 'name = "default"\nsurprise = 1', "surprise"),
    ],
)
def test_template_and_unknown_field_errors(old: str, new: str, field: str) -> None:
    with pytest.raises(RulePackError, match=rf"field {field}:"):
        parse_rules(default_text().replace(old, new), "pack.toml")


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match="cannot read rule pack"):
        load_rules(tmp_path / "nope.toml")


def test_binary_file_is_a_clear_error(tmp_path: Path) -> None:
    pack = tmp_path / "bin.toml"
    pack.write_bytes(b"\xff\xfe\x00junk")
    with pytest.raises(RulePackError, match="not UTF-8"):
        load_rules(pack)


def test_terms_are_trimmed_and_deduplicated() -> None:
    text = default_text().replace('"install", "setup"', '"  install ", "", "INSTALL", "setup"')
    assert parse_rules(text).intents.tech[:2] == ["install", "setup"]


@pytest.mark.parametrize("text", ["why does my C++ build fail", "why does my c++ build fail " * 30])
def test_keywords_with_punctuation_match_as_whole_words(text: str) -> None:
    pack = default_text().replace('"install", "setup"', '"c++", "install", "setup"')
    result = routescope.inspect(text, rules=parse_rules(pack))
    assert result.context.intent.tech
    assert any(m.keyword == "c++" for m in result.context.intent_matches)
    assert not routescope.inspect("abc++ x", rules=parse_rules(pack)).context.intent.tech


def test_a_copy_with_other_values_compiles_its_own_rules() -> None:
    rules = routescope.default_rules()
    assert routescope.inspect("best ramen", rules=rules).context.intent.purchase
    intents = rules.intents.model_copy(update={"purchase": ["cheapest"]})
    copied = rules.model_copy(update={"intents": intents})
    assert not routescope.inspect("best ramen", rules=copied).context.intent.purchase
    assert routescope.inspect("cheapest ramen", rules=copied).context.intent.purchase
    assert routescope.inspect("best ramen", rules=rules).context.intent.purchase
