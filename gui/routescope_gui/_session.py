"""The session: the window's one model, composed of one model per feature (napari's
`ViewerModel` composes `Dims`, `Camera` and `LayerList` the same way).

It holds the current `Request`, which every feature model reads, and tells them when one of
its fields changed; each feature model runs its own work and tells its views through its own
signals:

- `inspection` (`InspectionModel`): the request's `Inspection` and the plan's step-through;
- `tools` (`ToolsModel`): the catalog's engine, the ranking of its tools, why-not;
- `research` (`ResearchModel`): deep research on the prompt;
- `regress` (`RegressModel`): regression suites, their runs and goldens.

Slow work never runs on the UI thread: each model has its worker lanes (`_lanes`). The
routers are imported on first use, not with this module, so the window can be painted before
they load.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

import routescope

from ._inspection_model import InspectionModel
from ._regress_model import RegressModel
from ._research_model import ResearchModel, SearchFactory
from ._tools_model import ToolsModel

if TYPE_CHECKING:
    import datetime as dt

    from routescope import CatalogRef, Request, RulesRef
    from routescope.contract import RouterContext
    from routescope.research import KeyStore
    from routescope.toolsearch import SearchSettings

__all__ = ["Session"]


class Session(QObject):
    """The current request and the feature models that work on it.

    Attributes:
        inspection: the `InspectionModel`; tools: the `ToolsModel`; research: the
            `ResearchModel`; regress: the `RegressModel`.

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
        current = self._current
        self.inspection = InspectionModel(current, parent=self)
        self.tools = ToolsModel(current, cache=cache, parent=self)
        self.research = ResearchModel(
            current, cache=cache, search=research_search, keys=keys, reports=reports, parent=self
        )
        self.regress = RegressModel(cache=cache, parent=self)
        self._followers = (self.inspection, self.tools, self.research)
        self.tools.catalog_loaded.connect(self._adopt_catalog)
        self.regress.case_opened.connect(self.open_request)

    def _current(self) -> Request:
        return self.request

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
            model.busy for model in (self.inspection, self.tools, self.research, self.regress)
        )

    # -- the request -----------------------------------------------------------------------
    def set_text(self, text: str) -> None:
        self._replace("text", text)

    def set_today(self, today: dt.date) -> None:
        self._replace("today", today)

    def set_rules(self, rules: RulesRef) -> None:
        self._replace("rules", rules)

    def set_context(self, context: RouterContext | None) -> None:
        self._replace("context", context)

    def set_search(self, settings: SearchSettings) -> None:
        self._replace("search", settings)

    def set_catalog(self, catalog: CatalogRef) -> None:
        """Rank the tools of another catalog; its engine loads off the UI thread."""
        self._replace("catalog", catalog)

    def open_request(self, request: Request) -> None:
        """Replace the whole request (a regression case's exact inputs, a start-up prompt)."""
        if request == self._request:
            return
        self._request = request
        self._changed("request")

    def close(self) -> None:
        """Stop background research (the window is closing): a run under way is cancelled."""
        self.research.close()

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
