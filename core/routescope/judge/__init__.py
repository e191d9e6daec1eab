"""Judgments: labelled cases (what a correct decision is, per the labelling guide), the metrics
of a rule pack on them, and the pack edits their errors suggest."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face

if TYPE_CHECKING:
    from ._labels import LABEL_KEYS as LABEL_KEYS
    from ._labels import LabelledCase as LabelledCase
    from ._labels import Labels as Labels
    from ._labels import labels_from_mapping as labels_from_mapping
    from ._labels import normal_form as normal_form
    from ._metrics import Confusion as Confusion
    from ._metrics import FlagScore as FlagScore
    from ._metrics import Miss as Miss
    from ._metrics import Scorecard as Scorecard
    from ._metrics import SetScore as SetScore
    from ._metrics import score as score
    from ._metrics import verdicts as verdicts
    from ._outcomes import OutcomeScore as OutcomeScore
    from ._outcomes import OutcomeScorer as OutcomeScorer
    from ._outcomes import decided_value as decided_value
    from ._outcomes import expected_value as expected_value
    from ._outcomes import prediction_of_outcome as prediction_of_outcome
    from ._outcomes import prompt_key as prompt_key
    from ._outcomes import score_outcomes as score_outcomes
    from ._predict import Evidence as Evidence
    from ._predict import Prediction as Prediction
    from ._predict import predict as predict
    from ._predict import predict_strategy as predict_strategy
    from ._predict import prediction_of_inspection as prediction_of_inspection
    from ._read import MAX_SET_BYTES as MAX_SET_BYTES
    from ._read import read_labelled as read_labelled
    from ._routes import NO_ROUTE as NO_ROUTE
    from ._routes import RouteScore as RouteScore
    from ._routes import score_routes as score_routes
    from ._score import predict_all as predict_all
    from ._score import score_set as score_set
    from ._suggest import Effect as Effect
    from ._suggest import PackEdit as PackEdit
    from ._suggest import Suggestion as Suggestion
    from ._suggest import apply_edits as apply_edits
    from ._suggest import suggest as suggest

__getattr__, __dir__, __all__ = lazy_face(__name__)
