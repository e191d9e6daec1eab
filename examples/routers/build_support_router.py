"""How examples/routers/support-router.yaml was made: with semantic-router itself (1.x), its
encoder being Routescope's shipped all-MiniLM-L6-v2 model (semantic-router's own encoders
download models), saved with the library's `to_yaml` as a Hugging Face all-MiniLM-L6-v2 router.

    python examples/routers/build_support_router.py examples/routers/support-router.yaml

Needs `pip install semantic-router` (Routescope itself reads the file without it)."""

from __future__ import annotations

import sys

import semantic_router.config as config
from semantic_router import IndexedRouter, Route
from semantic_router.encoders import DenseEncoder
from semantic_router.schema import EncoderType

from routescope.toolsearch import MiniLMOnnx

_MODEL = MiniLMOnnx()


class RoutescopeEncoder(DenseEncoder):
    """semantic-router's encoder interface over Routescope's shipped model."""

    name: str = "sentence-transformers/all-MiniLM-L6-v2"
    type: str = "huggingface"

    def __call__(self, docs: list[object]) -> list[list[float]]:
        return _MODEL.embed([str(d) for d in docs]).tolist()  # type: ignore[no-any-return]


# A file names its encoder by type and model; this one is the model a Hugging Face encoder of
# that name runs, so it is saved as one.
config._ENCODERS[RoutescopeEncoder] = EncoderType.HUGGINGFACE

ROUTES = [
    Route(
        name="billing",
        utterances=[
            "I was charged twice this month",
            "how do I update my credit card",
            "can I get a refund for my subscription",
            "why is my invoice higher than usual",
            "cancel my paid plan",
        ],
    ),
    Route(
        name="outage",
        utterances=[
            "the site is down",
            "I can't log in, the page times out",
            "your API returns 503 errors",
            "the dashboard won't load",
            "is there an outage right now",
        ],
    ),
    Route(
        name="how_to",
        utterances=[
            "how do I export my data to CSV",
            "where do I change my password",
            "how to invite a teammate",
            "can I set up two-factor authentication",
            "how do I connect the Slack integration",
        ],
        confidence_threshold=0.55,
    ),
    Route(
        name="chitchat",
        utterances=["hello there", "thanks, that helped", "how are you today", "good morning"],
    ),
]
HELD_OUT = [
    ("my card got billed two times", "billing"),
    ("please refund last month", "billing"),
    ("the app shows a 502 gateway error", "outage"),
    ("nothing loads since this morning", "outage"),
    ("how can I add a colleague to my workspace", "how_to"),
    ("where is the CSV export", "how_to"),
    ("hi!", "chitchat"),
    ("cheers, thank you", "chitchat"),
    ("what is the capital of Peru", None),
    ("write me a poem about the sea", None),
]


def build() -> IndexedRouter:
    router = IndexedRouter(encoder=RoutescopeEncoder(), routes=ROUTES, confidence_threshold=0.5)
    router.fit([q for q, _ in HELD_OUT], [r for _, r in HELD_OUT], method="platt")
    return router


if __name__ == "__main__":
    build().to_yaml(sys.argv[1] if len(sys.argv) > 1 else "support-router.yaml")
