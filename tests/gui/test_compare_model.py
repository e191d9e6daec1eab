"""The compare model: A (the request) beside B — another prompt, rule pack or catalog —
compared in a worker once they rest, stale comparisons dropped, only while enabled; suites run
under both sides and their cases open live."""

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import routescope
from routescope_gui import Session
from routescope_gui._compare_model import CompareModel
from tests.gui._support import record

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
A = "How do I install OpenClaw on my server?"
B = "OpenClaw news this week"


@pytest.fixture(autouse=True)
def _stop_background_work(request: pytest.FixtureRequest) -> Iterator[None]:
    """A run still under way when a test ends must not report to its deleted session."""
    session = request.getfixturevalue("session") if "session" in request.fixturenames else None
    yield
    if session is not None:
        session.close()


def other_pack(folder: Path) -> Path:
    """The built-in pack named "other", with "in" a local keyword."""
    text = (routescope.resources_root() / "rules" / "default.toml").read_text(encoding="utf-8")
    default = 'local = ["near me", '
    assert default in text
    path = folder / "other.toml"
    path.write_text(
        text.replace('name = "default"', 'name = "other"', 1).replace(
            default, 'local = ["near me", "in", ', 1
        ),
        encoding="utf-8",
    )
    return path


def compared(qtbot, model: CompareModel, timeout: int = 20_000):  # type: ignore[no-untyped-def]
    """Enable the model (if it is not) and wait for the comparison of what is set."""
    with qtbot.waitSignal(model.compared, timeout=timeout) as blocker:
        model.set_enabled(True)
    return blocker.args[0]


