from routescope_gui._linter_view import NO_ANCHORS, NO_PROMPT_ANCHORS, LinterView
from tests._support import run


def test_class_arithmetic_anchors_and_expansion(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = LinterView()
    qtbot.addWidget(view)
    view.show_result(run("config").lint)
    assert view.badge.text() == "VAGUE" and view.badge.tone == "vague"
    assert "tokens 1 &lt; 3" in view.arithmetic.text() or "tokens 1 < 3" in view.arithmetic.text()
    assert "agent.md" in view.expansion.text() and "vague_default_boost" in view.expansion.text()
    row = view.anchors.topLevelItem(0)
    assert row is not None and [row.text(c) for c in range(4)] == [
        "config",
        "weak",
        "config",
        "@0–6",
    ]


def test_a_guided_query_is_not_expanded_and_rows_follow_the_result(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = LinterView()
    qtbot.addWidget(view)
    view.show_result(run("config").lint)
    first = view.anchors.topLevelItem(0)
    lint = run("update config.yaml and README.md in the api module").lint
    view.show_result(lint)
    assert view.badge.tone == "guided"
    assert "not expanded" in view.expansion.text()
    assert view.anchors.topLevelItem(0) is first  # reused, not rebuilt
    assert view.anchors.topLevelItemCount() == len(lint.evidence) >= 2


def test_no_result_clears(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = LinterView()
    qtbot.addWidget(view)
    view.show_result(run("config").lint)
    view.show_result(None)
    assert view.badge.text() == "—" and view.anchors.topLevelItemCount() == 0
    assert view.arithmetic.text() == "" and view.expansion.text() == ""


def test_an_empty_anchors_table_says_what_anchors_are(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = LinterView()
    qtbot.addWidget(view)
    view.show()
    hint = view.placeholder
    assert hint.shown and hint.label.text() == NO_PROMPT_ANCHORS
    view.show_result(run("best ramen near Denver open now").lint)
    assert hint.shown and hint.label.text() == NO_ANCHORS and "lexicon" in NO_ANCHORS
    view.show_result(run("config").lint)
    assert not hint.shown
