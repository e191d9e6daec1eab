"""The report's charts: matplotlib figures rendered as inline SVG (no pyplot, no global state).

Text stays text (`svg.fonttype: none`, a sans-serif fallback list), nothing is linked or
fetched, element ids are prefixed per chart so several charts live in one page. Without
matplotlib every function returns None and the page shows its tables alone."""

from __future__ import annotations

import functools
import importlib.util
import io
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "BLUE",
    "GREY",
    "ORANGE",
    "RED",
    "available",
    "bar_chart",
    "format_micros",
    "heatmap",
    "latency_chart",
    "paired_bar_chart",
]

BLUE = "#3b6ea8"
ORANGE = "#d9822b"
RED = "#c0392b"
GREY = "#9aa5b1"
INK = "#24292f"
MUTED = "#57606a"
_LABEL_CHARS = 34
_WIDTH_IN = 6.4

_RC: dict[Any, Any] = {  # matplotlib types the keys as a Literal of every rc name
    "svg.fonttype": "none",
    "svg.hashsalt": "routescope",
    "font.size": 10,
    "font.family": "sans-serif",
    "axes.edgecolor": "#d0d7de",
    "axes.labelcolor": MUTED,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.color": MUTED,
    "ytick.color": INK,
    "text.color": INK,
    "figure.facecolor": "none",
    "axes.facecolor": "none",
}


@functools.cache
def available() -> bool:
    """matplotlib can be imported (the report draws no charts without it)."""
    return importlib.util.find_spec("matplotlib") is not None


def _figure(height: float, width: float = _WIDTH_IN) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _short(label: str) -> str:
    label = " ".join(label.split())
    return label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"


_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)
_ROOT_SIZE = re.compile(r'<svg([^>]*?) width="([\d.]+)pt" height="([\d.]+)pt"')
_NAMESPACES = re.compile(r'\s+xmlns(?::xlink)?="[^"]*"')
_ID = re.compile(r' id="([^"]+)"')
_REFERENCE_SITE = re.compile(r'(url\(|href=")#([^)"]+)')
_REFERENCE = re.compile(r'(?:url\(|href=")#([^)"]+)')


