"""Grounding derived from the goal (issue 27 §1): time-sensitive, local and price goals need
external grounding; a setting overrides it; weak evidence on such a goal escalates, and the
verdict says which applied and why."""

import asyncio
import json
from pathlib import Path

import pytest

from routescope.research import (
    GROUNDING_MODES,
    OfflineSearch,
    ResearchSettings,
    derive_grounding,
    report_markdown,
    research_report_data,
    run_research,
)
from routescope.research._offline import OfflineDocument
from tests._support import routescope_cli

# (goal, required, flags)
GOALS = [
    ("cheapest ferry from Helsinki to Tallinn next week", True, {"purchase", "time_sensitive"}),
    ("is the pharmacy on Main Street open on Sunday", True, {"local", "time_sensitive"}),
    ("today's price of gold per ounce", True, {"time_sensitive", "purchase"}),
    ("Best ramen near Denver, Colorado open tonight", True, {"local", "time_sensitive"}),
    ("weather forecast for Lisbon tomorrow", True, {"time_sensitive"}),
    ("Will it be cold in Oslo", True, {"time_sensitive"}),  # the weather asked about
    ("is it going to hail in Denver", True, {"time_sensitive"}),
    ("get me a taxi in 5 minutes", True, {"time_sensitive"}),
    ("keep a cold cache of hot keys in Python", False, set()),  # hot and cold things, no weather
    ("expire a redis key in 5 minutes with the Python API", False, set()),  # a span in code
    ("how much does a flight to Tokyo cost", True, {"purchase"}),
    ("latest Python release", True, {"time_sensitive"}),
    ("find the name of the computer I am running on", False, set()),
    ("store a python dictionary on disk and reopen it like a dict later", False, set()),
    ("read the latest line of a log file", False, set()),  # "latest" of a file, not of time
    ("get the current working directory in Python", False, set()),
    ("who won the 1998 world cup", False, set()),  # a year of history
    ("History of jazz music", False, set()),
]


@pytest.mark.parametrize(("goal", "required", "flags"), GOALS, ids=[g[0] for g in GOALS])
def test_grounding_is_derived_from_the_goal(goal: str, required: bool, flags: set[str]) -> None:
    grounding = derive_grounding(goal)
    assert grounding.required is required, grounding.cues
    assert grounding.source == "goal"
    assert flags <= set(grounding.flags)
    assert bool(grounding.flags) is required
    for cue in grounding.cues:  # every cue is the goal's words, where it says
        assert goal[cue.start : cue.end] == cue.text
    if required:
        assert grounding.reason.startswith("grounding required: the goal is")
        assert "no model prior" in grounding.reason
        assert any(f"'{cue.text}'" in grounding.reason for cue in grounding.cues)
    else:
        assert grounding.reason.startswith("grounding not required")


def test_a_setting_overrides_the_goal_and_says_what_the_goal_alone_would_do() -> None:
    forced = derive_grounding("History of jazz music", override=True)
    assert (forced.required, forced.source) == (True, "setting")
    assert forced.reason == "grounding required: set by you (the goal alone would not need it)"
    waived = derive_grounding("today's price of gold per ounce", override=False)
    assert (waived.required, waived.source) == (False, "setting")
    assert waived.reason.startswith("grounding not required: set by you (the goal alone would")
    assert "today's" in waived.reason and set(waived.flags) == {"time_sensitive", "purchase"}
    agreed = derive_grounding("today's price of gold per ounce", override=True)
    assert agreed.reason == "grounding required: set by you"
    assert agreed.label == "grounding required (set by you)"
    assert (
        derive_grounding("History of jazz music").label == "grounding not required (from the goal)"
    )


