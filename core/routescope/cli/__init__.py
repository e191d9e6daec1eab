"""The `routescope` command line. Bad input or configuration: one line on stderr, exit 2.

`command_line(request)` writes the `routescope inspect` command that reproduces a request."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._command_line import CommandLine as CommandLine
    from ._command_line import command_line as command_line
    from ._main import main as main

__getattr__, __dir__, __all__ = lazy_face(__name__)
