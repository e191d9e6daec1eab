"""Demo scripts (issue 20 §2): a plain text file of prompts to step through in front of an
audience, one prompt per line; a `# comment` line right above a prompt is its caption.

>>> script = parse_demo("# a local search\\npizza near me\\n\\nhistory of jazz\\n")
>>> [(step.caption, step.prompt) for step in script.prompts]
[('a local search', 'pizza near me'), ('', 'history of jazz')]
"""

from __future__ import annotations

from ._script import MAX_DEMO_BYTES, DemoScript, DemoStep, parse_demo, read_demo

__all__ = ["MAX_DEMO_BYTES", "DemoScript", "DemoStep", "parse_demo", "read_demo"]
