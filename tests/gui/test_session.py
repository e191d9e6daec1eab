"""The session: one request, shared by the feature models it composes."""

import datetime as dt

import routescope
from routescope_gui import Session
from routescope_gui._inspection_model import InspectionModel
from routescope_gui._regress_model import RegressModel
from routescope_gui._research_model import ResearchModel
from routescope_gui._tools_model import ToolsModel
from tests.gui._support import record


def test_a_session_composes_one_model_per_feature(session: Session) -> None:
    assert isinstance(session.inspection, InspectionModel)
    assert isinstance(session.tools, ToolsModel)
    assert isinstance(session.research, ResearchModel)
    assert isinstance(session.regress, RegressModel)
    assert all(
        model.parent() is session
        for model in (session.inspection, session.tools, session.research, session.regress)
    )
    assert not session.busy


def test_each_change_names_its_field_and_reaches_the_models(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    changed = record(session.changed)
    with qtbot.waitSignal(session.inspection.inspected) as blocker:
        session.set_text("latest news")
    assert blocker.args[0].actions[0].query == "latest news as of February 5, 2026"
    with qtbot.waitSignal(session.inspection.inspected) as blocker:
        session.set_today(dt.date(2030, 7, 4))
    assert blocker.args[0].actions[0].query == "latest news as of July 4, 2030"
    with qtbot.waitSignal(session.inspection.inspected):
        session.set_context(routescope.contract.parse_context({"preferences": {"risk": "low"}}))
    session.set_text("latest news")  # unchanged: nothing happens
    assert changed == ["text", "today", "context"]
    assert session.request.text == "latest news" and session.request.today == dt.date(2030, 7, 4)


def test_open_request_replaces_every_input_at_once(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    changed = record(session.changed)
    request = routescope.Request.build("latest news", today=dt.date(2030, 7, 4))
    with qtbot.waitSignal(session.inspection.inspected) as blocker:
        session.open_request(request)
    assert changed == ["request"] and session.request == request
    assert blocker.args[0].actions[0].query == "latest news as of July 4, 2030"
    with qtbot.assertNotEmitted(session.changed):
        session.open_request(request)  # the same request: nothing to do


def test_a_session_starts_from_an_empty_prompt_with_the_built_in_rules(qtbot) -> None:  # type: ignore[no-untyped-def]
    session = Session()
    assert session.request.text == "" and session.request.catalog is None
    assert session.request.rules == routescope.RulesRef.builtin()
    with qtbot.waitSignal(session.inspection.inspected):
        session.set_text("history of jazz")
    assert session.inspection.result is not None
    assert session.inspection.result.strategy == "general"


def test_a_case_shows_with_its_own_date_and_search_until_the_prompt_is_edited(
    qtbot, session
) -> None:  # type: ignore[no-untyped-def]
    own_day = dt.date(2026, 11, 26)
    own_search = routescope.toolsearch.SearchSettings(fusion="canonical")
    session.set_today(own_day)
    session.set_search(own_search)
    session.set_text("latest news")
    case = routescope.Request.build("OpenClaw news this week", today=dt.date(2026, 2, 5))
    with qtbot.waitSignal(session.inspection.inspected) as blocker:
        session.open_case(case)
    assert session.request == case and session.case_inputs
    assert blocker.args[0].today == dt.date(2026, 2, 5)  # the case's results, as in its suite
    with qtbot.waitSignal(session.inspection.inspected) as blocker:
        session.set_text("OpenClaw news this month")
    assert not session.case_inputs
    assert session.request.today == own_day and session.request.search == own_search
    assert blocker.args[0].today == own_day


def test_a_date_chosen_while_a_case_shows_becomes_the_sessions(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    session.set_today(dt.date(2026, 11, 26))
    session.open_case(routescope.Request.build("latest news", today=dt.date(2026, 2, 5)))
    session.set_today(dt.date(2030, 7, 4))
    session.set_text("latest news today")
    assert session.request.today == dt.date(2030, 7, 4)
    assert session.request.search == routescope.toolsearch.SearchSettings()


def test_a_whole_request_opened_is_the_sessions_own(qtbot, session) -> None:  # type: ignore[no-untyped-def]
    session.open_case(routescope.Request.build("latest news", today=dt.date(2026, 2, 5)))
    entry = routescope.Request.build("history entry", today=dt.date(2025, 1, 1))
    session.open_request(entry)  # a history entry, a batch prompt: their inputs stay
    session.set_text("history entry, edited")
    assert session.request.today == dt.date(2025, 1, 1) and not session.case_inputs
