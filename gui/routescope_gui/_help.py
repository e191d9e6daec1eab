"""The Help menu's two boxes: what the window shows with its shortcuts, and About.

The help is longer than a laptop's screen is tall: it scrolls, in a window that never grows
past the screen it opens on (its Close button stays in sight).
"""

from __future__ import annotations

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QSize, Qt, qVersion
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMessageBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

import routescope

__all__ = ["HelpDialog", "show_about", "show_help"]

_HELP_SIZE = (720, 900)
"""The help window's size where the screen has room (the text scrolls in it)."""
_SCREEN_SHARE = 0.9
"""The most of the screen's free area (each way) the help window takes."""

_HELP = """
<h3>Routescope</h3>
<p>Type a prompt: every router's decision, and why, updates as you type.</p>
<ul>
<li><b>Prompt</b>: the evidence is highlighted in place (entities, the place, intent keywords,
linter anchors); hover a highlight to read it.</li>
<li><b>why:</b> under the prompt, each word is removed in turn and every router run again: the
words whose removal flips a decision (the strategy, the linter's class, the contract's agent or
mode, the task route, the top tool) are marked there and wavy-underlined in the prompt; hover
one to read what flips, and to what. Click any word, or an entity of the Context tree, to trace
where it flows: its words marked in the prompt and the Plan, and the line under the strip lists
the queries, intent keywords, linter anchors, contract rules and tools it reaches. A
<b>⚠ close call</b> (a class one token or anchor from another, a best tool near the fit
threshold or its runner-up, local winning over tech by precedence alone) is shown under the
decision it concerns: the strategy badge, the linter's class, the tools' fit line.</li>
<li><b>Context</b> and <b>Strategy</b>: what the search-strategy router extracted and the rule
that picked the strategy. <b>Plan</b>: its queries before and after sanitizing.</li>
<li><b>Linter</b>: guided / semi / vague with the arithmetic, the anchors and the expansion.</li>
<li><b>Contract</b>: agent, mode, UI and tool plan, the rules and guardrails; edit the context
and step through the plan.</li>
<li><b>Tools</b>: the hybrid tool search with every rank explained, each score a stacked bar of
what the vector, the keywords and the boosts add; pick the fusion (weighted, or the seed's
canonical RRF), move its weights or RRF k, the boosts, the strategy and the "no tool fits below"
threshold; a request of several steps is searched step by step too; pin any tool to ask why it
is not higher. <i>Open catalog…</i> takes a folder of SKILL.md files or a JSON file of tools
(OpenAI, MCP, Anthropic, Routescope).</li>
<li><b>Research</b>: the deep-research loop on the prompt, offline (the documentation on this
machine, a heuristic model) as you type, over the network on Ctrl+Enter (Esc cancels; editing
the prompt does not: the run is marked stale, to re-run or cancel): each attempt's query,
scores and pages, the best one starred, the next step; the pane under the table spells out the
selected attempt or page (the scores' reasons, the full URL, the goal terms a page supports);
copy the report as Markdown.</li>
<li><b>External</b>: your own routers beside the built-in ones — an HTTP routing service (vLLM
Semantic Router, a model router behind an OpenAI-compatible endpoint), a Python function, a
semantic-router file — declared in a routers file (<i>File ▸ Open routers file…</i>): each
ticked router's route, every route's score as a bar, its evidence (a semantic router's best
utterances, its threshold margin and why not the other routes; the signals that matched), its
latency and its raw answer. A slow router never holds the typing up; one that fails says so on
its line. R, W, N, Del on a router's row judge the route it should choose.</li>
<li><b>Compare</b>: A (the live prompt, editable there too) beside B — another prompt, or the
same prompt under another rule pack or catalog — as you type: the headline decisions with the
changed ones highlighted, the intent flags that flipped with the words that set them, the
planned queries with removed words struck out and added ones in green, the contract's plan, and
each tool's rank in A and B (↑ better in B, ↓ worse, new, dropped). <i>Run a suite under both
packs…</i> runs every case of a suite on both sides and lists those that differ; double-click
one to open it live. <i>Routers</i> puts two routers side by side — external ones, or one
against a built-in decision — on the prompts and over a suite or labelled set: how often they
agree, and the prompts behind every cell of the matrix.</li>
<li><b>Regression</b>: run a suite, read each diff, accept a golden, open a case live.</li>
<li><b>Batch</b>: route every prompt of a log (JSONL, CSV or text, gzip too) in the background
with the toolbar's rules and date; Cancel keeps what was done and Run continues it. Its report
puts the leak checks first, then strategy, linter class, intents, contract, tools and latency;
click a bar or a leak check to list its prompts, double-click one to open it live.
<i>Open results…</i> reads the report of a finished batch.</li>
<li><b>Judging</b>: mark any decision right or wrong where it is shown — on a row of the
Context tree press R (right), W (wrong), Y/N (expected on/off), E (the expected place), X
(strike an entity), A (add one) or Del (forget), or right-click it; the bar under the tree sets
the expected strategy and linter class. The Expected column shows ✓ or ✗ beside each decision,
the evidence of a wrong one in its tooltip. History and Batch rows have <i>Judge…</i> too.
Judgments go to the judged set the <b>Judgments</b> menu names (new, switch, merge, import a
labelled file, export one that <code>routescope score</code> reads).</li>
<li><b>Quality</b>: the rule pack scored on the judged set — per flag precision, recall and F1,
macro-F1, the strategy's confusion, place and entity figures — as the rule editor changes the
pack; click a figure to list its prompts with the evidence of each decision.
<b>Suggestions…</b>: pack edits the set's errors suggest, each with its gain and the prompts it
fixes and breaks; Apply makes one in the rule editor.</li>
<li><b>File</b>: save the request and its inspection as a session file, open one (where this
machine differs — rule pack, catalog, model — is listed); export the inspection as JSON or
Markdown; save the prompt as a regression case in a suite (new or existing). The window
reopens with the last session's prompt, tab, catalog, rules and date unless a prompt is given
(<code>--no-restore</code>: start blank).</li>
</ul>
<table cellspacing="4">
<tr><td>Ctrl+O</td><td>open a rule pack</td></tr>
<tr><td>Ctrl+E</td><td>edit the rule pack: applied as you type, an error shown at its line,
the regression cases the edit changes counted</td></tr>
<tr><td>Ctrl+1 … Ctrl+6</td><td>Plan, Linter, Contract, Tools, Research, Raw JSON</td></tr>
<tr><td>Ctrl+Shift+X</td><td>External: your own routers, from a routers file</td></tr>
<tr><td>Ctrl+7</td><td>Regression</td></tr>
<tr><td>Ctrl+8</td><td>Batch</td></tr>
<tr><td>Ctrl+9</td><td>Compare</td></tr>
<tr><td>Ctrl+H</td><td>History: the prompts inspected, searchable; Enter reopens one</td></tr>
<tr><td>Ctrl+Shift+Q</td><td>Quality: the pack scored on the judged set</td></tr>
<tr><td>Ctrl+Shift+G</td><td>Suggestions: pack edits with their measured gain</td></tr>
<tr><td>Ctrl+Shift+J</td><td>a new judged set</td></tr>
<tr><td>Ctrl+C</td><td>copy the selected rows of a table or tree, tab-separated</td></tr>
<tr><td>Ctrl+F</td><td>find in the panel in focus: filter its rows
(Enter, Shift+Enter step)</td></tr>
<tr><td>Ctrl+Shift+C</td><td>copy the routescope inspect line that reproduces
the live view</td></tr>
<tr><td>Ctrl+Q</td><td>quit</td></tr>
</table>
<p>The command line does the same without a window: <code>routescope inspect "…"</code>.</p>
"""


