"""`routescope-gui`: the window on a qasync event loop, or the window rendered to a PNG.

PySide6 and qasync come with the `gui` extra. Nothing imports them before `main()` has checked
they are there: without them it says how to install them and exits with status 2.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from . import _preflight

__all__ = ["main"]

_NO_GUI_EXTRA = (
    "routescope-gui: the window needs PySide6 and qasync: pip install 'routescope[gui]' "
    "(or use the command line: routescope inspect 'your prompt')"
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """Bad arguments: one line, status 2 (as the command line says them)."""
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = _Parser(prog="routescope-gui", description="The Routescope window.")
    parser.add_argument("prompt", nargs="?", default="", help="a prompt to start with")
    parser.add_argument("--today", type=dt.date.fromisoformat, help="YYYY-MM-DD")
    parser.add_argument(
        "--rules",
        metavar="FILE",
        help="a TOML rule pack, or a built-in one by name (default, refined, refined-semantic)",
    )
    parser.add_argument(
        "--routers",
        metavar="FILE",
        help="a routers file (TOML): its external routers in the External tab, beside the "
        "built-in ones (docs/routers.md)",
    )
    parser.add_argument(
        "--catalog",
        metavar="PATH",
        help="the tool catalog the Tools tab ranks: a folder of SKILL.md files or a JSON file "
        "(default: the sample catalog, or the last session's)",
    )
    parser.add_argument("--screenshot", metavar="PNG", help="render the window to PNG and exit")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the window offscreen, inspect a prompt through every router, exit 0 if all "
        "of them answered (nothing is written outside a temporary folder)",
    )
    parser.add_argument(
        "--no-restore",
        action="store_true",
        help="start blank: do not restore the last session (a prompt given never restores it)",
    )
    parser.add_argument(
        "--tab", help="the tab to show (Plan, Linter, Contract, Tools, …, Batch; default: Plan)"
    )
    parser.add_argument(
        "--batch-results",
        metavar="FILE",
        help="with --tab Batch: show the report of this results file of `routescope batch`",
    )
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="judge into a set named after this labelled file (JSON lines, CSV, a suite's "
        "YAML), its prompts imported: the Quality tab scores the pack on them",
    )
    parser.add_argument(
        "--compare-b",
        metavar="TEXT",
        help="with --tab Compare: compare the prompt (A) with this prompt (B)",
    )
    parser.add_argument(
        "--rules-editor",
        action="store_true",
        help="with --screenshot: render the rule-pack editor (Ctrl+E) instead of the window",
    )
    parser.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        default="system",
        help="the colours: the system's scheme (default), or light or dark",
    )
    parser.add_argument(
        "--presenter",
        action="store_true",
        help="start in presenter mode (F11): large type, the prompt, the decision, one panel",
    )
    parser.add_argument(
        "--demo",
        metavar="FILE",
        help="a demo script: one prompt per line (# caption above), stepped with PageDown",
    )
    parser.add_argument(
        "--size",
        type=_size,
        metavar="WxH",
        help="with --screenshot: the window's size (default 1280x800)",
    )
    parser.add_argument(
        "--fusion", help="the tool search's fusion to start with (weighted, canonical)"
    )
    parser.add_argument(
        "--fit-threshold",
        type=float,
        metavar="SCORE",
        help="the tool search's fit threshold to start with (below it no tool fits; 0: off)",
    )
    return parser.parse_args(argv)


def _size(text: str) -> tuple[int, int]:
    """`1024x768` as (1024, 768)."""
    width, _, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got {text!r}") from None
    if min(size) < 200 or max(size) > 8192:
        raise argparse.ArgumentTypeError(f"{text}: each side from 200 to 8192 pixels")
    return size


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
    if args.self_test:  # whatever the display, so it runs the same on a desktop and in CI
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    try:
        # PySide6 before qasync, so qasync binds to it and not to another Qt binding.
        import PySide6.QtWidgets  # noqa: F401
        import qasync  # noqa: F401
    except ImportError as exc:  # (not installed, or a system library it links is missing)
        print(_preflight.import_problem(exc) or _NO_GUI_EXTRA, file=sys.stderr)
        return 2
    except OSError as exc:  # a library found but unloadable (wrong architecture, corrupt)
        print(_preflight.import_problem(exc) or f"routescope-gui: Qt: {exc}", file=sys.stderr)
        return 2
    if args.self_test:
        from ._selftest import run_self_test

        return run_self_test()
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    elif _no_display():
        print(
            "routescope-gui: no display found (DISPLAY and WAYLAND_DISPLAY are unset); "
            "use the command line instead: .venv/bin/routescope inspect 'your prompt'",
            file=sys.stderr,
        )
        return 2
    # Qt aborts the interpreter when a library of its xcb plugin is missing, and names another.
    if _preflight.needs_xcb() and (problem := _preflight.xcb_problem()):
        print(problem, file=sys.stderr)
        return 2
    from ._launch import launch

    return launch(args)
