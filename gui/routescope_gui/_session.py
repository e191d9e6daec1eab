"""The session: the window's one model. It holds the current `Request` and the latest results,
runs every router for it, and tells the views through signals (qutebrowser's `Config.changed`,
napari's evented models).

Slow work never runs on the UI thread: loading a catalog and its engine, embedding the query,
ranking tools, "why not this tool?", inspecting a large paste and running a regression suite
all go through `_Lane`s, on the asyncio loop (qasync), in worker threads; a lane drops results
that a newer request has made stale. Deep research runs in a worker thread on an event loop of
its own, as `_ResearchRun`, and reports each attempt as it is graded: with the offline backends
it follows the prompt (a newer prompt cancels the run); with network providers it runs when
asked (`run_research`) and `cancel_research` stops it.

`inspect()` of an ordinary prompt takes about a millisecond, so it runs on the UI thread: at
once for the first change in a turn of the event loop, and once more at the end of the turn
when a burst of changes came in.

The routers are imported on first use, not with this module, so the window can be painted
before they load.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal

import routescope

if TYPE_CHECKING:
    import datetime as dt

    import numpy as np

    from routescope import CatalogRef, Inspection, Request, RulesRef
    from routescope.contract import RouterContext, Step, StepResult
    from routescope.regress import CaseResult, Suite, SuiteResult
    from routescope.research import (
        Attempt,
        DeepResearchResult,
        KeyStore,
        OfflineSearch,
        ResearchSettings,
    )
    from routescope.toolsearch import (
        Catalog,
        SearchSettings,
        ToolSearch,
        ToolSearchResult,
        WhyNot,
    )

__all__ = ["BACKGROUND_CHARS", "RESEARCH_DELAY_MS", "SearchFactory", "Session"]

BACKGROUND_CHARS = 20_000
"""Prompts longer than this are inspected off the UI thread."""
_SUITE_BATCH_SECONDS = 0.05
RESEARCH_DELAY_MS = 300
"""Research starts once the prompt has not changed for this long (a run per keystroke would
waste the worker)."""
"""How long a worker runs regression cases before the window hears of its progress."""

_T = TypeVar("_T")
SearchFactory = Callable[[Path | None], "OfflineSearch"]
"""Makes the offline search backend for a cache folder (None: the user's cache folder)."""


class Session(QObject):
    """The current request, the latest results, and every computation behind them.

    Attributes:
        inspection: the latest `Inspection` of the request (None: blank prompt or an error).
        engine: the tool-search engine of the request's catalog, once loaded.
        ranking: the latest `ToolSearchResult` for the prompt.
        why_not: the latest `WhyNot` of the pinned tool.
        plan_results: the steps of the decision's plan run so far (the step-through).
        suite: the regression suite opened last; suite_result: its latest run.

    Signals:
        changed: emitted with the name of the request's field that changed ("text", "today",
            "rules", "context", "catalog", "search"), or "request" when it was replaced whole.
        inspected: emitted with the `Inspection` of the current request, or None when the
            prompt is blank.
        failed: emitted with a one-line reason when the request cannot be inspected.
        engine_loading: emitted with a catalog's name when its engine starts loading.
        engine_ready: emitted with (a status line naming the catalog's format and the entries
            skipped, the tool names, the details: why that format, what was skipped) when an
            engine is loaded.
        engine_failed: emitted with a one-line reason when a catalog or ranking fails.
        ranked: emitted with the `ToolSearchResult` of the prompt (None: blank prompt).
        explained: emitted with the `WhyNot` of the pinned tool (None: no tool pinned).
        plan_stepped: emitted when the step-through of the plan moved.
        suite_opened: emitted with a `Suite` once it is loaded.
        suite_failed: emitted with a one-line reason when a suite cannot be loaded or run.
        suite_progress: emitted with (cases run, cases in all) while a suite runs.
        suite_finished: emitted with the `SuiteResult` and the ids of the cases whose outcome
            changed since the previous run of the same file (None: no previous run).
        goldens_accepted: emitted with (case id, values changed) after "accept as golden".
        research_started: emitted with the goal when a research run starts.
        research_attempt: emitted with each `Attempt` of the run under way as it is graded.
        research_finished: emitted with the `DeepResearchResult` of the prompt (None: blank
            prompt).
        research_failed: emitted with a one-line reason when a run cannot start (the offline
            index cannot be opened or built, a provider without its key or URL).
        research_cancelled: emitted when a run under way was cancelled (Esc, a newer prompt).
        research_saved: emitted with the path of a report written for a finished run.
    """

    changed = Signal(str)
    inspected = Signal(object)
    failed = Signal(str)
    engine_loading = Signal(str)
    engine_ready = Signal(str, object, str)
    engine_failed = Signal(str)
    ranked = Signal(object)
    explained = Signal(object)
    plan_stepped = Signal()
    suite_opened = Signal(object)
    suite_failed = Signal(str)
    suite_progress = Signal(int, int)
    suite_finished = Signal(object, object)
    goldens_accepted = Signal(str, int)
    research_started = Signal(str)
    research_attempt = Signal(object)
    research_finished = Signal(object)
    research_failed = Signal(str)
    research_cancelled = Signal()
    research_saved = Signal(str)

    def __init__(
        self,
        request: Request | None = None,
        *,
        cache: Path | None = None,
        research_search: SearchFactory | None = None,
        keys: KeyStore | None = None,
        reports: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        """`request` defaults to an empty prompt with the built-in rules; `cache` is the folder
        that keeps tool indexes and vectors, and the offline research index under `research/`
        (default: the user's cache folders); `research_search` makes the offline search backend
        for that folder (default: `OfflineSearch` over the machine's documentation); `keys`
        holds the providers' keys (default: the user's key file); reports of research over the
        network are kept in `reports` (default: the user's data folder)."""
        super().__init__(parent)
        self._request = request
        self._cache = cache
        self.research: DeepResearchResult | None = None
        self.research_settings: ResearchSettings | None = None
        """None: the offline defaults."""
        self._keys = keys
        self._reports = reports
        self._research_enabled = False
        self._researched_for: str | None = None
        self._research_run: _ResearchRun | None = None
        self._offline = _OnceSearch(
            research_search or _offline_search, cache / "research" if cache else None
        )
        self._research_timer = QTimer(self, singleShot=True, interval=RESEARCH_DELAY_MS)
        self._research_timer.timeout.connect(self._research)
        self.inspection: Inspection | None = None
        self.engine: ToolSearch | None = None
        self._engine_for: CatalogRef | None = None
        self.ranking: ToolSearchResult | None = None
        self.why_not: WhyNot | None = None
        self.pinned_tool = ""
        self.plan_results: list[StepResult] = []
        self.suite: Suite | None = None
        self.suite_result: SuiteResult | None = None
        self._previous_passes: dict[str, bool] | None = None
        self._ranking_enabled = False
        self._ranked_for: tuple[str, SearchSettings, ToolSearch] | None = None
        self._query_vector: tuple[str, np.ndarray | None] | None = None
        self._inspect_lane = _Lane()
        self._engine_lane = _Lane()
        self._rank_lane = _Lane()
        self._explain_lane = _Lane()
        self._suite_lane = _Lane()
        self._case_lane = _Lane()
        # Active from an inspection until the event loop comes round: changes meanwhile wait.
        self._turn = QTimer(self, singleShot=True, interval=0)
        self._turn.timeout.connect(self._end_turn)
        self._inspect_pending = False

    @property
    def request(self) -> Request:
        """Everything the routers depend on. Until the first change this is the default
        request, built on first use."""
        if self._request is None:
            self._request = routescope.Request.build("")
        return self._request

    @property
    def busy(self) -> bool:
        """Whether background work is under way (an inspection, the engine, a ranking, …)."""
        lanes = (
            self._inspect_lane,
            self._engine_lane,
            self._rank_lane,
            self._explain_lane,
            self._suite_lane,
            self._case_lane,
        )
        researching = self._research_timer.isActive() or self._research_run is not None
        return self._turn.isActive() or researching or any(lane.busy for lane in lanes)

    # -- the request -----------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        if self._replace("text", text):
            self._inspect_soon()
            self._rank()
            self._research_soon()

    def set_today(self, today: dt.date) -> None:
        if self._replace("today", today):
            self._inspect_soon()

    def set_rules(self, rules: RulesRef) -> None:
        if self._replace("rules", rules):
            self._inspect_soon()

    def set_context(self, context: RouterContext | None) -> None:
        if self._replace("context", context):
            self._inspect_soon()

    def set_search(self, settings: SearchSettings) -> None:
        if self._replace("search", settings):
            self._rank()

    def set_catalog(self, catalog: CatalogRef) -> None:
        """Rank the tools of another catalog; its engine loads off the UI thread."""
        if self._replace("catalog", catalog):
            self._load_engine(catalog)

    def open_request(self, request: Request) -> None:
        """Replace the whole request (a regression case's exact inputs, a start-up prompt)."""
        if request == self._request:
            return
        self._request = request
        self.changed.emit("request")
        self._inspect_soon()
        if request.catalog is not None and request.catalog != self._engine_for:
            self._load_engine(request.catalog)
        else:
            self._rank()
        self._research_soon()

    def _replace(self, field: str, value: object) -> bool:
        if getattr(self.request, field) == value:
            return False
        self._request = self.request.replace(**{field: value})
        self.changed.emit(field)
        return True

    # -- inspecting ------------------------------------------------------------------------
    def _inspect_soon(self) -> None:
        request = self.request
        if len(request.text) > BACKGROUND_CHARS:
            self._inspect_pending = False
            self._inspect_lane.submit(
                lambda: routescope.inspect(request), self._show_inspection, self._fail
            )
            return
        self._inspect_lane.cancel()  # a large prompt still in the works is stale now
        if self._turn.isActive():
            self._inspect_pending = True
            return
        self._turn.start()
        if not request.text.strip():
            self._show_inspection(None)
            return
        try:
            inspection = routescope.inspect(request)
        except routescope.RoutescopeError as exc:
            self._fail(str(exc))
            return
        self._show_inspection(inspection)

    def _end_turn(self) -> None:
        if self._inspect_pending:
            self._inspect_pending = False
            self._inspect_soon()

    def _show_inspection(self, inspection: Inspection | None) -> None:
        self.inspection = inspection
        self.plan_results = []
        self.inspected.emit(inspection)

    def _fail(self, message: str) -> None:
        self.inspection = None
        self.plan_results = []
        self.failed.emit(message)

    # -- the plan's step-through -------------------------------------------------------------
    def plan_progress(self) -> Step | None:
        """What the decision's plan does next after the steps run so far (None: no decision)."""
        decision = self.inspection.decision if self.inspection else None
        if decision is None:
            return None
        return routescope.contract.prepare_step(
            decision, self.plan_results, rules=self.request.rules.load()
        )

    def step_plan(self) -> None:
        """Run the plan's next step, as if it succeeded."""
        step = self.plan_progress()
        if step is None or step.next is None:
            return
        result = routescope.contract.StepResult(tool=step.next.tool, args=step.next.args)
        self.plan_results.append(result)
        self.plan_stepped.emit()

    def reset_plan(self) -> None:
        self.plan_results = []
        self.plan_stepped.emit()

    # -- tool search -------------------------------------------------------------------------
    def set_ranking_enabled(self, enabled: bool) -> None:
        """Rank tools for the prompt while enabled (someone looks at the ranking). The first
        time, the engine of the request's catalog, or of the sample catalog, loads."""
        self._ranking_enabled = enabled
        if not enabled:
            self._rank_lane.cancel()
            self._explain_lane.cancel()
            self._ranked_for = None  # what is shown may go stale: rank again when enabled
            return
        if self.engine is not None:
            self._rank()
        elif not self._engine_lane.busy:
            if self.request.catalog is None:
                self.open_catalog(None)
            else:
                self._load_engine(self.request.catalog)

    def open_catalog(self, path: str | Path | None) -> None:
        """Load a catalog (a folder of SKILL.md files, or a JSON file in any format the core
        reads: OpenAI tools or functions, MCP tools/list, Anthropic, Routescope's; None: the
        sample) and its engine off the UI thread, then rank its tools."""
        cache = self._cache
        self.engine_loading.emit(Path(path).name if path else "the sample catalog")

        def load() -> tuple[CatalogRef, ToolSearch]:
            toolsearch = routescope.toolsearch
            folder = Path(path) if path else Path(str(routescope.resources_root() / "catalog"))
            catalog = toolsearch.load_catalog(folder.resolve())  # loaded once: ref and engine
            return routescope.CatalogRef.of(catalog), _ready_engine(catalog, cache)

        self._engine_lane.submit(load, self._engine_loaded, self._engine_failed)

    def _load_engine(self, catalog: CatalogRef) -> None:
        cache = self._cache
        self.engine_loading.emit(Path(catalog.path).name)
        self._engine_lane.submit(
            lambda: (catalog, _engine(catalog, cache)), self._engine_loaded, self._engine_failed
        )

    def _engine_loaded(self, loaded: tuple[CatalogRef, ToolSearch]) -> None:
        catalog, engine = loaded
        self.engine, self._engine_for = engine, catalog
        self._query_vector = self._ranked_for = None
        if self.request.catalog != catalog:
            self._request = self.request.replace(catalog=catalog)
            self.changed.emit("catalog")
        tools = engine.catalog.tools
        notes = "".join(f" · {note}" for note in engine.notes)
        self.engine_ready.emit(
            f"{len(tools)} tools from {Path(catalog.path).name}{_catalog_summary(engine.catalog)}"
            f" · vectors: {engine.semantic_status}{notes}",
            tuple(sorted(tool.tool_name for tool in tools)),
            _catalog_details(engine.catalog),
        )
        self._rank()

    def _engine_failed(self, message: str) -> None:
        self.engine_failed.emit(f"cannot load catalog: {message}")

    def explain_row(self, tool_name: str) -> None:
        """Fill one ranked tool's per-field keyword explanation (a row the analyst opened),
        then show the ranking again. Quick (a few Tantivy explanations): on the UI thread."""
        engine, ranking = self.engine, self.ranking
        if engine is None or ranking is None:
            return
        hit = next((h for h in ranking.results if h.tool_name == tool_name), None)
        keyword = hit.signals.keyword if hit is not None else None
        if hit is None or keyword is None or keyword.fields:
            return
        try:
            engine.explain_hit(ranking, hit, self.request.search)
        except routescope.RoutescopeError as exc:
            self.engine_failed.emit(f"cannot explain {tool_name}: {exc}")
            return
        if keyword.fields:  # else nothing more to show: no loop of requests
            self.ranked.emit(ranking)

    def set_pinned_tool(self, name: str) -> None:
        """Explain where one tool stands for the prompt ("why not this tool?")."""
        name = name.strip()
        if name == self.pinned_tool:
            return
        self.pinned_tool = name
        self._explain()

    def _rank(self) -> None:
        """Rank the catalog for the prompt, and explain the pinned tool, off the UI thread."""
        engine, request = self.engine, self.request
        if not self._ranking_enabled or engine is None:
            return
        text, settings, pinned = request.text, request.search, self.pinned_tool
        if self._ranked_for == (text, settings, engine):
            return
        self._ranked_for = (text, settings, engine)
        self._explain_lane.cancel()
        if not text.strip():
            self._rank_lane.cancel()
            self._show_ranking(_Ranked(text, None, None, None))
            return
        known = self._known_vector(text)

        def rank() -> _Ranked:
            vector = known if known is not None else _embed(engine, text)
            # Rows are explained when the analyst opens them (`explain_row`), not all at once.
            unexplained = dataclasses.replace(settings, explain=False)
            ranking = engine.search(text, unexplained, query_vector=vector)
            explanation = (
                routescope.toolsearch.why_not(engine, text, pinned, settings, vector)
                if pinned
                else None
            )
            return _Ranked(text, vector, ranking, explanation)

        self._rank_lane.submit(rank, self._show_ranking, self._rank_failed)

    def _explain(self) -> None:
        engine, request, pinned = self.engine, self.request, self.pinned_tool
        if engine is None or not self._ranking_enabled or not pinned or not request.text.strip():
            self._explain_lane.cancel()
            self._show_why_not(None)
            return
        text, settings = request.text, request.search
        known = self._known_vector(text)

        def explain() -> WhyNot:
            vector = known if known is not None else _embed(engine, text)
            return routescope.toolsearch.why_not(engine, text, pinned, settings, vector)

        self._explain_lane.submit(explain, self._show_why_not, self._rank_failed)

    def _known_vector(self, text: str) -> np.ndarray | None:
        """The query vector of `text` if it is embedded already: moving a slider re-ranks
        without embedding again."""
        known = self._query_vector
        return known[1] if known is not None and known[0] == text else None

    def _show_ranking(self, ranked: _Ranked) -> None:
        if ranked.ranking is not None:
            self._query_vector = (ranked.text, ranked.vector)
        self.ranking = ranked.ranking
        self.ranked.emit(ranked.ranking)
        self._show_why_not(ranked.why_not)

    def _show_why_not(self, why_not: WhyNot | None) -> None:
        self.why_not = why_not
        self.explained.emit(why_not)

    def _rank_failed(self, message: str) -> None:
        self._ranked_for = None
        self.engine_failed.emit(f"cannot rank: {message}")

    # -- deep research -----------------------------------------------------------------------
    @property
    def research_live(self) -> bool:
        """Research follows the typing (offline backends) rather than running when asked."""
        return self.research_settings is None or self.research_settings.offline

    def set_research_settings(self, settings: ResearchSettings) -> None:
        """Use other backends; a run under way is cancelled, and offline backends research the
        prompt again."""
        self.research_settings = settings
        self._cancel_research()
        self._researched_for = None
        if self.research_live:
            self._research_soon()

    def key_store(self) -> KeyStore:
        if self._keys is None:
            self._keys = routescope.research.KeyStore()
        return self._keys

    def set_research_enabled(self, enabled: bool) -> None:
        """Research the prompt while enabled (someone looks at the research). A run under way
        when it is disabled is cancelled."""
        self._research_enabled = enabled
        if enabled:
            if self.research_live:
                self._research()
            return
        self._research_timer.stop()
        if self._research_run is not None:
            self._cancel_research()
            self._researched_for = None  # nothing was shown for it: run again when enabled

    def run_research(self) -> None:
        """Research the prompt now (Ctrl+Enter), whichever the backends; again if it was."""
        self._researched_for = None
        self._research(asked=True)

    def cancel_research(self) -> None:
        """Stop the run under way (Esc); what was shown stays."""
        self._research_timer.stop()
        self._cancel_research()

    def _research_soon(self) -> None:
        """The prompt changed: a run for the previous one is stale now; with offline backends
        a new one starts once the prompt rests."""
        if not self._research_enabled:
            return
        self._cancel_research()
        if self.research_live:
            self._research_timer.start()

    def _cancel_research(self) -> None:
        run, self._research_run = self._research_run, None
        if run is not None:
            run.cancel()
            self._researched_for = None
            self.research_cancelled.emit()

    def _research(self, *, asked: bool = False) -> None:
        """Research the prompt off the UI thread, unless it is shown already."""
        self._research_timer.stop()
        goal = self.request.text
        if not asked and (not self._research_enabled or not self.research_live):
            return
        if goal == self._researched_for:
            return
        self._cancel_research()
        self._researched_for = goal
        if not goal.strip():
            self._show_research(None)
            return
        settings = self.research_settings or routescope.research.ResearchSettings()
        keys = {} if settings.offline else self.key_store().keys()
        loop = asyncio.get_running_loop()
        run = _ResearchRun(goal, settings, keys, self._offline)
        run.on_attempt = lambda attempt: loop.call_soon_threadsafe(self._attempt, run, attempt)
        self._research_run = run
        self.research_started.emit(goal)
        task = loop.create_task(self._await_research(run))
        task.add_done_callback(_report_crash)

    def _attempt(self, run: _ResearchRun, attempt: Attempt) -> None:
        if run is self._research_run:
            self.research_attempt.emit(attempt)

    async def _await_research(self, run: _ResearchRun) -> None:
        error: str | None = None
        result: DeepResearchResult | None = None
        try:
            result = await asyncio.to_thread(run.execute)
        except _ResearchFailedError as exc:
            error = str(exc)
        if run is not self._research_run:  # cancelled, or superseded by a newer prompt
            return
        self._research_run = None
        if error is not None:
            self._researched_for = None
            self.research_failed.emit(error)
        elif result is not None:
            self._show_research(result)
            if not run.settings.offline:  # a run over the network is kept: it cost something
                self.save_research_report()

    def _show_research(self, result: DeepResearchResult | None) -> None:
        self.research = result
        self.research_finished.emit(result)

    def save_research_report(self, folder: Path | None = None) -> Path | None:
        """Write the shown run's report (report.md, report.json) into `folder` (default: a new
        folder under the reports folder, named by time and goal); its path, or None when there
        is nothing to save or it cannot be written (`research_failed` says why)."""
        result = self.research
        if result is None:
            return None
        if folder is None:
            reports = self._reports or routescope.research.default_reports_folder()
            folder = reports / _report_name(result.goal)
        try:
            path = routescope.research.write_report(result, folder)
        except OSError as exc:
            self.research_failed.emit(f"cannot save the report in {folder}: {exc.strerror or exc}")
            return None
        self.research_saved.emit(str(path))
        return path

    def close(self) -> None:
        """Stop background research (the window is closing): a run under way is cancelled."""
        self._research_timer.stop()
        self._research_enabled = False
        self._cancel_research()

    # -- regression suites --------------------------------------------------------------------
    def open_suite(self, path: str | Path) -> None:
        """Load a suite off the UI thread (a run of the previous one stops)."""
        self._suite_lane.submit(
            lambda: routescope.regress.load_suite(path), self._suite_loaded, self.suite_failed.emit
        )

    def _suite_loaded(self, suite: Suite) -> None:
        if self.suite is None or self.suite.path != suite.path:
            self._previous_passes = None
        self.suite, self.suite_result = suite, None
        self.suite_opened.emit(suite)

    def run_suite(self) -> None:
        """Run every case of the suite in worker threads, reporting progress per batch."""
        suite = self.suite
        if suite is None:
            return
        cases = routescope.regress.iter_cases(suite, cache=self._cache)
        results: list[CaseResult] = []

        def next_batch() -> list[CaseResult]:
            return _take_for(cases, _SUITE_BATCH_SECONDS)

        def batch_done(batch: list[CaseResult]) -> None:
            if not batch:
                self._suite_finished(suite, results)
                return
            results.extend(batch)
            self.suite_progress.emit(len(results), len(suite.cases))
            self._suite_lane.submit(next_batch, batch_done, self.suite_failed.emit)

        self.suite_progress.emit(0, len(suite.cases))
        self._suite_lane.submit(next_batch, batch_done, self.suite_failed.emit)

    def _suite_finished(self, suite: Suite, cases: list[CaseResult]) -> None:
        regress = routescope.regress
        result = regress.SuiteResult(
            suite=suite.suite,
            path=str(suite.path),
            router=suite.router,
            cases=cases,
            report=regress.class_report(suite.router, cases),
        )
        passes = {case.id: case.passed for case in cases}
        previous = self._previous_passes
        changed = (
            None
            if previous is None
            else frozenset(c for c, passed in passes.items() if previous.get(c, passed) != passed)
        )
        self.suite_result, self._previous_passes = result, passes
        self.suite_finished.emit(result, changed)

    def accept_golden(self, case_id: str) -> None:
        """Write a failing case's current values into its suite as the new goldens (through
        `regress.update_goldens`), then load the suite again and re-run it."""
        suite, result = self.suite, self.suite_result
        if suite is None or result is None:
            return
        regress = routescope.regress

        def accept() -> tuple[int, Suite]:
            changed = regress.update_goldens(suite, result, only={case_id})
            return changed, regress.load_suite(suite.path)

        def accepted(outcome: tuple[int, Suite]) -> None:
            changed, reloaded = outcome
            self._suite_loaded(reloaded)
            self.goldens_accepted.emit(case_id, changed)
            self.run_suite()

        self._suite_lane.submit(accept, accepted, self.suite_failed.emit)

    def open_case(self, case_id: str) -> None:
        """Make a case's exact inputs the request (`Case.request`), built off the UI thread."""
        suite = self.suite
        case = next((c for c in suite.cases if c.id == case_id), None) if suite else None
        if suite is None or case is None:
            return
        self._case_lane.submit(
            lambda: case.request(suite), self.open_request, self.suite_failed.emit
        )


def _offline_search(cache: Path | None) -> OfflineSearch:
    return routescope.research.OfflineSearch(cache=cache)


class _OnceSearch:
    """The offline search backend, made once, on first use, in whichever worker needs it
    first (making it is cheap; its index is opened or built on its first search)."""

    def __init__(self, factory: SearchFactory, cache: Path | None) -> None:
        self._factory, self._cache = factory, cache
        self._lock = threading.Lock()
        self._search: OfflineSearch | None = None

    def get(self) -> OfflineSearch:
        with self._lock:
            if self._search is None:
                self._search = self._factory(self._cache)
            return self._search


class _ResearchFailedError(Exception):
    """A research run could not start (one line)."""


class _ResearchRun:
    """One research run, in a worker thread on an event loop of its own: the offline index is
    opened (or built: seconds, the first time) when the settings use it, then `run_research`
    runs there. `cancel()`, from any thread, stops it at its next await; a cancelled run's
    result is None. `on_attempt` hears of each attempt, in the worker thread."""

    def __init__(
        self, goal: str, settings: ResearchSettings, keys: dict[str, str], search: _OnceSearch
    ) -> None:
        self.goal = goal
        self.settings = settings
        self.on_attempt: Callable[[Attempt], object] | None = None
        self._keys = keys
        self._search = search
        self._lock = threading.Lock()
        self._cancelled = False
        self._task: tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]] | None = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._task is not None:
                loop, task = self._task
                loop.call_soon_threadsafe(task.cancel)

    def execute(self) -> DeepResearchResult | None:
        """Run in a worker thread. Raises `_ResearchFailedError` when the run cannot start."""
        research = routescope.research  # (loads research here, off the UI thread)
        if self.settings.search == "offline":
            try:
                self._search.get().open()
            except research.OfflineIndexError as exc:
                raise _ResearchFailedError(str(exc)) from None
        if self._cancelled:
            return None
        with asyncio.Runner() as runner:
            try:
                return runner.run(self._research())
            except asyncio.CancelledError:
                return None
            except research.ResearchConfigError as exc:
                raise _ResearchFailedError(str(exc)) from None
            finally:
                with self._lock:
                    self._task = None

    async def _research(self) -> DeepResearchResult | None:
        task = asyncio.current_task()
        assert task is not None
        with self._lock:
            if self._cancelled:
                return None
            self._task = (asyncio.get_running_loop(), task)
        return await routescope.research.run_research(
            self.goal,
            self.settings,
            keys=self._keys,
            offline=self._search.get,
            on_attempt=self._attempted,
        )

    def _attempted(self, attempt: Attempt) -> None:
        if self.on_attempt is not None and not self._cancelled:
            self.on_attempt(attempt)


