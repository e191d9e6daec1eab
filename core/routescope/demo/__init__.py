"""Demo scripts (issue 20 §2): a plain text file of prompts to step through in front of an
audience, one prompt per line; a `# comment` line right above a prompt is its caption.
`read_demo(path)` gives a `DemoScript`: its `prompts`, each a `DemoStep` (`caption`, `prompt`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._script import MAX_DEMO_BYTES as MAX_DEMO_BYTES
    from ._script import DemoScript as DemoScript
    from ._script import DemoStep as DemoStep
    from ._script import read_demo as read_demo

__getattr__, __dir__, __all__ = lazy_face(__name__)
