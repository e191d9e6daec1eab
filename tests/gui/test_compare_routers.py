"""The Compare view's Routers page against real routers (the semantic-router example file with
the shipped model, the Python example router, the built-in routers): two routers on the
prompts — does each agree? — and over the examples' labelled set: how often they agree, A ×
B with the prompts behind every cell, how often each is right, a prompt opened live."""

from __future__ import annotations

import pytest

from routescope_gui import MainWindow
from routescope_gui._compare_routers import RoutersPage
from tests.gui._routers import (
    EXAMPLE_ROUTERS,
    EXAMPLES,
    ONLY_OFFLINE,
    forget_routers,  # noqa: F401 (a fixture)
)

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("forget_routers")]


def _routers_page(qtbot, window: MainWindow) -> RoutersPage:  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(window.session.routers.chosen_changed, timeout=10_000):
        window.externals.open_file(EXAMPLE_ROUTERS, ONLY_OFFLINE, show=False)
    view = window.compare_view
    window.show_tab("Compare")
    view.pages.setCurrentWidget(view.routers_page)
    return view.routers_page


def _pick(page: RoutersPage, a: str, b: str) -> None:
    page.pick_a.setCurrentIndex(page.pick_a.findData(a))
    page.pick_b.setCurrentIndex(page.pick_b.findData(b))


def _prompt_rows(page: RoutersPage) -> list[list[str]]:
    tree = page.prompts
    return [
        [tree.topLevelItem(n).text(c) for c in range(4)]  # type: ignore[union-attr]
        for n in range(tree.topLevelItemCount())
    ]


def test_two_routers_on_the_prompts_agree_or_differ(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    page = _routers_page(qtbot, window)
    labels = [page.pick_a.itemText(n) for n in range(page.pick_a.count())]
    assert labels[:2] == ["strategy (built-in)", "linter class (built-in)"]
    assert labels[-4:] == [
        "support (external)",
        "keywords (external)",
        "vsr (external)",
        "routellm (external)",
    ]
    assert page.pick_b.currentData() == "external:support"  # B: the file's first router
    compare = window.session.router_compare
    _pick(page, "external:support", "external:keywords")
    with qtbot.waitSignal(compare.compared, timeout=60_000):
        window.set_prompt("hello there, how are you?")
    assert _prompt_rows(page) == [
        ["A: hello there, how are you?", "chitchat", "(none)", "✗ differ"]
    ]
    window.compare_view.set_text_b("I was charged twice, refund please")  # B: another prompt
    qtbot.waitUntil(lambda: page.prompts.topLevelItemCount() == 2, timeout=60_000)
    assert _prompt_rows(page)[1] == [
        "B: I was charged twice, refund please",
        "billing",
        "billing",
        "✓ agree",
    ]
    # An external router against a built-in decision.
    with qtbot.waitSignal(compare.compared, timeout=60_000):
        _pick(page, "builtin:strategy", "external:keywords")
    assert _prompt_rows(page)[0][1:] == ["general", "(none)", "✗ differ"]
    # A router that cannot start says why on its side.
    with qtbot.waitSignal(compare.compared, timeout=60_000):
        _pick(page, "builtin:strategy", "external:routellm")
    assert _prompt_rows(page)[0][2] == "cannot start"
    assert "ROUTELLM_API_KEY" in page.prompts.topLevelItem(0).toolTip(2)  # type: ignore[union-attr]


def test_a_labelled_set_through_both_routers_counts_agreement(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    page = _routers_page(qtbot, window)
    _pick(page, "external:support", "external:keywords")
    asked: list[str] = []

    def open_path(title: str, filters: str, start: str = "") -> str:
        asked.append(filters)
        return str(EXAMPLES / "labelled.jsonl")

    window.dialogs.open_path = open_path  # type: ignore[method-assign]
    compare = window.session.router_compare
    with qtbot.waitSignal(compare.suite_compared, timeout=60_000):
        page.suite_button.click()
    result = page.suite_result
    assert result is not None and len(result.rows) == 13
    # docs/routers.md: the semantic router is right on 12 of 13, the keyword router on 10.
    assert result.right("a") == (12, 13) and result.right("b") == (10, 13)
    summary = page.summary.text()
    assert f"agree on {result.agreed}" in summary and "right on 12 of 13" in summary
    # The matrix: A's route × B's route, agreement on the diagonal.
    routes_a, routes_b = result.routes()
    matrix = page.matrix
    assert matrix.rowCount() == len(routes_a) and matrix.columnCount() == len(routes_b)
    total = sum(
        int(matrix.item(r, c).text() or 0)  # type: ignore[union-attr]
        for r in range(matrix.rowCount())
        for c in range(matrix.columnCount())
    )
    assert total == 13
    # At first, the prompts on which they differ; a cell lists its own.
    assert page.cases.topLevelItemCount() == 13 - result.agreed
    page.pick_cell("billing", "billing")
    billing = result.cell("billing", "billing")
    assert page.cell == ("billing", "billing") and billing
    assert page.cases.topLevelItemCount() == len(billing)
    first = page.cases.topLevelItem(0)
    assert first is not None and first.text(2) == "billing" and first.text(4) == "billing"
    # Double-click: the prompt in the live view, on the set's date.
    page.cases.itemDoubleClicked.emit(first, 1)
    qtbot.waitUntil(lambda: window.session.request.text == billing[0].prompt, timeout=10_000)
    assert window.current_tab() == "Plan" and window.session.request.today == billing[0].today
