"""What the benchmarks share: the figure table printed on the terminal and the JSON file
written beside it (with the machine it ran on)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

__all__ = ["table", "write_figures"]

Row = tuple[str, str, str, str]


def table(rows: list[Row]) -> str:
    """Rows of (figure, value, target, verdict) as aligned columns."""
    head = ("figure", "value", "target", "")
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    lines.append("-+-".join("-" * w for w in widths))
    lines += [" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def write_figures(path: str, figures: dict[str, Any], rows: list[Row]) -> None:
    """`figures` as JSON at `path`, with the table's rows and where and when it ran."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    figures["meta"] = {
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "date": str(dt.date.today()),
        "load_average": os.getloadavg(),
    }
    names = ("figure", "value", "target", "verdict")
    figures["table"] = [dict(zip(names, row, strict=True)) for row in rows]
    out.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"written: {out}")
