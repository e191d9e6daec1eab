"""Helpers the GUI tests share: recording a signal, a small offline research corpus, and the
contrast of two colours."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QColor

from routescope.research import OfflineSearch
from routescope.research._offline import OfflineDocument

GOAL = "asyncio event loop in a thread"
CORPUS = (
    OfflineDocument(
        url="https://docs.python.org/3/library/asyncio-eventloop.html",
        title="asyncio — Event Loop",
        body="The event loop is the core of every asyncio application. An event loop runs in "
        "a thread: run_coroutine_threadsafe submits a coroutine to the event loop of another "
        "thread, and call_soon_threadsafe schedules a callback from a thread.",
        kind="stdlib",
    ),
    OfflineDocument(
        url="https://docs.python.org/3/library/threading.html",
        title="threading — Thread-based parallelism",
        body="A thread runs a callable; an asyncio event loop may run in a thread of its own.",
        kind="stdlib",
    ),
    OfflineDocument(
        url="https://pypi.org/project/ramenkit/",
        title="ramenkit 1.0 — Noodle recipes",
        body="Recipes for noodle soup: broth, tare and toppings.",
        kind="package",
    ),
)


def contrast(first: QColor | str, second: QColor | str) -> float:
    """The WCAG 2 contrast ratio of two colours (1 to 21; text needs 4.5)."""

    def luminance(colour: QColor | str) -> float:
        colour = QColor(colour)

        def linear(channel: float) -> float:
            return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

        red, green, blue = (linear(c) for c in (colour.redF(), colour.greenF(), colour.blueF()))
        return 0.2126 * red + 0.7152 * green + 0.0722 * blue

    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def record(signal: SignalInstance) -> list[object]:
    """Everything `signal` emits from now on: each emission's one argument, or its tuple."""
    seen: list[object] = []
    signal.connect(lambda *args: seen.append(args[0] if len(args) == 1 else args))
    return seen


class Factory:
    """Makes the offline search over `CORPUS`; its index build waits for `gate` when given."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.made: list[Path | None] = []
        self.gate = gate

    def __call__(self, cache: Path | None) -> OfflineSearch:
        self.made.append(cache)
        if self.gate is None:
            return OfflineSearch(cache, documents=CORPUS)
        gate = self.gate

        def documents() -> Iterator[OfflineDocument]:
            assert gate.wait(30)
            yield from CORPUS

        return OfflineSearch(cache, documents=documents, key="gated-corpus")
