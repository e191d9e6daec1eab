from pathlib import Path

import pytest

import routescope
from routescope.demo import MAX_DEMO_BYTES, DemoScript, DemoStep, read_demo
from routescope.demo._script import parse_demo


def test_one_prompt_per_line_with_captions_from_the_comment_above() -> None:
    text = (
        "# Routescope demo: header comment, not a caption\n"
        "\n"
        "# A local search\n"
        "  pizza near me  \n"
        "history of jazz\n"
        "\n"
        "# a caption cut off by a blank line\n"
        "\n"
        "## Tech docs\n"
        "How do I install FastAPI on Ubuntu?\r\n"
    )
    script = parse_demo(text, "talk.txt")
    assert script == DemoScript(
        (
            DemoStep("pizza near me", "A local search", 4),
            DemoStep("history of jazz", "", 5),
            DemoStep("How do I install FastAPI on Ubuntu?", "Tech docs", 10),
        ),
        "talk.txt",
    )
    assert len(script) == 3


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "talk.txt: the demo script is empty"),
        (" \n\t\n\u200b\n", "talk.txt: the demo script is empty"),
        ("# only\n\n# comments\n", "talk.txt: the demo script holds no prompt"),
        ("pizza\x00near me", "talk.txt: the demo script is binary"),
    ],
)
def test_scripts_without_prompts_say_so_in_one_line(text: str, said: str) -> None:
    with pytest.raises(routescope.InputError) as caught:
        parse_demo(text, "talk.txt")
    assert str(caught.value).startswith(said) and "\n" not in str(caught.value)


def test_read_demo_reads_a_file_and_names_it_in_errors(tmp_path: Path) -> None:
    good = tmp_path / "talk.txt"
    good.write_text("\ufeff# first\npizza near me\n", encoding="utf-8")
    assert read_demo(good).prompts == (DemoStep("pizza near me", "first", 2),)
    assert read_demo(good).source == str(good)
    binary = tmp_path / "image.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    big = tmp_path / "big.txt"
    with open(big, "wb") as stream:
        stream.truncate(MAX_DEMO_BYTES + 1)
    cases = {
        binary: "is not UTF-8 text",
        big: "demo script is too large",
        tmp_path / "missing.txt": "cannot read demo script",
        tmp_path: "cannot read demo script: a directory",
    }
    for path, said in cases.items():
        with pytest.raises(routescope.InputError, match=said) as caught:
            read_demo(path)
        assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)


def test_a_nul_in_utf8_text_counts_as_binary(tmp_path: Path) -> None:
    path = tmp_path / "nul.txt"
    path.write_bytes(b"pizza near me\n\x00\x00")
    with pytest.raises(routescope.InputError, match="binary"):
        read_demo(path)
