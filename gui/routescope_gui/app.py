"""`routescope-gui`: start the window on a qasync event loop, or render it to a PNG."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import sys
from collections.abc import Sequence

import qasync

# PySide6 before qasync, so qasync binds to it and not to another Qt binding.
from PySide6.QtWidgets import QApplication

from ._window import MainWindow

__all__ = ["main"]


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="routescope-gui", description="The Routescope window.")
    parser.add_argument("prompt", nargs="?", default="", help="a prompt to start with")
    parser.add_argument("--today", type=dt.date.fromisoformat, help="YYYY-MM-DD")
    parser.add_argument("--rules", metavar="FILE", help="a TOML rule pack")
    parser.add_argument("--screenshot", metavar="PNG", help="render the window to PNG and exit")
    parser.add_argument("--tab", default="Plan", help="the result tab to show (Plan, Tools, …)")
    return parser.parse_args(argv)


def _no_display() -> bool:
    return (
        sys.platform.startswith("linux")
        and not os.environ.get("DISPLAY")
        and not os.environ.get("WAYLAND_DISPLAY")
        and os.environ.get("QT_QPA_PLATFORM", "") in ("", "xcb", "wayland")
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the GUI; return the exit status."""
    args = _parse(sys.argv[1:] if argv is None else argv)
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    elif _no_display():
        print(
            "routescope-gui: no display found (DISPLAY and WAYLAND_DISPLAY are unset); "
            "use the command line instead: .venv/bin/routescope inspect 'your prompt'",
            file=sys.stderr,
        )
        return 2
    app = QApplication.instance() or QApplication(["routescope-gui"])
    assert isinstance(app, QApplication)
    window = MainWindow()
    if args.rules and not window.load_rules(args.rules):
        print(f"routescope-gui: error: {window.banner.text()}", file=sys.stderr)
        return 2
    if args.today:
        window.set_today(args.today)
    if args.prompt:
        window.set_prompt(args.prompt)
    if args.screenshot:
        return _screenshot(window, args.screenshot, args.tab)
    with asyncio.Runner(loop_factory=qasync.QEventLoop) as runner:
        return runner.run(_run(app, window))


async def _run(app: QApplication, window: MainWindow) -> int:
    window.show()
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    await closed.wait()
    return 0


def _screenshot(window: MainWindow, path: str, tab: str) -> int:
    window.show()
    QApplication.processEvents()  # runs the deferred catalog load, which searches the prompt
    names = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    if tab not in names:
        print(f"routescope-gui: error: no tab {tab!r} (one of {', '.join(names)})", file=sys.stderr)
        return 2
    window.tabs.setCurrentIndex(names.index(tab))
    if window.tools_panel.table.topLevelItemCount():
        window.tools_panel.table.topLevelItem(0).setExpanded(True)  # type: ignore[union-attr]
    QApplication.processEvents()
    if not window.grab().save(path):
        print(f"routescope-gui: error: cannot write {path}", file=sys.stderr)
        return 2
    print(path)
    return 0
