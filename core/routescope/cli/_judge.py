"""`routescope score`: how good a rule pack is on a labelled set or a suite."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from .._request import Request
from ._parser import UsageError
from ._terminal import escape

if TYPE_CHECKING:
    from ..judge import RouteScore, Scorecard, SetScore

__all__ = ["cmd_score", "cmd_suggest", "scorecard_text"]


def cmd_score(args: argparse.Namespace) -> int:
    from ..judge import read_labelled, score_set

    if args.routers is not None:
        return _score_routers(args)
    if args.router:
        raise UsageError("--router goes with --routers FILE")
    rules = Request.build("-", rules=args.rules).rules.load()
    cases = read_labelled(args.file)
    tools = None
    if args.catalog is not None:
        from ._commands import catalog_tools

        _, tools = catalog_tools(args.catalog)
    result = score_set(cases, rules, tools)
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        for line in scorecard_text(result, misses=args.misses).splitlines():
            print(escape(line))
    return 0


def _number(value: float | None) -> str:
    return "  —  " if value is None else f"{value:5.3f}"


def _card_lines(card: Scorecard) -> list[str]:
    lines = [f"  {'flag':<16} {'prec':>5} {'rec':>5} {'F1':>5}   tp   fp   fn   labelled"]
    for name, flag in card.flags.items():
        if not flag.labelled:
            continue
        lines.append(
            f"  {name:<16} {_number(flag.precision)} {_number(flag.recall)} {_number(flag.f1)} "
            f"{len(flag.tp):4} {len(flag.fp):4} {len(flag.fn):4}   {flag.labelled}"
        )
    lines.append(f"  macro-F1 {_number(card.macro_f1)}")
    figures = [
        ("strategy accuracy", card.strategy.accuracy, card.strategy.labelled),
        ("place-hint accuracy", card.place.accuracy, len(card.place.right) + len(card.place.wrong)),
        (
            "no place where none named",
            card.place_spurious.accuracy,
            len(card.place_spurious.right) + len(card.place_spurious.wrong),
        ),
        ("linter-class accuracy", card.linter.accuracy, card.linter.labelled),
        ("agent accuracy", card.agent.accuracy, len(card.agent.right) + len(card.agent.wrong)),
        ("mode accuracy", card.mode.accuracy, len(card.mode.right) + len(card.mode.wrong)),
        (
            "top-tool accuracy",
            card.top_tool.accuracy,
            len(card.top_tool.right) + len(card.top_tool.wrong),
        ),
    ]
    for label, value, count in figures:
        if count:
            lines.append(f"  {label} {_number(value)}  ({count} labelled)")
    entities = card.entities
    if entities.cases:
        lines.append(
            f"  entities precision {_number(entities.precision)}  "
            f"recall {_number(entities.recall)}  ({entities.cases} labelled)"
        )
    if card.strategy.labelled:
        lines.extend(_confusion_lines(card))
    return lines


def _confusion_lines(card: Scorecard) -> list[str]:
    classes = ("general", "local", "tech")
    lines = ["  strategy: labelled ↓ decided →   " + " ".join(f"{c:>8}" for c in classes)]
    for expected in classes:
        counts = [len(card.strategy.cells.get((expected, got), [])) for got in classes]
        lines.append(f"  {expected:>30}   " + " ".join(f"{n:8}" for n in counts))
    return lines


def scorecard_text(result: SetScore, *, misses: int = 10) -> str:
    """The scorecard as a terminal shows it: the whole set, each part, the first misses."""
    whole = result.whole
    lines = [f"pack {result.pack}: {whole.cases} labelled case(s)"]
    lines.extend(_card_lines(whole))
    for name, card in result.parts.items():
        lines.append(f"part {name}: {card.cases} case(s)")
        lines.extend(_card_lines(card))
    if whole.misses and misses:
        lines.append(
            f"wrong decisions ({len(whole.misses)}; the first {min(misses, len(whole.misses))}):"
        )
        for miss in whole.misses[:misses]:
            why = "; ".join(
                f"{e.rule} @{e.start}–{e.end} {e.text!r}"
                if e.end > e.start
                else f"{e.rule}: {e.text}"
                for e in miss.evidence[:3]
            )
            lines.append(
                f"  {miss.case} · {miss.field}: expected {miss.expected!r}, got {miss.got!r}"
                + (f" — {why}" if why else " — no rule fired")
            )
            lines.append(f"      {miss.prompt[:120]!r}")
    return "\n".join(lines)


def cmd_suggest(args: argparse.Namespace) -> int:
    from .._resources import resources_root
    from ..judge import read_labelled, suggest

    rules = Request.build("-", rules=args.rules).rules.load()
    cases = read_labelled(args.labels)
    guard_file = resources_root() / "fixtures" / "strategy.yaml"
    guards = read_labelled(str(guard_file))
    found = suggest(cases, rules, guards=guards, limit=args.limit)
    if args.json:
        print(json.dumps([s.to_json() for s in found], indent=2, ensure_ascii=False))
        return 0
    if not found:
        print(f"no edit of pack {rules.name} improves the labelled set")
        return 0
    print(
        f"pack {rules.name}: {len(found)} suggested edit(s), gains as Δ macro-F1 + Δ strategy "
        "+ Δ place + Δ entity F1 (tune / held-out)"
    )
    for number, item in enumerate(found, 1):
        held = f"{item.heldout.gain:+.3f}" if item.heldout else "  —  "
        verdict = (
            ""
            if item.holds
            else (
                f"  ✗ breaks guard {', '.join(item.guards_broken[:3])}"
                if item.guards_broken
                else "  ✗ does not hold on the held-out part"
            )
        )
        print(
            escape(
                f"{number:3}. {item.edit.describe()}: {item.tune.gain:+.3f} / {held} "
                f"(fixes {len(item.tune.fixed)}, breaks {len(item.tune.broken)}){verdict}"
            )
        )
    return 0


def _score_routers(args: argparse.Namespace) -> int:
    """`score FILE --routers R [--router NAME]`: each external router (default: those the
    set labels) on the cases that label its route (`labels.routes.NAME`)."""
    from ..external import load_routers
    from ..judge import read_labelled, score_routes
    from ._route import open_declared

    cases = read_labelled(args.file)
    names = args.router or [
        name
        for name in load_routers(args.routers).names
        if any(c.labels.expected_route(name) is not None for c in cases)
    ]
    if not names:
        raise UsageError(f"no case of {args.file} labels the route of a router of {args.routers}")
    routers = open_declared(args.routers, names)
    cards = {}
    try:
        for router in routers:
            labelled = [c for c in cases if c.labels.expected_route(router.name) is not None]
            decided = router.route_many([c.prompt for c in labelled])
            cards.update(score_routes(labelled, [(router.name, decided)]))
    finally:
        for router in routers:
            router.close()
    if args.json:
        payload = {"routers": {name: card.to_json() for name, card in cards.items()}}
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    for card in cards.values():
        for line in route_card_lines(card, misses=args.misses):
            print(escape(line))
    return 0


def route_card_lines(card: RouteScore, *, misses: int = 10) -> list[str]:
    """An external router's scorecard as a terminal shows it."""
    lines = [
        f"router {card.router}: {card.labelled} labelled case(s), accuracy "
        f"{_number(card.confusion.accuracy).strip()}, macro-F1 {_number(card.macro_f1).strip()}"
    ]
    if not card.labelled:
        return [*lines, "  no case labels this router's route (labels.routes." + card.router + ")"]
    lines.append(f"  {'route':<20} {'prec':>5} {'rec':>5} {'F1':>5}   tp   fp   fn")
    for name, cell in sorted(card.per_route.items()):
        lines.append(
            f"  {name:<20} {_number(cell.precision)} {_number(cell.recall)} {_number(cell.f1)} "
            f"{len(cell.tp):4} {len(cell.fp):4} {len(cell.fn):4}"
        )
    labels = sorted({e for e, _ in card.confusion.cells})
    decided = sorted({g for _, g in card.confusion.cells})
    lines.append("  labelled ↓ decided →  " + " ".join(f"{g[:12]:>12}" for g in decided))
    for expected in labels:
        counts = [len(card.confusion.cells.get((expected, got), [])) for got in decided]
        lines.append(f"  {expected[:20]:>20}  " + " ".join(f"{n:12}" for n in counts))
    for kind, ids in sorted(card.errors.items()):
        lines.append(f"  errors {kind}: {len(ids)} ({', '.join(ids[:5])})")
    if card.misses and misses:
        lines.append(f"  wrong ({len(card.misses)}; the first {min(misses, len(card.misses))}):")
        for miss in card.misses[:misses]:
            lines.append(f"    {miss.case}: expected {miss.expected!r}, got {miss.got!r}")
            lines.append(f"        {miss.prompt[:100]!r}")
    return lines
