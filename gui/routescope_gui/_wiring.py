"""One small helper per feature that connects its view to its model (and the view's requests
back to the model). The window calls them once; the views know nothing of the models.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction

    from routescope import Inspection
    from routescope.batch import PromptRef
    from routescope.demo import DemoScript

    from ._batch_model import BatchModel
    from ._batch_view import BatchView
    from ._compare_model import CompareModel
    from ._compare_view import CompareView
    from ._contract_view import ContractView
    from ._demo_model import DemoModel
    from ._editor import Highlight
    from ._file_intents import FileIntents
    from ._history_model import HistoryModel
    from ._history_view import HistoryView
    from ._insight_model import InsightModel
    from ._inspection_model import InspectionModel
    from ._live_view import DemoLabel
    from ._regress_model import RegressModel
    from ._regress_view import RegressView
    from ._research_model import ResearchModel
    from ._research_view import ResearchView
    from ._rules_editor import RulesEditorView
    from ._rules_editor_model import RulesEditorModel
    from ._session import Session
    from ._strategy_view import ContextTree, PlanTable
    from ._tools_model import ToolsModel
    from ._toolsearch_view import ToolSearchView
    from ._why_strip import CloseCallLine, WhyStrip

__all__ = [
    "connect_batch",
    "connect_compare",
    "connect_demo",
    "connect_files",
    "connect_history",
    "connect_insight",
    "connect_inspection",
    "connect_regress",
    "connect_research",
    "connect_rules_editor",
    "connect_tools",
]


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
    view.grounding_changed.connect(model.set_grounding)


def connect_regress(
    view: RegressView,
    model: RegressModel,
    *,
    choose_suite: Callable[[], object],
    open_case: Callable[[str], object],
) -> None:
    """The Regression view shows the suite and its runs; it asks to open a suite, run it,
    accept a golden (and undo that) or open a case live."""
    model.opened.connect(view.show_suite)
    model.failed.connect(view.show_error)
    model.progress.connect(view.show_progress)
    model.finished.connect(view.show_result)
    model.accepted.connect(view.show_accepted)
    model.undo_changed.connect(view.show_undo)
    model.undone.connect(view.show_undone)
    view.open_requested.connect(choose_suite)
    view.run_requested.connect(model.run)
    view.accept_requested.connect(model.accept_golden)
    view.undo_requested.connect(model.undo_accept)
    view.open_case_requested.connect(open_case)


def connect_batch(
    view: BatchView,
    model: BatchModel,
    *,
    open_prompt: Callable[[PromptRef], object],
) -> None:
    """The Batch view follows the batch and shows the report; it asks to run a log, cancel,
    open a results file or open a prompt live."""
    model.started.connect(view.show_started)
    model.progress.connect(view.show_progress)
    model.reading.connect(view.show_reading)
    model.finished.connect(view.show_result)
    model.failed.connect(view.show_error)
    model.cancelled.connect(view.show_cancelled)
    model.note.connect(view.show_note)
    view.run_requested.connect(
        lambda log, out, catalog, workers: model.run(log, out, catalog=catalog, workers=workers)
    )
    view.cancel_requested.connect(model.cancel)
    view.open_results_requested.connect(model.open_results)
    view.open_prompt_requested.connect(open_prompt)


def connect_compare(
    view: CompareView,
    model: CompareModel,
    *,
    set_prompt: Callable[[str], object],
    choose_rules: Callable[[], object],
    choose_catalog: Callable[[], object],
    choose_suite: Callable[[], object],
    open_case: Callable[[str], object],
) -> None:
    """The Compare view shows A and B and their comparison, and suites under both sides; its
    A field edits the live prompt (`set_prompt`), its B controls set side B, and it asks for a
    rule pack, a catalog or a suite to be chosen, or a case opened live."""
    model.compared.connect(view.show_result)
    model.failed.connect(view.show_error)
    model.loading.connect(view.show_loading)
    model.b_source.connect(view.show_b_source)
    model.suite_started.connect(view.show_suite_running)
    model.suite_compared.connect(view.show_suite)
    model.suite_failed.connect(view.show_suite_error)
    view.text_a_edited.connect(set_prompt)
    view.text_b_edited.connect(model.set_text_b)
    view.mode_changed.connect(model.set_mode)
    view.rank_tools_changed.connect(model.set_rank_tools)
    view.rules_b_requested.connect(choose_rules)
    view.catalog_b_requested.connect(choose_catalog)
    view.suite_requested.connect(choose_suite)
    view.open_case_requested.connect(open_case)
    model.set_rank_tools(view.rank_tools.isChecked())


def connect_insight(
    model: InsightModel,
    strip: WhyStrip,
    tree: ContextTree,
    plan: PlanTable,
    *,
    mark: Callable[[str, list[Highlight], str], object],
    close_lines: Sequence[CloseCallLine],
) -> None:
    """Why this decision: the strip shows the words that matter and the trace; `mark`
    paints them in the prompt; the close-call lines beside each decision show theirs. A word
    of the strip or an entity of the Context tree clicked is traced; the plan marks it."""
    model.explained.connect(strip.show_result)
    model.stale.connect(strip.mark_stale)
    model.failed.connect(strip.show_error)
    model.close_calls_changed.connect(strip.show_close_calls)
    for line in close_lines:
        model.close_calls_changed.connect(line.show_calls)
    model.traced.connect(strip.show_trace)
    model.traced.connect(plan.show_trace)
    strip.marks_changed.connect(mark)
    strip.trace_requested.connect(model.trace)
    tree.entity_clicked.connect(model.trace)


def connect_history(
    view: HistoryView,
    model: HistoryModel,
    *,
    open_entry: Callable[[int], object],
    fail: Callable[[str], object],
) -> None:
    """The History view lists the model's entries and its note; it asks to search, reopen an
    entry (`open_entry`), pin or delete one. The model's failures reach `fail`."""
    from ._history_model import HistoryQuery

    model.opened.connect(view.show_note)
    model.listed.connect(view.show_entries)
    model.failed.connect(fail)
    view.search_changed.connect(
        lambda text, strategy, lint_class, top_tool, pinned: model.search(
            HistoryQuery(text, strategy, lint_class, top_tool, pinned)
        )
    )
    view.open_requested.connect(open_entry)
    view.pin_requested.connect(model.pin)
    view.delete_requested.connect(model.delete)


