import datetime as dt
import subprocess
import sys

import pytest

import routescope
from routescope import Inspection, RulePack

TODAY = dt.date(2026, 2, 5)
AS_OF = "as of February 5, 2026"


@pytest.fixture(scope="session")
def rules() -> RulePack:
    return routescope.default_rules()


def run(text: str, **kwargs: object) -> Inspection:
    """inspect() with a fixed `today`, as every core test needs."""
    kwargs.setdefault("today", TODAY)
    return routescope.inspect(text, **kwargs)  # type: ignore[arg-type]


def queries(text: str, **kwargs: object) -> list[str]:
    return [a.query for a in run(text, **kwargs).actions]


def routescope_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m routescope ARGS` as a user runs it, output as text."""
    return subprocess.run(
        [sys.executable, "-m", "routescope", *args], capture_output=True, text=True, timeout=120
    )
