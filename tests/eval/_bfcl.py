"""The BFCL-derived tasks of `make eval`, built at eval time from the `bfcl-eval` wheel.

Nothing of BFCL is vendored or committed. The first run downloads one pinned wheel
(`pip download bfcl-eval==BFCL_VERSION --no-deps -d .eval/wheels`, the only network access of
`make eval`), opens it as a zip and reads its data files (`bfcl_eval/data/…`, JSON Lines: one
record per line). The built catalogs and tasks are cached in `.eval/bfcl/<version>/` (git
ignored) and read from there on later runs; `manifest.json` there holds the counts and the
wheel's SHA-256.

**Single-function task (`single`, catalog `bfcl`)** — the issue's first table.
Question files `BFCL_v4_<set>.json` for the sets `simple_python, multiple, live_simple,
live_multiple, simple_java, simple_javascript` (BFCL's simple, multiple, live simple, live
multiple, Java and JavaScript categories), with their answers in
`possible_answer/BFCL_v4_<set>.json` (matched by `id`).

* Catalog: every function listed by any question of those sets (its `function` array), read
  in that set order, then file order, then array order; deduplicated by the exact function
  `name`, the first occurrence wins (its description and parameters are kept). Some names come
  with several descriptions across questions (BFCL reuses a name with reworded docs); only the
  first is kept, and `manifest.json` counts the questions whose own function doc (and its
  description) differs from the kept one: 897 of the 2,061 in 2026.3.23, some only reworded,
  some another function under the same name (`calculate_density`: of a substance, or of a
  country's population).
* Queries: the questions whose `ground_truth` (a list of calls, each `{function name:
  {argument: [accepted values]}}`) holds exactly one call. The query is the text of the user
  messages of the question's first (only) turn, joined by a newline; system messages are left
  out. The expected tool is the one call's function name.
* Two names differ only in case (`calculate_BMI` / `calculate_bmi`, `get_parcel_state` /
  `GET_PARCEL_STATE`). The written catalog keeps both; Routescope's loader treats names that
  differ only in case as one tool and keeps the first (reporting the second as a problem), so
  the eval compares names ignoring case.

**"No tool fits" sets (`irrelevance`, `live_irrelevance`, catalog `bfcl`)**: the questions of
`BFCL_v4_irrelevance.json` and `BFCL_v4_live_irrelevance.json` (no answer file: BFCL expects
no call), query text built the same way, no expected tool. BFCL guarantees only that the
functions listed with each question do not answer it; against the whole 1,246-tool catalog
some of them do have a fitting tool (irrelevance_0 asks for a triangle's area, and
`calculate_triangle_area` is in the catalog), so false-accept rates measured on them are an
upper bound.

**Multi-step sets** (recall of every needed tool), each with its own catalog, never tuned on:

* `multi_turn` (catalog `multi_turn`): `BFCL_v4_multi_turn_base.json`. The catalog is the
  function docs (`multi_turn_func_doc/*.json`) of every class the set's questions involve,
  mapped to files by `MULTI_TURN_FUNC_DOC_FILE_MAPPING` read (with `ast`, not imported) from
  the wheel's `bfcl_eval/constants/executable_backend_config.py`; deduplicated by name. Each
  turn of each question is one request: its user text, and as expected tools the distinct
  function names its ground-truth calls use (`"mv(source='a', destination='b')"` → `mv`), in
  order of first call. Only turns that use two or more distinct functions are kept.
* `parallel_multiple` (catalog `parallel_multiple`): `BFCL_v4_parallel_multiple.json`, whose
  catalog is the distinct functions its questions list (first wins, by name) and whose
  requests are the questions whose answer calls two or more distinct functions ("Find the sum
  of … Also find the product of …").

Each catalog is written twice: in Routescope's JSON list shape (`catalog-<name>.json`:
`tool_name`, `description`, `routing_keywords: []`, `intents: []`, `category`: the name's
prefix before its last dot, else the name — what the loader infers anyway), which
`load_catalog` reads today; and as OpenAI function-calling `tools`
(`catalog-<name>.openai.json`: `{"type": "function", "function": {name, description,
parameters}}`, BFCL's parameter types mapped to JSON Schema: dict → object, float → number,
tuple → array, Java/JavaScript type names to theirs, `any` left untyped). Function names keep
BFCL's dots (OpenAI's API would refuse them; the catalog is for searching, not for calling).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "BFCL_VERSION",
    "SINGLE_SETS",
    "Bfcl",
    "CatalogFiles",
    "Query",
    "Task",
    "load_bfcl",
]

BFCL_VERSION = "2026.3.23"
"""The `bfcl-eval` release the tasks are built from (pinned: its data changes between releases)."""
SINGLE_SETS = (
    "simple_python",
    "multiple",
    "live_simple",
    "live_multiple",
    "simple_java",
    "simple_javascript",
)
_FORMAT = 2
"""The layout of the built files; a change rebuilds them."""
_DATA = "bfcl_eval/data"
_CONSTANTS = "bfcl_eval/constants/executable_backend_config.py"
_CALL = re.compile(r"\s*([A-Za-z_][\w.]*)\s*\(")
_JSON_SCHEMA_TYPES = {
    "string": "string",
    "String": "string",
    "char": "string",
    "dict": "object",
    "HashMap": "object",
    "object": "object",
    "integer": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "number": "number",
    "boolean": "boolean",
    "Boolean": "boolean",
    "array": "array",
    "Array": "array",
    "ArrayList": "array",
    "tuple": "array",
}


@dataclass(frozen=True, slots=True)
class Query:
    id: str
    text: str
    expected: tuple[str, ...]
    """The tools the answer calls: one for the single-function task, several for a multi-step
    request, none for an irrelevance question."""


@dataclass(frozen=True, slots=True)
class Task:
    name: str
    catalog: str
    """The key of the catalog the queries are searched in (`Bfcl.catalogs`)."""
    queries: tuple[Query, ...]


@dataclass(frozen=True, slots=True)
class CatalogFiles:
    name: str
    tools: int
    list_path: Path
    """Routescope's JSON list shape (`load_catalog` reads it)."""
    openai_path: Path
    """OpenAI function-calling `tools`."""


