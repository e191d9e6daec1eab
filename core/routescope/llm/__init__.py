"""Models that answer in JSON: an OpenAI-compatible chat-completions client (OpenAI, Ollama,
vLLM, llama.cpp) that degrades from Structured Outputs to JSON mode to prompted JSON, parses
replies robustly (fences, `<think>` blocks, prose) and validates them with pydantic — and never
raises for a model's or a provider's failure.

Imports nothing from the routers, research, regress or the CLI: only the shared modules.
"""

from ._answer import JSON_MODES, JsonAnswer, JsonMode, parse_json_answer
from ._client import ChatClient, ChatOptions, ChatSettings, OpenAIChat
from ._extract import Score, extract_json_object, strip_reasoning
from ._schema import strict_json_schema
from ._scripted import ScriptedChat

__all__ = [
    "JSON_MODES",
    "ChatClient",
    "ChatOptions",
    "ChatSettings",
    "JsonAnswer",
    "JsonMode",
    "OpenAIChat",
    "Score",
    "ScriptedChat",
    "extract_json_object",
    "parse_json_answer",
    "strict_json_schema",
    "strip_reasoning",
]