def _svg(figure: Figure, key: str, label: str) -> str:
    """The figure as an `<svg>` element for an HTML page: no XML prologue, no metadata, ids
    unique to this chart, an accessible label, and a size that shrinks with the page."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(_RC):
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = _METADATA.sub("", _PROLOGUE.sub("", buffer.getvalue(), count=1))
    text = _NAMESPACES.sub("", text)
    referenced = set(_REFERENCE.findall(text))

    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        return f' id="{key}-{name}"' if name in referenced else ""

    text = _ID.sub(rename, text)
    text = _REFERENCE_SITE.sub(lambda m: f"{m.group(1)}#{key}-{m.group(2)}", text)
    safe = label.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")

    def size(match: re.Match[str]) -> str:
        width = float(match.group(2)) * 4 / 3  # pt → CSS px
        return (
            f'<svg{match.group(1)} class="chart" role="img" aria-label="{safe}" '
            f'style="max-width:{width:.0f}px"'
        )

    return _ROOT_SIZE.sub(size, text, count=1).strip()


def _bar_ends(ax: Axes, values: Sequence[float], texts: Sequence[str], top: float) -> None:
    for y, (value, text) in enumerate(zip(values, texts, strict=True)):
        ax.text(value + top * 0.012, y, text, va="center", ha="left", fontsize=9, color=MUTED)


def bar_chart(
    key: str,
    label: str,
    labels: Sequence[str],
    counts: Sequence[int],
    *,
    total: int,
    colors: Sequence[str] | None = None,
    unit: str = "prompts",
) -> str | None:
    """Horizontal bars, most frequent on top, each ending in "count (share)"."""
    if not available() or not labels:
        return None
    import matplotlib
    from matplotlib.ticker import MaxNLocator

    with matplotlib.rc_context(_RC):
        figure = _figure(0.3 * len(labels) + 0.75)
        ax = figure.subplots()
        ys = range(len(labels))
        ax.barh(ys, counts, color=list(colors) if colors else BLUE, height=0.68)
        ax.set_yticks(list(ys), [_short(text) for text in labels])
        ax.invert_yaxis()
        top = max(max(counts), 1)
        ax.set_xlim(0, top * 1.22)
        shares = [f"{c:,} ({c / total:.0%})" if total else f"{c:,}" for c in counts]
        _bar_ends(ax, counts, shares, top)
        ax.set_xlabel(unit)
        ax.tick_params(axis="y", length=0)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        return _svg(figure, key, label)


def paired_bar_chart(
    key: str,
    label: str,
    labels: Sequence[str],
    a: Sequence[int],
    b: Sequence[int],
    *,
    unit: str = "prompts",
) -> str | None:
    """A and B side by side per label (A blue above, B orange below)."""
    if not available() or not labels:
        return None
    import matplotlib

    with matplotlib.rc_context(_RC):
        figure = _figure(0.46 * len(labels) + 0.9)
        ax = figure.subplots()
        ys = list(range(len(labels)))
        half = 0.38
        ax.barh([y - half / 2 for y in ys], a, height=half, color=BLUE, label="A")
        ax.barh([y + half / 2 for y in ys], b, height=half, color=ORANGE, label="B")
        top = max([*a, *b, 1])
        for y, (x_a, x_b) in enumerate(zip(a, b, strict=True)):
            for x, dy in ((x_a, -half / 2), (x_b, half / 2)):
                ax.text(x + top * 0.012, y + dy, f"{x:,}", va="center", fontsize=8, color=MUTED)
        ax.set_yticks(ys, [_short(text) for text in labels])
        ax.invert_yaxis()
        ax.set_xlim(0, top * 1.15)
        ax.set_xlabel(unit)
        ax.tick_params(axis="y", length=0)
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1), ncols=2, frameon=False, fontsize=9)
        return _svg(figure, key, label)


def heatmap(
    key: str, label: str, names: Sequence[str], matrix: Sequence[Sequence[int]]
) -> str | None:
    """A symmetric count matrix, every cell annotated with its number."""
    if not available() or not names:
        return None
    import matplotlib

    with matplotlib.rc_context(_RC):
        side = 0.62 * len(names) + 1.6
        figure = _figure(side * 0.9, min(_WIDTH_IN, side + 0.6))
        ax = figure.subplots()
        peak = max((value for row in matrix for value in row), default=0) or 1
        # vector cells (no embedded bitmap): crisp at any zoom
        ax.pcolormesh(
            [[float(v) for v in row] for row in matrix],
            cmap="Blues",
            vmin=0,
            vmax=peak * 1.1,
            edgecolors="white",
            linewidth=1.5,
        )
        ax.set_aspect("equal")
        ax.invert_yaxis()
        ticks = [i + 0.5 for i in range(len(names))]
        ax.set_xticks(ticks, [_short(n) for n in names], rotation=35, ha="right")
        ax.set_yticks(ticks, [_short(n) for n in names])
        for row, values in enumerate(matrix):
            for column, value in enumerate(values):
                dark = value > peak * 0.55
                ax.text(
                    column + 0.5,
                    row + 0.5,
                    f"{value:,}",
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if dark else INK,
                )
        ax.tick_params(length=0)
        for spine in ax.spines.values():
            spine.set_visible(False)
        return _svg(figure, key, label)


def format_micros(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f} s"
    if value >= 1_000:
        return f"{value / 1_000:.1f} ms"
    return f"{value:.0f} µs" if value >= 10 else f"{value:.1f} µs"


def latency_chart(
    key: str, label: str, stages: Sequence[str], p50: Sequence[float], p95: Sequence[float]
) -> str | None:
    """p50 and p95 per stage on a log scale of microseconds."""
    if not available() or not stages:
        return None
    import matplotlib

    with matplotlib.rc_context(_RC):
        figure = _figure(0.46 * len(stages) + 0.9)
        ax = figure.subplots()
        ys = list(range(len(stages)))
        half = 0.38
        floor = 0.1
        low = [max(v, floor) for v in p50]
        high = [max(v, floor) for v in p95]
        ax.barh([y - half / 2 for y in ys], low, height=half, color=BLUE, label="p50")
        ax.barh([y + half / 2 for y in ys], high, height=half, color=ORANGE, label="p95")
        ax.set_xscale("log")
        top = max([*high, 1.0])
        for y, (x_50, x_95) in enumerate(zip(low, high, strict=True)):
            for x, dy in ((x_50, -half / 2), (x_95, half / 2)):
                ax.text(x * 1.08, y + dy, format_micros(x), va="center", fontsize=8, color=MUTED)
        ax.set_xlim(floor, 10 ** math.ceil(math.log10(top) + 0.6))
        ax.set_yticks(ys, list(stages))
        ax.invert_yaxis()
        ax.set_xlabel("microseconds (log scale)")
        ax.tick_params(axis="y", length=0)
        ax.legend(loc="lower left", bbox_to_anchor=(0, 1), ncols=2, frameon=False, fontsize=9)
        return _svg(figure, key, label)
