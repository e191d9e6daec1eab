"""The tool search's settings drawer: the strategy, the fusion and what tunes it (RRF k for
canonical, the two weights for weighted), the field boosts and the fit threshold (the fusion's
calibrated one until the analyst moves it). The fusions' formulas come from the core."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast, get_args

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QPushButton, QSlider, QWidget

import routescope

from ._widgets import bounded_tip, row_of

if TYPE_CHECKING:
    from routescope.toolsearch import Fusion, SearchSettings, SearchStrategy

__all__ = ["SearchControls"]

_BOOST_STEPS = 10
"""Slider steps per unit of boost (a slider moves a boost by 0.1)."""
_MIN_BOOST = 0.01
"""A boost of zero would drop the field from the query: the lowest slider stop is this."""
_WEIGHT_STEPS = 20
"""Slider steps per unit of a fusion weight (a slider moves a weight by 0.05)."""
_THRESHOLD_STEPS = 100
"""Slider steps per unit of the fit threshold (0.01 a step)."""
_FUSION_INTRO = {
    "weighted": "weighted (the default, chosen by measurement)",
    "canonical": "canonical: the seed's pipeline exactly",
}
_THRESHOLD_TIP = (
    "Below this final score the best tool does not fit, and the result says "
    "“no tool fits” (0: off). Scores are on the fusion's scale: weighted about 0–1, "
    "canonical (RRF) about 0–0.05. Weighted: above it, the fit model decides (does the "
    "request ask for a tool at all, and how well does the best tool match it)."
)


def _fusion_tip(name: str) -> str:
    """A fusion in one paragraph: what it is, then its formula as the core says it."""
    settings = routescope.toolsearch.SearchSettings(fusion=cast("Fusion", name))
    return f"{_FUSION_INTRO.get(name, name)}: {settings.formula()}"


class SearchControls(QWidget):
    """The controls of the search's settings (the view keeps them in a drawer, closed).

    Attributes:
        settings: the `SearchSettings` the controls describe; canonical: the canonical boosts.

    Signals:
        settings_changed: emitted with the `SearchSettings` the analyst moved the controls to.
    """

    settings_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        toolsearch = routescope.toolsearch
        self.canonical = toolsearch.default_boosts()
        self.settings = toolsearch.SearchSettings()
        self._strategies: tuple[SearchStrategy, ...] = get_args(toolsearch.SearchStrategy)
        self.strategy = QComboBox()
        self.strategy.addItems(list(self._strategies))
        self.strategy.currentTextChanged.connect(self._controls_moved)
        self._build_fusion_controls(toolsearch.FUSIONS)
        self.threshold = self._slider(0, _THRESHOLD_STEPS)
        self.threshold.setToolTip(_THRESHOLD_TIP)
        self.threshold_label = QLabel("")
        self.calibrated_button = QPushButton("Calibrated")
        self.calibrated_button.setToolTip(
            "the fusion's threshold measured by make eval: weighted, the score floor chosen "
            "with the fit model (at most 3 % of each catalog's answerable requests refused); "
            "canonical, 1 % of the answerable BFCL questions score below it"
        )
        self.calibrated_button.clicked.connect(self._calibrated_threshold)
        self.threshold_label.setMinimumWidth(30)
        self.boosts = {name: self._slider(0, 10 * _BOOST_STEPS) for name in self.canonical}
        self.boost_labels = {name: QLabel("") for name in self.canonical}
        self.reset_button = QPushButton("Canonical boosts")
        self.reset_button.setToolTip(
            "the boosts of the canonical schema: "
            + ", ".join(f"{name} {boost:g}" for name, boost in self.canonical.items())
        )
        self.reset_button.clicked.connect(self._reset_boosts)
        self._lay_out()
        self.show_settings(self.settings)

    def _build_fusion_controls(self, fusions: Sequence[str]) -> None:
        """The fusion, and what tunes it: RRF k for canonical, the two weights for weighted."""
        # FUSIONS is the Literal's values, typed as plain strings.
        self._fusions = cast("tuple[Fusion, ...]", tuple(fusions))
        self.fusion = QComboBox()
        self.fusion.addItems(list(self._fusions))
        self.fusion_tips = False
        """Whether the fusion controls have their tips: written when the drawer first opens,
        since the formulas come from the fusion module, which imports numpy and Tantivy."""
        self.fusion.currentTextChanged.connect(self._controls_moved)
        self.rrf = self._slider(1, 200)
        self.rrf_label = QLabel("")
        self.vector_weight = self._slider(0, _WEIGHT_STEPS)
        self.keyword_weight = self._slider(0, _WEIGHT_STEPS)
        self.weight_labels = {"vector": QLabel(""), "keyword": QLabel("")}
        self.rrf_box = row_of(QLabel("RRF k"), (self.rrf, 1), self.rrf_label)
        self.rrf_box.setToolTip("k of reciprocal-rank fusion: 1/(k + rank); canonical only")
        self.weights_box = row_of(
            QLabel("vector"),
            (self.vector_weight, 1),
            self.weight_labels["vector"],
            QLabel("keyword"),
            (self.keyword_weight, 1),
            self.weight_labels["keyword"],
        )

    def show_fusion_tips(self) -> None:
        """The fusions' formulas as the core says them, on the controls that tune them."""
        self.fusion_tips = True
        for number, name in enumerate(self._fusions):
            self.fusion.setItemData(
                number, bounded_tip(_fusion_tip(name)), Qt.ItemDataRole.ToolTipRole
            )
        self.fusion.setToolTip(
            bounded_tip("\n\n".join(_fusion_tip(name) for name in self._fusions))
        )
        self._update_labels()

    def _slider(self, low: int, high: int) -> QSlider:
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(low, high)
        slider.valueChanged.connect(self._controls_moved)
        return slider

    def _lay_out(self) -> None:
        controls = QFormLayout()
        controls.addRow(
            row_of(
                QLabel("strategy"),
                self.strategy,
                QLabel("fusion"),
                self.fusion,
                (self.rrf_box, 1),
                (self.weights_box, 1),
            )
        )
        field_boosts: list[QWidget | tuple[QWidget, int]] = []
        for name, slider in self.boosts.items():
            field_boosts += [QLabel(name), (slider, 1), self.boost_labels[name]]
        controls.addRow(row_of(*field_boosts, self.reset_button))
        fit_label = QLabel("no tool fits below")
        fit_label.setToolTip(_THRESHOLD_TIP)
        self.threshold.setMinimumWidth(120)
        controls.addRow(
            row_of(fit_label, (self.threshold, 1), self.threshold_label, self.calibrated_button)
        )
        self.setLayout(controls)

    def show_settings(self, settings: SearchSettings) -> None:
        """Move the controls to `settings` (without asking for them again)."""
        self.settings = settings
        boosts = settings.boosts or self.canonical
        controls = [
            self.strategy,
            self.fusion,
            self.rrf,
            self.vector_weight,
            self.keyword_weight,
            self.threshold,
            *self.boosts.values(),
        ]
        for control in controls:
            control.blockSignals(True)
        self.strategy.setCurrentText(settings.strategy)
        self.fusion.setCurrentText(settings.fusion)
        self.rrf.setValue(settings.rrf_k)
        self.vector_weight.setValue(round(settings.vector_weight * _WEIGHT_STEPS))
        self.keyword_weight.setValue(round(settings.keyword_weight * _WEIGHT_STEPS))
        self.threshold.setValue(round(self._effective_threshold(settings) * _THRESHOLD_STEPS))
        for name, slider in self.boosts.items():
            slider.setValue(round(boosts.get(name, self.canonical[name]) * _BOOST_STEPS))
        for control in controls:
            control.blockSignals(False)
        self._update_labels()

    def _reset_boosts(self) -> None:
        self.show_settings(dataclasses.replace(self.settings, boosts=None))
        self.settings_changed.emit(self.settings)

    def _controls_moved(self) -> None:
        boosts = {
            name: max(slider.value() / _BOOST_STEPS, _MIN_BOOST)
            for name, slider in self.boosts.items()
        }
        self.settings = dataclasses.replace(
            self.settings,
            strategy=self._strategies[self.strategy.currentIndex()],
            fusion=self._fusions[self.fusion.currentIndex()],
            rrf_k=self.rrf.value(),
            vector_weight=self.vector_weight.value() / _WEIGHT_STEPS,
            keyword_weight=self.keyword_weight.value() / _WEIGHT_STEPS,
            fit_threshold=self._chosen_threshold(),
            boosts=None if boosts == self.canonical else boosts,
        )
        if self.settings.fit_threshold is None:  # the calibrated value of the fusion chosen
            self.show_settings(self.settings)
        self._update_labels()
        self.settings_changed.emit(self.settings)

    @staticmethod
    def _effective_threshold(settings: SearchSettings) -> float:
        if settings.fit_threshold is not None:
            return settings.fit_threshold
        return routescope.toolsearch.CALIBRATED_FIT_THRESHOLDS[settings.fusion]

    def _chosen_threshold(self) -> float | None:
        """None (calibrated) until the analyst moves the threshold slider away from it."""
        value = self.threshold.value()
        if self.settings.fit_threshold is None and value == round(
            self._effective_threshold(self.settings) * _THRESHOLD_STEPS
        ):
            return None
        return value / _THRESHOLD_STEPS

    def _calibrated_threshold(self) -> None:
        self.show_settings(dataclasses.replace(self.settings, fit_threshold=None))
        self.settings_changed.emit(self.settings)

    def _update_labels(self) -> None:
        """The values beside the sliders, and only the controls the chosen fusion uses."""
        weighted = self.fusion.currentText() == "weighted"
        self.weights_box.setVisible(weighted)
        if weighted and self.fusion_tips:
            self.weights_box.setToolTip(bounded_tip(f"weighted fusion: {self.settings.formula()}"))
        self.rrf_box.setVisible(not weighted)
        self.rrf_label.setText(str(self.rrf.value()))
        self.weight_labels["vector"].setText(f"{self.vector_weight.value() / _WEIGHT_STEPS:.2f}")
        self.weight_labels["keyword"].setText(f"{self.keyword_weight.value() / _WEIGHT_STEPS:.2f}")
        threshold = self.threshold.value()
        label = f"{threshold / _THRESHOLD_STEPS:.2f}" if threshold else "off"
        calibrated = self.settings.fit_threshold is None
        self.threshold_label.setText(f"{label} (calibrated)" if calibrated else label)
        self.calibrated_button.setEnabled(not calibrated)
        for name, slider in self.boosts.items():
            self.boost_labels[name].setText(f"{slider.value() / _BOOST_STEPS:.1f}")
