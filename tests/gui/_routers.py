"""What the external-router tests of the window share: routers files written to a temporary
folder, the examples' routers file, real loopback servers shaped like vLLM Semantic Router
(`tests/core/external`'s), one that holds its answers until it is let go, and the window's
kept routers file forgotten after each test."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from routescope_gui._window_state import SETTINGS
from tests.core.external.test_http_router import vsr_preview
from tests.core.research._loopback import Reply, Request

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "routers"
EXAMPLE_ROUTERS = EXAMPLES / "routers.toml"
"""The examples' file: `support` (a semantic-router file), `keywords` (a Python function),
`vsr` and `routellm` (HTTP: a server that is not running here, a key that is not set)."""
ONLY_OFFLINE = ["vsr", "routellm"]
"""The example routers to leave unticked: they would ask a server that is not running."""

__all__ = [
    "EXAMPLES",
    "EXAMPLE_ROUTERS",
    "ONLY_OFFLINE",
    "Gate",
    "forget_routers",
    "http_router",
    "routers_file",
    "vsr_preview",
]


def routers_file(folder: Path, **tables: str) -> Path:
    """A routers file of `[routers.NAME]` tables (each given its body)."""
    path = folder / "routers.toml"
    path.write_text("".join(f"[routers.{name}]\n{body}\n" for name, body in tables.items()))
    return path


def http_router(url: str, *, preset: str = "vllm-semantic-router", extra: str = "") -> str:
    """An `http` router's table body for a server at `url`."""
    return f'kind = "http"\npreset = "{preset}"\nurl = "{url}"\n{extra}'


class Gate:
    """A vLLM Semantic Router that holds each answer until `open` is called (or 10 s pass):
    a router as slow as the test needs, without a clock in the test."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def __call__(self, request: Request) -> Reply:
        self.event.wait(10)
        return vsr_preview(request)

    def open(self) -> None:
        self.event.set()


@pytest.fixture
def forget_routers() -> Iterator[None]:
    """The routers file a test opened is not kept for the other tests' windows."""
    yield
    settings = QSettings(*SETTINGS)
    settings.remove("routers")
