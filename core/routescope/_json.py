"""One JSON serializer for every result: pydantic models and the hot-path dataclasses alike."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["to_json"]


@functools.cache
def _adapter(kind: Any) -> TypeAdapter[Any]:  # kind: a type, hashable
    from pydantic import TypeAdapter  # only the JSON output of dataclass results needs it

    return TypeAdapter(kind)


def to_json(value: object, kind: Any = None) -> str:
    """`value` as indented JSON text (`kind` names the type of a list, e.g. `list[EvalRow]`)."""
    if isinstance(value, BaseModel):
        return value.model_dump_json(indent=2)
    kind = kind if kind is not None else type(value)
    data: bytes = _adapter(kind).dump_json(value, indent=2)
    return data.decode("utf-8")
