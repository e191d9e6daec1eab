"""One small helper per feature that connects its view to its model (and the view's requests
back to the model). The window calls them once; the views know nothing of the models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from routescope import Inspection

    from ._contract_view import ContractView
    from ._inspection_model import InspectionModel
    from ._regress_model import RegressModel
    from ._regress_view import RegressView
    from ._research_model import ResearchModel
    from ._research_view import ResearchView
    from ._session import Session
    from ._tools_model import ToolsModel
    from ._toolsearch_view import ToolSearchView

__all__ = ["connect_inspection", "connect_regress", "connect_research", "connect_tools"]


def connect_inspection(
    model: InspectionModel,
    session: Session,
    contract: ContractView,
    *,
    show: Callable[[Inspection | None], object],
    fail: Callable[[str], object],
    show_plan: Callable[[], object],
) -> None:
    """The inspection reaches the window's panels (`show`, `fail`); the Contract tab edits the
    request's context and steps through the plan (`show_plan` renders the step-through)."""
    model.inspected.connect(show)
    model.failed.connect(fail)
    model.plan_stepped.connect(show_plan)
    contract.context_changed.connect(session.set_context)
    contract.step_requested.connect(model.step_plan)
    contract.reset_requested.connect(model.reset_plan)


def connect_tools(
    view: ToolSearchView,
    model: ToolsModel,
    session: Session,
    *,
    choose_catalog: Callable[[], object],
) -> None:
    """The Tools tab shows the engine and the ranking; its controls change the request's
    search settings, pin a tool, explain a row or ask for another catalog."""
    model.engine_loading.connect(view.show_loading)
    model.engine_ready.connect(view.show_engine)
    model.engine_failed.connect(view.show_error)
    model.ranked.connect(view.show_result)
    model.explained.connect(view.show_why_not)
    view.settings_changed.connect(session.set_search)
    view.pinned.connect(model.set_pinned_tool)
    view.explain_requested.connect(model.explain_row)
    view.open_catalog_requested.connect(choose_catalog)


def connect_research(
    view: ResearchView,
    model: ResearchModel,
    *,
    run: Callable[[], object],
    edit_settings: Callable[[], object],
    save: Callable[[], object],
) -> None:
    """The Research tab follows the runs; its buttons run (`run`: also "re-run for the new
    prompt"), cancel, edit the settings or save the report."""
    model.started.connect(view.show_running)
    model.attempt.connect(view.add_attempt)
    model.finished.connect(view.show_result)
    model.failed.connect(view.show_error)
    model.cancelled.connect(view.show_cancelled)
    model.saved.connect(view.show_saved)
    model.stale.connect(view.show_stale)
    view.run_requested.connect(run)
    view.cancel_requested.connect(model.cancel)
    view.settings_requested.connect(edit_settings)
    view.save_requested.connect(save)


def connect_regress(
    view: RegressView,
    model: RegressModel,
    *,
    choose_suite: Callable[[], object],
    open_case: Callable[[str], object],
) -> None:
    """The Regression view shows the suite and its runs; it asks to open a suite, run it,
    accept a golden or open a case live."""
    model.opened.connect(view.show_suite)
    model.failed.connect(view.show_error)
    model.progress.connect(view.show_progress)
    model.finished.connect(view.show_result)
    model.accepted.connect(view.show_accepted)
    view.open_requested.connect(choose_suite)
    view.run_requested.connect(model.run)
    view.accept_requested.connect(model.accept_golden)
    view.open_case_requested.connect(open_case)