CORPUS = (
    OfflineDocument(
        url="https://docs.python.org/3/library/socket.html",
        title="socket — Low-level networking interface",
        body="gethostname() returns the host name of the machine the interpreter runs on. "
        "A socket connects to a server and sends bytes.",
        kind="stdlib",
    ),
    OfflineDocument(
        url="https://docs.python.org/3/library/colorsys.html",
        title="colorsys — Conversions between color systems",
        body="Named colours such as gold and silver convert between RGB and HSV.",
        kind="stdlib",
    ),
    OfflineDocument(
        url="https://docs.python.org/3/library/json.html",
        title="json — JSON encoder and decoder",
        body="Serialize a Python object to a JSON formatted string with dumps.",
        kind="stdlib",
    ),
)


def research(tmp_path: Path, goal: str, **settings: object) -> object:
    search = OfflineSearch(tmp_path, documents=CORPUS)
    return asyncio.run(
        run_research(goal, ResearchSettings(**settings), offline=lambda: search)  # type: ignore[arg-type]
    )


def test_weak_evidence_on_a_grounding_goal_escalates_and_says_why(tmp_path: Path) -> None:
    result = research(tmp_path, "today's price of gold per ounce")
    step = result.next_step  # type: ignore[attr-defined]
    assert step.outcome == "escalate" and step.rule in {"grounding_hopeless", "grounding_weak"}
    assert "grounding required: the goal is time-sensitive" in step.reason
    assert step.grounding == result.grounding.reason  # type: ignore[attr-defined]
    data = research_report_data(result)  # type: ignore[arg-type]
    assert data["grounding"]["required"] is True and data["grounding"]["source"] == "goal"
    assert {c["text"] for c in data["grounding"]["cues"]} >= {"today's", "price"}
    text = report_markdown(result)  # type: ignore[arg-type]
    assert "- grounding: grounding required: the goal is" in text
    quoted = f" ({step.grounding})"  # the next step does not say it again in brackets
    assert quoted not in text and quoted not in step.reason_without_grounding()
    assert step.reason_without_grounding() == step.reason.replace(quoted, "")


def test_the_same_weak_evidence_on_a_general_goal_proceeds_warned(tmp_path: Path) -> None:
    result = research(tmp_path, "gold ounce")
    step = result.next_step  # type: ignore[attr-defined]
    assert step.outcome == "proceed" and step.rule == "research_done"
    assert "relying more on the model prior" in step.reason
    assert step.warnings == ["web research weak; relying more on model prior"]
    assert result.grounding.reason.startswith("grounding not required")  # type: ignore[attr-defined]


def test_the_settings_field_overrides_the_goal(tmp_path: Path) -> None:
    waived = research(tmp_path, "today's price of gold per ounce", grounding="not_required")
    assert waived.next_step.outcome == "proceed"  # type: ignore[attr-defined]
    assert "set by you" in waived.grounding.reason  # type: ignore[attr-defined]
    forced = research(tmp_path, "gold ounce", grounding="required")
    assert forced.next_step.outcome == "escalate"  # type: ignore[attr-defined]


def test_the_settings_field_round_trips_and_refuses_an_unknown_mode() -> None:
    assert GROUNDING_MODES == ("auto", "required", "not_required")
    settings = ResearchSettings(grounding="required")
    assert ResearchSettings.from_json(settings.to_json()) == settings
    assert ResearchSettings.from_json("{}").grounding == "auto"
    with pytest.raises(ValueError, match="unknown grounding 'maybe'"):
        ResearchSettings.from_json(json.dumps({"grounding": "maybe"}))
    with pytest.raises(ValueError, match="must be a string"):
        ResearchSettings.from_json(json.dumps({"grounding": True}))


@pytest.mark.parametrize(
    ("flag", "required", "source"),
    [
        ([], True, "goal"),
        (["--require-grounding"], True, "setting"),
        (["--no-require-grounding"], False, "setting"),
    ],
)
def test_the_command_line_flag(flag: list[str], required: bool, source: str) -> None:
    done = routescope_cli("research", "--json", *flag, "today's price of gold per ounce")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["grounding"]["required"], data["grounding"]["source"]) == (required, source)
    outcome = data["next_step"]["outcome"]
    assert (outcome == "escalate") if required else (outcome == "proceed")
