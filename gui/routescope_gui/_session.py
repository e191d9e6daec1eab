"""The session: the window's one model, composed of one model per feature (napari's
`ViewerModel` composes `Dims`, `Camera` and `LayerList` the same way).

It holds the current `Request`, which every feature model reads, and tells them when one of
its fields changed; each feature model runs its own work and tells its views through its own
signals:

- `inspection` (`InspectionModel`): the request's `Inspection` and the plan's step-through;
- `tools` (`ToolsModel`): the catalog's engine, the ranking of its tools, why-not;
- `research` (`ResearchModel`): deep research on the prompt;
- `regress` (`RegressModel`): regression suites, their runs and goldens;
- `batch` (`BatchModel`): batches over logs, their progress and reports;
- `compare` (`CompareModel`): the request beside a side B, and suites under both sides;
- `insight` (`InsightModel`): why the routers decided — counterfactuals, close calls, traces;
- `routers` (`RoutersModel`): a routers file's external routers and their decisions;
- `router_compare` (`RouterCompareModel`): two routers, built-in or external, compared;
- `history` (`HistoryModel`): the inspected prompts kept, searched and reopened;
- `judge` (`JudgeModel`): the analyst's judgments, in judged sets of the history store;
- `quality` (`QualityModel`): the pack scored on the current judged set;
- `suggestions` (`SuggestionsModel`): pack edits the set's errors suggest, with their gain.

Slow work never runs on the UI thread: each model has its worker lanes (`_lanes`). The
routers are imported on first use, not with this module, so the window can be painted before
they load.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

import routescope

from ._batch_model import BatchModel
from ._compare_model import CompareModel
from ._history_model import HistoryModel
from ._insight_model import InsightModel
from ._inspection_model import InspectionModel
from ._judge_model import JudgeModel
from ._quality_model import QualityModel
from ._regress_model import RegressModel
from ._research_model import ResearchModel, SearchFactory
from ._router_compare_model import RouterCompareModel
from ._routers_model import RoutersModel
from ._rules_editor_model import RulesEditorModel
from ._suggest_model import SuggestionsModel
from ._tools_model import ToolsModel

if TYPE_CHECKING:
    import datetime as dt

    from routescope import CatalogRef, Request, RulesRef
    from routescope.contract import RouterContext
    from routescope.external import RouterPool, Routers
    from routescope.research import KeyStore
    from routescope.toolsearch import SearchSettings, ToolSearch

__all__ = ["Session"]


class Session(QObject):
    """The current request and the feature models that work on it.

    Attributes:
        engines: the `Engines` of the session, one per catalog (the tools, compare and insight
            models share them).
        inspection: the `InspectionModel`; tools: the `ToolsModel`; research: the
            `ResearchModel`; regress: the `RegressModel`; batch: the `BatchModel`;
            compare: the `CompareModel`; insight: the `InsightModel`; routers: the
            `RoutersModel`; router_compare: the `RouterCompareModel`; history: the
            `HistoryModel`; rules_editor: the `RulesEditorModel` (the pack edited live).

    Signals:
        changed: emitted with the name of the request's field that changed ("text", "today",
            "rules", "context", "catalog", "search"), or "request" when it was replaced whole.
    """

    changed = Signal(str)

    def __init__(
        self,
        request: Request | None = None,
        *,
        cache: Path | None = None,
        research_search: SearchFactory | None = None,
        keys: KeyStore | None = None,
        reports: Path | None = None,
        history: Path | None = None,
        parent: QObject | None = None,
    ) -> None:
        """`request` defaults to an empty prompt with the built-in rules; `cache` is the folder
        that keeps tool indexes and vectors, and the offline research index under `research/`
        (default: the user's cache folders); `research_search` makes the offline search backend
        for that folder (default: `OfflineSearch` over the machine's documentation); `keys`
        holds the providers' keys (default: the user's key file); reports of research over the
        network are kept in `reports` (default: the user's data folder); `history` is the history
        store's file (default: the user's data folder), opened by `history.start()`."""
        super().__init__(parent)
        self._request = request
        self._own: tuple[dt.date, SearchSettings] | None = None
        """The session's own date and search settings while a case's replace them."""
        current = self._current
        self.engines = routescope.toolsearch.Engines(cache=cache)
        """One engine per catalog, shared by the tools, compare and insight models."""
        self.inspection = InspectionModel(current, parent=self, engines=self.engines)
        self.tools = ToolsModel(current, engines=self.engines, parent=self)
        self.research = ResearchModel(
            current, cache=cache, search=research_search, keys=keys, reports=reports, parent=self
        )
        self.regress = RegressModel(cache=cache, parent=self)
        self.batch = BatchModel(current, parent=self)
        self.compare = CompareModel(current, engines=self.engines, parent=self)
        self.insight = InsightModel(current, engines=self.engines, parent=self)
        self.routers = RoutersModel(current, parent=self)
        self.router_compare = RouterCompareModel(
            current, self._declared_routers, self._text_b, parent=self
        )
        self.routers.opened.connect(self.router_compare.routers_opened)
        self.history = HistoryModel(current, path=history, engines=self.engines, parent=self)
        self.judge = JudgeModel(lambda: self.history.store, parent=self)  # (judged sets)
        self.history.opened.connect(self.judge.start)
        self.quality = QualityModel(
            current, lambda: (self.judge.current, self.judge.cases()), parent=self
        )
        self.suggestions = SuggestionsModel(
            current, lambda: (self.judge.current, self.judge.cases()), parent=self
        )
        for judged in (self.quality, self.suggestions):
            self.judge.set_changed.connect(judged.set_changed)
            self.changed.connect(judged.follow)
        self.rules_editor = RulesEditorModel(current, parent=self)
        self.rules_editor.applied.connect(self.set_rules)
        self.inspection.inspected.connect(self.history.record_soon)
        self.history.request_opened.connect(self.open_request)
        self.changed.connect(self.history.follow)  # (a catalog adopted too: `_adopt_catalog`)
        self._followers = (
            self.inspection,
            self.tools,
            self.research,
            self.compare,
            self.insight,
            self.routers,
            self.router_compare,
        )
        self.inspection.inspected.connect(self.insight.set_inspection)
        self.inspection.failed.connect(lambda _message: self.insight.set_inspection(None))
        self.tools.ranked.connect(self.insight.set_ranking)
        self.tools.engine_ready.connect(self._engine_ready)
        self.compare.case_opened.connect(self.open_case)
        self.router_compare.case_opened.connect(self.open_case)
        self.tools.catalog_loaded.connect(self._adopt_catalog)
        self.regress.case_opened.connect(self.open_case)
        self.batch.prompt_opened.connect(self.open_request)

    def _current(self) -> Request:
        return self.request

    def _declared_routers(self) -> tuple[Routers | None, RouterPool | None]:
        return self.routers.declared, self.routers.pool

    def _text_b(self) -> str | None:
        """Compare's B prompt while B is another prompt (None otherwise)."""
        compare = self.compare
        return compare.text_b if compare.mode == "prompt" else None

    def _engine(self) -> ToolSearch | None:
        """The engine kept for the request's catalog, if one is (never loads one)."""
        catalog = self.request.catalog
        return None if catalog is None else self.engines.cached(catalog)

    def _engine_ready(self, *_ready: object) -> None:
        """The request's catalog has its engine now: the top tool can be watched too."""
        self.insight.follow("engine")
        self.compare.follow("engine")

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
        return any(
            model.busy
            for model in (
                self.inspection,
                self.tools,
                self.research,
                self.regress,
                self.batch,
                self.compare,
                self.insight,
                self.routers,
                self.router_compare,
                self.history,
                self.rules_editor,
                self.judge,
                self.quality,
                self.suggestions,
            )
        )

    # -- the request -----------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        """A new prompt; after a case, with the session's own date and search settings."""
        own = self._own
        if own is not None and text != self.request.text:
            today, search = own
            self.open_request(self.request.replace(text=text, today=today, search=search))
            return
        self._replace("text", text)

    def set_today(self, today: dt.date) -> None:
        if self._own is not None:  # chosen while a case shows: the session's date from now on
            self._own = (today, self._own[1])
        self._replace("today", today)

    def set_rules(self, rules: RulesRef) -> None:
        self._replace("rules", rules)

    def set_context(self, context: RouterContext | None) -> None:
        self._replace("context", context)

    def set_search(self, settings: SearchSettings) -> None:
        if self._own is not None:
            self._own = (self._own[0], settings)
        self._replace("search", settings)

    def set_catalog(self, catalog: CatalogRef) -> None:
        """Rank the tools of another catalog; its engine loads off the UI thread."""
        self._replace("catalog", catalog)

    def open_request(self, request: Request) -> None:
        """Replace the whole request (a batch's prompt, a history entry, a start-up prompt)."""
        self._own = None
        if request == self._request:
            return
        self._request = request
        self._changed("request")

    def open_case(self, request: Request) -> None:
        """Show a regression case with its exact inputs. Its date and search settings hold
        while it is shown: the session's own come back with the next edit of the prompt."""
        own = self._own or (self.request.today, self.request.search)
        self.open_request(request)
        self._own = own

    @property
    def case_inputs(self) -> bool:
        """Whether a case's date and search settings stand in for the session's own."""
        return self._own is not None

    def close(self) -> None:
        """Stop background work (the window is closing): a research run under way is
        cancelled, a batch stops with its results resumable, comparisons and counterfactuals
        under way are dropped, external routers are stopped."""
        self.research.close()
        self.batch.close()
        self.compare.close()
        self.insight.close()
        self.router_compare.close()
        self.routers.close()
        self.judge.close()
        self.quality.close()
        self.suggestions.close()
        self.history.close()
        self.rules_editor.close()

    def _replace(self, field: str, value: object) -> None:
        if getattr(self.request, field) != value:
            self._request = self.request.replace(**{field: value})
            self._changed(field)

    def _changed(self, field: str) -> None:
        """Tell the views, then the feature models (each does what the field means to it)."""
        self.changed.emit(field)
        for model in self._followers:
            model.follow(field)

    def _adopt_catalog(self, catalog: CatalogRef) -> None:
        """A catalog opened in the Tools tab becomes the request's (its engine is loaded)."""
        self._request = self.request.replace(catalog=catalog)
        self.changed.emit("catalog")
