"""The report as one self-contained HTML page: inline CSS, inline SVG charts, no script, nothing
fetched. Every chart has a table of its numbers beside it, so the page reads as text too;
the leak checks come first, with their counts and the offending prompts.

The page's frame is in `_html_page`, one report's sections in `_html_report`, a comparison's in
`_html_compare`."""

from __future__ import annotations

import json
from pathlib import Path

from .._files import existing_output, replace_file
from ._changes import ResultsComparison
from ._html_compare import compare_page
from ._html_report import report_page
from ._report import Report
from ._report_json import report_data

__all__ = ["report_html", "write_report"]


def report_html(value: Report | ResultsComparison) -> str:
    """The page for a report or a comparison: one self-contained HTML document."""
    if isinstance(value, ResultsComparison):
        return compare_page(value)
    return report_page(value)


def write_report(value: Report | ResultsComparison, folder: str | Path) -> Path:
    """Write `report.json` and `report.html` into `folder` (made if missing), each replaced
    atomically and readable as the umask allows (they are meant to be shared); returns the
    page's path. Raises OSError, before anything is written, when either name is a symbolic
    link or not a regular file (`existing_output`)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    data_path, page = folder / "report.json", folder / "report.html"
    existing = [existing_output(data_path), existing_output(page)]
    data = json.dumps(report_data(value), indent=2, ensure_ascii=False) + "\n"
    replace_file(data_path, data.encode("utf-8"), like=existing[0], mode=0o666)
    replace_file(page, report_html(value).encode("utf-8"), like=existing[1], mode=0o666)
    return page
