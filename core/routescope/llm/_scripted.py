"""A `ChatClient` that answers from a function instead of a server: for tests of whatever drives
a model, and for demos. Its replies go through the same parser as a real model's."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from pydantic import BaseModel

from ._answer import JsonAnswer, parse_json_answer

__all__ = ["ScriptedChat"]

M = TypeVar("M", bound=BaseModel)

Reply = Callable[[str, str, str], str | JsonAnswer[Any]]
"""`(name, system, user)` → the model's reply text, or a finished (failed) answer."""


class ScriptedChat:
    """Answers `complete_json` with `reply(name, system, user)`; every call is kept in `calls`.
    A reply that is a `JsonAnswer` (say, `JsonAnswer(None, "timeout")`) is returned as is, so a
    script can play a provider failure."""

    def __init__(self, reply: Reply) -> None:
        self._reply = reply
        self.calls: list[tuple[str, str, str]] = []

    async def complete_json(
        self, system: str, user: str, schema: type[M], *, name: str
    ) -> JsonAnswer[M]:
        started = time.monotonic()
        self.calls.append((name, system, user))
        reply = self._reply(name, system, user)
        if isinstance(reply, JsonAnswer):
            return JsonAnswer(None, reply.error or "malformed", reply.detail, reply.raw, attempts=1)
        answer = parse_json_answer(reply, schema)
        return replace(
            answer, raw=reply, mode="prompted", attempts=1, duration_s=time.monotonic() - started
        )
