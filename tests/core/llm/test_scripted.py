"""`ScriptedChat`: a `ChatClient` without a server, parsing its replies like a real model's."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from routescope.llm import ChatClient, JsonAnswer, Score
from routescope.llm._scripted import ScriptedChat


class Grade(BaseModel):
    relevance: Score
    reasons: str


def test_replies_are_parsed_and_calls_kept() -> None:
    def reply(name: str, system: str, user: str) -> str | JsonAnswer[Any]:
        if user == "down":
            return JsonAnswer(None, "http_503", "HTTP 503: overloaded")
        return '```json\n{"relevance": 1.3, "reasons": "' + name + '"}\n```'

    chat: ChatClient = ScriptedChat(reply)

    async def go() -> list[JsonAnswer[Grade]]:
        return [
            await chat.complete_json("sys", user, Grade, name="grade") for user in ("up", "down")
        ]

    good, failed = asyncio.run(go())
    assert good.value == Grade(relevance=1.0, reasons="grade")
    assert (good.mode, good.attempts) == ("prompted", 1)
    assert (failed.value, failed.error, failed.detail) == (None, "http_503", "HTTP 503: overloaded")
    assert isinstance(chat, ScriptedChat)
    assert chat.calls == [("grade", "sys", "up"), ("grade", "sys", "down")]
