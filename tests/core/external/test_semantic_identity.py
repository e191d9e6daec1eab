"""semantic-router's own routing beside Routescope's reading of the same saved file: the same
route for every prompt of a suite, and the same confidence to the last bit (identical
decisions, not similar ones) — uncalibrated, platt and isotonic, every aggregation, with
route and router thresholds. semantic-router runs with Routescope's shipped model as a custom
encoder (its own encoders download models)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

semantic_router = pytest.importorskip("semantic_router")

import semantic_router.config as sr_config  # noqa: E402
from semantic_router import IndexedRouter, Route, load_router  # noqa: E402
from semantic_router.encoders import DenseEncoder  # noqa: E402
from semantic_router.schema import EncoderType  # noqa: E402

from routescope.external import load_routers, open_router  # noqa: E402
from routescope.toolsearch import MiniLMOnnx  # noqa: E402

_MODEL: list[MiniLMOnnx] = []


def _model() -> MiniLMOnnx:
    if not _MODEL:
        _MODEL.append(MiniLMOnnx())
    return _MODEL[0]


class RoutescopeEncoder(DenseEncoder):
    name: str = "sentence-transformers/all-MiniLM-L6-v2"
    type: str = "huggingface"

    def __call__(self, docs: list[Any]) -> list[list[float]]:
        return _model().embed([str(d) for d in docs]).tolist()  # type: ignore[no-any-return]


ROUTES = [
    Route(
        name="billing",
        utterances=[
            "I was charged twice this month",
            "how do I update my credit card",
            "can I get a refund for my subscription",
            "why is my invoice higher than usual",
            "cancel my paid plan",
            "cancel my paid plan",  # a repeated utterance is stored once
        ],
    ),
    Route(
        name="outage",
        utterances=[
            "the site is down",
            "I can't log in, the page times out",
            "your API returns 503 errors",
            "the dashboard won't load",
        ],
        confidence_threshold=0.42,
    ),
    Route(
        name="how_to",
        utterances=[
            "how do I export my data to CSV",
            "where do I change my password",
            "how to invite a teammate",
            "can I set up two-factor authentication",
        ],
    ),
    Route(name="chitchat", utterances=["hello there", "thanks, that helped", "good morning"]),
    Route(name="empty", utterances=[]),  # not in the index at all
]
TRAIN = [
    ("my card got billed two times", "billing"),
    ("please refund last month", "billing"),
    ("the app shows a 502 gateway error", "outage"),
    ("nothing loads since this morning", "outage"),
    ("how can I add a colleague to my workspace", "how_to"),
    ("where is the CSV export", "how_to"),
    ("hi!", "chitchat"),
    ("what is the capital of Peru", None),
    ("write me a poem about the sea", None),
]
SUITE = [
    "I think you billed me twice",
    "refund please",
    "why did my invoice go up",
    "update payment method",
    "is the service down for everyone",
    "503 again on the API",
    "login page is timing out",
    "the dashboard is blank",
    "how do I export to csv",
    "reset my password",
    "add a teammate to the project",
    "turn on 2FA",
    "hello",
    "thank you so much",
    "good evening",
    "what's the weather on mars",
    "tell me a joke",
    "the invoice page won't load",
    "how do I cancel, the site is down",
    "charge me for the pro plan",
    "who won the game last night",
    "is there an API for exports",
    "",  # replaced below: semantic-router routes an empty text too, Routescope refuses it
]
SUITE = [p for p in SUITE if p]
CONFIGS = [
    {"aggregation": "mean", "top_k": 5, "confidence_threshold": None, "fit": None},
    {"aggregation": "mean", "top_k": 5, "confidence_threshold": 0.5, "fit": None},
    {"aggregation": "max", "top_k": 3, "confidence_threshold": 0.45, "fit": None},
    {"aggregation": "sum", "top_k": 4, "confidence_threshold": 0.6, "fit": None},
    {"aggregation": "mean", "top_k": 5, "confidence_threshold": 0.5, "fit": "platt"},
    {"aggregation": "max", "top_k": 5, "confidence_threshold": 0.4, "fit": "isotonic"},
]


@pytest.fixture
def saving(monkeypatch: pytest.MonkeyPatch) -> None:
    # A file names its encoder by type and name; this one is saved as the Hugging Face
    # all-MiniLM-L6-v2 encoder it stands for, and loaded back as itself.
    monkeypatch.setitem(sr_config._ENCODERS, RoutescopeEncoder, EncoderType.HUGGINGFACE)
    monkeypatch.setattr(sr_config, "_build_encoder", lambda _config: RoutescopeEncoder())


@pytest.mark.parametrize("settings", CONFIGS, ids=lambda c: f"{c['aggregation']}-{c['fit']}")
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_the_same_route_and_confidence_for_every_prompt(
    saving: None, tmp_path: Path, settings: dict[str, Any], suffix: str
) -> None:
    built = IndexedRouter(
        encoder=RoutescopeEncoder(),
        routes=ROUTES,
        top_k=settings["top_k"],
        aggregation=settings["aggregation"],
        confidence_threshold=settings["confidence_threshold"],
    )
    if settings["fit"]:
        built.fit([q for q, _ in TRAIN], [r for _, r in TRAIN], method=settings["fit"])
    file = tmp_path / f"router{suffix}"
    (built.to_yaml if suffix == ".yaml" else built.to_json)(file)
    theirs = load_router(file)  # semantic-router's own reading of its own file
    declared = tmp_path / "routers.toml"
    declared.write_text(f'[routers.sr]\nkind = "semantic-router"\nfile = "{file.name}"\n')
    ours = open_router(load_routers(declared), "sr")
    one_by_one = [ours.route(prompt) for prompt in SUITE]
    batched = ours.route_many(SUITE)
    chosen = set()
    for prompt, single, many in zip(SUITE, one_by_one, batched, strict=True):
        choice = theirs(prompt)
        assert single.route == choice.name, prompt
        assert single.score == choice.confidence, prompt
        assert single.calibrated == choice.calibrated
        assert many.route == choice.name, prompt
        chosen.add(choice.name)
    assert len(chosen) >= 3  # the suite reaches several routes, and none


def test_the_evidence_explains_each_route(saving: None, tmp_path: Path) -> None:
    built = IndexedRouter(encoder=RoutescopeEncoder(), routes=ROUTES, confidence_threshold=0.3)
    built.to_yaml(tmp_path / "r.yaml")
    (tmp_path / "routers.toml").write_text(
        '[routers.sr]\nkind = "semantic-router"\nfile = "r.yaml"\n'
    )
    ours = open_router(tmp_path / "routers.toml", "sr")
    decision = ours.route("I think you billed me twice")
    assert decision.route == "billing"
    first, *others = decision.routes
    assert first.route == "billing" and first.passed and first.why_not is None
    assert first.margin == pytest.approx(first.confidence - 0.3)
    assert first.best[0].similarity >= first.best[-1].similarity
    assert first.best[0].in_top_k
    assert all(other.why_not for other in others)
    assert [e.route for e in decision.routes] != []
    assert "empty" not in decision.scores
