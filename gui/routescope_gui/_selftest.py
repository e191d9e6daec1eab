"""`routescope-gui --self-test`: the real window, offscreen, and every router on one prompt.

It proves that an install (or a frozen bundle) has everything the window needs: Qt and its
offscreen plugin, the rule pack, the tool catalog, the embedding model with its tokenizer and
runtime, Tantivy, the offline research index and the page extractor. One line per router on
stdout, printed as it answers, and status 0; a failure is one line on stderr and status 1.

Nothing is written outside a temporary folder: the tool-search cache, the research index, the
history store, the window's settings and the XDG folders of the process all live there.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import qasync
from PySide6.QtCore import QMessageLogContext, QSettings, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

import routescope

from ._launch import _closed, _first_of, _first_paint, _why_settled
from ._session import Session
from ._window import MainWindow

__all__ = ["SELF_TEST_PROMPT", "SELF_TEST_SECONDS", "SelfTestError", "run_self_test"]

SELF_TEST_PROMPT = "find files named config.yaml in my repo and explain asyncio event loops"
SELF_TEST_SECONDS = 120.0
"""The whole self-test's bound: a cold bundle on two slow cores loads the model in seconds."""
_TODAY = dt.date(2026, 1, 15)
"""A fixed date, so the strategy's time rules decide the same every day."""
_PAGE = """<html><head><title>Event loops</title></head><body><nav>Home · Docs</nav>
<article><h1>Running an event loop in a thread</h1>
<p>Start a thread whose target creates a new event loop with asyncio.new_event_loop, sets it
as the thread's current loop and runs it forever. Other threads hand it coroutines with
asyncio.run_coroutine_threadsafe, which returns a concurrent future they can wait on.</p>
<p>Stop it with loop.call_soon_threadsafe(loop.stop), then join the thread and close the loop,
so that no callback scheduled meanwhile is lost and the loop's resources are released.</p>
</article><footer>© the docs</footer></body></html>"""
"""A page for the extractor: trafilatura must find its article (not the stdlib fallback)."""
_XDG = ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
_OFFSCREEN_NOISE = "This plugin does not support"
"""What the offscreen plugin says on show() and close(): not a failure, and a failure must be
the only line on stderr."""


class SelfTestError(Exception):
    """A router did not answer as it should (one line)."""


def run_self_test(
    *, timeout: float = SELF_TEST_SECONDS, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run the self-test in this process (Qt offscreen); return the exit status."""
    out, err = out or sys.stdout, err or sys.stderr
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # (before the QApplication exists)
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="routescope-self-test-") as folder,
        _private(Path(folder)),
    ):
        app = QApplication.instance() or QApplication(["routescope-gui"])
        assert isinstance(app, QApplication)
        try:
            with asyncio.Runner(loop_factory=qasync.QEventLoop) as runner:
                runner.run(asyncio.wait_for(_check(Path(folder), out), timeout))
            # Python 3.11's wait_for returns the result when its cancellation lands as an inner
            # wait_for finishes (the first paint): the clock decides.
            if time.perf_counter() - started > timeout:
                raise TimeoutError
        except TimeoutError:
            print(f"routescope-gui: self-test: no answer within {timeout:g} s", file=err)
            return 1
        except SelfTestError as exc:
            print(f"routescope-gui: self-test: {exc}", file=err)
            return 1
        except Exception as exc:  # the self-test reports whatever broke, as one line
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            print(f"routescope-gui: self-test: {type(exc).__name__}: {first}", file=err)
            return 1
    print(f"self-test: ok in {time.perf_counter() - started:.1f} s", file=out)
    return 0


@contextmanager
def _private(folder: Path) -> Iterator[None]:
    """Point the XDG folders and Qt's settings into `folder` for the test's duration: a
    default path someone adds later still stays out of the user's own folders."""
    saved = {name: os.environ.get(name) for name in _XDG}
    for name in _XDG:
        os.environ[name] = str(folder / name.lower())
    for settings_format in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(settings_format, QSettings.Scope.UserScope, str(folder / "settings"))
    previous = qInstallMessageHandler(_quiet_offscreen)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _quiet_offscreen(_kind: QtMsgType, _context: QMessageLogContext, message: str) -> None:
    if not message.startswith(_OFFSCREEN_NOISE):
        print(message, file=sys.stderr)


async def _check(folder: Path, out: TextIO) -> None:
    """Each router's line is printed as soon as it answered (the first, the window's, times the
    start-up: `tests/bench/bench_bundle.py` reads it)."""
    research = routescope.research
    session = Session(
        cache=folder / "cache",
        keys=research.KeyStore(folder / "research-keys.json"),
        reports=folder / "reports",
        history=folder / "history.sqlite3",
    )
    window = MainWindow(session, restore=False)
    try:
        window.show()
        await _first_paint(window)
        print(f"window: painted ({QApplication.platformName()})", file=out, flush=True)
        for line in _inspected(session):
            print(line, file=out, flush=True)
        print(await _ranked(window), file=out, flush=True)
        print(await _researched(window), file=out, flush=True)
        print(_extracted(), file=out, flush=True)
        await _why_settled(window)
    finally:
        await _closed(window)


def _inspected(session: Session) -> list[str]:
    """The inspection's decisions: small prompts are inspected as the request changes."""
    session.open_request(routescope.Request.build(SELF_TEST_PROMPT, today=_TODAY))
    inspection = session.inspection.result
    if inspection is None:
        raise SelfTestError("the prompt was not inspected")
    decision, task = inspection.decision, inspection.task
    contract = f"agent={decision.agent} mode={decision.mode}" if decision else "no decision"
    return [
        f"strategy: {inspection.strategy} ({inspection.strategy_rule or 'default'})",
        f"linter: {inspection.lint.query_class}",
        f"contract: {contract}",
        f"task: {task.route if task else 'none'}",
    ]


async def _ranked(window: MainWindow) -> str:
    """The sample catalog's tools ranked with the embedding model beside Tantivy's BM25."""
    tools = window.session.tools
    ranked = _first_of([tools.ranked, tools.engine_failed])
    window.show_tab("Tools")
    if await ranked is tools.engine_failed:
        raise SelfTestError(f"tool search: {window.toolsearch_view.status.text()}")
    ranking = tools.ranking
    if ranking is None or not ranking.results:
        raise SelfTestError("tool search: no ranking")
    if ranking.semantic != "ready":  # keyword-only: the model, tokenizer or runtime is missing
        raise SelfTestError(f"tool search: no vector search: {ranking.semantic}")
    top = ranking.results[0]
    return (
        f"tools: top={top.tool_name} score={top.score:.3f} "
        f"({ranking.strategy}, {ranking.fusion}, {len(ranking.results)} ranked)"
    )


async def _researched(window: MainWindow) -> str:
    """Offline research on the prompt: its index built from this install's documentation."""
    model = window.session.research
    if not model.live:
        raise SelfTestError("research: the settings are not the offline defaults")
    researched = _first_of([model.finished, model.failed])
    window.show_tab("Research")  # offline research follows the prompt shown
    if await researched is model.failed:
        raise SelfTestError(f"research: {window.research_view.error}")
    result = model.result
    if result is None:
        raise SelfTestError("research: no result")
    return (
        f"research: {result.next_step.outcome} ({len(result.attempts)} attempts, "
        f"{len(result.findings)} findings, {result.termination_reason})"
    )


def _extracted() -> str:
    page = routescope.research.extract_main_text(_PAGE, url="https://docs.example/loops")
    if not page.has_content:
        raise SelfTestError(f"extract: no main text ({page.extractor})")
    return f"extract: {page.extractor} ({len(page.text)} chars)"
