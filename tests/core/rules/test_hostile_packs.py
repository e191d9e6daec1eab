"""Hostile rule packs (F3, F4, F11, F18, F19, F27): every problem is found when the pack is
loaded and reported as one line naming the file, the line and the field; nothing a pack holds
can crash, hang or slow down a prompt later."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import routescope
from routescope import RulePackError, load_rules, parse_rules
from routescope.rules import default_rules_text
from routescope.rules._base import MAX_TERM_CHARS, require_placeholders
from routescope.rules._toml import MAX_RULE_PACK_BYTES, _assigns, _header, _line_of
from tests._support import run

DEFAULT = default_rules_text()


def line_of(text: str, needle: str) -> int:
    return text.split("\n").index(needle) + 1


def pack_error(text: str, source: str = "pack.toml") -> str:
    with pytest.raises(RulePackError) as caught:
        parse_rules(text, source)
    message = str(caught.value)
    assert "\n" not in message and message.isprintable(), message
    return message


# --- F18: templates are checked when the pack is loaded ----------------------------------------

_TEMPLATES = {
    "packs.general.first": 'first = "{goal}"',
    "packs.local.first": 'first = "{goal} near {place}"',
    "packs.local.second": 'second = "{goal} hours reviews"',
    "packs.tech.docs": 'docs = "site:docs.* {entity} (install OR docs OR getting started)"',
    "packs.tech.safety": 'safety = "{goal} (security OR sandbox OR permissions)"',
    "sanitize.as_of": 'as_of = "as of {month} {day}, {year}"',
}
_BAD_TEMPLATES = [
    ("{NAME} {", "braces do not pair up"),
    ("{NAME} }", "braces do not pair up"),
    ("{NAME", "braces do not pair up"),
    ("{NAME!}", "braces do not pair up"),
    ("{NAME:>999999}", "format specs and conversions are not allowed"),
    ("{NAME:>9999999999999999999}{NAME}", "format specs and conversions are not allowed"),
    ("{NAME:{NAME}}{NAME}", "format specs and conversions are not allowed"),
    ("{NAME!r}", "format specs and conversions are not allowed"),
    ("{NAME.__class__}{NAME}", "attribute and index access are not allowed"),
    ("{NAME[0]}{NAME}", "attribute and index access are not allowed"),
    ("{} {NAME}", "unknown placeholder '{}'"),
    ("{0} {NAME}", "unknown placeholder '{0}'"),
]


@pytest.mark.parametrize("field", list(_TEMPLATES))
@pytest.mark.parametrize(("template", "problem"), _BAD_TEMPLATES)
def test_a_broken_template_is_refused_at_load(field: str, template: str, problem: str) -> None:
    line = _TEMPLATES[field]
    name = re.findall(r"{(\w+)}", line)[0]
    prefix = "as of " if field == "sanitize.as_of" else ""
    bad = line.split(" = ")[0] + ' = "' + prefix + template.replace("NAME", name) + '"'
    text = DEFAULT.replace(line, bad)
    message = pack_error(text)
    assert message.startswith(f"pack.toml:{line_of(text, bad)}: field {field}: ")
    assert problem in message


def test_escaped_braces_are_literal_braces() -> None:
    text = DEFAULT.replace('first = "{goal}"', 'first = "{{{goal}}} {{x}}"')
    queries = [a.query for a in run("history of jazz", rules=parse_rules(text)).actions]
    assert queries[0] == "{history of jazz} {x}"


def test_every_template_field_is_a_bare_allowed_name() -> None:
    assert require_placeholders("a {x} {{b}} {y}", {"x", "y"}, {"x"}) == "a {x} {{b}} {y}"
    with pytest.raises(ValueError, match=r"must contain \{x\}"):
        require_placeholders("a {y}", {"x", "y"}, {"x"})


# --- F19, F27: deep nesting, numbers, invisible and control characters ------------------------


@pytest.mark.parametrize(
    "extra",
    [
        "x = " + "[" * 100_000 + "]" * 100_000,
        "x = " + "{ a = " * 3_000 + "1" + " }" * 3_000,
        "x = " + "[" * 400 + "]" * 400,
    ],
)
def test_deep_nesting_is_one_line(extra: str) -> None:
    message = pack_error(DEFAULT + "\n" + extra + "\n")
    assert message.startswith("pack.toml")


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("word = 1.0", "word = nan", "entities.weights.word"),
        ("word = 1.0", "word = inf", "entities.weights.word"),
        ("word = 1.0", "word = -inf", "entities.weights.word"),
        ("word = 1.0", "word = 1e400", "entities.weights.word"),
        ("max_candidates = 6", "max_candidates = inf", "entities.max_candidates"),
    ],
)
def test_weights_must_be_finite(old: str, new: str, field: str) -> None:
    text = DEFAULT.replace(old, new, 1)
    message = pack_error(text)
    assert message.startswith(f"pack.toml:{line_of(text, new)}: field {field}: ")


def test_argument_limits_must_be_finite() -> None:
    text = DEFAULT + '\n[[contract.arg_rules]]\nphrase = "x"\nargs = { amount = nan }\n'
    assert "contract.arg_rules" in pack_error(text)


def test_a_number_with_too_many_digits_is_one_line() -> None:
    message = pack_error(DEFAULT.replace("max_candidates = 6", "max_candidates = " + "9" * 5000))
    assert message.startswith("pack.toml: not valid TOML: ")


def test_control_characters_in_keys_stay_on_one_line() -> None:
    message = pack_error(DEFAULT + '\n"a\\nb\\u001b]0;x\\u0007" = 1\n')
    assert "a\\nb\\x1b]0;x\\x07" in message


def test_a_byte_order_mark_is_not_a_syntax_error(tmp_path: Path) -> None:
    assert parse_rules("\ufeff" + DEFAULT).name == "default"
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + DEFAULT.encode())
    assert load_rules(path).name == "default"


# --- F4: keywords are short; long ones are refused, not slowly compiled ------------------------


def test_a_keyword_longer_than_the_limit_is_refused() -> None:
    long = "ab " * 100_000
    text = DEFAULT.replace('tech = ["install"', f'tech = ["{long}", "install"')
    message = pack_error(text)
    assert message.startswith("pack.toml:")
    assert "field intents.tech: " in message
    assert f"at most {MAX_TERM_CHARS}" in message and len(message) < 300


def test_many_three_word_phrases_load_and_match() -> None:
    phrases = ", ".join(f'"w{i} x{i % 97} y{i % 89}"' for i in range(20_000))
    rules = parse_rules(DEFAULT.replace('tech = ["install"', f'tech = [{phrases}, "install"'))
    last = f"w19999 x{19_999 % 97} y{19_999 % 89}"
    result = run(f"see {last.upper()} please", rules=rules)
    assert [m.keyword for m in result.context.intent_matches] == [last]


# --- F3: the line of an error is found in one pass ----------------------------------------------


def test_a_line_of_brackets_does_not_stall_the_error_line() -> None:
    text = DEFAULT.replace(
        'description = "Seed 000 strategy router: general / local / tech"',
        'description = """\n' + "[" * 100_000 + '\n"""',
    ).replace("max_candidates = 6", 'max_candidates = "x"')
    message = pack_error(text)
    line = line_of(text, 'max_candidates = "x"')
    assert message.startswith(f"pack.toml:{line}: field entities.max_candidates: ")


def test_the_line_is_found_for_tables_and_quoted_keys() -> None:
    text = 'name = "x"\n[a.b]\n"c" = 1\n[[d]]\ne = 2\n'
    assert _line_of(text, ("b", "c")) == 3
    assert _line_of(text, ("d", 0, "e")) == 5
    assert _line_of(text, ("name",)) == 1
    assert _line_of(text, ("z",)) is None


_LINE_PIECES = st.sampled_from(["[", "]", "[[", "]]", " ", "\t", "a", "b.c", '"', "=", "x"])


@given(st.lists(_LINE_PIECES, max_size=12).map("".join), st.sampled_from(["a", "x", "b.c", ""]))
def test_line_helpers_agree_with_the_former_patterns(line: str, key: str) -> None:
    stripped = line.strip()
    header = re.match(r"\[+\s*([^\]]+?)\s*\]+$", stripped)
    assert _header(stripped) == (header.group(1) if header else None)
    assert _assigns(stripped, key) == bool(re.match(rf'"?{re.escape(key)}"?\s*=', stripped))


# --- F11: packs are read with a size limit and a type check -------------------------------------


def test_a_pack_that_is_a_directory_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match=r"cannot read rule pack: a directory$"):
        load_rules(tmp_path)


def test_a_huge_pack_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    with path.open("wb") as stream:
        stream.truncate(MAX_RULE_PACK_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(RulePackError, match=r"huge\.toml: rule pack is too large"):
        load_rules(path)


def test_a_pack_that_is_a_fifo_without_writer_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("routescope._files.STREAM_DEADLINE_S", 0.2)
    fifo = tmp_path / "pack.toml"
    os.mkfifo(fifo)
    with pytest.raises(RulePackError) as caught:
        load_rules(fifo)
    assert str(caught.value).startswith(f"{fifo}: ") and "\n" not in str(caught.value)


def test_a_path_with_a_newline_stays_on_one_line(tmp_path: Path) -> None:
    with pytest.raises(RulePackError) as caught:
        load_rules(tmp_path / "a\nb.toml")
    assert "a\\nb.toml: cannot read rule pack" in str(caught.value)


def test_the_request_reads_packs_the_same_way(tmp_path: Path) -> None:
    with pytest.raises(RulePackError, match="a directory"):
        routescope.Request.build("x", rules=tmp_path)


# --- hypothesis: random mutations of the built-in pack ------------------------------------------

_LINES = DEFAULT.split("\n")
_ELIGIBLE = {
    "string": [i for i, line in enumerate(_LINES) if '"' in line and not line.startswith("#")],
    "number": [i for i, line in enumerate(_LINES) if re.search(r"^\w+ = -?[0-9]", line)],
    "key": [i for i, line in enumerate(_LINES) if line.startswith("[")],  # after a header
    "line": list(range(len(_LINES))),
    "raw": list(range(len(_LINES))),
}
_MUTATIONS = st.sampled_from(
    [
        "{",
        "}",
        "{{",
        "{goal",
        "{goal:>99999999}",
        "{goal!r}",
        "{goal.__class__}",
        "{goal[0]}",
        "{}",
        "{month:{day}}",
        "nan",
        "inf",
        "-inf",
        "1e400",
        "9" * 5000,
        "-" + "9" * 30,
        "[" * 2000,
        "]" * 3,
        "{ a = " * 50,
        '"\\u0000"',
        '"\\u001b[2J"',
        '"\\n"',
        "\x00",
        "\x1b",
        "\u2028",
        "\ufeff",
        "ab " * 200,
        '"' + "ab " * 200 + '"',
        '""',
        "true",
        "[]",
        "{}",
        "=",
        "#",
        "'''",
        '"""',
        "\\",
    ]
)