@dataclass(frozen=True, slots=True)
class Bfcl:
    version: str
    wheel: Path
    sha256: str
    folder: Path
    catalogs: dict[str, CatalogFiles]
    tasks: dict[str, Task]
    counts: dict[str, Any] = field(default_factory=dict)


# -- the wheel ---------------------------------------------------------------------------------


def wheel_path(root: Path, version: str = BFCL_VERSION) -> Path:
    """The pinned wheel in `root/wheels`, downloaded with pip when it is not there yet."""
    folder = root / "wheels"
    found = sorted(folder.glob(f"bfcl_eval-{version}-*.whl"))
    if found:
        return found[0]
    folder.mkdir(parents=True, exist_ok=True)
    print(f"downloading bfcl-eval=={version} (the wheel only, no dependencies) …", file=sys.stderr)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--disable-pip-version-check",
        "--quiet",
        "--no-deps",
        "--only-binary=:all:",
        f"bfcl-eval=={version}",
        "-d",
        str(folder),
    ]
    subprocess.run(command, check=True)
    found = sorted(folder.glob(f"bfcl_eval-{version}-*.whl"))
    if not found:
        raise FileNotFoundError(f"pip download left no bfcl_eval-{version} wheel in {folder}")
    return found[0]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _records(wheel: zipfile.ZipFile, name: str) -> list[dict[str, Any]]:
    """A JSON Lines data file of the wheel, one record per non-empty line."""
    text = wheel.read(f"{_DATA}/{name}").decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _answers(wheel: zipfile.ZipFile, name: str) -> dict[str, Any]:
    return {r["id"]: r["ground_truth"] for r in _records(wheel, f"possible_answer/{name}")}


def _user_text(turn: list[dict[str, Any]]) -> str:
    """The user messages of one turn, joined by a newline (system messages left out)."""
    return "\n".join(str(m["content"]).strip() for m in turn if m.get("role") == "user").strip()


