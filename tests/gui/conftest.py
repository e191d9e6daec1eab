import asyncio
from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtWidgets import QApplication


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """A qasync loop marked running, so the window's asyncio work runs under qtbot's waits."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    for task in [t for t in asyncio.all_tasks(loop) if not t.done()]:
        task.cancel()
    for _ in range(3):
        qapp.processEvents()
    asyncio.events._set_running_loop(None)
    loop._QEventLoop__is_running = False  # the flag `already_running` set
    loop.close()
    asyncio.set_event_loop(None)
