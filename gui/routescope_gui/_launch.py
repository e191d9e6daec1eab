"""Start the window on the qasync loop, or render it to a PNG.

The window is shown first and painted, then the routers are imported and the start-up prompt
inspected: the first paint does not wait for them.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import qasync
from PySide6.QtCore import QEvent, QObject, QSettings, SignalInstance
from PySide6.QtWidgets import QApplication, QWidget

import routescope

from ._judging import QUALITY
from ._session import Session
from ._window import EXTERNAL, HISTORY, RESULT_TABS, VIEWS, MainWindow

if TYPE_CHECKING:
    from routescope import Request
    from routescope.toolsearch import SearchSettings

__all__ = ["launch"]

_SCREENSHOT_SIZE = (1280, 800)
_FIRST_PAINT_SECONDS = 2.0
"""How long start-up waits for the first paint before it loads the routers anyway."""
_ENGINE_SECONDS = 300.0
"""How long a screenshot of the Tools tab waits for the catalog's engine and the ranking, or
of the Research tab for the offline index and the run, or of the Batch view for the report, or
of the Compare view for the comparison (its tools' engine), or for the words that matter."""
_CLOSE_SECONDS = 5.0
"""How long a closing window waits for its workers (the history store's last write) before
the temporary folder they write in goes."""


def launch(args: argparse.Namespace) -> int:
    app = QApplication.instance() or QApplication(["routescope-gui"])
    assert isinstance(app, QApplication)
    with asyncio.Runner(loop_factory=qasync.QEventLoop) as runner:
        return runner.run(_start(app, args))


async def _start(app: QApplication, args: argparse.Namespace) -> int:
    try:
        rules = routescope.RulesRef.given(args.rules) if args.rules else None
        search = _search_settings(args)
        if getattr(args, "catalog", None):  # loaded now: a bad one is one line, exit 2
            args.catalog = routescope.CatalogRef.from_path(args.catalog)
        if getattr(args, "routers", None):
            routescope.external.load_routers(args.routers)  # a bad file: one line, exit 2
    except routescope.RoutescopeError as exc:
        print(f"routescope-gui: error: {exc}", file=sys.stderr)
        return 2
    theme = getattr(args, "theme", "system")
    names = [*RESULT_TABS, EXTERNAL, *VIEWS, HISTORY, QUALITY]
    tab = getattr(args, "tab", None)
    if tab is not None and tab not in names:
        print(f"routescope-gui: error: no tab {tab!r} (one of {', '.join(names)})", file=sys.stderr)
        return 2
    if args.screenshot:
        args.tab = tab or "Plan"
        if args.tab == EXTERNAL and not getattr(args, "routers", None):
            # (a screenshot's settings are new ones: no routers file is remembered)
            print("routescope-gui: error: no routers file (--routers FILE)", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="routescope-screenshot-") as folder:
            window = _screenshot_window(Path(folder))
            window.theme.set_choice(theme)
            try:
                return await _screenshot(window, args, rules, search)
            finally:
                await _closed(window)
    demo = getattr(args, "demo", None)
    restore = not args.prompt and not demo and not getattr(args, "no_restore", False)
    window = MainWindow(restore=restore, open_history=False)
    window.theme.set_choice(theme)
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    window.show()
    await _first_paint(window)
    if closed.is_set():  # (a quit during the first paint)
        return 0
    window.session.history.start()
    labels = getattr(args, "labels", None)
    if labels:  # (a failure is said in the window's status, as a Judgments ▸ Import one)
        await _judge_with(window, labels)
    if restore:  # the last session comes back once the history store is open
        _apply_arguments(window, args, rules, search)
    else:
        window.session.open_request(_warm_request(args, rules, search))
    if demo:
        window.open_demo(demo)
    if getattr(args, "routers", None):
        window.externals.open_file(args.routers, show=tab is None)
    if tab is not None:  # asked for on the command line: shown over the restored session's
        window.show_tab(tab)
    if getattr(args, "presenter", False):
        window.presenter.set_on(True)
    await closed.wait()
    return 0


def _screenshot_window(folder: Path) -> MainWindow:
    """A window whose settings (size, splitters, zoom) and history are new ones in `folder`: a
    screenshot is the same on every machine, and leaves nothing in the analyst's own."""
    for kind in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(kind, QSettings.Scope.UserScope, str(folder))
    return MainWindow(Session(history=folder / "history.sqlite3"), open_history=False)


def _search_settings(args: argparse.Namespace) -> SearchSettings:
    """The tool search's settings from the command line (`InputError` when out of range)."""
    changes: dict[str, object] = {}
    if args.fusion is not None:
        changes["fusion"] = args.fusion
    if args.fit_threshold is not None:
        changes["fit_threshold"] = args.fit_threshold
    return routescope.toolsearch.SearchSettings(**changes)  # type: ignore[arg-type]


def _warm_request(
    args: argparse.Namespace, rules: routescope.RulesRef | None, search: SearchSettings
) -> Request:
    """The start-up request, its rule pack compiled: the first inspection (or keystroke) does
    not wait for the patterns, and its timings are those of a warm router."""
    request = routescope.Request.build(
        args.prompt,
        today=args.today,
        rules=rules,
        catalog=getattr(args, "catalog", None),
        search=search,
    )
    routescope.warm_up(request.rules.load())
    return request


def _apply_arguments(
    window: MainWindow,
    args: argparse.Namespace,
    rules: routescope.RulesRef | None,
    search: SearchSettings,
) -> None:
    """Apply the start-up options over the restored session (its prompt is kept)."""
    session = window.session
    if args.today is not None:
        window.set_today(args.today)
    if rules is not None:
        session.set_rules(rules)
    session.set_search(search)
    if getattr(args, "catalog", None):
        session.set_catalog(args.catalog)
    routescope.warm_up(session.request.rules.load())


class _PaintWatch(QObject):
    """Resolves a future at the first paint of a window's widgets."""

    def __init__(self, window: QWidget, future: asyncio.Future[None]) -> None:
        super().__init__(window)
        self._window, self._future = window, future

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.Paint
            and isinstance(watched, QWidget)
            and watched.window() is self._window
            and not self._future.done()
        ):
            self._future.set_result(None)  # the waiting task resumes once this pass is over
        return False


