"""Parquet output: the journal of records (JSON lines) converted at the end of a batch, in
bounded row groups, into a file of flat columns (`Outcome.to_row`), written beside RESULTS and
renamed over it."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import one_line
from .._outcome import Outcome
from .._stages import STAGES
from ._common import BatchError

if TYPE_CHECKING:
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

__all__ = [
    "ROWS_PER_GROUP",
    "parquet_schema",
    "require_pyarrow",
    "routers_of_row",
    "write_parquet",
]

ROWS_PER_GROUP = 20_000


def require_pyarrow() -> None:
    try:
        import pyarrow
        import pyarrow.parquet  # type: ignore[import-untyped, unused-ignore]  # noqa: F401
    except ImportError:
        raise BatchError(
            "a .parquet RESULTS needs pyarrow (pip install 'routescope[batch]'), or name a "
            ".jsonl file"
        ) from None


def parquet_schema(routers: tuple[str, ...] = ()) -> pa.Schema:
    """The columns: the record's fields flattened, with their types; for each external router,
    `router_<name>_route`, `_score`, `_error` (its kind), `_status` (an HTTP failure's status),
    `_latency_ms` and `_scores` (JSON)."""
    import pyarrow as pa

    text, texts = pa.string(), pa.list_(pa.string())
    columns: list[tuple[str, pa.DataType]] = [
        ("source", text),
        ("line", pa.int64()),
        ("prompt", text),
        ("today", pa.date32()),
        ("strategy", text),
        ("strategy_rule", text),
        ("intents", texts),
        ("entities", texts),
        ("place", text),
        ("has_openclaw", pa.bool_()),
        ("queries", texts),
        ("raw_queries", texts),
        ("edits", texts),
        ("lint_class", text),
        ("lint_rule", text),
        ("task_route", text),
        ("tools", texts),
        ("top_tool", text),
        ("top_score", pa.float64()),
        ("tool_fits", pa.bool_()),
        ("contract_agent", text),
        ("contract_mode", text),
        ("contract_tools", texts),
    ]
    columns += [(f"timings_us_{stage}", pa.float64()) for stage in STAGES]
    for name in routers:
        columns += [
            (f"router_{name}_route", text),
            (f"router_{name}_score", pa.float64()),
            (f"router_{name}_error", text),
            (f"router_{name}_status", pa.int64()),
            (f"router_{name}_latency_ms", pa.float64()),
            (f"router_{name}_scores", text),
        ]
    return pa.schema(columns)


def _row(record: dict[str, Any], routers: tuple[str, ...]) -> dict[str, Any]:
    external = record.pop("routers", None) or {}
    row = Outcome.row_of_record(record)
    for name in routers:
        decided = external.get(name) or {}
        error = decided.get("error")
        row[f"router_{name}_route"] = decided.get("route")
        row[f"router_{name}_score"] = decided.get("score")
        row[f"router_{name}_error"] = None if error is None else error.get("kind")
        row[f"router_{name}_status"] = None if error is None else error.get("status")
        row[f"router_{name}_latency_ms"] = decided.get("latency_ms")
        row[f"router_{name}_scores"] = json.dumps(decided.get("scores") or {})
    return row


_ROUTER_COLUMN = "router_"
_ROUTE_SUFFIX = "_route"


def routers_of_row(row: dict[str, Any]) -> dict[str, Any]:
    """A Parquet row's `router_<name>_*` columns nested again as the record's `routers`
    (`{name: {"route", "score", "scores", "error", "latency_ms"}}`; an error's detail is not in
    the columns). The row is changed in place and returned."""
    names = [
        column[len(_ROUTER_COLUMN) : -len(_ROUTE_SUFFIX)]
        for column in row
        if column.startswith(_ROUTER_COLUMN) and column.endswith(_ROUTE_SUFFIX)
    ]
    if not names or "routers" in row:
        return row
    routers: dict[str, Any] = {}
    for name in names:
        prefix = f"{_ROUTER_COLUMN}{name}_"
        kind = row.pop(f"{prefix}error", None)
        status = row.pop(f"{prefix}status", None)
        scores = row.pop(f"{prefix}scores", None)
        routers[name] = {
            "route": row.pop(f"{prefix}route", None),
            "score": row.pop(f"{prefix}score", None),
            "scores": json.loads(scores) if scores else {},
            "error": None if kind is None else {"kind": kind, "detail": "", "status": status},
            "latency_ms": row.pop(f"{prefix}latency_ms", None),
        }
    row["routers"] = routers
    return row


def write_parquet(journal: Path, out: Path, *, routers: tuple[str, ...] = ()) -> int:
    """Convert the journal into `out` (a temporary file beside it, renamed over it once
    complete and on disk); the number of rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = parquet_schema(routers)
    temporary = out.parent / f".{out.name}.tmp"
    rows = 0
    try:
        handle = os.open(
            temporary,
            os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
            0o644,
        )
        with open(handle, "wb") as sink, open(journal, "rb") as source:
            with pq.ParquetWriter(sink, columns, compression="zstd") as writer:
                batch: list[dict[str, Any]] = []
                for line in source:
                    batch.append(_row(json.loads(line), routers))
                    if len(batch) >= ROWS_PER_GROUP:
                        writer.write_table(pa.Table.from_pylist(batch, schema=columns))
                        rows += len(batch)
                        batch.clear()
                if batch or rows == 0:
                    writer.write_table(pa.Table.from_pylist(batch, schema=columns))
                    rows += len(batch)
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(temporary, out)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise BatchError(f"{one_line(out)}: cannot write: {exc.strerror or exc}") from None
    return rows
