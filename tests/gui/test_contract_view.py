import routescope
from routescope_gui._contract_view import ContractView
from tests._support import run


def test_the_decision_as_a_tree_and_as_raw_json(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ContractView()
    qtbot.addWidget(view)
    decision = run("Lend 100 USDC on Kamino").decision
    assert decision is not None and decision.mode == "execute"
    step = routescope.contract.prepare_step(decision, [])
    view.show_result(decision, step, 0)
    rows = {view.tree.topLevelItem(i).text(0): view.tree.topLevelItem(i) for i in range(9)}  # type: ignore[union-attr]
    assert rows["mode"].text(1) == "execute"
    plan = rows["tool plan"]
    assert plan.childCount() == len(decision.tool_plan)
    assert plan.child(0).text(0) == "· 1. wallet_connect"  # type: ignore[union-attr]
    assert view.step_label.text() == "next: wallet_connect" and view.step_button.isEnabled()
    view.raw_toggle.setChecked(True)
    assert '"lend_execute"' in view.raw.toPlainText()


def test_steps_done_are_ticked_and_the_end_disables_stepping(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ContractView()
    qtbot.addWidget(view)
    decision = run("Lend 100 USDC on Kamino").decision
    assert decision is not None
    results = [routescope.contract.CallResult(tool=c.tool, args=c.args) for c in decision.tool_plan]
    view.show_result(decision, routescope.contract.prepare_step(decision, results), len(results))
    plan = view.tree.topLevelItem(6)
    assert plan is not None and plan.child(0).text(0).startswith("✓")  # type: ignore[union-attr]
    assert view.step_label.text() == "done — tool plan complete"
    assert not view.step_button.isEnabled()
    with qtbot.waitSignal(view.reset_requested, timeout=1_000):
        view.reset_button.click()


def test_the_context_editor_emits_only_contexts_that_validate(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ContractView()
    qtbot.addWidget(view)
    emitted: list[object] = []
    view.context_changed.connect(emitted.append)
    view.context_edit.setPlainText('{"last_action": {"tool": 5}}')
    assert (
        "not used" in view.context_status.text()
        and "last_action.tool" in view.context_status.text()
    )
    assert emitted == []
    view.context_edit.setPlainText(
        '{"last_action": {"tool": "lend_execute", "status": "cancelled"}}'
    )
    assert "valid" in view.context_status.text()
    context = emitted[-1]
    assert isinstance(context, routescope.contract.RouterContext)
    assert context.last_action is not None and context.last_action.status == "cancelled"
    view.context_edit.setPlainText("")
    assert emitted[-1] is None


def test_a_context_shown_reads_back_as_the_same_context(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ContractView()
    qtbot.addWidget(view)
    context = routescope.contract.parse_context(
        {"last_selection": {"poolId": "p1"}, "preferences": {"stablecoinOnly": True}}
    )
    emitted: list[object] = []
    view.context_changed.connect(emitted.append)
    view.show_context(context)
    assert '"stablecoinOnly": true' in view.context_edit.toPlainText()
    assert emitted == [context]


def test_no_decision(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = ContractView()
    qtbot.addWidget(view)
    view.show_result(None)
    assert view.tree.topLevelItemCount() == 0 and not view.step_button.isEnabled()
    view.raw_toggle.setChecked(True)
    assert "no decision" in view.raw.toPlainText()
