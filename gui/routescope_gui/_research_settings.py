"""The research settings dialog: which search provider and model, their URLs, and the keys.

Keys are never shown: a field shows the masked key in use and where it comes from (the
environment or the key file); a key typed here is stored in the owner-only key file. The
dialog says, as the settings are edited, why they cannot run."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

import routescope

from ._style import css

if TYPE_CHECKING:
    from routescope.research import KeyStore, ResearchSettings

__all__ = ["ResearchSettingsDialog"]

_SEARCH_LABELS = {
    "offline": "Offline: this machine's documentation (no network)",
    "searxng": "SearXNG (your instance, JSON output on)",
    "tavily": "Tavily (API key)",
    "brave": "Brave Search (API key)",
}
_GROUNDING_LABELS = {
    "auto": "From the goal (time-sensitive, local and price goals need it)",
    "required": "Required: escalate unless pages meet the target",
    "not_required": "Not required: weak research proceeds on the model prior, warned",
}
_MODEL_LABELS = {
    "heuristic": "Heuristic (offline, no model)",
    "openai": "OpenAI-compatible (OpenAI, Ollama, vLLM, llama.cpp)",
}


class ResearchSettingsDialog(QDialog):
    """Edits a `ResearchSettings`; `settings()` is the result, `typed_keys()` the keys typed.

    Attributes:
        search, searxng_url, llm, llm_url, model, max_attempts, grounding, allowed_hosts: the
            fields.
        key_fields: one password field per key variable.
        problem: why the settings cannot run ("" when they can).
    """

    def __init__(
        self, settings: ResearchSettings, keys: KeyStore, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Research settings")
        self._store = keys
        research = routescope.research
        self.search = _combo(_SEARCH_LABELS, settings.search)
        self.searxng_url = _line(settings.searxng_url, "http://localhost:8888")
        self.llm = _combo(_MODEL_LABELS, settings.llm)
        self.llm_url = _line(settings.llm_url, "http://localhost:11434/v1")
        self.model = _line(settings.model, "gpt-4o-mini")
        self.max_attempts = QSpinBox(minimum=1, maximum=10, value=settings.max_attempts)
        self.grounding = _combo(_GROUNDING_LABELS, settings.grounding)
        self.allowed_hosts = _line(settings.allowed_hosts, "docs.python.org, stackoverflow.com")
        self.allowed_hosts.setToolTip(
            "the hosts whose result pages research reads over the web, comma-separated (a name "
            "also allows its subdomains); '*' reads any public host. Private, local and cloud "
            "metadata addresses are refused whatever this says."
        )
        self.key_fields: dict[str, QLineEdit] = {}
        self.problem = ""
        self._problem_label = QLabel()
        self._problem_label.setWordWrap(True)
        self._buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self._buttons.accepted.connect(self.accept)
        self._buttons.rejected.connect(self.reject)

        form = QFormLayout()
        form.addRow("Search", self.search)
        form.addRow("SearXNG URL", self.searxng_url)
        form.addRow("Model", self.llm)
        form.addRow("Model URL", self.llm_url)
        form.addRow("Model name", self.model)
        form.addRow("Attempts at most", self.max_attempts)
        form.addRow("Grounding", self.grounding)
        form.addRow("Hosts read (web)", self.allowed_hosts)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self._keys_box(research.KEY_VARIABLES))
        layout.addWidget(self._problem_label)
        layout.addWidget(self._buttons)
        for signal in (
            self.search.currentIndexChanged,
            self.llm.currentIndexChanged,
            self.searxng_url.textChanged,
            self.llm_url.textChanged,
            self.model.textChanged,
            self.allowed_hosts.textChanged,
            *(field.textChanged for field in self.key_fields.values()),
        ):
            signal.connect(self._check)
        self._check()

    def _keys_box(self, variables: dict[str, str]) -> QGroupBox:
        box = QGroupBox("API keys")
        form = QFormLayout(box)
        resolved = self._store.resolve()
        for variable in sorted(set(variables.values())):
            key = resolved[variable]
            field = QLineEdit()
            field.setEchoMode(QLineEdit.EchoMode.Password)
            field.setPlaceholderText(
                f"{key.masked} (from the {key.source})" if key.key else "not set"
            )
            field.setToolTip(
                "a key typed here is stored in a file only you can read; "
                f"{variable} in the environment takes precedence"
            )
            self.key_fields[variable] = field
            form.addRow(variable, field)
        note = QLabel(
            f"Typed keys are stored in {html.escape(str(self._store.path))} (mode 600), "
            "never shown in full, never written to reports."
        )
        note.setObjectName("muted")
        note.setWordWrap(True)
        forget = QPushButton("Forget stored keys")
        forget.clicked.connect(self._forget)
        form.addRow(note)
        form.addRow(forget)
        if self._store.problem:
            problem = html.escape(self._store.problem)
            warning = QLabel(f"<span style='color:{css('bad')}'>{problem}</span>")
            warning.setWordWrap(True)
            form.addRow(warning)
        return box

    def settings(self) -> ResearchSettings:
        return routescope.research.ResearchSettings(
            search=self.search.currentData(),
            searxng_url=self.searxng_url.text().strip(),
            llm=self.llm.currentData(),
            llm_url=self.llm_url.text().strip(),
            model=self.model.text().strip(),
            max_attempts=self.max_attempts.value(),
            grounding=self.grounding.currentData(),
            allowed_hosts=self.allowed_hosts.text().strip(),
        )

    def typed_keys(self) -> dict[str, str]:
        """The keys typed in this dialog, by variable (empty fields keep what is there)."""
        return {v: f.text().strip() for v, f in self.key_fields.items() if f.text().strip()}

    def accept(self) -> None:
        """Store the typed keys (owner-only), then close."""
        typed = self.typed_keys()
        if typed:
            try:
                self._store.save({**self._store.stored(), **typed})
            except OSError as exc:
                self._show_problem(f"cannot store the keys: {exc.strerror or exc}")
                return
        super().accept()

    def _forget(self) -> None:
        try:
            self._store.save({})
        except OSError as exc:
            self._show_problem(f"cannot forget the keys: {exc.strerror or exc}")
            return
        for field in self.key_fields.values():
            field.clear()
        self._check()

    def _check(self) -> None:
        search, llm = self.search.currentData(), self.llm.currentData()
        self.searxng_url.setEnabled(search == "searxng")
        for field in (self.llm_url, self.model):
            field.setEnabled(llm == "openai")
        self.allowed_hosts.setEnabled(search != "offline")
        keys = {**self._store.keys(), **self.typed_keys()}
        self._show_problem(self.settings().problem(keys) or "")

    def _show_problem(self, problem: str) -> None:
        self.problem = problem
        ok = self._buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(not problem)
        self._problem_label.setText(
            f"<span style='color:{css('bad')}'>{html.escape(problem)}</span>"
            if problem
            else f"<span style='color:{css('good')}'>ready</span>"
        )


def _combo(labels: dict[str, str], current: str) -> QComboBox:
    combo = QComboBox()
    for value, label in labels.items():
        combo.addItem(label, value)
    combo.setCurrentIndex(max(0, combo.findData(current)))
    return combo


def _line(text: str, placeholder: str) -> QLineEdit:
    field = QLineEdit(text)
    field.setPlaceholderText(placeholder)
    return field
