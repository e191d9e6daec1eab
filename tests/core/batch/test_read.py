"""Reading logs: files and globs, formats, fields and chat logs, bad-line reasons, and byte
ranges that always begin and end at record boundaries."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routescope.batch import BatchError
from routescope.batch._read import (
    InputFile,
    Position,
    csv_column,
    expand_inputs,
    plan_partitions,
)
from routescope.batch._records import BadLineError, iter_records, prompt_of

LIMIT = 1 << 20


def jsonl(data: bytes, field: str | None = None) -> str:
    path = tuple(field.split(".")) if field else None
    return prompt_of(data, "jsonl", field=path, column=None, first_of_file=False)


def bad_reason(data: bytes, fmt: str = "jsonl", field: str | None = None) -> str:
    path = tuple(field.split(".")) if field else None
    with pytest.raises(BadLineError) as caught:
        prompt_of(data, fmt, field=path, column=0, first_of_file=False)  # type: ignore[arg-type]
    return str(caught.value)


# -- files --------------------------------------------------------------------------------


def test_globs_expand_sorted_once_each_and_formats_come_from_names(tmp_path: Path) -> None:
    for name in ("b.jsonl", "a.csv", "c.txt", "d.ndjson"):
        (tmp_path / name).write_text("x\n")
    (tmp_path / "e.jsonl.gz").write_bytes(gzip.compress(b'"x"\n'))
    (tmp_path / "zipped.log").write_bytes(gzip.compress(b"x\n"))  # gzip told by its bytes
    (tmp_path / "sub").mkdir()  # a folder a glob matches is skipped
    files = expand_inputs([str(tmp_path / "*"), str(tmp_path / "b.jsonl")])
    assert [Path(f.source).name for f in files] == [
        "a.csv",
        "b.jsonl",
        "c.txt",
        "d.ndjson",
        "e.jsonl.gz",
        "zipped.log",
    ]
    assert [(f.format, f.gzip) for f in files] == [
        ("csv", False),
        ("jsonl", False),
        ("text", False),
        ("jsonl", False),
        ("jsonl", True),
        ("text", True),
    ]
    assert all(os.path.isabs(f.path) for f in files)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: str(d / "missing.jsonl"), "no such file"),
        (lambda d: str(d / "*.nothing"), "no file matches"),
        (lambda d: str(d), "a directory"),
        (lambda d: "/dev/zero", "a character device"),
        (lambda d: (os.mkfifo(d / "f.jsonl"), str(d / "*.jsonl"))[1], "a FIFO"),
        (lambda d: (os.symlink("/dev/zero", d / "z.txt"), str(d / "*.txt"))[1], "device"),
        (lambda d: "", "empty string"),
    ],
)
def test_what_is_not_a_readable_file_is_refused_with_one_line(
    tmp_path: Path, make: object, message: str
) -> None:
    pattern = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(BatchError, match=message) as caught:
        expand_inputs([pattern])
    assert "\n" not in str(caught.value)


# -- prompts ------------------------------------------------------------------------------


def test_json_records_give_their_prompt_from_the_usual_fields_or_a_dotted_path() -> None:
    assert jsonl(b'"just text"\n') == "just text"
    assert jsonl(b'{"prompt": "p", "text": "t"}') == "p"
    assert jsonl(b'{"query": "q", "id": 1}') == "q"
    assert jsonl(b'{"request": {"body": ["a", {"q": "deep"}]}}', "request.body.1.q") == "deep"
    assert jsonl(b'{"request": {"body": ["a", "last"]}}', "request.body.-1") == "last"
    assert jsonl(b'{"prompt": "x\\u0000y"}') == "x\x00y"  # an escaped NUL is text


def test_chat_logs_give_the_last_user_message() -> None:
    chat = {
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": "an answer"},
            {"role": "user", "content": [{"type": "text", "text": "second"}, {"type": "image"}]},
            {"role": "assistant", "content": "another"},
        ]
    }
    assert jsonl(json.dumps(chat).encode()) == "second"
    assert jsonl(json.dumps({"body": chat}).encode(), "body") == "second"
    assert jsonl(json.dumps({"input": chat["messages"][:2]}).encode()) == "first question"
    only_system = {"messages": [{"role": "system", "content": "x"}]}
    assert bad_reason(json.dumps(only_system).encode()) == "no user message in the chat"
    image = {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}
    assert bad_reason(json.dumps(image).encode()) == "the last user message has no text"


@pytest.mark.parametrize(
    ("data", "fmt", "field", "reason"),
    [
        (b"not json\n", "jsonl", None, "invalid JSON: Expecting value"),
        (b"[" * 10_000 + b"]" * 10_000, "jsonl", None, "invalid JSON: nested too deeply"),
        (b"[" + b"1" * 5000 + b"]", "jsonl", None, "invalid JSON: Exceeds the limit"),
        (b'{"other": 1}', "jsonl", None, "no prompt field (looked for messages, prompt"),
        (b'{"a": {"b": 1}}', "jsonl", "a.c", "no field a.c"),
        (b'{"a": {"b": 1}}', "jsonl", "a.b", "field a.b is a JSON number, not text or a chat"),
        (b"[1, 2]", "jsonl", None, "a JSON array, not an object or a string"),
        (b'{"prompt": "   "}', "jsonl", None, "text is empty or only whitespace"),
        (b'{"prompt": "\\u200b\\u200b"}', "jsonl", None, "text is only invisible characters"),
        (b'{"prompt": "\\u0007"}', "jsonl", None, "text is only control characters (U+0007)"),
        (b'{"prompt": "\\u0000"}', "jsonl", None, "text is only control characters (U+0000)"),
        (b"\x1b\n", "text", None, "text is only control characters (U+001B)"),
        (b'"\x07",1\n', "csv", None, "text is only control characters (U+0007)"),
        (b'{"prompt": "\\ud800"}', "jsonl", None, "text is not valid Unicode (lone surrogate"),
        (b"\n", "jsonl", None, "empty line"),
        (b"   \r\n", "text", None, "empty line"),
        (b"abc\x00def\n", "text", None, "binary data (a NUL byte)"),
        (b"caf\xe9\n", "text", None, "not UTF-8 text (invalid byte at offset 3)"),
        (b'1,"a\x00b"\n', "csv", None, "binary data (a NUL byte)"),
    ],
)
def test_bad_records_say_why(data: bytes, fmt: str, field: str | None, reason: str) -> None:
    assert bad_reason(data, fmt, field).startswith(reason)


def test_text_lines_keep_their_text_and_drop_the_line_break_and_a_leading_bom() -> None:
    text = prompt_of(
        b"\xef\xbb\xbfhello there\r\n", "text", field=None, column=None, first_of_file=True
    )
    assert text == "hello there"
    later = prompt_of(b"  spaced  \n", "text", field=None, column=None, first_of_file=False)
    assert later == "  spaced  "


_LINE = st.sampled_from(
    ["", "a", "ab,cd", ",", '"q"', '"', '""', '"open', 'x"y', ',"', '",', "é", "\r", "long" * 30]
)


# -- CSV ----------------------------------------------------------------------------------


def _csv(tmp_path: Path, text: str, name: str = "log.csv") -> InputFile:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return expand_inputs([str(path)])[0]


def test_csv_columns_are_found_by_name_or_named_with_field(tmp_path: Path) -> None:
    file = _csv(tmp_path, "id,Prompt,lang\n1,hello,en\n")
    column = csv_column(file, None, LIMIT)
    assert (column.index, column.name, column.data_start, column.header_lines) == (
        1,
        "Prompt",
        15,
        1,
    )
    assert csv_column(file, "lang", LIMIT).index == 2
    assert csv_column(file, "LANG", LIMIT).index == 2
    assert csv_column(_csv(tmp_path, "only\nx\n", "one.csv"), None, LIMIT).index == 0
    with pytest.raises(BatchError, match=r"which column holds the prompt\? \(columns: a, b\)"):
        csv_column(_csv(tmp_path, "a,b\n1,2\n", "two.csv"), None, LIMIT)
    with pytest.raises(BatchError, match="no column 'nope'"):
        csv_column(file, "nope", LIMIT)
    with pytest.raises(BatchError, match="header row cannot be read: binary data"):
        csv_column(_csv(tmp_path, "a\x00,b\n", "nul.csv"), None, LIMIT)


def test_quoted_csv_fields_span_lines_and_records_keep_their_first_line() -> None:
    data = b'a,"one\nstill one",x\nb,two,y\nc,"three ""quoted""\n\nend",z\n'
    records = list(iter_records(io.BytesIO(data), delimiter=ord(","), limit=LIMIT))
    assert [(first, lines) for first, lines, *_ in records] == [(1, 2), (3, 1), (4, 3)]
    texts = [
        prompt_of(record[3], "csv", field=None, column=1, first_of_file=False) for record in records
    ]
    assert texts == ["one\nstill one", "two", 'three "quoted"\n\nend']


def test_a_stray_quote_inside_an_unquoted_field_is_a_plain_character() -> None:
    data = b'1,5" screen for sale\n2,best ramen\n3,"quoted, with ""escapes"" and\nlines"\n'
    records = list(iter_records(io.BytesIO(data), delimiter=ord(","), limit=LIMIT))
    assert [(first, lines) for first, lines, *_ in records] == [(1, 1), (2, 1), (3, 2)]
    texts = [prompt_of(r[3], "csv", field=None, column=1, first_of_file=False) for r in records]
    assert texts == ['5" screen for sale', "best ramen", 'quoted, with "escapes" and\nlines']


@settings(max_examples=150)
@given(rows=st.lists(st.lists(_LINE, max_size=4).map("".join), max_size=12))
def test_csv_records_are_the_rows_pythons_csv_module_reads(rows: list[str]) -> None:
    """Line breaks are \\n (or \\r\\n): a lone \\r, which the module also ends a row
    at, is a character like any other here."""
    text = "\n".join(row.replace("\r", "") for row in rows) + "\n"
    try:
        expected = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error:
        return  # not CSV the module reads (a quoted field open at the end of the file)
    data = text.encode()
    records = list(iter_records(io.BytesIO(data), delimiter=ord(","), limit=LIMIT))
    found = [row for r in records for row in csv.reader(io.StringIO(r[3].decode(), newline=""))]
    assert found == expected


def test_an_over_long_record_is_skipped_in_bounded_reads_and_gives_its_first_bytes() -> None:
    data = b"short\n" + b"x" * 50_000 + b"\nafter\n"
    records = list(iter_records(io.BytesIO(data), delimiter=None, limit=1000))
    assert [(first, size, over) for first, _, size, _, over in records] == [
        (1, 6, None),
        (2, 50_001, "over-long"),
        (3, 6, None),
    ]
    assert records[1][3] == b"x" * 480  # an excerpt's worth, not the line


# -- partitions ---------------------------------------------------------------------------


def _delimiter(quoted: bool) -> int | None:
    return ord(",") if quoted else None


def _sequential(file: InputFile, start: int, quoted: bool, limit: int) -> list[tuple[int, bytes]]:
    with open(file.path, "rb") as stream:
        stream.seek(start)
        return [
            (first, data)
            for first, _, _, data, _ in iter_records(
                stream, delimiter=_delimiter(quoted), limit=limit
            )
        ]


def _partitioned(
    file: InputFile, block: int, column_start: int, quoted: bool, limit: int
) -> list[tuple[int, bytes]]:
    from routescope.batch._read import Column

    columns = {0: Column(0, "", column_start, 0)} if quoted else {}
    found: list[tuple[int, bytes]] = []
    line_base = 0
    position = column_start
    for part in plan_partitions([file], columns, Position(), block, limit):
        assert part.start == position  # the partitions tile the file
        position = part.end
        with open(file.path, "rb") as stream:
            stream.seek(part.start)
            last = 0
            for first, lines, _, data, _ in iter_records(
                stream, delimiter=_delimiter(quoted), limit=limit, budget=part.end - part.start
            ):
                found.append((line_base + first, data))
                last = first + lines - 1
            assert stream.tell() == part.end  # nothing read past the range
        line_base += last
    assert position == file.size
    return found


@settings(max_examples=60)
@given(
    lines=st.lists(st.lists(_LINE, max_size=4).map("".join), max_size=25),
    block=st.integers(1, 60),
    quoted=st.booleans(),
    ending=st.booleans(),
)
def test_byte_ranges_give_the_records_a_sequential_read_gives(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[str],
    block: int,
    quoted: bool,
    ending: bool,
) -> None:
    folder = tmp_path_factory.mktemp("ranges")
    name = "log.csv" if quoted else "log.jsonl"
    text = "\n".join(lines) + ("\n" if ending and lines else "")
    path = folder / name
    path.write_bytes(text.encode())
    file = expand_inputs([str(path)])[0]
    limit = 64
    assert _partitioned(file, block, 0, quoted, limit) == _sequential(file, 0, quoted, limit)


def test_gzip_is_read_by_the_driver_into_partitions_of_records(tmp_path: Path) -> None:
    rows = [f'{{"prompt": "p{i}"}}' for i in range(40)]
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(("\n".join(rows) + "\n").encode()))
    file = expand_inputs([str(path)])[0]
    parts = list(plan_partitions([file], {}, Position(), 100, LIMIT))
    assert len(parts) > 3
    assert sum(p.lines for p in parts) == 40
    assert sum(p.progress for p in parts) == file.size
    assert all(p.items is not None for p in parts)
    seen = [data for p in parts for _, data, _ in p.items or ()]
    assert [d.decode().strip() for d in seen] == rows
    later = list(plan_partitions([file], {}, Position(0, parts[2].start, 0), 100, LIMIT))
    assert [p.start for p in later] == [p.start for p in parts[2:]]  # resumes mid-file


def test_truncated_gzip_ends_in_one_bad_item_and_the_file_is_done(tmp_path: Path) -> None:
    whole = gzip.compress(b"".join(b"prompt number %d\n" % i for i in range(2000)))
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(whole[: len(whole) // 2])
    file = expand_inputs([str(path)])[0]
    parts = list(plan_partitions([file], {}, Position(), 1 << 20, LIMIT))
    last = parts[-1].items[-1]  # type: ignore[index]
    assert last[2] is not None and last[2].startswith("gzip data broke off")
    assert list(plan_partitions([file], {}, Position(0, parts[-1].end, 0), 1 << 20, LIMIT)) == []
