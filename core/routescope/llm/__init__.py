"""Models that answer in JSON: an OpenAI-compatible chat-completions client (OpenAI, Ollama,
vLLM, llama.cpp) that degrades from Structured Outputs to JSON mode to prompted JSON, parses
replies robustly (fences, `<think>` blocks, prose) and validates them with pydantic — and never
raises for a model's or a provider's failure.

Imports nothing from the routers, research, regress or the CLI: only the shared modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._answer import JsonAnswer as JsonAnswer
    from ._client import ChatClient as ChatClient
    from ._client import OpenAIChat as OpenAIChat
    from ._extract import Score as Score

__getattr__, __dir__, __all__ = lazy_face(__name__)
