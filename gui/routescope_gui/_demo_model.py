"""The demo script stepped through (issue 20 §2): its prompts and which one is shown.

A script is read at once (it is small: `routescope.demo.MAX_DEMO_BYTES`); each step asks the
window to show its prompt, whose decision the live view shows as for a typed prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

import routescope

if TYPE_CHECKING:
    from routescope.demo import DemoScript, DemoStep

__all__ = ["DemoModel"]


class DemoModel(QObject):
    """A demo script and its current step.

    Signals:
        loaded: emitted with the script opened (None: closed).
        stepped: emitted with the step's number (from 0), the count of steps and the step
            shown.
        failed: emitted with the one line that says why a script cannot be used.
    """

    loaded = Signal(object)
    stepped = Signal(int, int, object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.script: DemoScript | None = None
        self.index = -1

    @property
    def step(self) -> DemoStep | None:
        """The step shown (None: no script, or none shown yet)."""
        if self.script is None or not 0 <= self.index < len(self.script.prompts):
            return None
        return self.script.prompts[self.index]

    def open(self, path: str | Path) -> bool:
        """Read a script and show its first prompt; on failure keep the current one."""
        try:
            script = routescope.demo.read_demo(path)
        except routescope.InputError as exc:
            self.failed.emit(str(exc))
            return False
        self.load(script)
        return True

    def load(self, script: DemoScript) -> None:
        """Use `script` and show its first prompt."""
        self.script = script
        self.index = -1
        self.loaded.emit(script)
        self.go(0)

    def close(self) -> None:
        self.script = None
        self.index = -1
        self.loaded.emit(None)

    def next(self) -> None:
        """The next prompt (PageDown); the last one stays."""
        self.go(self.index + 1)

    def previous(self) -> None:
        """The previous prompt (PageUp); the first one stays."""
        self.go(self.index - 1)

    def go(self, index: int) -> None:
        """Show the prompt at `index` (clamped to the script)."""
        script = self.script
        if script is None:
            return
        index = max(0, min(index, len(script.prompts) - 1))
        if index == self.index:
            return
        self.index = index
        self.stepped.emit(index, len(script.prompts), script.prompts[index])
