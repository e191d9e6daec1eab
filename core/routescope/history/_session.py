"""Session files: a portable list of requests with their results, as one JSON file.

    {"format": "routescope-session", "version": 1, "saved": "2026-…Z",
     "fingerprints": {"rules": "<pack digest>", "catalog": "<catalog digest>",
                      "model": "<embedding model id>"},
     "rule_packs": {"<digest>": "<the pack's TOML text>", …},
     "entries": [{"request": {"fingerprint", "text", "today", "rules": {"source", "digest"},
                              "context", "catalog": {"path", "digest", "model"} | null,
                              "search"},
                  "result": <the Inspection, as `inspect --json` prints it>}, …]}

Each rule pack's text is in the file once, so a request opened on another machine is the same
request (same fingerprint). `fingerprints` says what the saving machine had loaded (its rule
pack, its catalog, its embedding model); `open_session` compares them with this machine's and
lists each difference as a warning, with the requests whose catalog is not here.

A session file is checked completely when opened (size, JSON, every field against the models,
each pack's text against its digest): anything else is one `HistoryError` line naming the file
and the place, never a crash.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._errors import HistoryError, RoutescopeError, describe, one_line
from .._files import MB, OwnerNotKeptError, TemporaryFileError, read_bytes, replace_file
from .._input import validate_text
from .._inspect import Inspection
from .._request import CatalogRef, Request, RulesRef
from ._codec import context_json, pack_digest, rebuild_request, search_json

__all__ = [
    "MAX_SESSION_BYTES",
    "MAX_SESSION_ENTRIES",
    "SESSION_FORMAT",
    "SESSION_VERSION",
    "Fingerprints",
    "Session",
    "SessionEntry",
    "compare_fingerprints",
    "open_session",
    "save_session",
]

SESSION_FORMAT = "routescope-session"
SESSION_VERSION = 1
MAX_SESSION_BYTES = 64 * MB
MAX_SESSION_ENTRIES = 10_000


class Fingerprints(BaseModel):
    """What a set of results depends on besides the requests: the rule pack's digest, the tool
    catalog's digest (the index) and the embedding model's id. None: not known, or none."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rules: str | None = None
    catalog: str | None = None
    model: str | None = None

    @classmethod
    def of(cls, rules: RulesRef | None = None, catalog: CatalogRef | None = None) -> Fingerprints:
        """This machine's fingerprints: a rule pack (default: the built-in one) and a catalog
        (its model; without one, the embedding model this machine would use)."""
        if catalog is None:
            from ..toolsearch import default_model_id

            model = default_model_id()
        else:
            model = catalog.model
        return cls(
            rules=(rules or RulesRef.builtin()).digest,
            catalog=None if catalog is None else catalog.digest,
            model=model,
        )

    @classmethod
    def of_request(cls, request: Request) -> Fingerprints:
        catalog = request.catalog
        return cls.of(request.rules, catalog)


class SessionEntry(NamedTuple):
    request: Request
    inspection: Inspection


@dataclass(frozen=True, slots=True)
class Session:
    """An opened session file."""

    path: Path
    entries: list[SessionEntry]
    fingerprints: Fingerprints
    """What the saving machine had loaded."""
    saved: dt.datetime
    warnings: list[str]
    """Where this machine differs from the saving one (one line each): rule pack, catalog,
    embedding model, catalogs that are not here, requests that hash differently here."""


# -- the file's models ---------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _RulesData(_Model):
    source: str
    digest: str = Field(pattern=r"^[0-9a-f]{16}$")


class _CatalogData(_Model):
    path: str
    digest: str
    model: str


class _RequestData(_Model):
    fingerprint: str = Field(pattern=r"^[0-9a-f]{64}$")
    text: str
    today: dt.date
    rules: _RulesData
    context: dict[str, Any] | None = None
    catalog: _CatalogData | None = None
    search: dict[str, Any]


class _EntryData(_Model):
    request: _RequestData
    result: Inspection


