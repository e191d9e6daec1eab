"""A ranked tool's score as one equation, the same in every front end (the command line prints
it under each hit, the window under each row of the ranking):

    weighted:   0.702 = 0.75·cos 0.688 + 0.25·kw 0.62 + align 0.030
    canonical:  0.0325 = kw 1/(60+1) + cos 1/(60+2) + align 0.0005

Plain data in, text out: importing it costs nothing (no numpy, no Tantivy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._models import Signals, ToolHit

__all__ = ["boost_label", "score_equation"]

_BOOST_LABELS = {"metadata_alignment_boost": "align", "file_discovery_boost": "files"}


def boost_label(name: str) -> str:
    """A boost's short name in an equation: "align", "files" (another boost: its name)."""
    return _BOOST_LABELS.get(name, name.removesuffix("_boost"))


def score_equation(hit: ToolHit) -> str:
    """The hit's score as the sum of what each signal and boost adds (`Signals.shares`), each
    signal with its weight and value: "0.702 = 0.75·cos 0.688 + 0.25·kw 0.62 + align 0.030"
    (weighted) or "0.0325 = kw 1/(60+1) + cos 1/(60+2) + align 0.0005" (canonical, the RRF
    terms). Terms that add nothing are left out; "0" when none adds anything."""
    s = hit.signals
    weighted = s.fusion == "weighted"
    decimals = 3 if weighted else 4
    terms = _weighted_terms(s) if weighted else _rrf_terms(s)
    terms += [
        f"{boost_label(name)} {value:.{decimals}f}" for name, value in s.boosts.items() if value
    ]
    return f"{hit.score:.{decimals}f} = {' + '.join(terms) or '0'}"


def _weighted_terms(s: Signals) -> list[str]:
    """ "0.75·cos 0.688", "0.25·kw 0.62": weight · signal, or the share alone ("vector 0.516")
    when the weight is not known."""
    terms: list[str] = []
    for name, label, value, decimals in (
        ("vector", "cos", s.vector.similarity if s.vector else None, 3),
        ("keyword", "kw", s.keyword.evidence if s.keyword else None, 2),
    ):
        share = s.shares.get(name, 0.0)
        if not share:
            continue
        weight = s.weights.get(name)
        if weight is None or value is None:
            terms.append(f"{name} {share:.3f}")
        else:
            terms.append(f"{weight:g}·{label} {value:.{decimals}f}")
    return terms


def _rrf_terms(s: Signals) -> list[str]:
    """ "kw 1/(60+1)": each list's reciprocal rank, in the order the fusion added them."""
    return [f"{'kw' if t.source == 'keyword' else 'cos'} 1/({t.k}+{t.rank})" for t in s.rrf]