async def _first_paint(window: QWidget) -> None:
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    watch = _PaintWatch(window, future)
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(watch)
    try:
        await asyncio.wait_for(future, _FIRST_PAINT_SECONDS)
    except TimeoutError:
        pass  # never painted (minimised at start?): load the routers all the same
    finally:
        app.removeEventFilter(watch)


def _first_of(signals: Sequence[SignalInstance]) -> asyncio.Future[SignalInstance]:
    """A future that resolves to whichever of `signals` is emitted first from now on."""
    fired: asyncio.Future[SignalInstance] = asyncio.get_running_loop().create_future()
    slots = []
    for signal in signals:

        def receive(*_args: object, signal: SignalInstance = signal) -> None:
            if not fired.done():
                fired.set_result(signal)

        signal.connect(receive)
        slots.append((signal, receive))

    def disconnect(_future: asyncio.Future[SignalInstance]) -> None:
        for signal, receive in slots:
            signal.disconnect(receive)

    fired.add_done_callback(disconnect)
    return fired


async def _screenshot(
    window: MainWindow,
    args: argparse.Namespace,
    rules: routescope.RulesRef | None,
    search: SearchSettings,
) -> int:
    session = window.session
    session.history.start()
    window.resize(*(getattr(args, "size", None) or _SCREENSHOT_SIZE))
    window.show()
    session.open_request(_warm_request(args, rules, search))  # a small prompt: inspected at once
    if getattr(args, "routers", None):
        window.externals.open_file(args.routers, show=False)
    if getattr(args, "demo", None):
        try:
            window.demo.load(routescope.demo.read_demo(args.demo))
        except routescope.InputError as exc:
            print(f"routescope-gui: error: {exc}", file=sys.stderr)
            return 2
    if getattr(args, "presenter", False):
        window.presenter.set_on(True)
    labels = getattr(args, "labels", None)
    if labels and (failure := await _judge_with(window, labels)):
        print(f"routescope-gui: error: {failure}", file=sys.stderr)
        return 2
    if not await _show(window, args):
        return 2
    await _why_settled(window)
    return await _grab(window, args)


async def _show(window: MainWindow, args: argparse.Namespace) -> bool:
    """Bring the asked tab up with its contents settled; False (said on stderr) when they
    cannot be made."""
    if args.tab == "Tools":
        return await _tools_ranked(window)
    if args.tab == "Research" and args.prompt.strip():
        return await _researched(window)
    if args.tab == "Batch" and getattr(args, "batch_results", None):
        return await _batch_report(window, args.batch_results)
    if args.tab == "Compare" and getattr(args, "compare_b", None):
        return await _comparison(window, args.compare_b)
    if args.tab == EXTERNAL:
        return await _routed(window)
    if args.tab == HISTORY:
        await _history_listed(window)
    elif args.tab == QUALITY:
        window.show_tab(QUALITY)
        await _settled(lambda: window.session.judge.busy or window.session.quality.busy)
    else:
        window.show_tab(args.tab)
    return True


async def _tools_ranked(window: MainWindow) -> bool:
    """The Tools tab with the prompt ranked and its best tool's explanation open."""
    tools = window.session.tools
    ranked = _first_of([tools.ranked, tools.engine_failed])
    window.show_tab("Tools")
    if await asyncio.wait_for(ranked, _ENGINE_SECONDS) is tools.engine_failed:
        print(f"routescope-gui: error: {window.toolsearch_view.status.text()}", file=sys.stderr)
        return False
    top = window.toolsearch_view.table.topLevelItem(0)
    if top is not None:
        top.setExpanded(True)
    return True


