"""Run reports of a research run: one JSON shape (what `routescope research --json` prints)
and Markdown for people. Keys never reach a report: providers redact them at the source.

Beside the scores, a report carries their evidence: the goal's terms with their weights, per
page read the terms it supports (where, with an excerpt) and its relevance, the reasons of
each grade as data, and why the loop stopped and what comes next, each with its rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import platformdirs

from .._files import existing_output, replace_file
from ..optimise._goal_terms import GoalTerm
from ._evidence import AttemptEvidence, ScoreReason
from ._grounding import Grounding
from ._page_evidence import PageEvidence
from ._records import Attempt, DeepResearchResult

__all__ = [
    "default_reports_folder",
    "report_markdown",
    "research_report_data",
    "write_research_report",
]


def _term(term: GoalTerm) -> dict[str, Any]:
    return {**term.to_data(), "common": term.common}


def _reason(reason: ScoreReason) -> dict[str, Any]:
    return {"metric": reason.metric, "value": reason.value, "text": reason.text}


def _page(page: PageEvidence) -> dict[str, Any]:
    return {
        "url": page.url,
        "title": page.title,
        "relevance": page.relevance,
        "about_goal": page.about_goal,
        "supports": list(page.supports),
        "missing": list(page.missing),
        "matches": [
            {"term": m.term, "where": m.where, "excerpt": m.excerpt, "count": m.count}
            for m in page.matches
        ],
        "reason": page.reason,
    }


def _grounding(grounding: Grounding | None) -> dict[str, Any] | None:
    if grounding is None:
        return None
    return {
        "required": grounding.required,
        "source": grounding.source,
        "flags": list(grounding.flags),
        "cues": [
            {"flag": c.flag, "text": c.text, "start": c.start, "end": c.end, "source": c.source}
            for c in grounding.cues
        ],
        "reason": grounding.reason,
    }


def _evidence(evidence: AttemptEvidence | None) -> dict[str, Any] | None:
    if evidence is None:
        return None
    return {
        "relevance": evidence.relevance,
        "coverage": evidence.coverage,
        "confidence": evidence.confidence,
        "should_retry": evidence.should_retry,
        "pages_read": evidence.pages_read,
        "pages_about_goal": evidence.pages_about_goal,
        "covered": list(evidence.covered),
        "uncovered": list(evidence.uncovered),
        "unfindable": list(evidence.unfindable),
        "reasons": [_reason(r) for r in evidence.reasons],
        "pages": [_page(page) for page in evidence.pages],
    }


def _attempt(attempt: Attempt) -> dict[str, Any]:
    return {
        "index": attempt.index + 1,
        "query": attempt.query,
        "query_source": attempt.query_source,
        "provider": attempt.provider,
        "status": attempt.status,
        "error": attempt.error,
        "relevance": attempt.relevance,
        "confidence": attempt.confidence,
        "coverage": attempt.coverage,
        "should_retry": attempt.should_retry,
        "score": attempt.score,
        "reasons": attempt.evaluation.reasons if attempt.evaluation else "",
        "evaluator_error": attempt.evaluator_error,
        "duration_ms": round(attempt.duration_ms, 1),
        "evidence": _evidence(attempt.evidence),
        "findings": [
            {
                "url": page.url,
                "host": urlsplit(page.url).hostname or "",
                "title": page.title,
                "verdict": page.rule,
                "allowed": page.allowed,
                "status": page.status,
                "error": page.error,
                "chars": len(page.text),
            }
            for page in attempt.pages
        ],
    }


def research_report_data(result: DeepResearchResult) -> dict[str, Any]:
    """The report as plain JSON-ready data."""
    quality = result.quality
    return {
        "goal": result.goal,
        "final_query": quality.query,
        "quality": {
            "relevance": quality.relevance,
            "confidence": quality.confidence,
            "coverage": quality.coverage,
            "attempts": quality.attempts,
            "reasons": quality.reasons,
            "evidence_reasons": [_reason(r) for r in quality.evidence_reasons],
        },
        "goal_terms": [_term(term) for term in result.goal_terms],
        "grounding": _grounding(result.grounding),
        "best_attempt": None if result.best is None else result.best + 1,
        "attempts": [_attempt(attempt) for attempt in result.attempts],
        "findings": [
            {
                "url": finding.url,
                "host": urlsplit(finding.url).hostname or "",
                "title": finding.title,
                "snippet": finding.snippet,
                "relevance": finding.evidence.relevance if finding.evidence else None,
                "about_goal": finding.evidence.about_goal if finding.evidence else None,
                "supports": list(finding.evidence.supports) if finding.evidence else [],
                "missing": list(finding.evidence.missing) if finding.evidence else [],
                "why": finding.why,
            }
            for finding in result.findings
        ],
        "warnings": result.warnings,
        "notes": result.notes,
        "termination_reason": result.termination_reason,
        "stop": (
            None
            if result.stop is None
            else {
                "kind": result.stop.kind,
                "text": result.stop.text,
                "attempt": result.stop.attempt,
            }
        ),
        "next_step": {
            "outcome": result.next_step.outcome,
            "rule": result.next_step.rule,
            "reason": result.next_step.reason,
        },
        "counters": {"web_calls": result.web_calls, "pages_fetched": result.pages_fetched},
        "model": result.model,
        "duration_ms": round(result.duration_ms, 1),
    }


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def report_markdown(result: DeepResearchResult) -> str:
    """The report for people: final query, best quality and reasons, every attempt, warnings."""
    data = research_report_data(result)
    quality = data["quality"]
    step = result.next_step
    grounding = result.grounding.reason if result.grounding is not None else ""
    step_reason = step.reason_without_grounding() if grounding else step.reason
    lines = [
        f"# Research: {_cell(result.goal)}",
        "",
        f"- final query: `{_cell(data['final_query'])}`",
        f"- quality: relevance {quality['relevance']:.1f} · confidence "
        f"{quality['confidence']:.1f} · coverage {quality['coverage']:.1f} "
        f"(best of {quality['attempts']} attempts) — {_cell(quality['reasons'])}",
        f"- stopped: {_cell(result.termination_reason)}",
        f"- next step: {result.next_step.outcome.replace('_', ' ')} — {_cell(step_reason)}",
        *([f"- grounding: {_cell(grounding)}"] if grounding else []),
        f"- web calls {result.web_calls} · pages read {result.pages_fetched}"
        + (f" · model {_cell(result.model)}" if result.model else ""),
    ]
    lines += [f"- **warning:** {_cell(w)}" for w in result.warnings]
    if result.goal_terms:
        terms = ", ".join(
            f"`{_cell(t.text)}` {t.weight:.2f}" + (" (common)" if t.common else "")
            for t in result.goal_terms
        )
        lines.append(f"- goal terms (weight): {terms}")
    lines += [f"- {_cell(r.text)}" for r in result.quality.evidence_reasons]
    lines += ["", "| # | query | from | status | relevance | confidence | coverage | score |"]
    lines.append("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for attempt in data["attempts"]:
        mark = " ★" if attempt["index"] == data["best_attempt"] else ""
        lines.append(
            f"| {attempt['index']}{mark} | {_cell(attempt['query'])} | "
            f"{_cell(attempt['query_source'])} | {attempt['status'] or '—'} | "
            f"{attempt['relevance']:.1f} | {attempt['confidence']:.1f} | "
            f"{attempt['coverage']:.1f} | {attempt['score']:.2f} |"
        )
    lines += ["", "## Findings", ""]
    lines += [_finding(f) for f in data["findings"]]
    if not data["findings"]:
        lines.append("- none")
    return "\n".join(lines) + "\n"


def _finding(finding: dict[str, Any]) -> str:
    line = f"- [{_cell(finding['title'] or finding['url'])}]({finding['url']}) ({finding['host']})"
    if finding["relevance"] is None:
        return line
    supports = ", ".join(f"`{_cell(t)}`" for t in finding["supports"]) or "no goal term"
    line += f" — relevance {finding['relevance']:.2f}; supports {supports}"
    if finding["missing"]:
        line += "; missing " + ", ".join(f"`{_cell(t)}`" for t in finding["missing"])
    line += "" if finding["about_goal"] else "; not about the goal"
    return line + (f" ({_cell(finding['why'])})" if finding.get("why") else "")


def default_reports_folder() -> Path:
    """Where the window keeps the reports of runs over the network."""
    return Path(platformdirs.user_data_dir("routescope")) / "research-reports"


def write_research_report(result: DeepResearchResult, folder: Path) -> Path:
    """Write `report.md` and `report.json` into `folder` (made if missing), each replaced
    atomically; the Markdown file's path. Raises OSError, before anything is written, when
    either name is a symbolic link or not a regular file (`existing_output`)."""
    folder.mkdir(parents=True, exist_ok=True)
    data_path, markdown = folder / "report.json", folder / "report.md"
    existing = [existing_output(data_path), existing_output(markdown)]
    data = json.dumps(research_report_data(result), indent=2, ensure_ascii=False)
    # An existing report keeps its owner and mode; a new one is readable as the umask allows.
    replace_file(data_path, (data + "\n").encode("utf-8"), like=existing[0], mode=0o666)
    replace_file(markdown, report_markdown(result).encode("utf-8"), like=existing[1], mode=0o666)
    return markdown
