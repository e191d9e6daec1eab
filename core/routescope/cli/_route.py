"""`routescope route`: what external routers (declared in a routers file) decide about one
prompt, with their evidence: the route, every route's score as a bar, the signals that
matched, a semantic router's best utterances, thresholds and "why not", the latency."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._terminal import escape

if TYPE_CHECKING:
    from ..external import ExternalDecision

__all__ = ["cmd_route", "decision_lines", "open_declared"]

_BAR = 20


def open_declared(path: str, names: list[str] | None) -> list[Any]:
    """The routers `names` of the file (all of them when None), started, in order."""
    from ..external import load_routers, open_router

    routers = load_routers(Path(path))
    wanted = names or routers.names
    opened: list[Any] = []
    try:
        for name in wanted:
            opened.append(open_router(routers, name))
    except BaseException:
        for router in opened:
            router.close()
        raise
    return opened


def cmd_route(args: argparse.Namespace, text: str, write: Callable[[str], int]) -> int:
    from .._input import validate_text

    prompt = validate_text(text)
    context = _context(args.context)
    routers = open_declared(args.routers, args.router)
    try:
        decisions = [r.route(prompt, today=args.today, context=context) for r in routers]
    finally:
        for router in routers:
            router.close()
    if args.json:
        payload = {"prompt": prompt, "routers": [d.model_dump(mode="json") for d in decisions]}
        return write(json.dumps(payload, indent=2, ensure_ascii=False))
    lines: list[str] = []
    for decision in decisions:
        lines += decision_lines(decision)
    return write("\n".join(escape(line) for line in lines))


def _context(path: str | None) -> dict[str, Any] | None:
    if path is None:
        return None
    from .._errors import InputError
    from .._files import read_text

    data = json.loads(read_text(path, what="context", limit=1 << 20, error=InputError))
    if not isinstance(data, dict):
        raise InputError(f"{path}: a context is a JSON object")
    return data


def _bar(value: float, top: float) -> str:
    filled = 0 if top <= 0 else round(_BAR * max(0.0, value) / top)
    return "█" * filled + "·" * (_BAR - filled)


def decision_lines(decision: ExternalDecision) -> list[str]:
    """One router's decision as a terminal shows it."""
    head = f"{decision.router} ({decision.kind}): {decision.shown_route}"
    if decision.score is not None:
        head += f"  score {decision.score:.3f}" + (" (calibrated)" if decision.calibrated else "")
    head += f"  · {decision.latency_ms:.1f} ms"
    lines = [head]
    if decision.error is not None:
        lines.append(f"  {decision.error.kind}: {decision.error.detail}")
        return lines
    evidence = {e.route: e for e in decision.routes}
    top = max(decision.scores.values(), default=0.0)
    for name, score in decision.scores.items():
        mark = "▶" if name == decision.route else " "
        line = f"  {mark} {name:<18} {_bar(score, top)} {score:.3f}"
        found = evidence.get(name)
        if found is not None:
            if found.threshold is not None:
                line += (
                    f"  conf {found.confidence:.3f} vs {found.threshold:.3f} ({found.margin:+.3f})"
                )
            if found.best:
                best = found.best[0]
                line += f'  best "{best.utterance[:40]}" {best.similarity:.3f}'
        lines.append(line)
        if found is not None and found.why_not:
            lines.append(f"      why not: {found.why_not}")
    if decision.signals:
        shown = ", ".join(
            f"{s.kind + ':' if s.kind else ''}{s.name}"
            + ("" if s.confidence is None else f" {s.confidence:.2f}")
            for s in decision.signals
        )
        lines.append(f"  signals: {shown}")
    for label, values in (("tools", decision.tools), ("flags", decision.flags)):
        if values:
            lines.append(f"  {label}: {', '.join(values)}")
    return lines