class _Header(BaseModel):
    model_config = ConfigDict(extra="allow")

    format: Any = None
    version: Any = None


class _SessionData(_Model):
    format: Literal["routescope-session"]
    version: Literal[1]
    saved: dt.datetime
    fingerprints: Fingerprints
    rule_packs: dict[str, str]
    entries: list[_EntryData] = Field(max_length=MAX_SESSION_ENTRIES)


# -- saving --------------------------------------------------------------------------------


def save_session(
    path: str | Path,
    entries: Iterable[SessionEntry | tuple[Request, Inspection]],
    *,
    fingerprints: Fingerprints | None = None,
    now: dt.datetime | None = None,
) -> Path:
    """Write a session file (atomically; an existing file keeps its permissions, a link its
    target). `fingerprints`: this machine's (default: those of the last request). Returns the
    path written; HistoryError (one line) when it cannot be written."""
    path = Path(path)
    items = [SessionEntry(*entry) for entry in entries]
    if len(items) > MAX_SESSION_ENTRIES:
        raise HistoryError(
            f"{path}: a session holds at most {MAX_SESSION_ENTRIES:,} requests, not {len(items):,}"
        )
    packs: dict[str, str] = {}
    data: list[dict[str, Any]] = []
    for request, inspection in items:
        packs.setdefault(request.rules.digest, request.rules.text)
        context = context_json(request.context)
        catalog = request.catalog
        data.append(
            {
                "request": {
                    "fingerprint": request.fingerprint(),
                    "text": request.text,
                    "today": request.today.isoformat(),
                    "rules": {"source": request.rules.source, "digest": request.rules.digest},
                    "context": None if context is None else json.loads(context),
                    "catalog": None
                    if catalog is None
                    else {"path": catalog.path, "digest": catalog.digest, "model": catalog.model},
                    "search": json.loads(search_json(request.search)),
                },
                "result": inspection.model_dump(mode="json"),
            }
        )
    if fingerprints is None:
        fingerprints = Fingerprints.of_request(items[-1].request) if items else Fingerprints.of()
    document = {
        "format": SESSION_FORMAT,
        "version": SESSION_VERSION,
        "saved": (now or dt.datetime.now(dt.UTC)).isoformat(),
        "fingerprints": fingerprints.model_dump(mode="json"),
        "rule_packs": packs,
        "entries": data,
    }
    try:
        text = json.dumps(document, ensure_ascii=False, indent=1, allow_nan=False)
    except ValueError as exc:
        raise HistoryError(one_line(f"{path}: cannot save the session: {exc}")) from None
    write_file(path, text.encode("utf-8", "surrogatepass"))
    return path


def write_file(path: Path, data: bytes, what: str = "save the session") -> None:
    """Write `data` atomically (`_files.replace_file`): session files and exports alike. An
    existing file keeps its permissions, a link its target; HistoryError (one line, "cannot
    `what`") when it cannot be written."""
    try:
        target = path.resolve()
        try:
            like: os.stat_result | None = target.stat()
        except FileNotFoundError:
            like = None
        if like is not None and not stat.S_ISREG(like.st_mode):
            raise HistoryError(one_line(f"{path}: cannot {what}: not a regular file"))
        replace_file(target, data, like=like, mode=0o666)
    except (TemporaryFileError, OwnerNotKeptError, OSError, RuntimeError) as exc:
        reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
        raise HistoryError(one_line(f"{path}: cannot {what}: {reason}")) from None


# -- opening -------------------------------------------------------------------------------


