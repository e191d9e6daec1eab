"""What the history keeps of a prompt typed live (`Recorder`): the prompt the analyst settled
on — not each prefix they paused on, never the same row twice. The clock is the test's."""

from __future__ import annotations

from pathlib import Path

import pytest

from routescope import CatalogRef, Request
from routescope.history import History, Recorder
from routescope.history._settle import decide, extends

from ._support import TODAY, result_of


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def history(tmp_path: Path) -> History:
    store = History.open(tmp_path / "history.sqlite3")
    assert store.enabled
    return store


def request(text: str, **changes: object) -> Request:
    return Request.build(text, today=TODAY).replace(**changes)


class Typist:
    """An analyst typing into a window that inspects every keystroke and records what the
    recorder hands over once it settles (or at once, on `run`)."""

    def __init__(self, history: History, clock: Clock, recorder: Recorder) -> None:
        self.history, self.clock, self.recorder = history, clock, recorder

    def type(self, text: str, *, rest: float = 0.0, **changes: object) -> None:
        """`text` inspected, then `rest` seconds without a key (the window's timer fires)."""
        self.recorder.offer(request(text, **changes), result_of(text))
        self.clock.advance(rest)
        pending = self.recorder.settled()
        if pending is not None:
            self.recorder.keep(self.history, pending)

    def run(self) -> None:
        """Ctrl+Enter (or the prompt left, another tab shown): recorded now."""
        pending = self.recorder.take()
        if pending is not None:
            self.recorder.keep(self.history, pending)

    def rows(self) -> list[tuple[str, int]]:
        return [(entry.text, entry.count) for entry in self.history.search("")]


@pytest.fixture
def typist(history: History) -> Typist:
    clock = Clock()
    return Typist(history, clock, Recorder(settle_s=2.0, merge_s=30.0, clock=clock))


def test_keystrokes_and_short_pauses_are_not_recorded(typist: Typist) -> None:
    for prefix in ("best", "best ramen", "best ramen near"):
        typist.type(prefix, rest=0.3)
    typist.type("best ramen near Denver", rest=1.9)  # a pause, not yet settled
    assert typist.rows() == []
    assert typist.recorder.wait_s() == pytest.approx(0.1)
    typist.clock.advance(0.1)
    pending = typist.recorder.settled()
    assert pending is not None and pending.request.text == "best ramen near Denver"
    assert typist.recorder.settled() is None and typist.recorder.wait_s() is None


def test_a_prefix_paused_on_is_replaced_by_the_prompt_it_grew_into(typist: Typist) -> None:
    typist.type("best ramen", rest=2.5)  # settled: recorded
    assert typist.rows() == [("best ramen", 1)]
    typist.type("best ramen near", rest=3.0)  # another pause: the row follows the prompt
    typist.type("best ramen near Denver open now", rest=0.5)
    typist.run()
    assert typist.rows() == [("best ramen near Denver open now", 1)]


def test_the_same_prompt_settled_again_adds_no_row(typist: Typist) -> None:
    typist.type("best ramen near Denver open now", rest=2.0)
    typist.type("best ramen near Denver open now", rest=5.0)  # (a focus change, a re-paste)
    typist.run()
    typist.run()
    assert typist.rows() == [("best ramen near Denver open now", 1)]
    # the same prompt once the Tools tab attached a catalog: still one row
    catalog = CatalogRef("/catalog", "0123456789abcdef", "model@1")
    typist.type("best ramen near Denver open now", rest=2.0, catalog=catalog)
    (entry,) = typist.history.search("")
    assert entry.catalog == catalog and entry.count == 1


def test_an_extension_long_after_keeps_both_prompts(typist: Typist) -> None:
    typist.type("history of jazz", rest=2.0)
    typist.clock.advance(60.0)  # the analyst looked at the results for a minute
    typist.type("history of jazz in New Orleans", rest=2.0)
    assert sorted(typist.rows()) == [("history of jazz", 1), ("history of jazz in New Orleans", 1)]


def test_another_prompt_is_a_row_of_its_own(typist: Typist) -> None:
    typist.type("pizza near me", rest=2.0)
    typist.type("How do I install FastAPI on Ubuntu?", rest=2.0)
    typist.type("pizza near me", rest=2.0)  # back to an earlier prompt: its row counts it
    rows = dict(typist.rows())
    assert rows == {"pizza near me": 2, "How do I install FastAPI on Ubuntu?": 1}


def test_a_row_that_was_there_before_or_is_pinned_is_never_replaced(typist: Typist) -> None:
    history = typist.history
    typist.type("pizza", rest=2.0)
    typist.clock.advance(60.0)
    typist.type("history of jazz", rest=2.0)
    typist.type("pizza", rest=2.0)  # an earlier prompt of its own, seen again
    typist.type("pizza near", rest=2.0)  # it grows: the old row stays
    assert dict(typist.rows()) == {"history of jazz": 1, "pizza": 2, "pizza near": 1}
    (near,) = [e for e in history.search("") if e.text == "pizza near"]
    history.pin(near.id)
    typist.type("pizza near Denver", rest=2.0)  # pinned meanwhile: kept
    assert {text for text, _ in typist.rows()} == {
        "history of jazz",
        "pizza",
        "pizza near",
        "pizza near Denver",
    }


def test_a_request_with_other_inputs_is_no_extension(history: History) -> None:
    base = request("pizza")
    assert extends(request("pizza near me"), base)
    assert extends(base, base)  # (the same text: a catalog may have joined)
    assert not extends(request("pizza near me", today=TODAY.replace(day=6)), base)
    assert not extends(request("near me pizza"), base)
    catalog = CatalogRef("/catalog", "0123456789abcdef", "model@1")
    other = CatalogRef("/other", "fedcba9876543210", "model@1")
    assert extends(request("pizza near", catalog=catalog), base)
    assert not extends(request("pizza near", catalog=other), request("pizza", catalog=catalog))
    assert decide(request("pizza near"), 10.0, None, 30.0) == "add"


def test_nothing_is_kept_while_the_history_is_off(tmp_path: Path) -> None:
    clock = Clock()
    store = History.open(tmp_path / "history.sqlite3")
    store.close()
    store.enabled = False
    recorder = Recorder(clock=clock)
    recorder.offer(request("pizza"), result_of("pizza"))
    pending = recorder.take()
    assert pending is not None and recorder.keep(store, pending) is None
    assert recorder.latest is None


def test_a_prompt_whose_catalog_joined_later_keeps_one_row(typist: Typist) -> None:
    catalog = CatalogRef("/catalog", "0123456789abcdef", "model@1")
    typist.type("best ramen near Denver open now", rest=2.0)
    typist.type("How do I install FastAPI on Ubuntu?", rest=2.0)
    typist.type("best ramen near Denver open now", rest=2.0, catalog=catalog)  # Tools opened
    rows = {entry.text: entry for entry in typist.history.search("")}
    assert len(typist.history.search("")) == 2
    assert rows["best ramen near Denver open now"].catalog == catalog