def _func_doc_mapping(wheel: zipfile.ZipFile) -> dict[str, str]:
    """`MULTI_TURN_FUNC_DOC_FILE_MAPPING` (class → function-doc file), read without importing."""
    tree = ast.parse(wheel.read(_CONSTANTS).decode("utf-8"))
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "MULTI_TURN_FUNC_DOC_FILE_MAPPING"
        ):
            mapping = ast.literal_eval(node.value)
            if isinstance(mapping, dict):
                return {str(k): str(v) for k, v in mapping.items()}
    raise ValueError(f"{_CONSTANTS}: no MULTI_TURN_FUNC_DOC_FILE_MAPPING")


# -- catalogs ----------------------------------------------------------------------------------


class _Functions:
    """Distinct functions by exact name, the first occurrence winning."""

    def __init__(self) -> None:
        self.docs: dict[str, dict[str, Any]] = {}
        self.listed = 0

    def add(self, function: dict[str, Any]) -> None:
        self.listed += 1
        self.docs.setdefault(str(function["name"]), function)


def _schema(value: Any) -> Any:
    """BFCL's parameter schema as JSON Schema (its `type` names mapped, the rest kept)."""
    if isinstance(value, list):
        return [_schema(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "type" and isinstance(item, str):
            mapped = _JSON_SCHEMA_TYPES.get(item)
            if mapped is not None:
                out["type"] = mapped
        elif key == "properties" and isinstance(item, dict):
            out["properties"] = {name: _schema(spec) for name, spec in item.items()}
        else:
            out[key] = _schema(item)
    return out


def _category(name: str) -> str:
    """What Routescope's loader infers: the prefix before the last dot, else the name."""
    return name.rpartition(".")[0] or name


def _list_shape(docs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "tool_name": name,
            "description": str(doc.get("description") or ""),
            "routing_keywords": [],
            "intents": [],
            "category": _category(name),
        }
        for name, doc in docs.items()
    ]


def _openai_shape(docs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    tools = []
    for name, doc in docs.items():
        parameters = _schema(doc.get("parameters") or {"type": "dict", "properties": {}})
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": str(doc.get("description") or ""),
                    "parameters": parameters,
                },
            }
        )
    return tools


# -- the build ---------------------------------------------------------------------------------


@dataclass(slots=True)
class _Built:
    catalogs: dict[str, dict[str, dict[str, Any]]]
    tasks: dict[str, Task]
    counts: dict[str, Any]


def _single(wheel: zipfile.ZipFile, counts: dict[str, Any]) -> tuple[_Functions, Task]:
    functions = _Functions()
    queries: list[Query] = []
    own_docs: list[tuple[str, dict[str, Any]]] = []
    per_set: dict[str, dict[str, int]] = {}
    for name in SINGLE_SETS:
        questions = _records(wheel, f"BFCL_v4_{name}.json")
        answers = _answers(wheel, f"BFCL_v4_{name}.json")
        kept = 0
        for question in questions:
            for function in question["function"]:
                functions.add(function)
            calls = answers[question["id"]]
            if len(question["question"]) != 1 or len(calls) != 1:
                continue
            expected = str(next(iter(calls[0])))
            listed = {str(f["name"]): f for f in question["function"]}
            if expected not in listed:  # never seen in BFCL's data; kept out if it happens
                continue
            queries.append(Query(question["id"], _user_text(question["question"][0]), (expected,)))
            own_docs.append((expected, listed[expected]))
            kept += 1
        per_set[name] = {"questions": len(questions), "one_function": kept}
    docs = functions.docs
    counts["single"] = {
        "sets": per_set,
        "questions": len(queries),
        "functions_listed": functions.listed,
        "distinct_functions": len(docs),
        "distinct_ignoring_case": len({n.lower() for n in docs}),
        "names_with_several_docs": _names_with_several_docs(wheel),
        "questions_whose_doc_differs_from_the_kept_one": sum(
            1 for name, doc in own_docs if doc != docs[name]
        ),
        "questions_whose_description_differs_from_the_kept_one": sum(
            1 for name, doc in own_docs if doc.get("description") != docs[name].get("description")
        ),
    }
    return functions, Task("single", "bfcl", tuple(queries))


def _names_with_several_docs(wheel: zipfile.ZipFile) -> int:
    seen: dict[str, set[str]] = {}
    for name in SINGLE_SETS:
        for question in _records(wheel, f"BFCL_v4_{name}.json"):
            for function in question["function"]:
                key = json.dumps(function, sort_keys=True)
                seen.setdefault(str(function["name"]), set()).add(key)
    return sum(1 for variants in seen.values() if len(variants) > 1)


