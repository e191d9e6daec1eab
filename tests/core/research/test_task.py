"""The task router: the model or the heuristic picks chat / browse / research and the goal; the
searches always come from the strategy pipeline."""

import asyncio
import datetime as dt
import json

from routescope.llm import JsonAnswer, ScriptedChat
from routescope.research._task import classify, classify_heuristic

TODAY = dt.date(2026, 2, 5)


def test_the_heuristic_routes_and_the_strategy_router_plans() -> None:
    task = classify_heuristic("Best ramen near Denver, Colorado open tonight", today=TODAY)
    assert (task.route, task.source, task.strategy) == ("browse", "heuristic", "local")
    assert task.actions and all("site:" not in a.query for a in task.actions)
    chat = classify_heuristic("write me a haiku about autumn", today=TODAY)
    assert (chat.route, chat.actions) == ("chat", [])


def test_model_actions_are_discarded_and_openclaw_stays_gated() -> None:
    reply = json.dumps(
        {
            "route": "browse",
            "user_goal": "How do I install OpenClaw on my server?",
            "reason": "docs",
            "actions": [{"tool": "google_search", "query": "site:evil.example OpenClaw"}],
        }
    )
    task = asyncio.run(
        classify("install openclaw?", llm=ScriptedChat(lambda *_: reply), today=TODAY)
    )
    assert task.source == "llm" and task.strategy == "tech"
    assert [a.query for a in task.actions][:2] == [
        "site:docs.openclaw.ai OpenClaw",
        "site:github.com/openclaw OpenClaw",
    ]
    assert all("evil.example" not in a.query for a in task.actions)


def test_a_failing_model_falls_back_to_the_heuristic() -> None:
    failing = ScriptedChat(lambda *_: JsonAnswer(None, "timeout"))
    task = asyncio.run(classify("Latest FastAPI release notes", llm=failing, today=TODAY))
    assert task.source == "heuristic (model answer not used: timeout)"
    assert task.route == "browse"
    assert any("as of February 5, 2026" in a.query for a in task.actions)