def _report_name(goal: str) -> str:
    """A new report folder's name: the local time and the goal's first words."""
    words = "-".join(re.findall(r"[a-z0-9]+", goal.lower())[:6])[:60] or "research"
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{words}"


@dataclass(frozen=True, slots=True)
class _Ranked:
    """What one ranking job found: for the text, its query vector, the ranking, why-not."""

    text: str
    vector: np.ndarray | None
    ranking: ToolSearchResult | None
    why_not: WhyNot | None


_SHOWN_PROBLEMS = 12
"""The skipped entries a catalog's details list (a tooltip): the first ones, then a count."""


def _catalog_summary(catalog: Catalog) -> str:
    """The format the core detected and the entries it skipped: " · mcp format · 2 skipped"."""
    kind = f" · {catalog.format} format" if catalog.format else ""
    skipped = f" · {len(catalog.problems)} skipped" if catalog.problems else ""
    return kind + skipped


def _catalog_details(catalog: Catalog) -> str:
    """Why the core read the catalog as its format, and each entry it skipped."""
    lines = [f"format {catalog.format}: {catalog.format_reason}"] if catalog.format else []
    problems = catalog.problems
    if problems:
        lines.append(f"{len(problems)} skipped:")
        lines += [f"  {problem}" for problem in problems[:_SHOWN_PROBLEMS]]
        if len(problems) > _SHOWN_PROBLEMS:
            lines.append(f"  … and {len(problems) - _SHOWN_PROBLEMS} more")
    return "\n".join(lines)


