from pathlib import Path

import pytest

import routescope
from routescope.toolsearch import SearchSettings, ToolSearch, default_boosts, load_catalog
from routescope_gui._toolsearch_view import ToolSearchView


@pytest.fixture(scope="module")
def engine(tool_cache: Path) -> ToolSearch:
    return ToolSearch(load_catalog(routescope.resources_root() / "catalog"), cache=tool_cache)


def ranked(engine: ToolSearch, text: str, settings: SearchSettings | None = None):  # type: ignore[no-untyped-def]
    return engine.search(text, settings or SearchSettings(), query_vector=engine.embed_query(text))


def test_every_rank_is_explained(qtbot, engine: ToolSearch) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    seed = SearchSettings(fusion="canonical")
    view.show_result(ranked(engine, "find files named config.yaml", seed))
    top = view.table.topLevelItem(0)
    assert top is not None and top.text(1) == "files.find"
    assert top.text(3).startswith("#1") and top.text(4).startswith("#")
    assert "1/(60+1)" in top.toolTip(5)
    fields = [top.child(i).text(1).strip() for i in range(top.childCount())]  # type: ignore[union-attr]
    assert "tool_name" in fields and "rerank" in fields
    assert "file_discovery" in view.header.text()


def test_a_tool_stays_open_wherever_it_moves(qtbot, engine: ToolSearch) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.show_result(ranked(engine, "find files named config.yaml"))
    top = view.table.topLevelItem(0)
    assert top is not None
    top.setExpanded(True)
    view.show_result(ranked(engine, "git status of my repo"))
    rows = [view.table.topLevelItem(i) for i in range(view.table.topLevelItemCount())]
    assert all(r is not None and r.isExpanded() == (r.text(1) == "files.find") for r in rows)
    view.show_result(None)
    assert view.table.topLevelItemCount() == 0 and view.header.text() == ""


def test_the_controls_come_from_the_canonical_schema_and_ask_for_settings(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    canonical = default_boosts()
    assert list(view.boosts) == list(canonical)
    assert all(view.boost_labels[name].text() == f"{b:.1f}" for name, b in canonical.items())
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.rrf.setValue(5)
    assert blocker.args[0].rrf_k == 5 and blocker.args[0].boosts is None
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.boosts["description"].setValue(25)
    assert blocker.args[0].boosts == {**canonical, "description": 2.5}
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.strategy.setCurrentText("exact")
    assert blocker.args[0].strategy == "exact" and blocker.args[0].rrf_k == 5
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.reset_button.click()
    assert blocker.args[0].boosts is None and view.boosts["description"].value() == 10


def test_settings_shown_do_not_ask_again(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    with qtbot.assertNotEmitted(view.settings_changed):
        view.show_settings(SearchSettings(strategy="semantic", rrf_k=30, boosts={"tool_name": 1.0}))
    assert view.strategy.currentText() == "semantic" and view.rrf_label.text() == "30"
    assert view.boost_labels["tool_name"].text() == "1.0"


def test_why_not_and_the_engine_status(qtbot, engine: ToolSearch) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.show_engine("41 tools from catalog · vectors: ready", ["files.find", "git.status"])
    assert view.status.text().startswith("41 tools") and view.pin.count() == 3
    with qtbot.waitSignal(view.pinned, timeout=1_000) as blocker:
        view.pin.setCurrentText("git.status")
    assert blocker.args == ["git.status"]
    text = "find files named config.yaml"
    settings = SearchSettings()
    report = routescope.toolsearch.why_not(
        engine, text, "git.status", settings, engine.embed_query(text)
    )
    view.show_why_not(report)
    assert "git.status" in view.pin_text.text() and "filter excludes" in view.pin_text.text()
    view.show_why_not(None)
    assert view.pin_text.text() == ""
    view.show_error("cannot load catalog: nothing here")
    assert "cannot load catalog" in view.status.text()
