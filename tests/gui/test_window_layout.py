"""Splitters stay where the analyst put them: across a research settings change, and across
starts of the window."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QSplitter

from routescope.research import ResearchSettings
from routescope_gui import MainWindow
from routescope_gui._window_state import SETTINGS


@pytest.fixture
def forget_splitters() -> Iterator[None]:
    """Other tests' windows start from the default sizes again."""
    yield
    settings = QSettings(*SETTINGS)
    settings.remove("window/splitter")
    settings.sync()


def _named(window: MainWindow) -> dict[str, list[int]]:
    return {s.objectName(): s.sizes() for s in window.findChildren(QSplitter) if s.objectName()}


def test_the_main_splitters_are_named(window) -> None:  # type: ignore[no-untyped-def]
    assert {"body", "context", "research", "compare", "batch"} <= set(_named(window))


def test_splitters_are_where_the_analyst_left_them_at_the_next_start(  # type: ignore[no-untyped-def]
    qtbot, window, tool_cache, forget_splitters
) -> None:
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    total = sum(window.splitter.sizes())
    window.splitter.setSizes([300, total - 300])
    body_total = sum(window.body.sizes())
    window.body.setSizes([220, body_total - 220])
    moved = {"context": window.splitter.sizes(), "body": window.body.sizes()}
    window.close()
    again = MainWindow(cache=tool_cache)
    qtbot.addWidget(again)
    again.resize(1280, 720)
    again.show()
    qtbot.waitExposed(again)
    assert again.splitter.sizes() == moved["context"]
    assert again.body.sizes() == moved["body"]


def test_a_longer_research_header_does_not_move_the_context_splitter(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.resize(1024, 768)
    window.show()
    qtbot.waitExposed(window)
    window.show_tab("Research")
    before = window.splitter.sizes()
    window.set_research_settings(
        ResearchSettings(
            search="searxng",
            searxng_url="http://127.0.0.1:8888",
            llm="openai",
            llm_url="http://127.0.0.1:9/v1",
            model="qwen2.5-7b-instruct-q4_k_m",
        )
    )
    qtbot.wait(50)  # (layout passes run from the event loop)
    assert window.splitter.sizes() == before


def test_below_800_px_the_legend_gives_its_line_to_the_results(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: not window.legend.isVisibleTo(window))
    window.resize(1280, 900)
    qtbot.waitUntil(lambda: window.legend.isVisibleTo(window))


def test_the_rules_and_date_sit_beside_the_menus(window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    assert window.menuBar().cornerWidget(Qt.Corner.TopRightCorner) is window.settings_bar
    assert window.today_edit.parentWidget() is window.settings_bar