def _engine(catalog: CatalogRef, cache: Path | None) -> ToolSearch:
    return _ready_engine(routescope.toolsearch.load_catalog(catalog.path), cache)


def _ready_engine(catalog: Catalog, cache: Path | None) -> ToolSearch:
    """An engine with its tool vectors read or built here, in the worker: the first ranking on
    the UI thread must not embed the whole catalog."""
    engine = routescope.toolsearch.ToolSearch(catalog, cache=cache)
    engine.ensure_vectors()
    return engine


def _embed(engine: ToolSearch, text: str) -> np.ndarray | None:
    """The query vector, or None when the engine runs keyword-only."""
    return engine.embed_query(text) if engine.vector is not None else None


def _take_for(items: Iterator[_T], seconds: float) -> list[_T]:
    """The next items of `items`, as many as are made within about `seconds` (at least one)."""
    deadline = time.perf_counter() + seconds
    batch: list[_T] = []
    for item in items:
        batch.append(item)
        if time.perf_counter() >= deadline:
            break
    return batch


@dataclass(slots=True)
class _Job:
    generation: int
    work: Callable[[], Any]
    deliver: Callable[[Any], None]
    fail: Callable[[str], None]


class _Lane:
    """One kind of slow work, run in a worker thread from the asyncio loop.

    One job runs at a time; a job submitted meanwhile waits, replacing any job already
    waiting. A job's result (or its `RoutescopeError`, as a message) is delivered on the UI
    thread only if no job was submitted, and the lane was not cancelled, after it.
    """

    def __init__(self) -> None:
        self._generation = 0
        self._waiting: _Job | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def submit(
        self, work: Callable[[], _T], deliver: Callable[[_T], None], fail: Callable[[str], None]
    ) -> None:
        self._generation += 1
        self._waiting = _Job(self._generation, work, deliver, fail)
        if not self.busy:
            self._task = asyncio.get_running_loop().create_task(self._drain())
            self._task.add_done_callback(_report_crash)

    def cancel(self) -> None:
        """Make the running job's result stale and drop the waiting one."""
        self._generation += 1
        self._waiting = None

    async def _drain(self) -> None:
        while (job := self._waiting) is not None:
            self._waiting = None
            try:
                result = await asyncio.to_thread(job.work)
            except routescope.RoutescopeError as exc:
                if job.generation == self._generation:
                    job.fail(str(exc))
                continue
            if job.generation == self._generation:
                job.deliver(result)


def _report_crash(task: asyncio.Task[None]) -> None:
    """A bug in background work reaches `sys.excepthook` (pytest-qt fails the test with it)."""
    if not task.cancelled() and (error := task.exception()) is not None:
        sys.excepthook(type(error), error, error.__traceback__)
