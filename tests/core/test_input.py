import pytest

import routescope
from routescope import InputError
from tests._support import run


@pytest.mark.parametrize(
    "text", ["", "   ", "\n\t ", "\u00a0\u2003\u3000", "\u2028\u2029", "\r\n\v\f"]
)
def test_empty_input_is_a_clear_error(text: str) -> None:
    with pytest.raises(InputError, match=r"^text is empty or only whitespace$"):
        routescope.inspect(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\x07", "text is only control characters (U+0007)"),
        ("\x00", "text is only control characters (U+0000)"),
        ("\x1b", "text is only control characters (U+001B)"),
        ("\x00\x00", "text is only control characters (U+0000)"),
        ("\x1c\x1f", "text is only control characters (U+001C, U+001F)"),  # isspace() says yes
        ("\x85\x9f\x7f", "text is only control characters (U+0085, U+009F, U+007F)"),  # C1
        ("\x07\n", "text is only whitespace and control characters (U+0007)"),
        (" \x1b \x1b ", "text is only whitespace and control characters (U+001B)"),
        ("\x01\x02\x03\x04", "text is only control characters (U+0001, U+0002, U+0003, …)"),
    ],
)
def test_control_characters_alone_say_so(text: str, message: str) -> None:
    """Issue 25: a prompt of one control character is not "empty or only whitespace"."""
    with pytest.raises(InputError) as caught:
        routescope.inspect(text)
    assert str(caught.value) == message


def test_lone_surrogates_are_a_clear_error() -> None:
    with pytest.raises(InputError, match="surrogate"):
        routescope.inspect("abc \udcff")


def test_non_text_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="string"):
        routescope.inspect(b"bytes")  # type: ignore[arg-type]


def test_one_megabyte_prompt_stays_within_limits() -> None:
    """How fast is for `tests/bench/bench_scaling.py`; this checks what comes out."""
    text = ("Latest FastAPI install error near me in Denver gaming engine 2026 " * 17_000)[
        : 1 << 20
    ]
    result = run(text)
    assert all(len(a.query) <= 400 for a in result.actions)
    assert any(e.rule == "truncate" for a in result.actions for e in a.edits)
    assert result.model_dump_json()


@pytest.mark.parametrize(
    "text",
    [
        "how to fix\x00 the\x00 crash",
        "🚀🚀 launch latest SpaceX 🚀 near me",
        "東京 の ラーメン 最新 near me",
        "أفضل مطاعم في القاهرة latest",
        "‏שלום‎ install API",
        "a" * 100_000,
        "a." * 50_000 + "!",
        "A" * 50_000 + " " + "B-" * 20_000,
        "Aa " * 30_000,
        "https://" + "x" * 100_000,
        "(((((((" * 10_000 + ")))",
        "in " + "Austin " * 20_000,
        "near me " * 20_000,
        "\ufeffBOM install",
        "İstanbul near me",
        "ﬁx the crash",
    ],
)
def test_strange_input_never_crashes(text: str) -> None:
    result = run(text)
    assert result.actions
    assert result.model_dump_json()
    assert all(0 < len(a.query) <= 400 for a in result.actions)


def test_non_latin_entities_and_places_keep_their_spans() -> None:
    text = "Лучшие рестораны near Москва and in Zürich"
    ctx = run(text).context
    assert ctx.entities.place_hint == "Москва"
    for entity in ctx.entities.details:
        assert text[entity.start : entity.end] == entity.text


@pytest.mark.parametrize(
    "text",
    [
        "\u200b\u200b",  # zero-width spaces
        "\ufeff",  # byte-order mark
        "\ufeff\u200b \u200c\u200d\u2060",  # and joiners, word joiner
        "\u3164\u115f\u1160\uffa0",  # Hangul fillers
        "\u2800",  # braille blank
        "\u200e\u200f\u202a\u202e\u2066",  # direction marks and embeddings
        "\U000e0001\U000e0041",  # tag characters
        "\ufe0f\u034f",  # a variation selector, the grapheme joiner
        "\x07\u200b",  # a control character and a zero-width space
    ],
)
def test_invisible_input_is_empty(text: str) -> None:
    """F27: a prompt nobody can see is rejected like an empty one, and (issue 25) the message
    says what it holds: only invisible characters, the first ones named by code point. (Only
    white space, such as no-break or ideographic spaces, is still "empty or only whitespace",
    and only control characters say so: the tests above.)"""
    with pytest.raises(InputError, match=r"^text is only invisible characters \(U\+[0-9A-F]{4,5}"):
        routescope.inspect(text)


def test_invisible_characters_are_named_in_order() -> None:
    with pytest.raises(InputError) as caught:
        routescope.inspect("\ufeff\u200b \u200b\u3164\u2060")
    assert str(caught.value) == "text is only invisible characters (U+FEFF, U+200B, U+3164, …)"


@pytest.mark.parametrize("text", ["\u200bx", "\ufeff東京", "🚀\ufe0f", "\u3164ㄱ", "\u00ad-"])
def test_one_visible_character_is_enough(text: str) -> None:
    assert run(text).actions