def connect_rules_editor(view: RulesEditorView, model: RulesEditorModel) -> None:
    """The rule pack editor: edits go to the model; its text, error, count and file come back."""

    def show_source(*_args: object) -> None:
        view.show_source(model.source, builtin=model.is_builtin, dirty=model.dirty)

    view.edited.connect(model.edit)
    view.edited.connect(show_source)
    view.revert_requested.connect(model.revert)
    view.save_requested.connect(lambda: model.save())
    view.save_as_requested.connect(model.save)
    model.opened.connect(view.show_text)
    model.opened.connect(show_source)
    model.applied.connect(lambda _rules: view.show_valid())
    model.invalid.connect(view.show_error)
    model.counting.connect(view.show_counting)
    model.counted.connect(view.show_count)
    model.saved.connect(show_source)
    model.failed.connect(view.show_failure)


def connect_demo(
    model: DemoModel,
    label: DemoLabel,
    *,
    set_prompt: Callable[[str], object],
    prompt_changed: SignalInstance,
    prompt: Callable[[], str],
    fail: Callable[[str], object],
    actions: Sequence[QAction],
) -> None:
    """A demo script's steps reach the prompt (`set_prompt`) and the label that says where the
    script stands, shown while the `prompt` is the step's (each `prompt_changed` checks); its
    stepping `actions` (PageDown, PageUp) work only while one is loaded."""

    def prompt_edited() -> None:
        step = model.step
        label.show_prompt_is_step(step is None or prompt() == step.prompt)

    def loaded(script: DemoScript | None) -> None:
        label.show_script(script)
        for action in actions:
            action.setEnabled(script is not None)

    model.loaded.connect(loaded)
    model.stepped.connect(lambda index, total, step: label.show_step(index, total, step))
    model.stepped.connect(lambda _index, _total, step: set_prompt(step.prompt))
    model.failed.connect(fail)
    prompt_changed.connect(prompt_edited)
    loaded(model.script)


def connect_files(session: Session, files: FileIntents) -> None:
    """Session files, exports and regression cases, written and read by their models: each
    success's line and each failure (with what failed) go back to the `files` intents that
    asked; so does a session file opened (its status line and warnings)."""
    session.history.session_saved.connect(files.done)
    session.history.session_failed.connect(files.failed)
    session.history.session_opened.connect(files.session_opened)
    session.inspection.exported.connect(files.done)
    session.inspection.export_failed.connect(lambda why: files.failed("Export inspection", why))
    session.regress.case_saved.connect(files.done)
    session.regress.case_failed.connect(lambda why: files.failed("Save as regression case", why))