def _irrelevance(wheel: zipfile.ZipFile, name: str) -> Task | None:
    member = f"{_DATA}/BFCL_v4_{name}.json"
    if member not in wheel.namelist():
        return None
    queries = [
        Query(r["id"], _user_text(r["question"][0]), ())
        for r in _records(wheel, f"BFCL_v4_{name}.json")
    ]
    return Task(name, "bfcl", tuple(queries))


def _multi_turn(wheel: zipfile.ZipFile, counts: dict[str, Any]) -> tuple[_Functions, Task]:
    questions = _records(wheel, "BFCL_v4_multi_turn_base.json")
    answers = _answers(wheel, "BFCL_v4_multi_turn_base.json")
    mapping = _func_doc_mapping(wheel)
    classes = list(dict.fromkeys(c for q in questions for c in q["involved_classes"]))
    functions = _Functions()
    for cls in sorted(classes):
        for doc in _records(wheel, f"multi_turn_func_doc/{mapping[cls]}"):
            functions.add(doc)
    queries: list[Query] = []
    turns = 0
    for question in questions:
        for number, (turn, calls) in enumerate(
            zip(question["question"], answers[question["id"]], strict=True)
        ):
            turns += 1
            names = []
            for call in calls:
                match = _CALL.match(call)
                if match is None:
                    raise ValueError(f"{question['id']} turn {number}: not a call: {call!r:.80}")
                names.append(match.group(1))
            distinct = tuple(dict.fromkeys(names))
            if len(distinct) < 2:
                continue
            missing = [n for n in distinct if n not in functions.docs]
            if missing:
                raise ValueError(f"{question['id']} turn {number}: no doc for {missing}")
            queries.append(Query(f"{question['id']}:turn{number}", _user_text(turn), distinct))
    counts["multi_turn"] = {
        "questions": len(questions),
        "turns": turns,
        "turns_with_several_functions": len(queries),
        "classes": sorted(classes),
        "catalog_functions": len(functions.docs),
    }
    return functions, Task("multi_turn", "multi_turn", tuple(queries))


def _parallel_multiple(wheel: zipfile.ZipFile, counts: dict[str, Any]) -> tuple[_Functions, Task]:
    questions = _records(wheel, "BFCL_v4_parallel_multiple.json")
    answers = _answers(wheel, "BFCL_v4_parallel_multiple.json")
    functions = _Functions()
    queries: list[Query] = []
    for question in questions:
        for function in question["function"]:
            functions.add(function)
        distinct = tuple(dict.fromkeys(str(next(iter(c))) for c in answers[question["id"]]))
        if len(question["question"]) == 1 and len(distinct) >= 2:
            queries.append(Query(question["id"], _user_text(question["question"][0]), distinct))
    counts["parallel_multiple"] = {
        "questions": len(questions),
        "questions_with_several_functions": len(queries),
        "catalog_functions": len(functions.docs),
    }
    return functions, Task("parallel_multiple", "parallel_multiple", tuple(queries))


def _build(wheel_file: Path) -> _Built:
    counts: dict[str, Any] = {}
    with zipfile.ZipFile(wheel_file) as wheel:
        single_functions, single = _single(wheel, counts)
        tasks = {"single": single}
        for name in ("irrelevance", "live_irrelevance"):
            task = _irrelevance(wheel, name)
            if task is not None:
                tasks[name] = task
                counts[name] = {"questions": len(task.queries)}
        turn_functions, turns = _multi_turn(wheel, counts)
        parallel_functions, parallel = _parallel_multiple(wheel, counts)
    tasks["multi_turn"] = turns
    tasks["parallel_multiple"] = parallel
    catalogs = {
        "bfcl": single_functions.docs,
        "multi_turn": turn_functions.docs,
        "parallel_multiple": parallel_functions.docs,
    }
    return _Built(catalogs, tasks, counts)


def _write_json(path: Path, data: Any) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)


def _catalog_files(folder: Path, name: str, tools: int) -> CatalogFiles:
    return CatalogFiles(
        name, tools, folder / f"catalog-{name}.json", folder / f"catalog-{name}.openai.json"
    )