async def _researched(window: MainWindow) -> bool:
    """The Research tab with the prompt researched and its best attempt open."""
    research = window.session.research
    researched = _first_of([research.finished, research.failed])
    if research.live:
        window.show_tab("Research")  # offline research follows the prompt shown
    else:
        window.run_research()  # over the network it runs when asked (Ctrl+Enter)
    if await asyncio.wait_for(researched, _ENGINE_SECONDS) is research.failed:
        print(f"routescope-gui: error: {window.research_view.error}", file=sys.stderr)
        return False
    window.research_view.expand_best()
    return True


async def _grab(window: MainWindow, args: argparse.Namespace) -> int:
    """Save the window (with the rule-pack editor docked beside the results) as
    `args.screenshot`."""
    shot: QWidget = window
    if getattr(args, "rules_editor", False):  # the rule-pack editor, docked
        window.edit_rules()
        await _settled(lambda: window.session.rules_editor.busy)
    await asyncio.sleep(0.1)  # let the new contents lay themselves out before the grab
    if not shot.grab().save(args.screenshot):
        print(f"routescope-gui: error: cannot write {args.screenshot}", file=sys.stderr)
        return 2
    print(args.screenshot)
    return 0


async def _batch_report(window: MainWindow, results: str) -> bool:
    """Show the report of a results file in the Batch view, with the prompts behind a figure
    listed: the first leak check that found any, else the most frequent strategy."""
    batch = window.session.batch
    read = _first_of([batch.finished, batch.failed])
    window.show_tab("Batch")
    batch.open_results(results)
    if await asyncio.wait_for(read, _ENGINE_SECONDS) is batch.failed:
        print(f"routescope-gui: error: {window.batch_view.error}", file=sys.stderr)
        return False
    view = window.batch_view
    report = view.report
    assert report is not None
    leaks = [number for number, check in enumerate(report.leaks) if check.count]
    if leaks:
        view.pick_leak(leaks[0])
    else:
        view.pick_bar("strategies", 0)
    return True


async def _comparison(window: MainWindow, text_b: str) -> bool:
    """Show the Compare view with the start-up prompt as A and `text_b` as B, compared."""
    compare = window.session.compare
    window.compare_view.set_text_b(text_b)
    done = _first_of([compare.compared, compare.failed])
    window.show_tab("Compare")
    if await asyncio.wait_for(done, _ENGINE_SECONDS) is compare.failed:
        print(f"routescope-gui: error: {window.compare_view.status.text()}", file=sys.stderr)
        return False
    return True


async def _routed(window: MainWindow) -> bool:
    """The External tab with every router ticked answered (or said why it cannot)."""
    model = window.session.routers
    window.show_tab(EXTERNAL)

    def waiting() -> bool:
        if model.busy:  # (the file is read, or a router asked)
            return True
        if model.declared is None:
            return False  # no file, or it could not be read: said below
        return any(n not in model.results and n not in model.problems for n in model.chosen)

    await _settled(waiting)
    if model.declared is None:
        failed = window.externals.view.status.toolTip()
        why = f"cannot open the routers file: {failed}" if failed else "no routers file"
        print(f"routescope-gui: error: {why} (--routers FILE)", file=sys.stderr)
        return False
    return True


async def _judge_with(window: MainWindow, path: str) -> str | None:
    """`--labels FILE`: judge into the set named after the file from now on, the file's
    labelled prompts imported into it; what went wrong, or None."""
    history, judge = window.session.history, window.session.judge
    await _settled(lambda: history.store is None)
    failures: list[str] = []
    judge.failed.connect(failures.append)
    try:
        if judge.use_set(Path(path).stem):
            judge.import_file(path)
            await _settled(lambda: judge.busy)
    finally:
        judge.failed.disconnect(failures.append)
    return failures[0] if failures else None


async def _history_listed(window: MainWindow) -> None:
    """Show the History view once the store is open and the prompt recorded and listed."""
    history = window.session.history
    window.show_tab(HISTORY)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _ENGINE_SECONDS
    while (history.store is None or history.busy) and loop.time() < deadline:
        await asyncio.sleep(0.05)


async def _why_settled(window: MainWindow) -> None:
    """Wait for the words that matter (they follow the prompt once it rests)."""
    insight = window.session.insight
    await _settled(lambda: insight.busy)


async def _closed(window: MainWindow) -> None:
    """Close the window and let its workers finish (they write in a temporary folder): the
    loop outlives the window meanwhile."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.setQuitOnLastWindowClosed(False)
    window.close()
    await _settled(lambda: window.session.busy, _CLOSE_SECONDS)


async def _settled(busy: Callable[[], bool], seconds: float = _ENGINE_SECONDS) -> None:
    """Wait until `busy()` is false (at most `seconds`)."""
    deadline = asyncio.get_running_loop().time() + seconds
    while busy() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
