import pytest

import routescope
from routescope import InputError
from tests._support import run


@pytest.mark.parametrize("text", ["", "   ", "\n\t ", "\x00\x00", "\x1b"])
def test_empty_input_is_a_clear_error(text: str) -> None:
    with pytest.raises(InputError, match="empty"):
        routescope.inspect(text)


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