_NUMBERS = st.sampled_from(
    ["nan", "inf", "-inf", "1e400", "-1e400", "9" * 5000, "-" + "9" * 30, "0", "-1", "1.5", "0x7f"]
)
_IN_STRINGS = st.sampled_from(
    [
        "{",
        "}",
        "{{",
        "}}",
        "{goal",
        "{goal:>99999999}",
        "{goal!r}",
        "{goal.__class__}",
        "{goal[0]}",
        "{}",
        "{0}",
        "{month:{day}}",
        "{place}",
        "{entity}",
        "{year}",
        "ab " * 100,
        "\x00",
        "\x1b[2J",
        "\n",
        "\u2028",
        "\ufeff",
        "\u200b",
        "\t",
        "\\",
        "é",
        "🚀",
    ]
)


def _toml_string(text: str) -> str:
    """`text` escaped for the inside of a TOML basic string."""
    return "".join(
        f"\\u{ord(char):04x}" if char in '"\\' or not char.isprintable() else char for char in text
    )


@st.composite
def mutated_pack(draw: st.DrawFn) -> str:
    """The built-in pack with a few random edits: some break the TOML, most keep it valid and
    put something strange in a string, a number or a key."""
    lines = list(_LINES)
    for _ in range(draw(st.integers(1, 4))):
        how = draw(st.sampled_from(["string"] * 4 + ["number"] * 2 + ["key", "line", "raw"]))
        index = draw(st.sampled_from(_ELIGIBLE[how]))
        line = lines[index]
        if how == "string":  # after an opening quote
            quotes = [m.start() for m in re.finditer('"', line)][::2] or [-1]
            at = draw(st.sampled_from(quotes)) + 1
            line = line[:at] + _toml_string(draw(_IN_STRINGS)) + line[at:]
        elif how == "number":
            line = line.split(" = ", 1)[0] + " = " + draw(_NUMBERS)
        elif how == "key":
            line = f'{line}\n"k{_toml_string(draw(_IN_STRINGS))}" = 1'
        elif how == "line":
            line = f"{line}\n{draw(_MUTATIONS)}"
        else:
            cut = draw(st.integers(0, len(line)))
            line = line[:cut] + draw(_MUTATIONS) + line[cut:]
        lines[index] = line
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_pack())
def test_a_mutated_pack_loads_or_fails_with_one_line(text: str) -> None:
    try:
        rules = parse_rules(text, "fuzz.toml")
    except RulePackError as exc:
        message = str(exc)
        assert message.startswith("fuzz.toml")
        assert "\n" not in message and message.isprintable()
        return
    # A pack that loads can be used: its templates and weights cannot fail later.
    for prompt in ("Latest FastAPI install error near Denver", "history of jazz", "pizza near me"):
        result = run(prompt, rules=rules)
        assert result.actions
