import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QTreeWidgetItemIterator

from routescope_gui._html import HTML_ROLE
from routescope_gui._strategy_view import NO_CONTEXT, StrategySlice, StrategyView
from tests._support import run
from tests.gui._support import contrast


def shown(text: str) -> StrategySlice:
    return StrategySlice.of(run(text))


def tree_texts(view: StrategyView) -> list[str]:
    texts = []
    iterator = QTreeWidgetItemIterator(view.context_tree)
    while item := iterator.value():
        texts.append(" | ".join(item.text(c) for c in range(3)))
        iterator += 1
    return texts


def plan_rows(view: StrategyView) -> list[list[str]]:
    model = view.plan_table.plan_model
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def test_context_strategy_and_plan_of_one_prompt(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = StrategyView()
    view.show_result(shown("How do I install FastAPI on Ubuntu?"))
    texts = tree_texts(view)
    assert any("FastAPI" in t and "CamelCase" in t for t in texts)
    assert any(t.startswith("tech | ● on") and "“install” @9–16" in t for t in texts)
    assert any(t.startswith("local | ○ off") for t in texts)
    assert view.decision_panel.badge.text() == "TECH" and view.decision_panel.badge.tone == "tech"
    assert "intent.tech" in view.decision_panel.reason.text()
    assert [r[3] for r in plan_rows(view)] == [
        "site:docs.* FastAPI (install OR docs OR getting started)",
        "site:github.com FastAPI README",
    ]


def test_sanitize_edits_are_shown_as_a_diff(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = StrategyView()
    view.show_result(shown("latest gaming engine news"))
    row = plan_rows(view)[0]
    assert row[4] == "latest news as of February 5, 2026"
    assert "banned_modifier" in row[5] and "as_of" in row[5]
    html = view.plan_table.plan_model.index(0, 4).data(HTML_ROLE)
    assert "line-through" in html and "as of February 5, 2026" in html


def test_a_new_result_updates_rows_in_place(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = StrategyView()
    qtbot.addWidget(view.context_tree)
    view.show_result(shown("Best ramen near Denver, Colorado"))
    tree = view.context_tree
    entities = tree.topLevelItem(0)
    assert entities is not None and entities.isExpanded()
    entities.setExpanded(False)  # the analyst folds the entities away
    first_flag = tree.topLevelItem(2).child(0)  # type: ignore[union-attr]
    table = view.plan_table
    table.selectRow(1)
    resets: list[bool] = []
    table.plan_model.modelReset.connect(lambda: resets.append(True))
    view.show_result(shown("Best ramen near Denver, Colorado tonight"))
    assert tree.topLevelItem(0) is entities and not entities.isExpanded()
    assert tree.topLevelItem(2).child(0) is first_flag  # type: ignore[union-attr]
    assert any(t.startswith("time_sensitive | ● on") for t in tree_texts(view))
    assert resets == [] and table.selectionModel().isRowSelected(1)
    assert view.decision_panel.badge.text() == "LOCAL"


def test_no_result_clears_every_part(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = StrategyView()
    view.show_result(shown("How do I install FastAPI on Ubuntu?"))
    view.show_result(None)
    assert view.context_tree.topLevelItemCount() == 0
    assert view.plan_table.plan_model.rowCount() == 0
    assert view.decision_panel.badge.text() == "—" and view.decision_panel.badge.tone == ""
    view.show_result(shown("pizza near me"))
    assert view.context_tree.topLevelItem(0).isExpanded()  # type: ignore[union-attr]
    assert view.plan_table.plan_model.index(0, 2).data(Qt.ItemDataRole.DisplayRole)


def test_the_task_route_and_a_research_route_s_first_search_are_shown(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = StrategyView()
    result = shown("compare the latest prices of the best noise cancelling headphones")
    assert result.task is not None and result.task.research_query is not None
    view.show_result(result)
    task = view.decision_panel.task
    assert "task route:</b> research" in task.text() and "&#x27;compare&#x27;" in task.text()
    assert f"research searches first: “{result.task.research_query.query}”" in task.text()
    assert "First search: heuristic: goal words" in task.toolTip()
    assert "compare the latest prices" in task.toolTip()  # the goal the router read

    view.show_result(shown("How do I install FastAPI on Ubuntu?"))
    assert "task route:</b> chat" in task.text() and "research searches" not in task.text()
    assert "First search" not in task.toolTip()
    view.show_result(None)
    assert task.text() == "" and task.toolTip() == ""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_first_query_s_priority_reads_in_both_schemes(qtbot, request, scheme: str) -> None:  # type: ignore[no-untyped-def]
    if scheme == "dark":
        request.getfixturevalue("dark")
    view = StrategyView()
    view.show_result(shown("How do I install OpenClaw on Ubuntu? I get a permission error"))
    model = view.plan_table.plan_model
    first = model.index(0, 1)
    assert first.data() == "0"  # OpenClaw's queries go first
    fill = first.data(Qt.ItemDataRole.BackgroundRole).color()
    ink = first.data(Qt.ItemDataRole.ForegroundRole).color()
    assert contrast(ink, fill) >= 4.5
    table = view.plan_table.palette()
    assert contrast(fill, table.color(QPalette.ColorRole.Base)) > 1.2  # a fill that shows
    edits = model.index(0, 5).data(Qt.ItemDataRole.ForegroundRole)
    assert edits is None or contrast(edits.color(), table.color(QPalette.ColorRole.Base)) >= 4.5
    for flag in ("tech", "troubleshooting"):  # an intent flag that is on, in its colour
        row = next(
            r
            for r in (view.context_tree.topLevelItem(2).child(i) for i in range(5))  # type: ignore[union-attr]
            if r is not None and r.text(0) == flag
        )
        assert contrast(row.foreground(1).color(), table.color(QPalette.ColorRole.Base)) >= 4.5


def test_the_empty_panes_say_what_will_appear_and_how(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = StrategyView()
    tree, plan = view.context_tree, view.plan_table
    qtbot.addWidget(tree)
    qtbot.addWidget(plan)
    for pane in (tree, plan):
        pane.show()
    assert tree.placeholder.shown and tree.placeholder.label.text() == NO_CONTEXT
    assert "entities, intent flags and place" in NO_CONTEXT and "trace" in NO_CONTEXT
    assert plan.placeholder.shown and "search queries" in plan.placeholder.label.text()
    view.show_result(shown("pizza near me"))
    assert not tree.placeholder.shown and not plan.placeholder.shown
    view.show_result(None)
    assert tree.placeholder.shown and plan.placeholder.shown