def load_bfcl(root: Path, version: str = BFCL_VERSION) -> Bfcl:
    """The BFCL-derived catalogs and tasks under `root` (`.eval`): read from the cache when it
    was built from this version in this layout, else built from the wheel (downloaded first
    when needed) and written."""
    wheel = wheel_path(root, version)
    folder = root / "bfcl" / version
    manifest_path = folder / "manifest.json"
    if manifest_path.is_file():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format") == _FORMAT and manifest.get("version") == version:
            catalogs = {
                name: _catalog_files(folder, name, tools)
                for name, tools in manifest["catalogs"].items()
            }
            paths = [p for c in catalogs.values() for p in (c.list_path, c.openai_path)]
            if all(p.is_file() for p in [*paths, folder / "tasks.json"]):
                tasks = _read_tasks(folder / "tasks.json")
                return Bfcl(
                    version, wheel, manifest["sha256"], folder, catalogs, tasks, manifest["counts"]
                )
    built = _build(wheel)
    folder.mkdir(parents=True, exist_ok=True)
    catalogs = {}
    for name, docs in built.catalogs.items():
        files = _catalog_files(folder, name, len(docs))
        _write_json(files.list_path, _list_shape(docs))
        _write_json(files.openai_path, _openai_shape(docs))
        catalogs[name] = files
    _write_json(
        folder / "tasks.json",
        {
            name: {
                "catalog": task.catalog,
                "queries": [
                    {"id": q.id, "text": q.text, "expected": list(q.expected)} for q in task.queries
                ],
            }
            for name, task in built.tasks.items()
        },
    )
    sha = _sha256(wheel)
    _write_json(
        manifest_path,
        {
            "format": _FORMAT,
            "version": version,
            "wheel": wheel.name,
            "sha256": sha,
            "catalogs": {name: files.tools for name, files in catalogs.items()},
            "counts": built.counts,
        },
    )
    return Bfcl(version, wheel, sha, folder, catalogs, built.tasks, built.counts)


def _read_tasks(path: Path) -> dict[str, Task]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        name: Task(
            name,
            str(task["catalog"]),
            tuple(Query(q["id"], q["text"], tuple(q["expected"])) for q in task["queries"]),
        )
        for name, task in data.items()
    }


def describe(bfcl: Bfcl) -> list[str]:
    """The counts, one line each, for the eval's header."""
    single = bfcl.counts["single"]
    sets = ", ".join(
        f"{name} {c['one_function']:,}/{c['questions']:,}" for name, c in single["sets"].items()
    )
    lines = [
        f"BFCL data: bfcl-eval {bfcl.version} ({bfcl.wheel.name}, sha256 {bfcl.sha256[:12]}…)",
        f"  single-function task: {single['questions']:,} questions ({sets}); catalog "
        f"{single['distinct_functions']:,} distinct functions by name of "
        f"{single['functions_listed']:,} listed ({single['distinct_ignoring_case']:,} ignoring "
        f"case); {single['names_with_several_docs']:,} names have several docs, "
        f"{single['questions_whose_doc_differs_from_the_kept_one']:,} questions' own doc "
        "differs from the kept one ("
        f"{single['questions_whose_description_differs_from_the_kept_one']:,} in its "
        "description)",
    ]
    for name in ("irrelevance", "live_irrelevance"):
        if name in bfcl.counts:
            lines.append(f"  {name}: {bfcl.counts[name]['questions']:,} questions")
    turns = bfcl.counts["multi_turn"]
    lines.append(
        f"  multi_turn: {turns['turns_with_several_functions']:,} of {turns['turns']:,} turns "
        f"({turns['questions']:,} questions) use ≥ 2 distinct functions; catalog "
        f"{turns['catalog_functions']:,} functions of {len(turns['classes'])} classes"
    )
    parallel = bfcl.counts["parallel_multiple"]
    lines.append(
        f"  parallel_multiple: {parallel['questions_with_several_functions']:,} of "
        f"{parallel['questions']:,} questions call ≥ 2 distinct functions; catalog "
        f"{parallel['catalog_functions']:,} functions"
    )
    return lines


if __name__ == "__main__":
    print("\n".join(describe(load_bfcl(Path(__file__).resolve().parents[2] / ".eval"))))
