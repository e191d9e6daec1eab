"""Split a request that needs several tools into its steps, so each step can be searched alone.

"Find the config file, then email it to Bob" needs a file search and a mailer; one ranked list
for the whole request puts one of them first and pushes the other down or out of the top k. The
splitter cuts at sequencing words ("then", "after that", "and also", ", and email …"),
semicolons, sentence ends, lines and list items, and keeps each cut as exact offsets into the
query, so a view can show where and why the request was split.

The ranking merges the steps into its head (`merge_step_tools`): the whole request's best tool
first, then the best tool of each step that fits, each marked "step N's best", then the rest of
the whole request's ranking. Measured on the tune parts (`make eval`, issue 28) against keeping
each step's best in the last places, a round robin over the steps' rankings and merging them by
score: the head merge keeps a needed tool first as often as the ranking alone and lifts the
share of requests with every needed tool in the top 10 (Seal-Tools' long requests 0.58 → 0.85).
For a request of several needs (`MULTI_NEED_STEPS` steps or more, the weighted fusion) a step's
best may lead and the steps' rankings take turns after the head: Seal-Tools without parameter
descriptions 0.835 → 0.876 a needed tool first and 0.748 → 0.812 every needed tool in the top 10
(tune part), BFCL's single questions where they were; a round robin from two steps lowered
LiveMCPBench and multi_turn, and a head ordered by score put a context sentence's tool first in
BFCL's questions.

Pure and deterministic, and linear on any string: every repetition in the patterns is possessive,
every look-behind a few characters wide, and adjacent cuts ("then then then …") are one match.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from ._models import Step, StepResult, ToolHit

__all__ = ["MULTI_NEED_STEPS", "Merged", "merge_step_tools", "split_steps"]

MAX_STEPS = 8
"""Beyond this the rest of the request stays in the last step."""
MULTI_NEED_STEPS = 3
"""A request of this many steps or more is taken to need several tools (issue 28): its keyword
evidence is measured against its heaviest step (`_evidence`), and with the weighted fusion its
ranking can lead with a step's best and gives the steps' rankings turns after the head
(`merge_step_tools`). From two steps on, BFCL's single questions lost 0.002 of hit@1 without
parameter schemas (a question's context sentence is a step of its own): from three, BFCL is
where it was (0.714 / 0.641) and the long requests of Seal-Tools (three needs or more) keep
the gain."""

# Imperative verbs common in tool requests: " and <verb>" starts a new action, " and <noun>"
# ("salt and pepper", "Paris and London") does not. Nouns that double as verbs ("and order
# history") still cut: a wrong cut costs one extra search, a missed one can hide a tool.
_VERBS = (
    "add analyse analyze archive ask attach book build buy calculate call cancel change check "
    "clear close compare compute confirm convert copy count create delete deploy describe "
    "disable download draft draw e-mail edit email enable explain export extract fetch fill "
    "find fix forward generate get give import install invite let list load locate look lookup "
    "mail make move notify open order pay play plot post print publish put read record remind "
    "remove rename reply reserve reset restart retrieve review run save schedule search select "
    "send set share show sort start stop submit summarise summarize sync tell track transfer "
    "translate turn tweet unlock update upload use verify write"
)
# Question words and "please" open a new clause too: "… in Paris and what time is it in Tokyo?"
_OPENERS = (
    "what how who whom whose where when which why whether is are was were can could will would "
    "should do does did please"
)
_ORDINALS = "first firstly second secondly third thirdly"
_ABBREVIATIONS = "mr mrs ms dr prof st vs etc approx no jr sr"
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines breaks
_CLAUSE_END = re.escape(",;:.!?…。！？，；：" + _LINE_BREAKS)


def _gerund(verb: str) -> str:
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    if len(re.findall("[aeiou]+", verb)) == 1 and re.search("[^aeiou][aeiou][^aeiouwxy]$", verb):
        return verb + verb[-1] + "ing"  # stop → stopping, run → running
    return verb + "ing"


def _either(words: str) -> str:
    return "|".join(re.escape(word) for word in sorted(words.split(), key=lambda w: (-len(w), w)))


# Every alternative of a cut starts with a literal character and looks behind it for what must
# come before, so the regex engine skips in C to the characters a cut can start with: a
# megabyte without a cut takes milliseconds. The query is searched lower-cased.
def _word(word: str) -> str:
    return rf"{word}(?<!\w{word})"


def _opening(word: str) -> str:
    """`word` where it opens a clause: at the start, after punctuation, a line, "and" or "then"
    ("a tool that can also send mail" is one request)."""
    return (
        rf"{word}(?:(?<![\s\S]{word})|(?<=[{_CLAUSE_END}]{word})|(?<=[{_CLAUSE_END}][ \t]{word})"
        rf"|(?<=\band\x20{word})|(?<=\bthen\x20{word}))\b"
    )


def _each(chars: str, rest: str) -> str:
    return "|".join(re.escape(char) + rest.replace("CHAR", re.escape(char)) for char in chars)


_NEW_CLAUSE = rf"(?:{_either(_VERBS)}|{_either(_OPENERS)})\b"
# Loose sequencing words ("next", "after that") cut only before an action or a comma: "the next
# train" and "after that meeting" are no steps.
_ACTION = rf"(?=\s*+[,:]|\s++{_NEW_CLAUSE})"
_BULLET = r"(?:[-*•‣◦]|\(?\d{1,3}[.)])(?=\s)"
_PIECE = "|".join(
    [
        # "since then", "back then", "now and then": time, not sequence
        _word("then")
        + "".join(rf"(?<!\b{w}\x20then)" for w in ("since", "until", "till", "by", "back", "from"))
        + r"(?<!\bnow\x20and\x20then)\b",
        _word("afterward") + r"s?\b",
        _word("after") + r"\s++that" + _ACTION,
        _word("followed") + r"\s++by\b",
        _word("as")
        + r"\s++well\s++as"
        # only between actions: "hotels as well as flights" is one search
        + rf"(?=\s++(?:{_either(' '.join(map(_gerund, _VERBS.split())))}|{_NEW_CLAUSE}))",
        _word("and")
        + r"(?:\s++(?:then\b(?<!\bnow\x20and\x20then)|afterwards?\b|also\b|finally\b|lastly\b"
        + rf"|(?:after\s++that|next){_ACTION})|(?=\s++{_NEW_CLAUSE}))",
        *(_opening(word) for word in ("also", "finally", "lastly")),
        _opening("next") + _ACTION,
        # "First find the file" keeps its "First": the word does the search no harm
        *(_opening(word) + r"(?=\s*+[,:])" for word in _ORDINALS.split()),
        # "e.g.", "Mr.", "J." end no sentence; "file.txt." and "to 5." do
        r"\.(?<![.?!]\.)(?=[.?!]*+\s)(?<!\b[^\W\d_]\.)(?<!\b[^\W\d_]\.[^\W\d_]\.)"
        + "".join(rf"(?<!\b{w}\.)" for w in _ABBREVIATIONS.split())
        + r"[.?!]*+",
        _each("?!", r"(?<![.?!]CHAR)[.?!]*+(?=\s)"),
        _each("。！？", r"[。！？]*+"),
        _each(";；", r"[;；]*+"),
        _each(_LINE_BREAKS, rf"[{_LINE_BREAKS}]*+(?:[ \t]*+{_BULLET})?"),
    ]
)
# More pieces right after a cut join its match ("then then then …" is one match), across
# anything but words: a megabyte of "; 🙂" is one match too. The gap holds nothing a piece
# starts with, or each piece of a run would scan the rest of it again.
_MORE = (
    rf"(?:[^\w.?!。！？;；{_LINE_BREAKS}]*+(?:"
    r"(?:and\s++)?(?:then|also|finally|lastly|afterwards?|followed\s++by)\b"
    rf"|(?:after\s++that|next){_ACTION}|(?:{_either(_ORDINALS)})(?=\s*+[,:])"
    rf"|[.?!。！？;；]++|[{_LINE_BREAKS}]++(?:[ \t]*+{_BULLET})?))*+"
)
# Items of a list in a line: "1." after a colon ("do this: 1. … 2. …"), then, once a list has
# started, any "2." after a space (`_cuts` checks that it follows the last item).
_FIRST_ITEM = r"1(?<=:[ \t]1)[.)](?=\s)|\((?<=:[ \t]\()1\)(?=\s)"
_NEXT_ITEM = _each("0123456789", r"(?<=\sCHAR)\d?[.)](?=\s)") + r"|\((?<=\s\()\d\d?\)(?=\s)"


@functools.cache  # compiled on first use (some 20 ms each), not on import
def _unit(in_list: bool) -> re.Pattern[str]:
    return re.compile(rf"(?:{_NEXT_ITEM if in_list else _FIRST_ITEM}|{_PIECE}){_MORE}")


_LEADING_ITEM = re.compile(rf"[ \t]*+{_BULLET}")
_LINE_ITEM = re.compile(rf"[{_LINE_BREAKS}][ \t]*+\(?(\d{{1,3}})[.)]")
_NUMBER = re.compile(r"\(?(\d++)")
_LIST_AFTER_COLON = re.compile(r"[:：]\s*+(?:[-*•‣◦]|\(?\d)")
_GAP = re.compile(r"[\s,;:]*+")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SPACE = (  # every str.isspace() character, and the zero-width ones
    " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_STRIP = _SPACE + ",;:.!?…。！？，；：、"
# Scripts written without spaces count a word per character, so a short step in them stands.
_WORD = re.compile(r"[^\W_][^\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]*+")


@dataclass(slots=True)
class _Draft:
    start: int
    end: int
    words: int  # 0, 1 or 2 (two or more)
    split: tuple[int, int] | None


def split_steps(text: str) -> list[Step]:
    """The steps of a request that needs several tools, or [] when it is one step.

    Each step is stripped of surrounding spaces and punctuation. A one-word fragment ("then
    email") or an introduction ("do this: 1. …") joins the step after it, or the step before
    when it is the last; a fragment without words is dropped with the cut before it.
    """
    drafts: list[_Draft] = []
    last_end = 0
    split: tuple[int, int] | None = None
    for cut in _cuts(text):
        start, end = _stripped(text, last_end, cut[0])
        words = _count_words(text, start, end)
        if words and _LIST_AFTER_COLON.match(text, cut[0]):
            words = 1  # "do the following: 1. …" introduces the first item, it is no step
        if words and drafts and drafts[-1].words < 2:
            drafts[-1].end, drafts[-1].words = end, 2
        elif words:
            drafts.append(_Draft(start, end, words, split if drafts else None))
        last_end, split = cut[1], cut
        if len(drafts) > MAX_STEPS:  # the rest is not read: it all belongs to the last step
            del drafts[MAX_STEPS:]
            drafts[-1].end = len(text.rstrip(_STRIP))
            break
    else:
        if len(drafts) > 1 and drafts[-1].words < 2:
            last = drafts.pop()
            drafts[-1].end = last.end
    if len(drafts) < 2:
        return []
    return [
        Step(
            text=text[d.start : d.end],
            start=d.start,
            end=d.end,
            split_by=text[d.split[0] : d.split[1]] if d.split else "",
            split_at=d.split,
        )
        for d in drafts
    ]


def _cuts(text: str) -> Iterator[tuple[int, int]]:
    """Where the request is cut, then an empty cut at its end. Adjacent connectives and
    punctuation (". After that,", "; then") make one cut, with the commas around it."""
    lowered = text.lower()
    if len(lowered) != len(text):  # "İ" lower-cases to two characters: keep the offsets
        lowered = text.translate(_ASCII_LOWER)
    cut: tuple[int, int] | None = None
    pos = floor = reach = 0  # reach: where the spaces and commas after the current cut end
    listed = 0  # the number of the last list item, 0 outside a list
    if leading := _LEADING_ITEM.match(lowered):
        cut, pos = leading.span(), leading.end()
        reach = _GAP.match(text, pos).end()  # type: ignore[union-attr]  # matches ""
        listed = _item_number(leading.group())
    while (match := _unit(listed > 0).search(lowered, pos)) is not None:
        start, end = match.span()
        if lowered[start] in "(0123456789":
            number = _item_number(match.group())
            if number != listed + 1:  # "… 2. … set the volume to 5. Then": the list ended
                listed, pos = 0, start + 1
                continue
            listed = number
        for item in _LINE_ITEM.finditer(match.group()):
            listed = int(item.group(1))
        pos = end
        if cut is not None and start <= reach:
            cut = (cut[0], end)
        else:
            if cut is not None:
                done = _trimmed(text, cut[0], cut[1], reach)
                floor = done[1]
                yield done
            before = text[floor:start]
            tail = before[len(before.rstrip(_SPACE + ",;:")) :]
            cut = (start - len(tail.lstrip(_SPACE)), end)  # take the comma of ", then"
        if end > reach:  # else the gap after this piece is the rest of the one before
            reach = _GAP.match(text, end).end()  # type: ignore[union-attr]
    if cut is not None:
        yield _trimmed(text, cut[0], cut[1], reach)
    yield len(text), len(text)


def _item_number(item: str) -> int:
    number = _NUMBER.search(item)
    return int(number.group(1)) if number else 0


def _trimmed(text: str, start: int, end: int, reach: int) -> tuple[int, int]:
    """The cut from `start` to `end` with the commas after it, without surrounding spaces
    (a cut that is only a line break keeps it)."""
    end += len(text[end:reach].rstrip(_SPACE))
    body = text[start:end]
    stripped = body.strip(_SPACE)
    if not stripped:
        return start, end
    lead = len(body) - len(body.lstrip(_SPACE))
    return start + lead, start + lead + len(stripped)


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    body = text[start:end]
    lead = len(body) - len(body.lstrip(_STRIP))
    return start + lead, start + lead + len(body.strip(_STRIP))


def _count_words(text: str, start: int, end: int) -> int:
    words = 0
    for _ in _WORD.finditer(text, start, end):
        words += 1
        if words == 2:
            break
    return words


class Merged(NamedTuple):
    """The ranking a step merge made and how, in words (`ToolSearchResult.merge`)."""

    hits: list[ToolHit]
    how: str


def merge_step_tools(
    results: list[ToolHit], steps: list[StepResult], k: int, multi_need: bool = False
) -> Merged:
    """The ranking with the steps' tools in it: the whole request's best tool first, then the
    best tool of each step that fits, in step order (each marked `step`: "step 2's best"), then
    the rest of the whole request's ranking; the first `k`, ranks renumbered. A step's tool the
    whole request ranked keeps its whole-request signals and score; one it did not comes with
    the step search's. Sets each step's `in_ranking` (None when no tool fits it).

    `multi_need` (the weighted fusion, whose scores of a step and of the whole request are on
    one scale), for a request of `MULTI_NEED_STEPS` steps or more: when `MULTI_NEED_STEPS` of
    them fit and the whole request's best tool is no fitting step's best (it matched words of
    several needs, none of them alone), the step's best with the highest score leads if it
    outscores it; after the head the whole request's ranking and the fitting steps' take turns
    (their second tools, then their thirds …), so each need keeps tools in the first `k`."""
    if not steps:
        return Merged(results[:k], "")
    ranked = {hit.tool_name: hit for hit in results}
    fitting = [(n, s) for n, s in enumerate(steps, start=1) if s.fits and s.results]
    head = results[:1]
    placed = {hit.tool_name for hit in head}
    for number, step in fitting:
        best = step.results[0]
        if best.tool_name in placed:
            continue
        hit = ranked.get(best.tool_name, best)
        head.append(dataclasses.replace(hit, step=number, step_rank=1, tied_with=[]))
        placed.add(best.tool_name)
    multi = multi_need and len(steps) >= MULTI_NEED_STEPS
    lead = _lead(results, steps, fitting) if multi else None
    if lead is not None:
        moved = next(i for i, hit in enumerate(head) if hit.tool_name == lead[0])
        head.insert(0, head.pop(moved))
    if multi:
        rest = _turns(results, fitting, placed, k - len(head))
    else:
        rest = [hit for hit in results if hit.tool_name not in placed]
    how = _how(steps, fitting, lead[1] if lead else None, multi)
    merged = head + rest
    merged = [dataclasses.replace(hit, rank=rank) for rank, hit in enumerate(merged[:k], start=1)]
    where = {hit.tool_name: hit.rank for hit in merged}
    for step in steps:
        best_name = step.results[0].tool_name if step.fits and step.results else None
        step.in_ranking = where.get(best_name) if best_name is not None else None
    return Merged(merged, how)


def _how(
    steps: list[StepResult], fitting: list[tuple[int, StepResult]], lead: str | None, turns: bool
) -> str:
    numbers = ", ".join(str(n) for n, _ in fitting)
    if not fitting:
        return f"the whole request's ranking: no step of {len(steps)} fits"
    which = f"step {numbers}'s best" if len(fitting) == 1 else f"the best of steps {numbers}"
    said = (
        f"{lead}; then the whole request's best and the other steps' best"
        if lead
        else (f"the whole request's best first, then {which}")
    )
    if turns:
        return (
            f"{said}; then the whole request's ranking and the fitting steps' take turns (a "
            f"request of {MULTI_NEED_STEPS} steps or more)"
        )
    return f"{said}; then the rest of the whole request's ranking"


def _lead(
    results: list[ToolHit], steps: list[StepResult], fitting: list[tuple[int, StepResult]]
) -> tuple[str, str] | None:
    """The step's best that leads the ranking, and why; None when the whole request's best
    stays first."""
    if not results or len(fitting) < MULTI_NEED_STEPS:
        return None
    top = results[0]
    if any(step.results[0].tool_name == top.tool_name for _, step in fitting):
        return None
    number, step = max(fitting, key=lambda item: (item[1].results[0].score, -item[0]))
    best = step.results[0]
    if best.score <= top.score:
        return None
    return best.tool_name, (
        f"step {number}'s best first: {best.tool_name} scores {best.score:.3f} for its step, "
        f"above the whole request's best {top.tool_name} ({top.score:.3f}), which is no fitting "
        f"step's best ({len(fitting)} of {len(steps)} steps fit)"
    )


def _turns(
    results: list[ToolHit],
    fitting: list[tuple[int, StepResult]],
    placed: set[str],
    room: int,
) -> list[ToolHit]:
    """After the head, in turns: the whole request's next tool not yet placed, then each
    fitting step's second tool, the whole request's next, each step's third …, each tool once;
    then the rest of the whole request's ranking."""
    ranked = {hit.tool_name: hit for hit in results}
    taken: list[ToolHit] = []
    seen = set(placed)
    wholes = iter(results)
    depth = 1
    while len(taken) < room and (
        depth < len(results) or any(depth < len(step.results) for _, step in fitting)
    ):
        following = next((hit for hit in wholes if hit.tool_name not in seen), None)
        if following is not None:
            taken.append(following)
            seen.add(following.tool_name)
        for number, step in fitting:
            if depth < len(step.results) and (hit := step.results[depth]).tool_name not in seen:
                seen.add(hit.tool_name)
                mine = ranked.get(hit.tool_name, hit)
                taken.append(
                    dataclasses.replace(mine, step=number, step_rank=depth + 1, tied_with=[])
                )
        depth += 1
    return taken + [hit for hit in results if hit.tool_name not in seen]
