"""The Suggestions list: `judge.suggest` on the current judged set (the built-in strategy suite
as guards) off the UI thread, each edit with its gain and the prompts it fixes and breaks, and
Apply making the edit in the rule pack editor's text, which the editor applies and counts."""

from __future__ import annotations

import uuid

from PySide6.QtWidgets import QApplication

import routescope
from routescope.judge import LabelledCase, Labels
from routescope_gui import MainWindow
from routescope_gui._suggest_model import suggest_for
from routescope_gui._suggestions_view import SuggestionsView
from tests._support import TODAY
from tests.gui._own_history import own_window  # noqa: F401 (`window`: a history of its own)

NONE = {"tech": False, "purchase": False, "troubleshooting": False, "time_sensitive": False}
JUDGED: list[tuple[str, dict[str, object]]] = [
    ("Find me a hair stylist in Fremont, CA", {**NONE, "local": True, "place_hint": "Fremont, CA"}),
    ("hair stylist in fremont ca", {**NONE, "local": True, "place_hint": "fremont ca"}),
    ("I want the weather in Fremont on March 1st 2023", {**NONE, "local": True}),
    ("best tacos in fremont", {**NONE, "local": True}),
    ("pizza near me", {**NONE, "local": True, "place_hint": ""}),
    ("How do I install FastAPI on Ubuntu?", {**NONE, "tech": True, "local": False}),
]


def test_suggestions_are_measured_on_the_set_and_guarded() -> None:
    cases = [
        LabelledCase(f"s:{n}", prompt, Labels(**labels), TODAY)  # type: ignore[arg-type]
        for n, (prompt, labels) in enumerate(JUDGED, 1)
    ]
    made = suggest_for("s", cases, routescope.RulesRef.builtin())
    assert made is not None and made.suggestions and not made.held_out
    assert made.pack == "default" and set(made.cases) == {c.id for c in cases}
    best = made.suggestions[0]
    assert best.tune.gain > 0 and best.tune.fixed and best.heldout is None
    split = [
        LabelledCase(c.id, c.prompt, c.labels, c.today, extra={"part": part})
        for c, part in zip(cases, ["tune", "heldout"] * 3, strict=True)
    ]
    held = suggest_for("s", split, routescope.RulesRef.builtin())
    assert held is not None and held.held_out
    assert suggest_for("s", [], routescope.RulesRef.builtin()) is None


def _shown(qtbot, window: MainWindow) -> SuggestionsView:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.session.history.store is not None, timeout=20_000)
    model = window.session.judge
    qtbot.waitUntil(lambda: not model.busy, timeout=20_000)
    model.use_set(f"suggest {uuid.uuid4().hex}")
    for prompt, labels in JUDGED:
        assert model.judge(prompt, TODAY, labels)
    with qtbot.waitSignal(window.session.suggestions.suggested, timeout=60_000):
        window.judging.menu.suggestions_action.trigger()
    view = window.judging.suggestions_view
    assert window.judging.suggestions_dock.isVisible()
    return view


def test_the_list_shows_each_edit_with_its_gain_and_prompts(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    view = _shown(qtbot, window)
    result = view.result
    assert result is not None and len(view.suggestion_rows()) == len(result.suggestions)
    first = view.suggestion_rows()[0]
    best = result.suggestions[0]
    assert first.text(0) == best.edit.describe()
    assert first.text(1) == f"{best.tune.gain:+.3f}" and first.text(3) == str(len(best.tune.fixed))
    assert "Δ macro-F1" in first.toolTip(1)
    assert view.tree.isColumnHidden(2)  # no held-out part in a judged set of the window
    fixes = first.child(0)
    assert fixes is not None and fixes.text(0).startswith(f"fixes {len(best.tune.fixed)} prompt")
    prompts = {fixes.child(i).text(0) for i in range(fixes.childCount())}  # type: ignore[union-attr]
    assert prompts <= {prompt for prompt, _labels in JUDGED} and prompts
    assert "gains measured on the set itself" in view.status.text()


def test_apply_makes_the_edit_in_the_editor_which_applies_and_counts(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    view = _shown(qtbot, window)
    result = view.result
    assert result is not None
    editor = window.session.rules_editor
    before = window.session.request.rules
    edit = result.suggestions[0].edit
    with qtbot.waitSignal(editor.counted, timeout=120_000):
        view.buttons[0].click()
    assert window.rules_editor_view.isVisible()
    text = window.rules_editor_view.text_edit.toPlainText()
    assert text == edit.apply_text(before.text, editor.source)
    assert f"suggest: {edit.describe()}" in text  # the edit says where it came from
    assert window.session.request.rules.digest != before.digest  # applied live
    assert view.status.text().startswith(f"applied: {edit.describe()}")
    # the list follows the edited pack: that edit is no longer suggested
    qtbot.waitUntil(
        lambda: (
            view.result is not None
            and view.result.suggestions[:1] != result.suggestions[:1]
            and not window.session.suggestions.busy
        ),
        timeout=60_000,
    )
    assert all(s.edit != edit for s in view.result.suggestions)  # type: ignore[union-attr]
    # one undo in the editor takes it back
    window.rules_editor_view.text_edit.undo()
    assert window.rules_editor_view.text_edit.toPlainText() == before.text
    QApplication.processEvents()


def test_an_invalid_editor_text_is_not_edited(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    view = _shown(qtbot, window)
    window.edit_rules()
    window.rules_editor_view.text_edit.setPlainText("[intents\nbroken = ")
    assert view.result is not None
    assert not window.judging.apply_edit(view.result.suggestions[0].edit)
    assert view.status.text().startswith("cannot apply:")
    assert window.rules_editor_view.text_edit.toPlainText() == "[intents\nbroken = "
    window.session.rules_editor.revert()  # (nothing unsaved to ask about when the window closes)


def test_a_split_set_shows_the_held_out_gain(qtbot) -> None:  # type: ignore[no-untyped-def]
    cases = [
        LabelledCase(f"s:{n}", prompt, Labels(**labels), TODAY, extra={"part": part})  # type: ignore[arg-type]
        for n, ((prompt, labels), part) in enumerate(
            zip(JUDGED, ["tune", "heldout"] * 3, strict=True), 1
        )
    ]
    made = suggest_for("s", cases, routescope.RulesRef.builtin())
    assert made is not None and made.held_out and made.suggestions
    view = SuggestionsView()
    qtbot.addWidget(view)
    view.show_result(made)
    assert not view.tree.isColumnHidden(2)
    first, best = view.suggestion_rows()[0], made.suggestions[0]
    assert best.heldout is not None and first.text(2) == f"{best.heldout.gain:+.3f}"
    assert "on the held-out part: Δ macro-F1" in first.toolTip(2)
    assert "gains: on the tuning part / on the held-out part" in view.status.text()