def _box(parent: QWidget, title: str, text: str) -> QMessageBox:
    """A non-modal box: it never starts a nested event loop under the asyncio one."""
    box = QMessageBox(
        QMessageBox.Icon.NoIcon, title, text, QMessageBox.StandardButton.Close, parent
    )
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


class HelpDialog(QDialog):
    """The help: its text scrolls in a window at most `_SCREEN_SHARE` of the screen's free
    area; Close (or Esc) closes it. Not modal: it never starts a nested event loop under the
    asyncio one, and the window stays usable beside it.

    Attributes:
        browser: the text; buttons: Close.
    """

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("Routescope help")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        self.browser.setHtml(_HELP)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(self.buttons)
        self.fit_screen()

    def text(self) -> str:
        """The help's text, as HTML."""
        return self.browser.toHtml()

    def fit_screen(self) -> None:
        """Take `_HELP_SIZE`, or less on a smaller screen: never past `_SCREEN_SHARE` of the
        free area of the screen the window's parent is on."""
        parent = self.parentWidget()
        screen = (parent.screen() if parent is not None else None) or (
            QGuiApplication.primaryScreen()
        )
        room = screen.availableGeometry().size() * _SCREEN_SHARE
        most = QSize(min(_HELP_SIZE[0], room.width()), min(_HELP_SIZE[1], room.height()))
        self.setMaximumSize(room)
        self.resize(most)


def show_help(parent: QWidget) -> HelpDialog:
    dialog = HelpDialog(parent)
    dialog.show()  # not modal: the window stays usable beside it
    return dialog


def show_about(parent: QWidget) -> QMessageBox:
    return _box(
        parent,
        "About Routescope",
        f"<h3>Routescope {routescope.__version__}</h3>"
        "<p>Inspect what query routers decide about a prompt, and why.</p>"
        "<p>Licence: MIT</p>"
        f"<p>Qt {qVersion()} · PySide6 {pyside_version}</p>",
    )
