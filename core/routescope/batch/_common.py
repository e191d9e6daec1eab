"""What the batch's driver and its workers share: the job, the partitions of the input, the
chunks of results, and the one error a batch raises."""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field
from typing import Literal

from .._errors import BatchError
from .._request import CatalogRef, RulesRef

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "MAX_LINE_BYTES",
    "MAX_RECORD_LINES",
    "BadLine",
    "BatchError",
    "Chunk",
    "Format",
    "Job",
    "Partition",
    "routers_digest",
]

MAX_LINE_BYTES = 4 << 20
"""A record (a line; a CSV record with quoted line breaks) longer than this is a bad line,
never read whole."""
MAX_RECORD_LINES = 1_000
"""A CSV record whose quoted field is still open after this many physical lines (or at the
end of the file) is a quote left open: its first line is a bad line and the lines after it
are read again as rows (a prompt of more lines is not read whole from a CSV cell)."""
DEFAULT_BLOCK_BYTES = 256 << 10
"""Bytes of input per partition: the unit of work of a worker, of progress and of resuming."""

Format = Literal["jsonl", "csv", "tsv", "text"]


def routers_digest(data: bytes) -> str:
    """What identifies a routers file's content (in a batch's state and its job)."""
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Job:
    """Everything a worker needs besides its partition: picklable, sent once per worker."""

    today: dt.date
    rules: RulesRef
    field: tuple[str, ...] | None
    """`--field` split at dots (JSONL); None: the usual fields and chat logs are tried."""
    catalog: CatalogRef | None
    """The catalog (its absolute path and the digest of its tools); None: no tool search."""
    k: int
    timings: bool
    max_line_bytes: int = MAX_LINE_BYTES
    routers: str | None = None
    """The routers file (absolute) whose `router_names` also route every prompt."""
    routers_digest: str | None = None
    """A digest of the routers file's bytes as the driver read it: a worker builds its routers
    from that content (a file edited since is refused), and keeps them for that content only."""
    router_names: tuple[str, ...] = ()
    share: int = 1
    """How many worker processes share each router's declared concurrency and rate."""


@dataclass(frozen=True, slots=True)
class Partition:
    """A piece of one input file: a byte range `[start, end)` that begins and ends at record
    boundaries, read by the worker (`items` None); or, for gzip files, the records themselves,
    read by the driver (decompressed offsets)."""

    file: int
    """The file's position among the inputs."""
    source: str
    path: str
    format: Format
    start: int
    end: int
    size: int
    """The file's size when the batch was planned (a worker refuses a file that changed)."""
    column: int | None = None
    """CSV: the column of the prompt."""
    items: tuple[tuple[int, bytes, str | None], ...] | None = None
    """Gzip: (line within the partition, record bytes, a problem found while reading: an
    over-long record, data that broke off) for each record."""
    lines: int = 0
    """Gzip: physical lines in the partition."""
    progress: int = 0
    """Input bytes (compressed, for gzip) this partition accounts for."""
    first_of_file: bool = False
    """Starts at the beginning of the file (a byte-order mark may open it)."""


@dataclass(frozen=True, slots=True)
class BadLine:
    source: str
    line: int
    reason: str
    excerpt: str


@dataclass(slots=True)
class Chunk:
    """A worker's results for one partition. Line numbers are relative to the partition (the
    driver adds the lines of the partitions before it): records as JSON text without their
    opening `{"source":…,"line":…` (`rests`), in input order."""

    lines: int
    record_lines: list[int] = field(default_factory=list)
    rests: list[str] = field(default_factory=list)
    bad: list[tuple[int, str, str]] = field(default_factory=list)
    """(line within the partition, reason, excerpt) of each bad line."""
    router_errors: dict[str, dict[str, int]] = field(default_factory=dict)
    """External routers' failures in this partition: router → failure label → count."""
