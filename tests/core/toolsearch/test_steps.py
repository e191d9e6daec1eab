"""`split_steps` (`routescope.toolsearch._steps`): where a request that needs several tools is
cut, what stays one step, exact spans on any string, and linear time on hostile input; and
`merge_step_tools`: each fitting step's best tool in the head of the ranking (issue 28)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from routescope.toolsearch import Signals, Step, StepResult, ToolHit
from routescope.toolsearch._steps import MAX_STEPS, merge_step_tools, split_steps

WORD = re.compile(r"[^\W_]+")


def pairs(text: str) -> list[tuple[str, str]]:
    return [(step.split_by, step.text) for step in split_steps(text)]


def check_spans(text: str, steps: list[Step]) -> None:
    """The invariants every result keeps, on any string."""
    assert steps == [] or 2 <= len(steps) <= MAX_STEPS
    previous_end = 0
    for index, step in enumerate(steps):
        assert text[step.start : step.end] == step.text
        assert step.text and step.text == step.text.strip()
        if index == 0:
            assert (step.split_by, step.split_at) == ("", None)
        else:
            assert step.split_at is not None
            cut_start, cut_end = step.split_at
            assert text[cut_start:cut_end] == step.split_by != ""
            assert previous_end <= cut_start < cut_end <= step.start
        assert previous_end <= step.start < step.end
        previous_end = step.end


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Find the config file, then email it to Bob",
            [("", "Find the config file"), (", then", "email it to Bob")],
        ),
        (
            "What's the weather in Paris and what time is it in Tokyo?",
            [("", "What's the weather in Paris"), ("and", "what time is it in Tokyo")],
        ),
        (
            "How many calories are in a banana and how much protein does it have?",
            [("", "How many calories are in a banana"), ("and", "how much protein does it have")],
        ),
        (
            "Search for flights to Rome and book the cheapest one",
            [("", "Search for flights to Rome"), ("and", "book the cheapest one")],
        ),
        (
            "Get the stock price of AAPL, and also show me the news about Apple",
            [("", "Get the stock price of AAPL"), (", and also", "show me the news about Apple")],
        ),
        (
            "Translate this to French; then send it to Marie",
            [("", "Translate this to French"), ("; then", "send it to Marie")],
        ),
        (
            "Download the report. After that, summarize it for me.",
            [("", "Download the report"), (". After that,", "summarize it for me")],
        ),
        (
            "Check my calendar for tomorrow. Next, schedule a meeting with Alice at 3pm.",
            [
                ("", "Check my calendar for tomorrow"),
                (". Next,", "schedule a meeting with Alice at 3pm"),
            ],
        ),
        (
            "Restart the server and afterwards check the logs",
            [("", "Restart the server"), ("and afterwards", "check the logs")],
        ),
        (
            "Find restaurants near me followed by booking a table for two",
            [("", "Find restaurants near me"), ("followed by", "booking a table for two")],
        ),
        (
            "Calculate 15% of 230 as well as converting the result to euros",
            [("", "Calculate 15% of 230"), ("as well as", "converting the result to euros")],
        ),
        (
            "Play some jazz! And turn the volume up to 40 percent.",
            [("", "Play some jazz"), ("! And", "turn the volume up to 40 percent")],
        ),
        (
            "Turn off the lights, lock the door, and set the alarm for 7am",
            [("", "Turn off the lights, lock the door"), (", and", "set the alarm for 7am")],
        ),
        (
            "First, list all files. Second, delete the empty ones. Finally, zip the folder.",
            [
                ("", "list all files"),
                (". Second,", "delete the empty ones"),
                (". Finally,", "zip the folder"),
            ],
        ),
        (
            "1. Fetch the latest sales data 2. Plot it as a bar chart 3. Email it to the team",
            [
                ("", "Fetch the latest sales data"),
                ("2.", "Plot it as a bar chart"),
                ("3.", "Email it to the team"),
            ],
        ),
        (
            "- find the config file\n- email it to Bob\n  * delete the local copy",
            [
                ("", "find the config file"),
                ("-", "email it to Bob"),
                ("*", "delete the local copy"),
            ],
        ),
        (
            "Please do the following:\n1. find the file\n2. email it to Bob",
            [("", "Please do the following:\n1. find the file"), ("2.", "email it to Bob")],
        ),
        (
            "Find flights to Paris: then email the results",
            [("", "Find flights to Paris"), (": then", "email the results")],
        ),
        (
            "Do this:\n- find the file\n- email it",
            [("", "Do this:\n- find the file"), ("-", "email it")],
        ),
        (
            "Do this: 1. find the file 2. email it",
            [("", "Do this: 1. find the file"), ("2.", "email it")],
        ),
        ("Find the file\r\nEmail it to Bob", [("", "Find the file"), ("\r\n", "Email it to Bob")]),
        (
            "Set the volume to 5. Then play some jazz",
            [("", "Set the volume to 5"), (". Then", "play some jazz")],
        ),
        (
            "Email Mr. Smith the report, e.g. the Q3 numbers. Then book a room",
            [("", "Email Mr. Smith the report, e.g. the Q3 numbers"), (". Then", "book a room")],
        ),
        (
            "Open config.yaml. Then change the port to 8080.",
            [("", "Open config.yaml"), (". Then", "change the port to 8080")],
        ),
        (  # a one-word fragment joins the step after it
            "Find the config file, then email, then delete the copy",
            [("", "Find the config file"), (", then", "email, then delete the copy")],
        ),
        (
            "FIND THE FILE AND THEN EMAIL IT",
            [("", "FIND THE FILE"), ("AND THEN", "EMAIL IT")],
        ),
        (
            "Найди файл конфигурации, then отправь его Бобу",
            [("", "Найди файл конфигурации"), (", then", "отправь его Бобу")],
        ),
        ("查找配置文件。然后发送给鲍勃", [("", "查找配置文件"), ("。", "然后发送给鲍勃")]),
        (
            "Get the weather 🌧️ in Paris, then 📧 email it to Bob",
            [("", "Get the weather 🌧️ in Paris"), (", then", "📧 email it to Bob")],
        ),
    ],
)
def test_a_request_is_cut_at_its_connectives(text: str, expected: list[tuple[str, str]]) -> None:
    steps = split_steps(text)
    assert [(step.split_by, step.text) for step in steps] == expected
    check_spans(text, steps)


@pytest.mark.parametrize(
    "text",
    [
        "salt and pepper",
        "Tom and Jerry",
        "What's the difference between Python and Java?",
        "What's the weather in Paris and London?",
        "Buy eggs, milk, bread, and butter",
        "Find hotels as well as flights to Rome",
        "Find a tool that can also send mail",
        "Book the next flight to Tokyo",
        "Schedule a call after that meeting with Bob",
        "What did the stock do since then?",
        "Call me now and then",
        "Email Mr. Smith the report on the U.S. market, e.g. the Q3 numbers",
        "Search and replace foo with bar in main.py",  # "Search" alone joins the rest
        "Find the file then email",  # so does a last word
        "Do it, then",
        "Also, find the config file",
        "Then",
        "then then then then",
        "and also, then; after that. finally!",
        "",
        "   \n\t  ",
    ],
)
def test_one_step_is_no_steps(text: str) -> None:
    assert split_steps(text) == []


def test_the_spans_are_offsets_into_the_original_text() -> None:
    text = "  ÉTAPE ① trouve le fichier 🗂️ ;  Then, e-mail it to Zoë 💌 \r\n\r\n- and print it"
    steps = split_steps(text)
    assert pairs(text) == [
        ("", "ÉTAPE ① trouve le fichier 🗂️"),
        (";  Then,", "e-mail it to Zoë 💌"),
        ("- and", "print it"),  # the line breaks around a cut are not part of it
    ]
    assert steps[1].split_at == (text.index(";"), text.index(",") + 1)
    check_spans(text, steps)


def test_more_than_eight_steps_leave_the_rest_in_the_last() -> None:
    text = " then ".join(f"run job number {n}" for n in range(1, 13)) + " then."
    steps = split_steps(text)
    assert len(steps) == MAX_STEPS
    assert [step.text for step in steps[:7]] == [f"run job number {n}" for n in range(1, 8)]
    assert steps[-1].text == text[steps[-1].start :].rstrip(".")
    assert steps[-1].text.startswith("run job number 8 then run job number 9")
    check_spans(text, steps)


def test_the_result_does_not_depend_on_case_or_earlier_calls() -> None:
    text = "Find the file; And Then Email It To Bob. NEXT, delete it"
    first = split_steps(text)
    split_steps("something else entirely, then another thing")
    assert split_steps(text) == first
    assert [step.split_at for step in split_steps(text.lower())] == [s.split_at for s in first]


VOCABULARY = [
    "find", "the", "file", "email", "it", "to", "bob", "and", "then", "also", "next",
    "finally", "after", "that", "afterwards", "followed", "by", "as", "well", "what", "is",
    "salt", "pepper", "since", "now", "first", "mr.", "e.g.", "1.", "2.", "(3)", "-", "*",
    ".", "?", "!", ";", ",", ":", "。", "\n", "\r\n", "  ", "é", "🌧️", "",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=40), st.sampled_from([" ", "", "\t"]))
def test_requests_of_connectives_keep_every_invariant(words: list[str], glue: str) -> None:
    text = glue.join(words)
    steps = split_steps(text)
    check_spans(text, steps)
    for step in steps:  # fragments shorter than two words have joined a neighbour
        assert len(WORD.findall(step.text)) >= 2
    upper = split_steps(text.upper())
    assert [(s.start, s.end, s.split_at) for s in upper] == [
        (s.start, s.end, s.split_at) for s in steps
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_categories=["Cs"]), max_size=300))
def test_any_text_keeps_every_invariant(text: str) -> None:
    steps = split_steps(text)
    check_spans(text, steps)
    assert split_steps(text) == steps


def test_binary_junk_never_raises() -> None:
    junk = bytes(range(256)).decode("latin-1") * 50 + "\x00then\x00" + "\ufffd\u200b" * 100
    check_spans(junk, split_steps(junk))


def test_ten_thousand_thens_are_one_cut() -> None:
    assert split_steps("then " * 10_000) == []
    text = "find the file " + "then " * 10_000 + "email it to bob"
    assert pairs(text) == [("", "find the file"), ("then " * 9_999 + "then", "email it to bob")]


@pytest.mark.parametrize(
    "text",
    [
        "then " * 200_000,
        "and " * 250_000,
        ". " * 500_000,
        "." * 1_000_000,
        "\n " * 500_000,
        " " * 1_000_000,
        "a" * 1_000_000,
        "\x00" * 1_000_000,
        "no. " * 250_000,
        "now and then " * 80_000,
        "as well as " * 90_000,
        "1. a\n" + "x 5. " * 200_000,
        "then" + " ;" * 500_000,
        ";🙂" * 500_000,
        "., . " * 200_000,
        "?next, " * 140_000,
        "1." * 500_000,
        ("the quick brown fox jumps over a lazy dog " * 25_000)[:1_000_000],
    ],
    ids=lambda text: repr(text[:14]),
)
def test_a_megabyte_keeps_every_invariant(text: str) -> None:
    """Speed on these shapes is measured in `make bench` (bench_scaling.py, "step splitting")."""
    check_spans(text, split_steps(text))


def test_a_megabyte_of_random_text_keeps_every_invariant() -> None:
    rng = random.Random(4)
    alphabet = "abcdefghijklmnopqrstuvwxyz   ,.;:!?\n\t0123456789-*()éß漢字🌧️\x00"
    for text in (
        "".join(rng.choices(alphabet, k=1_000_000)),
        " ".join(rng.choices(VOCABULARY, k=250_000)),
    ):
        check_spans(text, split_steps(text))


# -- the steps' tools kept in the ranking ------------------------------------------------------


def _hits(*names: str) -> list[ToolHit]:
    return [
        ToolHit(rank, name, "misc", 1.0 - rank / 100, Signals(None, None, [], 0.0, {}, [], 0.0))
        for rank, name in enumerate(names, start=1)
    ]


def _step(text: str, best: str, fits: bool = True) -> StepResult:
    step = Step(text, 0, len(text), "", None)
    return StepResult(step, _hits(best, "filler"), fits, "")


def _names(hits: list[ToolHit]) -> list[str]:
    return [hit.tool_name for hit in hits]


def test_each_fitting_steps_best_comes_right_after_the_top_tool() -> None:
    ranking = _hits("a", "b", "c", "d")
    steps = [_step("find the file", "c"), _step("email it", "mail"), _step("gist", "x", False)]
    merged, how = merge_step_tools(ranking, steps, 4)
    assert _names(merged) == ["a", "c", "mail", "b"]  # the whole request's best stays first
    assert [h.rank for h in merged] == [1, 2, 3, 4]
    assert [h.step for h in merged] == [None, 1, 2, None]  # "step 1's best", "step 2's best"
    assert [s.in_ranking for s in steps] == [2, 3, None]  # no tool fits the third: not merged
    assert merged[1].signals is ranking[2].signals  # ranked by the whole request: its signals
    assert merged[2].signals is steps[1].results[0].signals  # only the step found it
    assert [h.rank for h in ranking] == [1, 2, 3, 4]  # the hits given are left as they were
    assert how == (
        "the whole request's best first, then the best of steps 1, 2; then the rest of the "
        "whole request's ranking"
    )
    assert [h.step_mark for h in merged] == ["", "step 1's best", "step 2's best", ""]


def test_a_steps_best_already_first_is_not_repeated() -> None:
    steps = [_step("one", "a"), _step("two", "z"), _step("three", "z")]
    merged = merge_step_tools(_hits("a", "b", "c"), steps, 3).hits
    assert _names(merged) == ["a", "z", "b"]
    assert [s.in_ranking for s in steps] == [1, 2, 2]
    assert _names(merge_step_tools(_hits("a", "b"), steps, 4).hits) == ["a", "z", "b"]  # room
    assert _names(merge_step_tools(_hits("a", "b", "c"), [], 2).hits) == ["a", "b"]


def _ranked(text: str, *scored: tuple[str, float], fits: bool = True) -> StepResult:
    hits = [
        ToolHit(rank, name, "misc", score, Signals(None, None, [], 0.0, {}, [], 0.0))
        for rank, (name, score) in enumerate(scored, start=1)
    ]
    return StepResult(Step(text, 0, len(text), "", None), hits, fits, "")


def _whole(*scored: tuple[str, float]) -> list[ToolHit]:
    return _ranked("", *scored).results


def test_a_request_of_several_needs_leads_with_the_best_step_when_no_step_ranks_the_top_first() -> (
    None
):
    # "book a flight, find a hotel, check the weather": the whole request's best matched words
    # of every need and is no step's best; the flight step's best outscores it
    whole = _whole(("travel_insurance", 0.48), ("flights", 0.45), ("hotels", 0.40), ("x", 0.3))
    steps = [
        _ranked("book a flight", ("flights", 0.61), ("airports", 0.50)),
        _ranked("find a hotel", ("hotels", 0.58), ("rentals", 0.41)),
        _ranked("check the weather", ("weather", 0.55), ("climate", 0.44)),
    ]
    merged, how = merge_step_tools(whole, steps, 9, multi_need=True)
    assert _names(merged) == [
        "flights",  # step 1's best leads: 0.61 > 0.48
        "travel_insurance",
        "hotels",
        "weather",
        # then turns: the whole request's next tool not placed, each step's second …
        "x",
        "airports",
        "rentals",
        "climate",
    ]
    assert [h.step_mark for h in merged] == [
        "step 1's best",
        "",
        "step 2's best",
        "step 3's best",
        "",
        "step 1's #2",
        "step 2's #2",
        "step 3's #2",
    ]
    assert merged[0].signals is whole[1].signals  # the whole request ranked it: its signals
    assert how.startswith(
        "step 1's best first: flights scores 0.610 for its step, above the whole request's "
        "best travel_insurance (0.480), which is no fitting step's best (3 of 3 steps fit)"
    )
    assert how.endswith(
        "then the whole request's ranking and the fitting steps' take turns (a request of 3 "
        "steps or more)"
    )
    assert [s.in_ranking for s in steps] == [1, 3, 4]
    # the canonical pipeline keeps the head merge
    assert _names(merge_step_tools(whole, steps, 4).hits) == [
        "travel_insurance",
        "flights",
        "hotels",
        "weather",
    ]


@pytest.mark.parametrize(
    ("best", "hotel_fits", "top_is_a_step_best", "leads"),
    [
        (0.61, True, False, "flights"),
        (0.47, True, False, "travel_insurance"),  # no step's best outscores the top
        (0.61, False, False, "travel_insurance"),  # two steps of three fit: not several needs
        (0.61, True, True, "travel_insurance"),  # the top is the weather step's best
    ],
)
def test_a_step_leads_only_when_several_needs_fit_and_it_outscores_a_top_no_step_ranks_first(
    best: float, hotel_fits: bool, top_is_a_step_best: bool, leads: str
) -> None:
    whole = _whole(("travel_insurance", 0.48), ("flights", 0.45))
    weather = ("travel_insurance", best - 0.1) if top_is_a_step_best else ("weather", best - 0.1)
    steps = [
        _ranked("book a flight", ("flights", best)),
        _ranked("find a hotel", ("hotels", best - 0.05), fits=hotel_fits),
        _ranked("check the weather", weather),
    ]
    assert merge_step_tools(whole, steps, 5, multi_need=True).hits[0].tool_name == leads


def test_two_steps_keep_the_head_merge_even_for_several_needs() -> None:
    whole = _whole(("a", 0.4), ("b", 0.3), ("c", 0.2))
    steps = [_ranked("one", ("s1", 0.9), ("s1b", 0.8)), _ranked("two", ("s2", 0.9), ("s2b", 0.8))]
    merged, how = merge_step_tools(whole, steps, 5, multi_need=True)
    assert _names(merged) == ["a", "s1", "s2", "b", "c"]
    assert how.endswith("then the rest of the whole request's ranking")
