"""The bundled embedder (`routescope._embedding`, shared with research), as the tool search
names it."""

from __future__ import annotations

from .._embedding import MiniLMOnnx as MiniLMOnnx

__all__ = ["MiniLMOnnx"]