def open_session(path: str | Path, *, here: Fingerprints | None = None) -> Session:
    """Read and check a session file. `here`: this machine's fingerprints (default: the
    built-in rule pack, no catalog and the embedding model it would use); each difference with
    the saving machine's is a warning. HistoryError (one line) for anything that is not a
    valid session file."""
    path = Path(path)
    raw = read_bytes(
        path, what="session file", limit=MAX_SESSION_BYTES, error=HistoryError, streams=False
    )
    try:
        loaded = pydantic_core.from_json(raw, allow_inf_nan=False)
    except ValueError as exc:
        raise HistoryError(one_line(f"{path}: not a session file: not JSON ({exc})", 300)) from None
    _check_header(path, loaded)
    try:
        document = _SessionData.model_validate(loaded)
    except ValidationError as exc:
        raise HistoryError(
            one_line(f"{path}: not a valid session file: {describe(exc)}", 300)
        ) from None
    except RecursionError:
        raise HistoryError(f"{path}: not a valid session file: nested too deeply") from None
    entries: list[SessionEntry] = []
    rehashed = 0
    for number, item in enumerate(document.entries, start=1):
        data = item.request
        where = f"{path}: entry {number}"
        try:
            validate_text(data.text)
        except RoutescopeError as exc:
            raise HistoryError(one_line(f"{where}: {exc}")) from None
        request = rebuild_request(
            where=where,
            text=data.text,
            today=data.today,
            rules_source=data.rules.source,
            rules_digest=data.rules.digest,
            rules_text=document.rule_packs.get(data.rules.digest),
            catalog=None
            if data.catalog is None
            else (data.catalog.path, data.catalog.digest, data.catalog.model),
            search=json.dumps(data.search, allow_nan=False),
            context=None if data.context is None else json.dumps(data.context, allow_nan=False),
        )
        rehashed += request.fingerprint() != data.fingerprint
        entries.append(SessionEntry(request, item.result))
    for digest, text in document.rule_packs.items():
        if pack_digest(text) != digest:
            raise HistoryError(
                one_line(f"{path}: rule pack {digest[:40]}: its text does not match its digest")
            )
    if here is None:
        here = Fingerprints.of()
    warnings = compare_fingerprints(document.fingerprints, here)
    warnings += _missing_catalogs(entries)
    if rehashed:
        warnings.append(
            f"{rehashed} of {len(entries)} requests hash differently here (another version of "
            "Routescope, or an edited file): running them again may give other results"
        )
    return Session(
        path=path,
        entries=entries,
        fingerprints=document.fingerprints,
        saved=document.saved,
        warnings=warnings,
    )


def _check_header(path: Path, loaded: Any) -> None:
    """A clearer line than the models' for the commonest wrong files."""
    if not isinstance(loaded, dict):
        raise HistoryError(f"{path}: not a session file: the JSON is not an object")
    header = _Header.model_validate({k: loaded.get(k) for k in ("format", "version")})
    if header.format != SESSION_FORMAT:
        raise HistoryError(
            one_line(f"{path}: not a session file: format is not {SESSION_FORMAT!r}", 300)
        )
    version = header.version
    if isinstance(version, int) and not isinstance(version, bool) and version > SESSION_VERSION:
        raise HistoryError(
            f"{path}: the session file is version {version}, written by a newer Routescope "
            f"(this one reads version {SESSION_VERSION})"
        )


def compare_fingerprints(saved: Fingerprints, here: Fingerprints) -> list[str]:
    """One warning for each fingerprint both sides know and that differs."""
    names = {"rules": "rule pack", "catalog": "catalog (index)", "model": "embedding model"}
    warnings = []
    for field, name in names.items():
        theirs, ours = getattr(saved, field), getattr(here, field)
        if theirs is not None and ours is not None and theirs != ours:
            warnings.append(
                one_line(
                    f"different {name}: the session was saved with {theirs[:80]}, this window "
                    f"has {ours[:80]}",
                    300,
                )
            )
    return warnings


def _missing_catalogs(entries: list[SessionEntry]) -> list[str]:
    uses = Counter(
        entry.request.catalog.path for entry in entries if entry.request.catalog is not None
    )
    warnings = []
    for catalog, count in sorted(uses.items()):
        try:
            present = Path(catalog).exists()
        except (OSError, ValueError):
            present = False
        if not present:
            warnings.append(
                one_line(
                    f"catalog {catalog[:200]} (used by {count} request(s)) is not on this "
                    "machine: their tools cannot be ranked again",
                    300,
                )
            )
    return warnings
