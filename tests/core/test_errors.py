"""`one_line`: the one way a message becomes one safe terminal line."""

import pytest

from routescope._errors import one_line


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("plain", "plain"),
        ("a\nb", "a\\nb"),
        ("k\x1b[2J", "k\\x1b[2J"),
        ("rtl\u202eevil", "rtl\\u202eevil"),
        ("tab\there", "tab\\there"),
    ],
)
def test_control_characters_are_escaped(text: str, line: str) -> None:
    assert one_line(text) == line


def test_exceptions_give_their_message_or_their_type() -> None:
    assert one_line(ValueError("a\n  b"), collapse=True) == "a b"
    assert one_line(ValueError()) == "ValueError"


def test_a_limit_cuts_with_an_ellipsis() -> None:
    long = one_line("x" * 500, 200)
    assert len(long) == 200 and long.endswith("…")
    assert one_line("x" * 200, 200) == "x" * 200


def test_a_path_is_cut_at_its_start_and_keeps_its_file_name() -> None:
    path = "/tmp/" + "deep/" * 40 + "a.jsonl"
    cut = one_line(path, 80, keep_end=True)
    assert len(cut) == 80 and cut.startswith("…") and cut.endswith("/deep/a.jsonl")


def test_collapsing_keeps_other_controls_escaped() -> None:
    assert one_line("a \r\n\t b\x07", collapse=True) == "a b\\x07"
