"""The README and docs/*.md say what is true: every shell command in them runs as written, the
files they name exist, and every relative link leads to a file (and heading) that is there.

Each `sh` block is run, its commands in order, in a temporary folder that looks like the
checkout (`examples/` and `resources/` linked in) with the files a reader brings themselves
(their own suite, rule pack and logs) made from the examples. `routescope …` runs as
`python -m routescope …`; `routescope-gui …` renders its window offscreen to a PNG
(`--screenshot`) instead of staying open; `make TARGET` must name a target of the Makefile. A
block that cannot run here says why in an HTML comment right above it:
`<!-- not run here: … -->`.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = "<!-- not run here:"
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")
_OPTIONAL = {".parquet": "pyarrow"}
"""A command naming the key needs the module (an optional extra): without it, it is left out."""


@dataclass(frozen=True, slots=True)
class Block:
    """A shell block of a document: where it starts and its commands, continuations joined."""

    doc: Path
    line: int
    commands: tuple[str, ...]


def _name(doc: Path) -> str:
    return str(doc.relative_to(ROOT))


def _fenced(text: str) -> list[tuple[int, str, list[str]]]:
    """Every fenced block: its first line's number, its language and its lines."""
    blocks: list[tuple[int, str, list[str]]] = []
    current: tuple[int, str, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            if current is None:
                current = (number, line[3:].strip(), [])
            else:
                blocks.append(current)
                current = None
        elif current is not None:
            current[2].append(line)
    assert current is None, "a code block is never closed"
    return blocks


def shell_blocks(doc: Path, *, every: bool = False) -> list[Block]:
    """The document's `sh` blocks that run here (none marked `<!-- not run here: … -->`), or
    `every` one of them."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    found = []
    for start, language, body in _fenced("\n".join(lines)):
        if language != "sh":
            continue
        before = [line for line in lines[: start - 1] if line.strip()]
        if before and before[-1].startswith(NOT_RUN) and not every:
            continue
        commands: list[str] = []
        pending = ""
        for raw in body:
            line = pending + raw.strip()
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            pending = ""
            command = line.split("  #", 1)[0].strip()  # a comment follows two spaces
            if command and not command.startswith("#"):
                commands.append(command)
        found.append(Block(doc, start, tuple(commands)))
    return found


RUNNABLE = [doc for doc in DOCS if shell_blocks(doc)]


def _recorded_history(data_home: Path) -> None:
    """The history a window recorded (entry 1, then a local prompt), in the user data folder
    the commands run with: what `routescope history` reads."""
    import datetime as dt

    import routescope
    from routescope.history import History

    history = History.open(data_home / "routescope" / "history.sqlite3")
    for text in ("How do I install FastAPI on Ubuntu?", "pizza near me"):
        request = routescope.Request.build(text, today=dt.date(2026, 2, 5))
        assert history.record(request, routescope.inspect(request)) is not None
    history.close()


def _reader_files(folder: Path) -> None:
    """What a reader of the docs brings: a suite and a rule pack of their own (copies of the
    examples), logs in a `logs/` folder (gzip too), a chat log and a CSV of questions, and the
    history their window recorded (in `data/`, their user data folder here)."""
    _recorded_history(folder / "data")
    for name in ("examples", "resources"):
        (folder / name).symlink_to(ROOT / name, target_is_directory=True)
    shutil.copyfile(ROOT / "examples" / "suite.yaml", folder / "my-suite.yaml")
    shutil.copyfile(ROOT / "resources" / "rules" / "default.toml", folder / "other.toml")
    records = [
        json.loads(line)
        for line in (ROOT / "examples" / "prompts.jsonl").read_text("utf-8").splitlines()
    ]
    prompts = [record["prompt"] for record in records if "prompt" in record]
    logs = folder / "logs"
    logs.mkdir()
    half = len(records) // 2
    with gzip.open(logs / "day-1.jsonl.gz", "wt", encoding="utf-8") as file:
        file.writelines(json.dumps(record) + "\n" for record in records[:half])
    (logs / "day-2.jsonl").write_text(
        "".join(json.dumps(record) + "\n" for record in records[half:]), encoding="utf-8"
    )
    chats = [
        {"id": n, "body": {"model": "any", "messages": [{"role": "user", "content": prompt}]}}
        for n, prompt in enumerate(prompts, start=1)
    ]
    (folder / "chats.jsonl").write_text(
        "".join(json.dumps(chat) + "\n" for chat in chats), encoding="utf-8"
    )
    with (folder / "questions.csv").open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["id", "question"])
        writer.writerows(enumerate(prompts, start=1))


def _make_targets() -> set[str]:
    return set(re.findall(r"^([\w.-]+):", MAKEFILE, flags=re.MULTILINE))


def _check_make(words: list[str], where: str) -> None:
    """`make TARGET [VAR=value]`: the Makefile has the target and reads the variable (make's
    targets install and open windows: they are not run here)."""
    for word in words[1:]:
        if "=" in word:
            variable = word.split("=", 1)[0]
            assert f"$({variable})" in MAKEFILE, f"{where}: the Makefile never reads {variable}"
        else:
            assert word in _make_targets(), f"{where}: no target {word!r} in the Makefile"


def _run(command: str, folder: Path, where: str) -> None:
    stdin = None
    if "|" in command:
        producer, command = (part.strip() for part in command.split("|", 1))
        words = shlex.split(producer)
        assert words[0] == "echo", f"{where}: only `echo … |` pipes are run here"
        stdin = words[1]
    words = shlex.split(command)
    program = words[0].removeprefix(".venv/bin/")
    if program == "make":
        _check_make(words, where)
        return
    for mark, module in _OPTIONAL.items():
        if mark in command and importlib.util.find_spec(module) is None:
            return  # the extra that provides it is not installed here
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "data")}
    if program == "routescope":
        argv = [sys.executable, "-m", "routescope", *words[1:]]
    elif program == "routescope-gui":
        argv = [sys.executable, "-m", "routescope_gui", *words[1:]]
        if "--self-test" not in argv and "--screenshot" not in argv:
            argv += ["--screenshot", str(folder / "window.png")]  # a window that closes itself
        env["QT_QPA_PLATFORM"] = "offscreen"
    else:
        pytest.fail(f"{where}: cannot run {command!r} here; mark its block `{NOT_RUN} why -->`")
    done = subprocess.run(
        argv, cwd=folder, input=stdin, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{where}: {command}: {done.stderr}"
    assert done.stdout.strip(), f"{where}: {command} printed nothing"


def test_the_commands_were_found() -> None:
    readme = shell_blocks(ROOT / "README.md")
    assert any(c.startswith(".venv/bin/routescope batch") for b in readme for c in b.commands)
    (reference,) = [
        block
        for block in shell_blocks(ROOT / "docs" / "cli.md")
        if block.commands[0].startswith("routescope inspect")
    ]
    assert len(reference.commands) >= 10
    for doc in ("window.md", "batch.md", "compare.md", "regress.md"):
        assert ROOT / "docs" / doc in RUNNABLE, doc


@pytest.mark.parametrize("doc", RUNNABLE, ids=_name)
def test_the_commands_of_a_document_run_as_written(doc: Path, tmp_path: Path) -> None:
    _reader_files(tmp_path)
    for block in shell_blocks(doc):
        for command in block.commands:
            _run(command, tmp_path, f"{_name(doc)}:{block.line}")


_PATH = re.compile(
    r"(?<![\w/.~-])((?:examples|resources|packaging|tests|docs)/[\w./-]+)(?![\w./<-])"
)


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_the_files_a_document_names_exist(doc: Path) -> None:
    for path in _PATH.findall(doc.read_text(encoding="utf-8")):
        assert (ROOT / path.rstrip(".")).exists(), f"{_name(doc)}: {path}"


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    """The anchors of a document's headings (outside code blocks; a repeated one numbered)."""
    text = doc.read_text(encoding="utf-8")
    inside = {
        number
        for start, _language, body in _fenced(text)
        for number in range(start, start + len(body) + 2)
    }
    names: set[str] = set()
    counts: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r"#{1,6} (.+)", line)
        if match and number not in inside:
            base = slug(match.group(1))
            count = counts.get(base, 0)
            counts[base] = count + 1
            names.add(base if count == 0 else f"{base}-{count}")
    return names


_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_relative_link_leads_somewhere(doc: Path) -> None:
    links = _LINK.findall(doc.read_text(encoding="utf-8"))
    for link in links:
        if re.match(r"[a-z]+:", link):  # https:, mailto:
            continue
        path, _, anchor = link.partition("#")
        target = (doc.parent / path).resolve() if path else doc
        assert target.exists(), f"{_name(doc)}: {link}"
        assert ROOT in target.parents, f"{_name(doc)}: {link} leaves the checkout"
        if anchor:
            assert target.suffix == ".md", f"{_name(doc)}: {link}"
            assert anchor in anchors(target), f"{_name(doc)}: no heading for {link}"


def test_the_slugs_are_githubs() -> None:
    assert slug("Measured against BFCL: `make eval`") == "measured-against-bfcl-make-eval"
    assert slug("The rule-pack editor") == "the-rule-pack-editor"
    assert slug("Themes, the command palette and shortcuts") == (
        "themes-the-command-palette-and-shortcuts"
    )
