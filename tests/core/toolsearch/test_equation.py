"""A ranked tool's score as one equation (`score_equation`), shared by the CLI and the window."""

from __future__ import annotations

import subprocess
import sys

from routescope.toolsearch import KeywordSignal, Signals, ToolHit, score_equation
from routescope.toolsearch._models import RrfTerm, VectorSignal


def _hit(signals: Signals) -> ToolHit:
    return ToolHit(
        rank=1, tool_name="docker.logs", category="docker", score=signals.final, signals=signals
    )


def test_a_weighted_hit_reads_as_weight_times_signal_plus_boosts() -> None:
    signals = Signals(
        keyword=KeywordSignal(45.0, 1, {}, {}, evidence=0.62),
        vector=VectorSignal(0.688, 1),
        rrf=[],
        fused=0.671,
        boosts={"metadata_alignment_boost": 0.03, "file_discovery_boost": 0.0},
        boost_terms=[],
        final=0.701,
        shares={"keyword": 0.155, "vector": 0.516, "metadata_alignment_boost": 0.03},
        fusion="weighted",
        weights={"vector": 0.75, "keyword": 0.25},
    )
    assert score_equation(_hit(signals)) == "0.701 = 0.75·cos 0.688 + 0.25·kw 0.62 + align 0.030"


def test_without_weights_a_share_is_named_and_nothing_is_zero() -> None:
    signals = Signals(
        None, VectorSignal(0.5, 2), [], 0.35, {}, [], 0.35, {"vector": 0.35}, "weighted"
    )
    assert score_equation(_hit(signals)) == "0.350 = vector 0.350"
    empty = Signals(None, None, [], 0.0, {}, [], 0.0, {}, "weighted")
    assert score_equation(_hit(empty)) == "0.000 = 0"


def test_a_canonical_hit_reads_as_its_reciprocal_ranks() -> None:
    rrf = [RrfTerm("keyword", 4, 60, 1 / 64), RrfTerm("vector", 1, 60, 1 / 61)]
    final = 1 / 64 + 1 / 61 + 0.01
    signals = Signals(None, None, rrf, final - 0.01, {"file_discovery_boost": 0.01}, [], final)
    assert score_equation(_hit(signals)) == "0.0420 = kw 1/(60+4) + cos 1/(60+1) + files 0.0100"


def test_the_equation_imports_neither_numpy_nor_the_engine() -> None:
    code = (
        "import sys, routescope.toolsearch as t; t.score_equation; "
        "print(any(m in sys.modules "
        "for m in ('numpy', 'tantivy', 'routescope.toolsearch._fusion')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