def test_two_prompts_are_compared_in_a_worker(qtbot, session: Session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    model = session.compare
    model.set_rank_tools(False)
    threads: list[int] = []
    compare_requests = routescope.compare.compare_requests

    def spy(*args):  # type: ignore[no-untyped-def]
        threads.append(threading.get_ident())
        return compare_requests(*args)

    monkeypatch.setattr(routescope.compare, "compare_requests", spy)
    session.set_text(A)
    model.set_text_b(B)
    comparison = compared(qtbot, model)
    assert threads and threading.get_ident() not in threads
    assert model.result is comparison and comparison.changed
    assert (comparison.a.text, comparison.b.text) == (A, B)
    assert (comparison.a.outcome.strategy, comparison.b.outcome.strategy) == ("tech", "general")
    assert {"strategy", "task"} <= set(comparison.sections)
    assert comparison.tools is None and not comparison.a.tools
    flags = {flip.flag: flip for flip in comparison.flags}
    assert [span.value for span in flags["tech"].evidence_a] == ["install"]
    removed = [q for q in comparison.queries if q.kind == "removed"]
    assert removed and all(q.b is None for q in removed)


def test_a_follows_the_request_and_stale_comparisons_are_dropped(qtbot, session: Session) -> None:  # type: ignore[no-untyped-def]
    model = session.compare
    model.set_rank_tools(False)
    session.set_text(A)
    model.set_text_b(B)
    compared(qtbot, model)
    seen = record(model.compared)
    for text in ("pizza", "pizza near", "pizza near me"):  # a burst: one comparison, the last
        session.set_text(text)
    qtbot.waitUntil(lambda: bool(seen) and not model.busy)
    assert [c.a.text for c in seen] == ["pizza near me"]
    assert seen[-1].a.outcome.strategy == "local"


def test_a_newer_comparison_makes_the_one_under_way_stale(  # type: ignore[no-untyped-def]
    qtbot, session: Session, monkeypatch
) -> None:
    model = session.compare
    model.set_rank_tools(False)
    started, gate = threading.Event(), threading.Event()
    compare_requests = routescope.compare.compare_requests

    def slow(a, b, *engines):  # type: ignore[no-untyped-def]
        if b.text == "first":
            started.set()
            assert gate.wait(30)
        return compare_requests(a, b, *engines)

    monkeypatch.setattr(routescope.compare, "compare_requests", slow)
    session.set_text(A)
    model.set_text_b("first")
    seen = record(model.compared)
    model.set_enabled(True)
    qtbot.waitUntil(started.is_set)
    model.set_text_b(B)  # the first comparison is stale now
    gate.set()
    qtbot.waitUntil(lambda: bool(seen) and not model.busy)
    assert [c.b.text for c in seen] == [B]


def test_nothing_is_compared_while_disabled_or_without_b(qtbot, session: Session) -> None:  # type: ignore[no-untyped-def]
    model = session.compare
    session.set_text(A)
    model.set_text_b(B)
    assert not model.busy and model.result is None  # nobody looks: no work is due
    model.set_text_b("   ")
    assert compared(qtbot, model) is None  # no B: nothing to compare
    model.set_mode("rules")
    with qtbot.waitSignal(model.compared) as blocker:
        model.set_rank_tools(False)
    assert blocker.args[0] is None  # no pack chosen for B yet
    with pytest.raises(ValueError, match="no compare mode"):
        model.set_mode("nope")


def test_the_same_prompt_under_another_rule_pack(qtbot, session: Session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    model = session.compare
    model.set_rank_tools(False)
    session.set_text("Best ramen in Denver tonight")
    sources = record(model.b_source)
    assert model.set_rules_b(other_pack(tmp_path))
    assert model.mode == "rules" and sources == [("rules", "other (other.toml)")]
    comparison = compared(qtbot, model)
    assert comparison.a.text == comparison.b.text == "Best ramen in Denver tonight"
    assert comparison.a.rules == "default" and comparison.b.rules.startswith("other (")
    assert (comparison.a.outcome.strategy, comparison.b.outcome.strategy) == ("general", "local")
    [flip] = comparison.flags
    assert flip.flag == "local" and [s.value for s in flip.evidence_b] == ["in"]
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [\n", encoding="utf-8")
    failures = record(model.failed)
    assert not model.set_rules_b(bad)
    assert failures and "bad.toml" in str(failures[0])
    assert model.rules_b is not None and model.rules_b.load().name == "other"


def test_tools_are_ranked_on_both_sides(qtbot, session: Session) -> None:  # type: ignore[no-untyped-def]
    model = session.compare
    session.set_text(A)
    model.set_text_b(B)
    loading = record(model.loading)
    comparison = compared(qtbot, model, timeout=120_000)
    assert loading == ["the sample catalog"]
    assert comparison.a.tools and comparison.b.tools
    assert comparison.a.catalog == comparison.b.catalog
    assert comparison.tools is not None and comparison.a.outcome.top_tool is not None
    movements = {move.movement for move in comparison.tools}
    assert movements & {"up", "down", "new", "dropped"}
    for move in comparison.tools:
        if move.movement in ("up", "down"):
            assert move.delta == (move.rank_a or 0) - (move.rank_b or 0)
    loading.clear()
    with qtbot.waitSignal(model.compared, timeout=20_000):
        model.set_text_b("OpenClaw news today")
    assert loading == []  # the engine is kept


def test_the_same_prompt_under_another_catalog(qtbot, session: Session) -> None:  # type: ignore[no-untyped-def]
    model = session.compare
    session.set_text("find files named a.txt")
    model.set_rank_tools(False)  # a catalog on B ranks tools on both sides all the same
    sources = record(model.b_source)
    model.set_catalog_b(EXAMPLES / "catalogs" / "mcp-tools-list.json")
    assert sources == [("catalog", "mcp-tools-list.json")]
    comparison = compared(qtbot, model, timeout=120_000)
    assert comparison.a.catalog != comparison.b.catalog
    assert comparison.b.catalog.endswith("mcp-tools-list.json")
    assert comparison.tools is not None and "tools" in comparison.sections


def test_a_catalog_that_does_not_load_is_reported(qtbot, session: Session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    model = session.compare
    session.set_text("find files")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    model.set_catalog_b(broken)
    with qtbot.waitSignal(model.failed, timeout=120_000) as blocker:
        model.set_enabled(True)
    assert "broken.json" in blocker.args[0]


def test_a_suite_under_both_packs_and_a_case_opened_live(  # type: ignore[no-untyped-def]
    qtbot, session: Session, tmp_path: Path
) -> None:
    model = session.compare
    failures = record(model.suite_failed)
    model.run_suite(routescope.resources_root() / "fixtures" / "strategy.yaml")
    assert failures and "rule pack or catalog" in str(failures[0])  # B is another prompt
    assert model.set_rules_b(other_pack(tmp_path))
    started = record(model.suite_started)
    with qtbot.waitSignal(model.suite_compared, timeout=60_000) as blocker:
        model.run_suite(routescope.resources_root() / "fixtures" / "strategy.yaml")
    result = blocker.args[0]
    assert started == ["strategy.yaml"] and model.suite_result is result
    assert result.router == "strategy" and result.cases > 0 and result.differ
    assert result.b.startswith("rules ") and result.b.endswith("other.toml")
    case = next(c for c in result.differ if c.comparison.a.outcome.strategy != "local")
    assert case.comparison.b.outcome.strategy == "local"
    with qtbot.waitSignal(session.inspection.inspected, timeout=20_000):
        model.open_case(case.id)  # the session makes the case's request its own
    assert session.request.text == case.prompt and session.request.rules.is_builtin


def test_a_bad_suite_is_reported(qtbot, session: Session, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    model = session.compare
    assert model.set_rules_b(other_pack(tmp_path))
    bad = tmp_path / "bad.yaml"
    bad.write_text("suite: x\n", encoding="utf-8")
    with qtbot.waitSignal(model.suite_failed, timeout=20_000) as blocker:
        model.run_suite(bad)
    assert "bad.yaml" in blocker.args[0]
