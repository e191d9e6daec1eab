"""The compare model: the live request (A) beside a side B — another prompt, the same prompt
under another rule pack, or under another catalog — diffed by `routescope.compare`, and a
regression suite run under both sides.

Every comparison runs in a worker lane, once the request (or B) has rested for
`COMPARE_DELAY_MS`, and only while someone looks at it (`set_enabled`); a newer one makes the
one under way stale. Ranking tools needs an engine per catalog: they come from the session's
`Engines` (built in the worker the first time, kept, and shared with the tools model).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from PySide6.QtCore import QObject, QTimer, Signal

import routescope

from ._lanes import Lane

if TYPE_CHECKING:
    from routescope import CatalogRef, Request, RulesRef
    from routescope.compare import Comparison, SuiteComparison
    from routescope.regress import Suite
    from routescope.toolsearch import Engines, ToolSearch

__all__ = ["COMPARE_DELAY_MS", "MODES", "CompareModel", "Mode"]

COMPARE_DELAY_MS = 250
"""A comparison starts once A and B have not changed for this long."""
Mode = Literal["prompt", "rules", "catalog"]
"""What side B changes: the prompt, the rule pack, or the catalog whose tools are ranked."""
MODES: tuple[Mode, ...] = get_args(Mode)
_SAMPLE = "the sample catalog"


@dataclass(frozen=True, slots=True)
class _Job:
    """Everything one comparison depends on (equal jobs give equal comparisons)."""

    a: Request
    mode: Mode
    text_b: str
    rules_b: RulesRef | None
    catalog_b: str | None
    rank_tools: bool


def _incomplete(job: _Job) -> bool:
    """Side B is not given yet: no prompt, or no pack or catalog chosen."""
    if job.mode == "prompt":
        return not job.text_b.strip()
    return (job.rules_b if job.mode == "rules" else job.catalog_b) is None


class CompareModel(QObject):
    """Side B, the comparison of the request with it, and suites under both sides.

    Attributes:
        mode: what side B changes (`MODES`); text_b: B's prompt (mode "prompt");
            rules_b: B's rule pack (mode "rules"); catalog_b: B's catalog path (mode "catalog").
        rank_tools: whether both sides rank a catalog's tools (always, in mode "catalog").
        result: the comparison shown last (None: nothing to compare).
        suite_result: the latest `SuiteComparison`.

    Signals:
        compared: emitted with the `Comparison` of A and B (None: a side has no prompt).
        failed: emitted with a one-line reason when A and B cannot be compared.
        loading: emitted with a catalog's name when a comparison has to build its engine first.
        b_source: emitted with (mode, a short name) when B's rule pack or catalog is chosen.
        suite_started: emitted with a suite's file name when it starts running on both sides.
        suite_compared: emitted with the `SuiteComparison` of a suite.
        suite_failed: emitted with a one-line reason when a suite cannot be run on both sides.
        case_opened: emitted with a suite case's `Request` (the session makes it its own).
    """

    compared = Signal(object)
    failed = Signal(str)
    loading = Signal(str)
    b_source = Signal(str, str)
    suite_started = Signal(str)
    suite_compared = Signal(object)
    suite_failed = Signal(str)
    case_opened = Signal(object)

    def __init__(
        self,
        request: Callable[[], Request],
        *,
        engines: Engines,
        parent: QObject | None = None,
    ) -> None:
        """`request` gives the session's current request (side A); `engines` the session's
        engines, one per catalog (their folder keeps the tool indexes and vectors, for suites
        too)."""
        super().__init__(parent)
        self._request = request
        self._engines = engines
        self.mode: Mode = "prompt"
        self.text_b = ""
        self.rules_b: RulesRef | None = None
        self.catalog_b: str | None = None
        self.rank_tools = True
        self.result: Comparison | None = None
        self.suite_result: SuiteComparison | None = None
        self._enabled = False
        self._closed = False
        self._compared_for: _Job | None = None
        self._refs: dict[str, CatalogRef] = {}
        """The reference of each catalog path (or `_SAMPLE`) loaded in the worker, to find its
        engine again without reading the file (one job at a time writes here)."""
        self._suite: Suite | None = None
        self._suite_rules_a: str | None = None
        self._lane = Lane()
        self._suite_lane = Lane()
        self._case_lane = Lane()
        self._timer = QTimer(self, singleShot=True, interval=COMPARE_DELAY_MS)
        self._timer.timeout.connect(self._compare)

    @property
    def busy(self) -> bool:
        """Whether a comparison is under way or due, or a suite runs on both sides (after
        `close`, work still ending in its thread is dropped: nothing is under way)."""
        lanes = (self._lane, self._suite_lane, self._case_lane)
        return self._timer.isActive() or (any(lane.busy for lane in lanes) and not self._closed)

    @property
    def suite_ready(self) -> bool:
        """Whether B is a rule pack or a catalog: what a suite can be run under."""
        return (self.mode == "rules" and self.rules_b is not None) or (
            self.mode == "catalog" and self.catalog_b is not None
        )

    # -- side A and side B -----------------------------------------------------------------
    def follow(self, field: str) -> None:
        """The request's `field` changed: compare again once it rests (every field counts)."""
        del field
        self._soon()

    def set_enabled(self, enabled: bool) -> None:
        """Compare while enabled (someone looks at the comparison)."""
        self._enabled = enabled
        if enabled:
            self._closed = False
            self._soon()
            return
        self._timer.stop()
        self._lane.cancel()
        self._compared_for = None  # what is shown may go stale: compare again when enabled

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"no compare mode {mode!r} (one of {', '.join(MODES)})")
        self.mode = next(m for m in MODES if m == mode)
        self._soon()

    def set_text_b(self, text: str) -> None:
        self.text_b = text
        self._soon()

    def set_rank_tools(self, rank: bool) -> None:
        self.rank_tools = rank
        self._soon()

    def set_rules_b(self, path: str | Path) -> bool:
        """Side B under the rule pack of a file (read and validated now; on an error, the
        pack B had stays and `failed` says why)."""
        try:
            rules = routescope.RulesRef.from_path(path)
        except routescope.RoutescopeError as exc:
            self.failed.emit(str(exc))
            return False
        self.rules_b = rules
        self.mode = "rules"
        self.b_source.emit("rules", f"{rules.load().name} ({Path(path).name})")
        self._soon()
        return True

    def set_catalog_b(self, path: str | Path) -> None:
        """Side B ranks the tools of another catalog (loaded, and its engine built, in the
        worker: an error comes through `failed`)."""
        self.catalog_b = str(Path(path).resolve())
        self.mode = "catalog"
        self.b_source.emit("catalog", Path(path).name)
        self._soon()

    def _soon(self) -> None:
        """Something A or B depends on changed: the comparison under way is stale now, and a
        new one starts once they rest."""
        if self._enabled:
            self._lane.cancel()
            self._timer.start()

    def _job(self) -> _Job:
        return _Job(
            self._request(),
            self.mode,
            self.text_b,
            self.rules_b,
            self.catalog_b,
            self.rank_tools or self.mode == "catalog",
        )

    def _compare(self) -> None:
        job = self._job()
        if not self._enabled or job == self._compared_for:
            return
        self._compared_for = job
        if not job.a.text.strip() or _incomplete(job):
            self._lane.cancel()
            self._show(None)
            return
        for name in self._engines_to_build(job):
            self.loading.emit(name)
        self._lane.submit(lambda: self._run(job), self._show, self._fail)

    def _engines_to_build(self, job: _Job) -> list[str]:
        if not job.rank_tools:
            return []
        wanted: list[tuple[str, CatalogRef | None]] = [
            (job.a.catalog.path, job.a.catalog) if job.a.catalog else (_SAMPLE, None)
        ]
        if job.mode == "catalog" and job.catalog_b:
            wanted.append((job.catalog_b, None))
        missing = []
        for path, given in wanted:
            ref = given or self._refs.get(path)
            if ref is None or self._engines.cached(ref) is None:
                missing.append(Path(path).name if path != _SAMPLE else path)
        return missing

    def _run(self, job: _Job) -> Comparison:
        """In the worker: both requests with their engines, run and diffed."""
        compare = routescope.compare
        a, engine_a = job.a, None
        if job.rank_tools:
            if a.catalog is None:
                catalog_a, engine_a = self._engine_at(_SAMPLE)
                a = a.replace(catalog=catalog_a)
            else:
                engine_a = _ready(self._engines.get(a.catalog))
        engine_b = engine_a
        if job.mode == "prompt":
            b = a.replace(text=job.text_b)
        elif job.mode == "rules":
            b = a.replace(rules=job.rules_b) if job.rules_b is not None else a
        else:
            b = a
            if job.catalog_b is not None:
                catalog_b, engine_b = self._engine_at(job.catalog_b)
                b = a.replace(catalog=catalog_b)
        return compare.compare_requests(a, b, engine_a, engine_b)

    def _engine_at(self, path: str) -> tuple[CatalogRef, ToolSearch]:
        """In the worker: the reference and engine of the catalog at `path` (`_SAMPLE`: the
        sample), read the first time and kept."""
        ref = self._refs.get(path)
        engine = self._engines.cached(ref) if ref is not None else None
        if ref is None or engine is None:
            folder = routescope.CatalogRef.sample_path() if path == _SAMPLE else Path(path)
            catalog = routescope.toolsearch.load_catalog(folder.resolve())
            ref, engine = routescope.CatalogRef.of(catalog), self._engines.of(catalog)
            self._refs[path] = ref
        return ref, _ready(engine)

    def _show(self, comparison: Comparison | None) -> None:
        self.result = comparison
        self.compared.emit(comparison)

    def _fail(self, message: str) -> None:
        self._compared_for = None  # try again on the next change
        self.result = None
        self.failed.emit(message)

    def close(self) -> None:
        """Stop (the window is closing): what is under way or due is dropped."""
        self._enabled = False
        self._closed = True
        self._timer.stop()
        for lane in (self._lane, self._suite_lane, self._case_lane):
            lane.cancel()

    # -- a suite under both sides ------------------------------------------------------------
    def run_suite(self, path: str | Path) -> None:
        """Run every case of a suite on side A (each case's rule pack, or the request's pack
        when it is a file) and on side B (B's pack or catalog), off the UI thread."""
        if not self.suite_ready:
            self.suite_failed.emit(
                "choose another rule pack or catalog for B first: a suite keeps its own prompts"
            )
            return
        request = self._request()
        source = request.rules.source
        rules_a = None if request.rules.is_builtin or not Path(source).is_file() else source
        rules_b = self.rules_b.source if self.mode == "rules" and self.rules_b else None
        catalog_b = self.catalog_b if self.mode == "catalog" else None
        cache = self._engines.cache

        def run() -> tuple[Suite, SuiteComparison]:
            suite = routescope.regress.load_suite(path)
            compared = routescope.compare.compare_suite(
                suite, rules=rules_a, rules_b=rules_b, catalog_b=catalog_b, cache=cache
            )
            return suite, compared

        def done(outcome: tuple[Suite, SuiteComparison]) -> None:
            self._suite, self.suite_result = outcome
            self._suite_rules_a = rules_a
            self.suite_compared.emit(outcome[1])

        self._closed = False
        self.suite_started.emit(Path(path).name)
        self._suite_lane.submit(run, done, self.suite_failed.emit)

    def open_case(self, case_id: str) -> None:
        """Make a case's exact inputs (on side A) the request, built off the UI thread."""
        suite, rules_a = self._suite, self._suite_rules_a
        case = next((c for c in suite.cases if c.id == case_id), None) if suite else None
        if suite is None or case is None:
            return

        def build() -> Request:
            request = case.request(suite)
            if rules_a is not None:  # side A ran every case under this pack
                request = request.replace(rules=routescope.RulesRef.from_path(rules_a))
            return request

        self._case_lane.submit(build, self.case_opened.emit, self.suite_failed.emit)


def _ready(engine: ToolSearch) -> ToolSearch:
    """The engine with its tool vectors read or built, in the worker (a kept one has them)."""
    engine.ensure_vectors()
    return engine
