import html
import itertools
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

import routescope
from routescope.toolsearch import (
    CALIBRATED_FIT_THRESHOLDS,
    SearchSettings,
    Signals,
    Step,
    StepResult,
    ToolHit,
    ToolSearch,
    ToolSearchResult,
    default_boosts,
    load_catalog,
)
from routescope.toolsearch._models import VectorSignal
from routescope_gui._toolsearch_rows import KEYWORD_SHADE, SHARE_COLOURS
from routescope_gui._toolsearch_view import LEAST_RANKING_ROWS, ToolSearchView
from routescope_gui._widgets import BAR_ROLE, DIM_ROLE, MARK_ROLE, SEGMENTS_ROLE, segment_edges

CANONICAL = SearchSettings(fusion="canonical")


@pytest.fixture(scope="module")
def engine(tool_cache: Path) -> ToolSearch:
    return ToolSearch(load_catalog(routescope.resources_root() / "catalog"), cache=tool_cache)


def ranked(engine: ToolSearch, text: str, settings: SearchSettings | None = None):  # type: ignore[no-untyped-def]
    return engine.search(text, settings or SearchSettings(), query_vector=engine.embed_query(text))


def hit(rank: int, name: str, **shares: float) -> ToolHit:
    """A weighted hit made by hand: its score is the sum of its shares, as the core's is."""
    score = sum(shares.values())
    fused = shares.get("vector", 0.0) + shares.get("keyword", 0.0)
    boosts = {k: v for k, v in shares.items() if k.endswith("_boost")}
    signals = Signals(
        keyword=None,
        vector=VectorSignal(similarity=shares.get("vector", 0.0) / 0.7, rank=rank),
        rrf=[],
        fused=fused,
        boosts=boosts,
        boost_terms=[],
        final=score,
        shares=shares,
        fusion="weighted",
    )
    return ToolHit(rank=rank, tool_name=name, category="files", score=score, signals=signals)


def result(
    hits: list[ToolHit],
    *,
    fits: bool = True,
    reason: str = "",
    steps: list[StepResult] = (),  # type: ignore[assignment]
    threshold: float = 0.45,
) -> ToolSearchResult:
    return ToolSearchResult(
        query="find the config file, then email it to Bob",
        strategy="hybrid",
        strategy_reason="default: keyword and vector",
        category_filter=None,
        category_filter_reason="no file-discovery intent",
        results=hits,
        runner_up_gap=None,
        semantic="ready",
        timings_us={},
        fusion="weighted",
        fits=fits,
        fit_reason=reason,
        fit_threshold=threshold,
        steps=list(steps),
    )


def plain(tip: str) -> str:
    """A tooltip's text: a long one is rich text wrapping at a bounded width (`bounded_tip`)."""
    return html.unescape(re.sub(r"<[^>]+>", "", tip.replace("<br>", "\n")))


def rows(view: ToolSearchView) -> list:  # type: ignore[type-arg]
    return [view.table.topLevelItem(i) for i in range(view.table.topLevelItemCount())]


def test_every_rank_is_explained(qtbot, engine: ToolSearch) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.show_result(ranked(engine, "find files named config.yaml", CANONICAL))
    top = view.table.topLevelItem(0)
    assert top is not None and top.text(1) == "files.find"
    assert top.text(3).startswith("#1") and top.text(4).startswith("#")
    assert "1/(60+1)" in top.toolTip(5) and view.table.headerItem().text(5) == "RRF"
    assert "1/(k + rank)" in view.table.headerItem().toolTip(5)
    fields = [top.child(i).text(1).strip() for i in range(top.childCount())]  # type: ignore[union-attr]
    assert "tool_name field" in fields and "rerank" in fields
    field = top.child(fields.index("tool_name field"))  # type: ignore[union-attr]
    assert field.text(3).startswith("BM25 ") and "BM25 score" in field.toolTip(3)
    assert "file_discovery" in view.header.text()
    view.show_result(ranked(engine, "find files named config.yaml"))  # weighted, the default
    top = view.table.topLevelItem(0)
    assert top is not None and view.table.headerItem().text(5) == "Fused"
    header = view.table.headerItem()
    assert plain(header.toolTip(5)).startswith("0.75 · cosine + 0.25 · keyword evidence")
    assert plain(header.toolTip(2)).startswith(SearchSettings().formula())
    assert plain(top.toolTip(5)).startswith(f"{top.text(5)} = vector ")
    assert "evidence" in top.toolTip(5)
    keyword = ranked(engine, "find files named config.yaml").results[0]
    share = keyword.signals.shares["keyword"]
    assert plain(top.toolTip(3)).startswith(f"adds {share:.3f} to the final score: named +")
    assert top.text(3) == f"#1 · {keyword.signals.keyword.evidence:.2f}"  # type: ignore[union-attr]


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


