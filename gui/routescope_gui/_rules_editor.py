"""The rule pack editor (File ▸ Edit rule pack…, Ctrl+E): a panel docked beside the results it
changes, with the pack's TOML, the current error at its line, the regression cases the edit
changes, and Revert, Save and Save as…. Esc or its close button ask to close it: the window
asks what becomes of unsaved edits first.

The view renders and asks; the editor's model validates, applies and counts (wired in
`_wiring.connect_rules_editor`).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QColor,
    QFont,
    QKeyEvent,
    QKeySequence,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

__all__ = ["RulesEditorDock", "RulesEditorView"]

_ERROR_BACKGROUND = QColor("#5c2b2b")


class RulesEditorView(QWidget):
    """The TOML of the pack being edited.

    Signals:
        edited: emitted with the text after each edit by the user.
        revert_requested, save_requested: the Revert and Save buttons.
        save_as_requested: emitted with the path chosen by Save as….
        close_requested: Esc was pressed in the editor (the window decides).
    """

    edited = Signal(str)
    revert_requested = Signal()
    save_requested = Signal()
    save_as_requested = Signal(str)
    close_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit rule pack")
        self.text_edit = QPlainTextEdit()
        self.text_edit.installEventFilter(self)
        self.text_edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = QFont("monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        self.text_edit.setFont(font)
        self.text_edit.textChanged.connect(self._text_changed)
        self.error_label = QLabel()
        self.error_label.setObjectName("error")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.count_label = QLabel()
        self.count_label.setObjectName("muted")
        self.source_label = QLabel()
        self.source_label.setObjectName("muted")
        self.revert_button = QPushButton("Revert")
        self.revert_button.clicked.connect(self.revert_requested)
        self.save_button = QPushButton("Save")
        self.save_button.setShortcut(QKeySequence.StandardKey.Save)
        self.save_button.clicked.connect(self.save_requested)
        self.save_as_button = QPushButton("Save as…")
        self.save_as_button.clicked.connect(self._choose_save_path)
        self.source_label.setWordWrap(True)  # (a long path: the dock stays narrow)
        buttons = QHBoxLayout()
        buttons.addWidget(self.source_label, 1)
        for button in (self.revert_button, self.save_button, self.save_as_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text_edit, 1)
        layout.addWidget(self.error_label)
        layout.addWidget(self.count_label)
        layout.addLayout(buttons)
        self._loading = False
        self.error_line = 0
        """The line highlighted as wrong (0: none)."""

    # -- what the model tells ------------------------------------------------------------
    def show_text(self, text: str) -> None:
        """Show a pack's text (opened or reverted to), not as a user's edit."""
        self._loading = True
        try:
            self.text_edit.setPlainText(text)
        finally:
            self._loading = False
        self.show_valid()

    def show_source(self, source: str, *, builtin: bool, dirty: bool) -> None:
        self.source_label.setText(
            f"{source}{' (built-in)' if builtin else ''}{' *' if dirty else ''}"
        )
        self.save_button.setEnabled(not builtin and dirty)
        self.revert_button.setEnabled(dirty)

    def show_error(self, message: str, line: int) -> None:
        """Show the one-line error and highlight its line (0: no line known)."""
        self.error_line = line
        self.error_label.setText(message)
        self.error_label.setVisible(True)
        selections: list[QTextEdit.ExtraSelection] = []
        block = self.text_edit.document().findBlockByLineNumber(line - 1) if line else None
        if block is not None and block.isValid():
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(_ERROR_BACKGROUND)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            selection.cursor = QTextCursor(block)
            selections.append(selection)
        self.text_edit.setExtraSelections(selections)

    def show_valid(self) -> None:
        self.error_line = 0
        self.error_label.clear()
        self.error_label.setVisible(False)
        self.text_edit.setExtraSelections([])

    def show_counting(self) -> None:
        self.count_label.setText("counting the regression cases this edit changes…")

    def show_count(self, changed: int, run: int) -> None:
        if run == 0:
            self.count_label.setText("no change to the pack at open")
        else:
            cases = "case" if changed == 1 else "cases"
            self.count_label.setText(f"{changed} regression {cases} of {run} would change")

    def show_failure(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(True)

    # -- what the user does --------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Esc in the text asks to close the editor (before the window's own Esc: cancel
        research, leave presenter mode)."""
        if (
            isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and not (event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier)
        ):
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()  # the key comes to the editor, not to a shortcut
                return True
            if event.type() == QEvent.Type.KeyPress:
                self.close_requested.emit()
                return True
        return super().eventFilter(watched, event)

    def _text_changed(self) -> None:
        if not self._loading:
            self.edited.emit(self.text_edit.toPlainText())

    def _choose_save_path(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save rule pack as", "", "Rule packs (*.toml)")
        if path:
            self.save_as_requested.emit(path)


class RulesEditorDock(QDockWidget):
    """The rule pack editor docked at the window's right, beside the results it changes (it
    can be floated or moved). Its close button, like Esc in the editor, only asks
    (`close_requested`): the window hides it once unsaved edits are settled.

    Attributes:
        view: the editor.
    """

    close_requested = Signal()

    def __init__(self, view: RulesEditorView, parent: QWidget | None = None) -> None:
        super().__init__("Rule pack", parent)
        self.setObjectName("rulesEditor")
        self.view = view
        self.setWidget(view)
        self.setAllowedAreas(
            Qt.DockWidgetArea.RightDockWidgetArea | Qt.DockWidgetArea.LeftDockWidgetArea
        )
        view.close_requested.connect(self.close_requested)

    def closeEvent(self, event: QCloseEvent) -> None:
        event.ignore()
        self.close_requested.emit()
