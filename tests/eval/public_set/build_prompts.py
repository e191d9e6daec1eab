"""Build `prompts.jsonl`, the unlabelled public prompt set, from the raw source files.

Run offline, given the directory the raw files were copied into (layout in SOURCES.md):

    python resources/labelled/public/build_prompts.py RAW_DIR [-o prompts.jsonl]

For each source the script reads every candidate prompt with its own id, drops the ones that
are empty, longer than 1,000 characters or not mostly English, sorts the rest by id, shuffles
them with `random.Random(26)` and takes them in that order until the source's quota is met,
skipping any prompt already taken (from this or an earlier source) once case and white space
are folded. Prompt text is kept exactly as the source gives it.

Each prompt's part is fixed by its own id alone: `tune` when the first byte of
sha256("<source>:<source id>") is even, else `heldout`; so a prompt never changes part when
the sampling changes.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import pickle
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PUBLIC = Path(__file__).resolve().parents[3] / "resources" / "labelled" / "public"
"""Where the public set lives in the checkout."""
SEED = 26
MAX_CHARS = 1000

# Common function words: a prompt with two or more of the foreign ones, and more of them than
# English ones, is taken as not English (scripts other than Latin are caught by the ASCII test).
# Words that are also common in English prompts ("per", "non", "y" as a variable) are left out.
_EN_TEXT = (
    "the a an of to in is are was and for on with what how i you my me it this that be do "
    "can from by at or as which who when where why will would please your not does have has "
    "there if about get find show set"
)
_FOREIGN_TEXT = (
    "el la los las que en por para con una es del al como pero más der die das und ist "
    "nicht ich mit ein eine zu auf le les des et est pour une du pas dans sur il che di "
    "della sono não em um uma com os ao se je wie het een"
)
_EN_WORDS = frozenset(_EN_TEXT.split())
_FOREIGN_WORDS = frozenset(_FOREIGN_TEXT.split())
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True)
class Candidate:
    """One prompt as a source gives it, with the source's own id."""

    source_id: str
    prompt: str


@dataclass(frozen=True)
class Source:
    """A source: its key, how many prompts to draw, and how to read its candidates."""

    key: str
    quota: int
    read: Callable[[Path], Iterator[Candidate]]


def is_mostly_english(text: str) -> bool:
    """Whether `text` is written mostly in English (a cheap script and function-word test)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return True  # numbers and symbols only ("10-4", "15+20"): nothing that is not English
    if sum(c.isascii() for c in letters) / len(letters) < 0.9:
        return False
    words = [w.casefold() for w in _WORD.findall(text)]
    foreign = sum(w in _FOREIGN_WORDS for w in words)
    english = sum(w in _EN_WORDS for w in words)
    return not (foreign >= 2 and foreign > english)


def fold(text: str) -> str:
    """The de-duplication key: case folded, runs of white space made one space."""
    return " ".join(text.casefold().split())


def part_of(source: str, source_id: str) -> str:
    """`tune` when sha256("<source>:<source id>")'s first byte is even, else `heldout`."""
    digest = hashlib.sha256(f"{source}:{source_id}".encode()).digest()
    return "tune" if digest[0] % 2 == 0 else "heldout"


# --- readers, one per source -------------------------------------------------------------


def read_nq_open(raw: Path) -> Iterator[Candidate]:
    """NQ-open dev split: one JSON object per line, `question`; id is `file:line` (1-based)."""
    path = raw / "nq-open" / "NQ-open.dev.jsonl"
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            yield Candidate(f"NQ-open.dev.jsonl:{number}", json.loads(line)["question"])


def read_clinc150(raw: Path) -> Iterator[Candidate]:
    """CLINC150 `data_full.json`, its `test` and `oos_test` lists of [text, intent] pairs;
    id is `<list>/<0-based index>`."""
    data = json.loads((raw / "clinc150" / "data_full.json").read_text(encoding="utf-8"))
    for split in ("test", "oos_test"):
        for index, (text, _intent) in enumerate(data[split]):
            yield Candidate(f"{split}/{index}", text)


def read_hwu64(raw: Path) -> Iterator[Candidate]:
    """HWU64 cross-validation fold 1 test set, one `;`-separated CSV per intent; the prompt is
    `answer_from_user` (the text as the user wrote it); id is `<scenario>_<intent>/<answerid>`
    (the source's `answerid` repeats across intents). The three rows whose `answerid` is `null`
    (and whose user text is `xxx` or `null`) are left out."""
    for path in sorted((raw / "hwu64" / "testset_csv").glob("*.csv")):
        rows = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")), delimiter=";")
        for row in rows:
            if not row["answerid"].isdigit():
                continue
            intent = f"{row['scenario']}_{row['intent']}"
            yield Candidate(f"{intent}/{row['answerid']}", row["answer_from_user"])


def read_snips(raw: Path) -> Iterator[Candidate]:
    """SNIPS 2017-06 custom-intent-engines `train_<Intent>.json` and `validate_<Intent>.json`
    (not the `_full` files); the prompt is the concatenation of an utterance's `data` segments
    (how the source splits one utterance into slots); id is `<Intent>/<file>:<0-based index>`.
    """
    base = raw / "snips" / "2017-06-custom-intent-engines"
    for path in sorted(base.glob("*/*.json")):
        if path.stem.endswith("_full"):
            continue
        intent = path.parent.name
        utterances = json.loads(path.read_text(encoding="utf-8"))[intent]
        for index, utterance in enumerate(utterances):
            text = "".join(segment["text"] for segment in utterance["data"])
            yield Candidate(f"{intent}/{path.name}:{index}", text)