# -- the stacked score bar --------------------------------------------------------------------


@pytest.mark.parametrize("settings", [SearchSettings(), CANONICAL], ids=["weighted", "canonical"])
def test_the_segments_of_each_bar_add_up_to_it(qtbot, engine: ToolSearch, settings) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    ranking = ranked(engine, "show the git status of my repo", settings)
    view.show_result(ranking)
    top = ranking.results[0].score
    if settings.fusion == "weighted":  # absolute scores: the full bar is a score of 1
        top = max(top, 1.0)
    for row, found in zip(rows(view), ranking.results, strict=True):
        segments = row.data(2, SEGMENTS_ROLE)
        assert [name for name, _ in segments][:2] == ["vector", "keyword"]
        assert sum(fraction for _, fraction in segments) == pytest.approx(row.data(2, BAR_ROLE))
        assert row.data(2, BAR_ROLE) == pytest.approx(found.score / top)
    assert rows(view)[0].data(2, BAR_ROLE) == pytest.approx(ranking.results[0].score / top)
    assert plain(rows(view)[0].toolTip(2)).startswith(f"{rows(view)[0].text(2)} = vector ")


def test_the_final_tooltip_names_each_share(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    shares = {"vector": 0.488, "keyword": 0.3, "metadata_alignment_boost": 0.02}
    view.show_result(result([hit(1, "files.find", **shares, file_discovery_boost=0.0)]))
    top = rows(view)[0]
    assert top.text(2) == "0.808"
    assert top.toolTip(2) == "0.808 = vector 0.488 + keyword 0.300 + align 0.020"
    assert top.text(6) == "+0.020 align"


def test_segment_edges_add_up_exactly_to_the_bar() -> None:
    edges = segment_edges([0.333, 0.333, 0.334], 101)
    assert edges[0] == 0 and edges[-1] == 101 and edges == sorted(edges)
    assert segment_edges([0.5, -0.1, 0.9], 40) == [0, 20, 20, 40]  # clipped to the cell


def test_the_bar_is_painted_in_the_colours_of_the_legend(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    view.show_result(result([hit(1, "files.find", vector=0.5, keyword=0.3)]))
    qtbot.waitExposed(view)
    rect = view.table.visualItemRect(rows(view)[0])
    image = view.table.viewport().grab().toImage()
    left = view.table.header().sectionPosition(2)
    width = view.table.header().sectionSize(2)
    y = rect.top() + 6  # the bar is on the row's first line, the equation under it
    colours = {image.pixelColor(x, y).name() for x in range(left, left + width)}
    assert QColor(SHARE_COLOURS["vector"]).name() in colours
    assert QColor(SHARE_COLOURS["keyword"]).name() in colours
    assert "vector" in view.legend.text() and "align" in view.legend.text()


# -- the controls -----------------------------------------------------------------------------


def test_the_fusion_selector_asks_for_its_fusion_and_shows_only_its_controls(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.show()
    assert [view.fusion.itemText(i) for i in range(view.fusion.count())] == list(
        routescope.toolsearch.FUSIONS
    )
    assert view.fusion.toolTip() == ""  # the formulas are asked for when the drawer opens
    view.drawer_button.click()
    assert "seed" in view.fusion.toolTip() and "measurement" in view.fusion.toolTip()
    assert view.fusion.currentText() == "weighted"
    assert view.weights_box.isVisibleTo(view.drawer) and not view.rrf_box.isVisibleTo(view.drawer)
    assert view.weight_labels["vector"].text() == "0.75"
    assert plain(view.weights_box.toolTip()) == f"weighted fusion: {SearchSettings().formula()}"
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.fusion.setCurrentText("canonical")
    assert blocker.args[0].fusion == "canonical"
    assert view.rrf_box.isVisibleTo(view.drawer) and not view.weights_box.isVisibleTo(view.drawer)
    view.fusion.setCurrentText("weighted")
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.vector_weight.setValue(10)
    assert blocker.args[0].vector_weight == 0.5 and blocker.args[0].fusion == "weighted"
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.keyword_weight.setValue(11)
    assert blocker.args[0].keyword_weight == 0.55 and view.weight_labels["keyword"].text() == "0.55"


def test_the_fit_threshold_slider_asks_for_a_threshold(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    calibrated = CALIBRATED_FIT_THRESHOLDS["weighted"]
    assert view.threshold.value() == round(calibrated * 100)
    assert view.threshold_label.text() == f"{calibrated:.2f} (calibrated)"
    assert not view.calibrated_button.isEnabled()
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.threshold.setValue(45)
    assert blocker.args[0].fit_threshold == 0.45 and view.threshold_label.text() == "0.45"
    assert view.calibrated_button.isEnabled()
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.threshold.setValue(0)
    assert blocker.args[0].fit_threshold == 0.0 and view.threshold_label.text() == "off"
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.calibrated_button.click()
    assert blocker.args[0].fit_threshold is None
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.fusion.setCurrentText("canonical")  # still calibrated: the canonical value
    assert blocker.args[0].fit_threshold is None
    assert view.threshold.value() == round(CALIBRATED_FIT_THRESHOLDS["canonical"] * 100)


def test_new_settings_shown_move_every_control(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.show()
    settings = SearchSettings(
        fusion="canonical", vector_weight=0.4, keyword_weight=0.6, fit_threshold=0.3
    )
    with qtbot.assertNotEmitted(view.settings_changed):
        view.show_settings(settings)
    assert view.fusion.currentText() == "canonical" and view.rrf_box.isVisibleTo(view.drawer)
    assert view.vector_weight.value() == 8 and view.keyword_weight.value() == 12
    assert view.threshold.value() == 30 and view.threshold_label.text() == "0.30"
    with qtbot.waitSignal(view.settings_changed, timeout=1_000) as blocker:
        view.rrf.setValue(7)
    assert blocker.args[0] == SearchSettings(
        fusion="canonical", vector_weight=0.4, keyword_weight=0.6, fit_threshold=0.3, rrf_k=7
    )


# -- the verdict and the steps -----------------------------------------------------------------


def test_an_amber_banner_says_no_tool_fits_and_rows_below_the_threshold_fade(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.show_settings(SearchSettings(fit_threshold=0.45))
    reason = "no tool fits: best score 0.312 < fit threshold 0.45"
    view.show_result(result([hit(1, "files.find", vector=0.312)], fits=False, reason=reason))
    assert not view.verdict.isHidden() and view.verdict.property("tone") == "nofit"
    assert "No tool fits" in view.verdict.text()
    assert "best score 0.312 &lt; fit threshold 0.45" in view.verdict.text()
    assert rows(view)[0].data(2, DIM_ROLE) is True
    assert rows(view)[0].data(1, Qt.ItemDataRole.ForegroundRole) is not None
    reason = "best score 0.61 ≥ fit threshold 0.45"
    view.show_result(
        result([hit(1, "git.status", vector=0.61), hit(2, "git.log", vector=0.3)], reason=reason)
    )
    assert view.verdict.property("tone") == "fits"
    assert view.verdict.text() == f"✓ <b>git.status fits</b> — {reason}"
    top, second = rows(view)
    assert top.data(2, DIM_ROLE) is False and second.data(2, DIM_ROLE) is True
    assert top.data(1, Qt.ItemDataRole.ForegroundRole) is None
    assert top.data(2, MARK_ROLE) == pytest.approx(0.45)  # weighted: a full bar is 1
    assert top.data(2, BAR_ROLE) == pytest.approx(0.61)  # a weak best hit: a short bar
    view.show_result(None)
    assert view.verdict.text() == "" and view.verdict.property("tone") == "fits"


def step(text: str, start: int, split_by: str = "", split_at: tuple[int, int] | None = None):  # type: ignore[no-untyped-def]
    return Step(text, start, start + len(text), split_by, split_at)


def test_the_steps_tree_shows_each_step_and_hides_without_steps(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.show_settings(SearchSettings(fit_threshold=0.45))
    found = [hit(n, f"files.t{n}", vector=0.7 - n / 10) for n in range(1, 6)]
    mail = [hit(1, "mail.send", vector=0.3)]
    steps = [
        StepResult(step("find the config file", 0), found, True, "best score 0.6 ≥ 0.45"),
        StepResult(step("email it to Bob", 27, "then", (22, 26)), mail, False, "no tool fits: 0.3"),
    ]
    assert view.steps.isHidden()
    view.show_result(result(found, steps=steps))
    tree = view.steps
    assert not tree.isHidden() and tree.topLevelItemCount() == 2
    first, second = tree.topLevelItem(0), tree.topLevelItem(1)
    assert first.text(0) == "1. find the config file" and first.text(1) == "start"
    assert second.text(0) == "2. email it to Bob"
    assert second.text(1) == "split at “then” @22–26"
    assert first.text(3) == "fits" and second.text(3) == "no tool fits"
    assert second.toolTip(3) == "no tool fits: 0.3"
    assert first.childCount() == 3 and first.isExpanded()
    assert [first.child(i).text(0) for i in range(3)] == [
        "1  files.t1",
        "2  files.t2",
        "3  files.t3",
    ]
    assert first.child(0).text(2) == "0.600" and first.child(0).data(2, SEGMENTS_ROLE)
    assert second.child(0).text(3) == "below threshold"
    view.show_result(result(found))
    assert tree.isHidden() and tree.topLevelItemCount() == 0


def test_a_row_is_explained_when_it_is_opened(qtbot, engine: ToolSearch) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    settings = SearchSettings(explain=False)
    ranking = ranked(engine, "why is my container crashing after the deploy?", settings)
    view.show_result(ranking)
    top = rows(view)[0]
    assert top.child(0).text(0).strip().startswith("keyword words")  # known unexplained
    assert top.child(1).text(6) == "explaining…"  # and the rerank row: no explanation needed
    asked: list[str] = []
    view.explain_requested.connect(asked.append)
    view.show_result(ranking)  # shown again, closed: nothing asked
    assert asked == []
    top.setExpanded(True)
    assert asked == [top.text(1)]
    engine.explain_hit(ranking, ranking.results[0], settings)
    view.show_result(ranking)
    fields = [top.child(i).text(1).strip() for i in range(top.childCount())]
    assert "intents field" in fields and "explaining…" not in [
        top.child(i).text(6) for i in range(top.childCount())
    ]
    assert asked == [top.text(1)]  # explained rows ask nothing more


def test_the_words_that_moved_the_keyword_share_are_in_the_bar_and_the_tips(
    qtbot, engine: ToolSearch
) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    ranking = ranked(engine, "why is my container crashing after the deploy?")
    view.show_result(ranking)
    top, found = rows(view)[0], ranking.results[0]
    keyword = found.signals.keyword
    assert keyword is not None and len(keyword.terms) >= 2
    words = sorted(keyword.terms, key=lambda t: -t.share)
    segments = top.data(2, SEGMENTS_ROLE)
    names = [name for name, _ in segments]
    assert names[:3] == ["vector", "keyword", KEYWORD_SHADE]  # a word each, shades alternating
    scale = top.data(2, BAR_ROLE) / found.score
    assert [f for _, f in segments[1 : 1 + len(words)]] == pytest.approx(
        [t.share * scale for t in words]
    )
    tip = top.toolTip(2)
    assert (
        f"keyword {found.signals.shares['keyword']:.3f} ({words[0].word} {words[0].share:.3f}"
        in tip
    )
    assert "crashing" in top.toolTip(3) and "tools hold it" in top.toolTip(3)
    child = top.child(0)
    share = found.signals.shares["keyword"]
    assert child.text(0).strip().startswith(f"keyword words: +{share:.3f} = {words[0].word} +")
    assert child.isFirstColumnSpanned() and "tools hold it" in child.toolTip(0)


def test_a_path_word_is_marked_in_the_words_row(qtbot, engine: ToolSearch) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    ranking = ranked(engine, "read the file /etc/git/config and show its log")
    view.show_result(ranking)
    marked = [
        row.child(0).text(0)
        for row in rows(view)
        if row.childCount() and row.child(0).text(0).strip().startswith("keyword words")
    ]
    assert any("(path)" in text or "(a path)" in text for text in marked)


def test_each_step_says_where_its_best_tool_stands_in_the_ranking(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    found = [hit(1, "files.find", vector=0.6)]
    mail = [hit(1, "mail.send", vector=0.5)]
    steps = [
        StepResult(step("find the config file", 0), found, True, "fits", in_ranking=1),
        StepResult(step("email it to Bob", 27, "then", (22, 26)), mail, True, "fits", 10),
    ]
    view.show_result(result(found, steps=steps))
    second = view.steps.topLevelItem(1)
    assert second.text(3) == "fits · #10 in the ranking"
    assert "mail.send is #10 of the ranking" in second.toolTip(3)


@pytest.mark.parametrize("size", [(1280, 720), (1024, 768), (800, 500)])
def test_the_ranking_keeps_eight_rows_when_the_steps_appear(qtbot, size) -> None:  # type: ignore[no-untyped-def]
    view = ToolSearchView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    assert view.drawer.isHidden() and not view.drawer_button.isChecked()
    found = [hit(n, f"files.t{n}", vector=0.9 - n / 20) for n in range(1, 11)]
    mail = [hit(n, f"mail.t{n}", vector=0.3) for n in range(1, 6)]
    steps = [
        StepResult(step("find the config file", 0), found, True, "fits"),
        StepResult(step("email it to Bob", 27, "then", (22, 26)), mail, False, "no tool fits"),
    ]
    view.show_result(result(found, steps=steps))
    qtbot.waitUntil(lambda: view.steps.isVisible() and view.steps.height() > 0)
    row = view.table.sizeHintForRow(0)
    assert view.table.viewport().height() >= 8 * row
    assert view.results_split.orientation() == Qt.Orientation.Vertical
    parts = [view.header, view.verdict.parentWidget(), view.results_split, view.pin.parentWidget()]
    spans = [(w.geometry().top(), w.geometry().bottom()) for w in parts if w is not None]
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans)), spans
    view.drawer_button.click()
    assert view.drawer.isVisible()
    view.drawer_button.click()
    assert view.drawer.isHidden()
    short = ToolSearchView()  # too short for both one above the other: the steps sit beside
    qtbot.addWidget(short)
    short.resize(size[0], 300)
    short.show()
    qtbot.waitExposed(short)
    short.show_result(result(found, steps=steps))
    qtbot.waitUntil(lambda: short.results_split.orientation() == Qt.Orientation.Horizontal)
    assert short.steps.isVisible() and short.table.width() > short.steps.width() > 0


def test_a_short_window_keeps_four_rows_of_the_ranking_in_sight(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    window.resize(800, 500)
    qtbot.waitUntil(lambda: window.height() == 500)
    window.set_prompt("why is my container crashing after the deploy?")
    with qtbot.waitSignal(window.session.tools.ranked, timeout=120_000):
        window.show_tab("Tools")
    QApplication.processEvents()
    table = window.toolsearch_view.table
    scroll = window.live.body_scroll
    assert scroll.verticalScrollBar().maximum() > 0  # too short for it all: the body scrolls
    rows = table.viewport()
    shown = QRect(rows.mapTo(scroll.viewport(), QPoint(0, 0)), rows.size())
    shown = shown.intersected(scroll.viewport().rect())  # what of the ranking's rows is in sight
    assert table.topLevelItemCount() >= LEAST_RANKING_ROWS
    assert shown.height() >= LEAST_RANKING_ROWS * table.sizeHintForRow(0)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    table.setFocus()
    assert window.editor.visibleRegion().boundingRect().height() < window.editor.height()
    window.editor.setFocus()  # typing again: the prompt comes back into sight
    qtbot.waitUntil(
        lambda: window.editor.visibleRegion().boundingRect().height() == window.editor.height()
    )


def test_a_steps_best_tool_says_so_in_the_ranking_and_the_fit_says_its_corroboration(
    qtbot, engine: ToolSearch
) -> None:  # type: ignore[no-untyped-def]
    """Issue 28: the step merge is explained in the ranking ("step 2's best", which step and
    whose score in the tip), the verdict names what backs the fit — the fit model, part by part
    in its tip — and opening a merged row explains it (its name, not its label, is asked
    for)."""
    view = ToolSearchView()
    qtbot.addWidget(view)
    found = ranked(engine, "find the config file, then email it to Bob and show the git log")
    view.show_result(found)
    merged = [hit for hit in found.results if hit.step is not None]
    assert merged and found.fits and "; fit model " in view.verdict.text()
    assert "decided by" in view.verdict.text() and found.fit_model
    tip = view.verdict.toolTip()
    assert "the request: asks for a tool" in tip and "this catalog's best match: adds" in tip
    assert "best score" in tip and "the model's baseline" in tip
    for step_result in found.steps:  # a step is judged by the rule before the model
        assert "fit model" not in step_result.fit_reason
    row = view.table.topLevelItem(merged[0].rank - 1)
    assert row is not None
    assert row.text(1) == f"{merged[0].tool_name} · step {merged[0].step}'s best"
    assert "the best tool for “email it to Bob” searched alone" in row.toolTip(1)
    assert f"merged: {found.merge}" in row.toolTip(1) and found.merge.startswith("the whole")
    assert "merged into the ranking: " + found.merge in view.steps.headerItem().toolTip(0)
    asked: list[str] = []
    view.explain_requested.connect(asked.append)
    row.setExpanded(True)
    assert asked[-1:] == [merged[0].tool_name]


def test_a_ranking_led_by_a_steps_best_says_so_above_it(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Issue 28: a request of several needs whose best tool is no step's best is led by the
    best-scoring step's best — the line above the ranking says which and by what scores, the
    rows say which step placed them ("step 1's #2") and their tips how the ranking was merged."""
    from routescope.toolsearch._steps import merge_step_tools

    view = ToolSearchView()
    qtbot.addWidget(view)
    whole = [hit(1, "git.status", vector=0.50), hit(2, "git.log", vector=0.45)]
    steps = [
        StepResult(
            step("show the git log", 0),
            [hit(1, "git.log", vector=0.61), hit(2, "git.branch", vector=0.5)],
            True,
            "",
        ),
        StepResult(
            step("email the team", 20, "then", (17, 21)),
            [hit(1, "mail.send", vector=0.4)],
            True,
            "",
        ),
        StepResult(
            step("remind me", 40, "then", (35, 39)),
            [hit(1, "calendar.remind", vector=0.3)],
            True,
            "",
        ),
    ]
    merged, how = merge_step_tools(whole, steps, 6, multi_need=True)
    found = result(merged, steps=steps)
    found.whole_request = [(h.tool_name, h.score) for h in whole]
    found.merge = how
    view.show_result(found)
    assert "led by step 1's best</b> (0.610 for its step &gt; the whole request's best " in (
        view.header.text()
    )
    names = [view.table.topLevelItem(i).text(1) for i in range(view.table.topLevelItemCount())]
    assert names[:2] == ["git.log · step 1's best", "git.status"]
    assert "git.branch · step 1's #2" in names
    top = view.table.topLevelItem(0)
    assert top is not None and f"merged: {how}" in top.toolTip(1)
    assert how.startswith("step 1's best first: git.log scores 0.610 for its step")
    plain = result(whole)
    view.show_result(plain)
    assert "led by" not in view.header.text()