BFCL_LIVE_SETS = (
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_relevance",
    "live_irrelevance",
)


def read_bfcl_live(raw: Path) -> Iterator[Candidate]:
    """BFCL v4 live question files (user-contributed requests); the prompt is the user
    messages of the first turn joined by a newline (system messages left out), as the
    project's own BFCL eval builds queries; id is BFCL's `id`."""
    base = raw / "bfcl" / "bfcl_eval" / "data"
    for name in BFCL_LIVE_SETS:
        path = base / f"BFCL_v4_{name}.json"
        for line in path.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            record: dict[str, Any] = json.loads(line)
            turns = record.get("question") or [[]]
            text = "\n".join(
                str(message["content"])
                for message in turns[0]
                if message.get("role") == "user" and message.get("content")
            )
            yield Candidate(str(record["id"]), text)


class _DataOnlyUnpickler(pickle.Unpickler):
    """Reads plain data (dicts, ints, strings) only; refuses any class or function."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused global {module}.{name}")


def read_staqc_sql(raw: Path) -> Iterator[Candidate]:
    """StaQC SQL "how-to-do-it" questions (multi-code answers): a Python 2 pickle of
    {question id: title}; id is the Stack Overflow question id."""
    path = raw / "staqc" / "sql_how_to_do_it_by_classifier_multiple_qid_to_title.pickle"
    titles = _DataOnlyUnpickler(io.BytesIO(path.read_bytes()), encoding="latin1").load()
    for qid, title in sorted(titles.items()):
        yield Candidate(str(qid), str(title))


def read_arena_hard(raw: Path) -> Iterator[Candidate]:
    """Arena-Hard-Auto v0.1 and v2.0 `question.jsonl` (prompts from Chatbot Arena users);
    id is the source's `uid`."""
    for version in ("arena-hard-v0.1", "arena-hard-v2.0"):
        path = raw / "arena-hard" / version / "question.jsonl"
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                record = json.loads(line)
                yield Candidate(str(record["uid"]), str(record["prompt"]))


def read_codesearchnet(raw: Path) -> Iterator[Candidate]:
    """CodeSearchNet `resources/queries.csv` (one column, header `query`); id is
    `queries.csv:<line>` (1-based, the header is line 1)."""
    path = raw / "codesearchnet" / "queries.csv"
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, row in enumerate(csv.reader(lines), start=1):
        if number > 1 and row:
            yield Candidate(f"queries.csv:{number}", row[0])


SOURCES = (
    Source("nq-open", 380, read_nq_open),
    Source("clinc150", 300, read_clinc150),
    Source("bfcl-live", 300, read_bfcl_live),
    Source("hwu64", 250, read_hwu64),
    Source("staqc-sql", 250, read_staqc_sql),
    Source("arena-hard", 250, read_arena_hard),
    Source("snips", 220, read_snips),
    Source("codesearchnet", 99, read_codesearchnet),
)


@dataclass
class Stats:
    """What happened to one source's candidates."""

    read: int = 0
    too_long: int = 0
    not_english: int = 0
    empty: int = 0
    duplicate: int = 0
    taken: int = 0


def draw(source: Source, raw: Path, seen: set[str]) -> tuple[list[dict[str, str]], Stats]:
    """The source's sampled prompts (as output records) and its filtering counts."""
    stats = Stats()
    pool: dict[str, str] = {}
    for candidate in source.read(raw):
        stats.read += 1
        text = candidate.prompt
        if not text.strip():
            stats.empty += 1
        elif len(text) > MAX_CHARS:
            stats.too_long += 1
        elif not is_mostly_english(text):
            stats.not_english += 1
        elif candidate.source_id in pool:
            raise ValueError(f"{source.key}: id {candidate.source_id!r} is not unique")
        else:
            pool[candidate.source_id] = text
    order = sorted(pool)
    random.Random(SEED).shuffle(order)
    records: list[dict[str, str]] = []
    for source_id in order:
        if len(records) == source.quota:
            break
        key = fold(pool[source_id])
        if key in seen:
            stats.duplicate += 1
            continue
        seen.add(key)
        records.append(
            {
                "id": f"{source.key}:{source_id}",
                "prompt": pool[source_id],
                "source": source.key,
                "part": part_of(source.key, source_id),
            }
        )
    stats.taken = len(records)
    return records, stats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", type=Path, help="directory holding the raw source files")
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=PUBLIC / "prompts.jsonl",
        help="where to write the prompts (default: resources/labelled/public/prompts.jsonl)",
    )
    args = parser.parse_args(argv)
    seen: set[str] = set()
    records: list[dict[str, str]] = []
    parts: Counter[tuple[str, str]] = Counter()
    for source in SOURCES:
        drawn, stats = draw(source, args.raw, seen)
        records.extend(drawn)
        parts.update((r["source"], r["part"]) for r in drawn)
        print(
            f"{source.key}: read {stats.read}, empty {stats.empty}, >{MAX_CHARS} chars "
            f"{stats.too_long}, not English {stats.not_english}, duplicates skipped "
            f"{stats.duplicate}, taken {stats.taken} (tune {parts[source.key, 'tune']}, "
            f"heldout {parts[source.key, 'heldout']})",
            file=sys.stderr,
        )
    records.sort(key=lambda r: r["id"])
    with args.output.open("w", encoding="utf-8", newline="\n") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    tune = sum(r["part"] == "tune" for r in records)
    print(
        f"total {len(records)}: tune {tune}, heldout {len(records) - tune} -> {args.output}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
