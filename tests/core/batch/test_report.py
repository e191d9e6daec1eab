"""The batch report's figures and leak checks, read from results files in one streaming pass."""

from __future__ import annotations

import copy
import gzip
import json
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from routescope.batch import FailedRecord, Result, ResultsError, build_report
from routescope.batch import _figures as figures_module
from routescope.batch import _results as results_module
from routescope.batch._leaks import LEAK_RULES, find_leaks
from routescope.batch._report import ReportBuilder
from routescope.batch._results import parse_result

from . import _fixtures as fx

Record = dict[str, Any]


@pytest.fixture(scope="module")
def prompts() -> list[fx.Prompt]:
    return fx.suite_prompts()


@pytest.fixture(scope="module")
def default_records(
    prompts: list[fx.Prompt], tmp_path_factory: pytest.TempPathFactory
) -> list[Record]:
    return fx.records(prompts, tools=fx.tool_search(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="module")
def leaky_records(
    prompts: list[fx.Prompt], tmp_path_factory: pytest.TempPathFactory
) -> list[Record]:
    folder = tmp_path_factory.mktemp("leaky")
    return fx.records(prompts, rules=fx.leaky_rules(folder), tools=fx.tool_search(folder / "cache"))


def _base(**fields: Any) -> Record:
    """A hand-made results line (only what a test changes needs saying)."""
    record: Record = {
        "source": "log.jsonl",
        "line": 1,
        "prompt": "a prompt",
        "today": "2026-02-05",
        "strategy": "general",
        "strategy_rule": "general.default",
        "intents": [],
        "entities": [],
        "place": None,
        "has_openclaw": False,
        "queries": ["a prompt", "a prompt overview"],
        "raw_queries": ["a prompt", "a prompt overview"],
        "edits": [],
        "lint_class": "vague",
        "lint_rule": "vague",
        "contract": {"agent": "knowledge", "mode": "explore", "tools": ["knowledge_search"]},
        "task_route": "chat",
        "tools": None,
        "top_tool": None,
        "top_score": None,
        "tool_fits": None,
        "timings_us": {"extract": 1.0, "total": 2.0},
    }
    record.update(fields)
    return record


def _parsed(**fields: Any) -> Result:
    parsed = parse_result(_base(**fields), 1)
    assert isinstance(parsed, Result)
    return parsed


def _leaks(**fields: Any) -> list[tuple[str, str]]:
    return [(f.rule, f.query[f.start : f.end]) for f in find_leaks(_parsed(**fields))]


# --- the figures --------------------------------------------------------------------------------


def test_figures_count_what_the_records_say(tmp_path: Path, default_records: list[Record]) -> None:
    report = build_report(fx.write_results(tmp_path / "results.jsonl", default_records))
    assert report.prompts == len(default_records)
    assert report.sources == (str(tmp_path / "results.jsonl"),)
    assert (report.first_today, report.last_today) == ("2026-02-05", "2026-02-05")

    def counted(figure_labels: Counter[str], figure: Any) -> None:
        assert {bar.label: bar.count for bar in figure.bars if bar.count} == dict(figure_labels)

    counted(Counter(r["strategy"] for r in default_records), report.strategies)
    counted(Counter(r["lint_class"] for r in default_records), report.lint_classes)
    counted(Counter(r["contract"]["agent"] for r in default_records), report.agents)
    counted(Counter(r["contract"]["mode"] for r in default_records), report.modes)
    counted(Counter(r["task_route"] for r in default_records), report.task_routes)
    counted(Counter(i for r in default_records for i in r["intents"]), report.intents)
    assert sum(bar.count for bar in report.strategies.bars) == report.prompts
    assert [bar.label for bar in report.strategies.bars] == sorted(
        (bar.label for bar in report.strategies.bars),
        key=lambda label: -report.strategies.count(label),
    )
    general = report.strategies.bar("general")
    assert general is not None
    assert general.share == pytest.approx(general.count / report.prompts)


def test_tools_figure_and_the_share_with_no_tool_fitting(
    tmp_path: Path, default_records: list[Record]
) -> None:
    report = build_report(fx.write_results(tmp_path / "results.jsonl", default_records))
    no_fit = sum(r["tool_fits"] is False for r in default_records)
    assert report.ranked == len(default_records)
    assert report.no_fit == no_fit > 0
    assert report.no_fit_share == pytest.approx(no_fit / len(default_records))
    assert report.top_tools.count("(no tool fits)") == no_fit
    fitting = Counter(r["top_tool"] for r in default_records if r["tool_fits"])
    for tool, count in fitting.most_common(5):
        assert report.top_tools.count(tool) == count
    assert report.top_tools.of == "prompts with a tool ranking"


def test_entities_and_intent_cooccurrence(tmp_path: Path, default_records: list[Record]) -> None:
    report = build_report(fx.write_results(tmp_path / "results.jsonl", default_records))
    naming = Counter(e for r in default_records for e in set(r["entities"]))
    top_count = naming.most_common(1)[0][1]
    assert report.entities.bars[0].count == top_count
    assert len(report.entities.bars) <= report.top
    co = report.cooccurrence
    for row in co.names:
        for column in co.names:
            both = sum(row in r["intents"] and column in r["intents"] for r in default_records)
            assert co.count(row, column) == both, (row, column)
    assert co.names[0] == "tech"  # the flags in their fixed order
    sets = Counter(" + ".join(r["intents"]) or "(none)" for r in default_records)
    assert report.intent_sets.bars[0].count == sets.most_common(1)[0][1]


def test_each_bar_carries_its_first_prompts_in_input_order(
    tmp_path: Path, default_records: list[Record]
) -> None:
    report = build_report(fx.write_results(tmp_path / "results.jsonl", default_records), examples=3)
    for figure in report.figures():
        for bar in figure.bars:
            assert len(bar.examples) == min(3, bar.count) or figure.key in {
                "entities",
                "top_tools",
            }
    general = report.strategies.bar("general")
    assert general is not None
    expected = [r for r in default_records if r["strategy"] == "general"][:3]
    assert [(ref.source, ref.line, ref.prompt) for ref in general.examples] == [
        (r["source"], r["line"], r["prompt"]) for r in expected
    ]
    first = general.examples[0]
    assert first.record == default_records.index(expected[0]) + 1  # the results file's line


def test_latency_quantiles_by_nearest_rank() -> None:
    builder = ReportBuilder()
    for value in range(1, 101):
        builder.add(_base(line=value, timings_us={"extract": float(value), "total": 2.0}), value)
    (extract, total) = builder.report().latency
    assert (extract.stage, extract.count, extract.p50, extract.p95) == ("extract", 100, 50, 95)
    assert (extract.max, extract.mean, extract.exact) == (100, 50.5, True)
    assert total.stage == "total"  # stages in pipeline order, total last


def test_latency_past_the_exact_limit_uses_buckets_within_one_percent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(figures_module, "EXACT_LATENCIES", 50)
    builder = ReportBuilder()
    values = [float(v) for v in range(1, 1001)]
    for number, value in enumerate(values, 1):
        builder.add(_base(line=number, timings_us={"plan": value}), number)
    (plan,) = builder.report().latency
    assert not plan.exact
    assert plan.p50 == pytest.approx(500, rel=0.01)
    assert plan.p95 == pytest.approx(950, rel=0.01)
    assert plan.max == 1000


def test_open_ended_labels_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    builder = ReportBuilder(capacity=10, top=5)
    for number in range(1, 2001):
        entities = ["Everywhere", f"Rare{number}"]
        builder.add(_base(line=number, entities=entities), number)
    report = builder.report()
    assert report.entities.approximate
    assert report.entities.bars[0].label == "Everywhere"
    assert report.entities.bars[0].count == 2000
    assert report.entities.distinct <= 20
    assert len(report.entities.bars) == 5
    assert all(len(bar.examples) <= 5 for bar in report.entities.bars)


def test_memory_stays_bounded_over_many_lines(
    tmp_path: Path, default_records: list[Record]
) -> None:
    path = tmp_path / "big.jsonl.gz"
    lines = 20_000
    with gzip.open(path, "wt", encoding="utf-8") as stream:
        for number in range(lines):
            record = copy.deepcopy(default_records[number % len(default_records)])
            record["line"] = number + 1
            record["entities"] = [*record["entities"], f"Unique{number}"]
            stream.write(json.dumps(record) + "\n")
    tracemalloc.start()
    try:
        report = build_report(path, examples=5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.prompts == lines
    assert peak < 40 << 20
    assert report.entities.distinct <= 2 * figures_module.LABEL_CAPACITY
    assert all(len(bar.examples) <= 5 for figure in report.figures() for bar in figure.bars)


# --- leak rules ---------------------------------------------------------------------------------


def test_default_pack_keeps_every_promise(tmp_path: Path, default_records: list[Record]) -> None:
    report = build_report(fx.write_results(tmp_path / "results.jsonl", default_records))
    assert [check.rule for check in report.leaks] == [rule.name for rule in LEAK_RULES]
    assert report.leak_count == report.leak_prompts == 0
    assert all(check.findings == () for check in report.leaks)


def test_leaky_pack_leaks_are_found_with_their_prompts(
    tmp_path: Path, leaky_records: list[Record], prompts: list[fx.Prompt]
) -> None:
    report = build_report(fx.write_results(tmp_path / "leaky.jsonl", leaky_records))
    site = report.leak("site_outside_tech")
    openclaw = report.leak("openclaw_outside_gate")
    as_of = report.leak("as_of_not_time_sensitive")
    expected_site = [
        (r["source"], r["line"], q)
        for r in leaky_records
        if r["strategy"] != "tech"
        for q in r["queries"]
        if "(site:" in q
    ]
    assert site.count == len(expected_site) > 0
    assert [(f.ref.source, f.ref.line, f.query) for f in site.findings] == expected_site
    assert all(f.query[f.start : f.end].startswith("site:") for f in site.findings)
    assert openclaw.count > 0
    assert all(f.strategy == "local" for f in openclaw.findings)
    assert {f.query[f.start : f.end] for f in openclaw.findings} == {"site:docs.openclaw.ai"}
    assert as_of.count > 0
    by_place = {(r["source"], r["line"]): r for r in leaky_records}
    for finding in as_of.findings:
        record = by_place[(finding.ref.source, finding.ref.line)]
        assert "time_sensitive" not in record["intents"]
        assert finding.query[finding.start : finding.end] == "as of 2026"
    assert report.leak_count == site.count + openclaw.count + as_of.count
    leaking = {(f.ref.source, f.ref.line) for c in report.leaks for f in c.findings}
    assert report.leak_prompts == len(leaking)
    texts = {(source, line): text for source, line, text in prompts}
    assert all(texts[(f.ref.source, f.ref.line)] == f.ref.prompt for f in site.findings)


def test_leak_findings_are_capped(tmp_path: Path, leaky_records: list[Record]) -> None:
    report = build_report(fx.write_results(tmp_path / "l.jsonl", leaky_records), leak_examples=2)
    site = report.leak("site_outside_tech")
    assert len(site.findings) == 2 < site.count


def test_site_rule() -> None:
    assert _leaks(queries=["x (site:github.com)"]) == [("site_outside_tech", "site:github.com")]
    assert _leaks(strategy="local", queries=["SITE:example.org x"]) == [
        ("site_outside_tech", "SITE:example.org")
    ]
    assert _leaks(strategy="tech", queries=["site:docs.* x (install)"]) == []
    assert _leaks(queries=["my website: hello", "site: alone"]) == []


def test_openclaw_rule() -> None:
    canonical = ["site:docs.openclaw.ai OpenClaw", "site:github.com/openclaw OpenClaw"]
    assert _leaks(strategy="tech", has_openclaw=True, queries=canonical) == []
    found = find_leaks(_parsed(strategy="tech", has_openclaw=False, queries=canonical))
    assert [f.rule for f in found] == ["openclaw_outside_gate"] * 2
    assert found[0].detail == "tech, but the prompt does not mention OpenClaw"
    local = _leaks(strategy="local", has_openclaw=True, queries=canonical[:1])
    assert local == [
        ("site_outside_tech", "site:docs.openclaw.ai"),
        ("openclaw_outside_gate", "site:docs.openclaw.ai"),
    ]


def test_as_of_rule() -> None:
    query = ["latest news as of February 5, 2026"]
    assert _leaks(intents=["time_sensitive"], queries=query) == []
    assert _leaks(intents=["timeSensitive"], queries=query) == []
    assert _leaks(intents=["purchase"], queries=query) == [
        ("as_of_not_time_sensitive", "as of February 5, 2026")
    ]
    found = find_leaks(_parsed(intents=["purchase"], queries=query))
    assert found[0].detail == "not time-sensitive (flags: purchase)"
    # The user's own "as of" is not the sanitizer's.
    own = "GDP figures as of last quarter"
    assert _leaks(prompt=own, queries=[own, f"{own} overview"]) == []
    assert _leaks(prompt=own, queries=[f"{own} as of May 1, 2026"]) != []


# --- reading ------------------------------------------------------------------------------------


def test_gzip_and_plain_give_the_same_report(tmp_path: Path, default_records: list[Record]) -> None:
    plain = build_report(fx.write_results(tmp_path / "r.jsonl", default_records))
    packed = build_report(fx.write_results(tmp_path / "r.jsonl.gz", default_records))
    assert plain.strategies == packed.strategies
    assert plain.leaks == packed.leaks
    # gzip is told by its bytes, not its name
    renamed = tmp_path / "r.txt"
    renamed.write_bytes((tmp_path / "r.jsonl.gz").read_bytes())
    assert build_report(renamed).prompts == plain.prompts


def test_parquet_results_with_flattened_columns(
    tmp_path: Path, default_records: list[Record]
) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import datetime as dt

    flat = []
    for record in default_records:
        row = {k: v for k, v in record.items() if k not in ("contract", "timings_us")}
        row["today"] = dt.date.fromisoformat(record["today"])
        contract = record["contract"]
        row["contract_agent"] = contract["agent"]
        row["contract_mode"] = contract["mode"]
        row["contract_tools"] = contract["tools"]
        for stage, micros in record["timings_us"].items():
            row[f"timings_us_{stage}"] = micros
        flat.append(row)
    path = tmp_path / "results.parquet"
    pq.write_table(pa.Table.from_pylist(flat), path)
    from_parquet = build_report(path)
    from_json = build_report(fx.write_results(tmp_path / "r.jsonl", default_records))
    assert from_parquet.prompts == from_json.prompts
    assert from_parquet.agents == from_json.agents
    assert from_parquet.strategies == from_json.strategies
    assert [s.stage for s in from_parquet.latency] == [s.stage for s in from_json.latency]
    assert from_parquet.first_today == "2026-02-05"


def test_blank_lines_and_a_byte_order_mark_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf" + json.dumps(_base()).encode() + b"\n\n  \n" + json.dumps(_base()).encode()
    )
    assert build_report(path).prompts == 2


def test_failed_lines_are_counted_apart() -> None:
    builder = ReportBuilder()
    failed = builder.add({"source": "s", "line": 3, "prompt": "", "error": "empty prompt"}, 1)
    assert isinstance(failed, FailedRecord)
    builder.add(_base(), 2)
    report = builder.report()
    assert report.prompts == 1
    assert report.failed.total == 1
    assert report.failed.bars[0].label == "empty prompt"
    assert report.failed.bars[0].examples[0].line == 3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "no results in it"),
        (b"\n\n", "no results in it"),
        (b"not json\n", "line 1: not a JSON object"),
        (
            b'[{"source": "x"}]\n',
            "line 1: expected a JSON object (one result per line), not a list",
        ),
        (b'{"line": 1, "prompt": "p"}\n', "line 1: missing field 'source'"),
        (b"\xff\xfe{}\n", "line 1: not a JSON object"),
    ],
)
def test_bad_files_give_one_line(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    with pytest.raises(ResultsError) as caught:
        build_report(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: ")
    assert message in text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"strategy": None}, "line 2: field 'strategy' must be a string, not null"),
        ({"line": "7"}, "line 2: field 'line' must be a number"),
        ({"intents": "tech"}, "line 2: field 'intents' must be a list of strings"),
        ({"has_openclaw": "no"}, "line 2: field 'has_openclaw' must be true or false"),
        ({"contract": {"agent": "x"}}, "line 2: contract: missing field 'mode'"),
        ({"timings_us": {"plan": -1}}, "line 2: field 'timings_us' must map stages"),
        ({"tool_fits": 1}, "line 2: field 'tool_fits' must be true, false or null"),
    ],
)
def test_bad_records_name_their_line_and_field(
    tmp_path: Path, change: Record, message: str
) -> None:
    path = fx.write_results(tmp_path / "r.jsonl", [_base(), _base(**change)])
    with pytest.raises(ResultsError, match=message):
        build_report(path)


def test_unreadable_paths(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="cannot read results: No such file"):
        build_report(tmp_path / "missing.jsonl")
    with pytest.raises(ResultsError, match="cannot read results: a directory"):
        build_report(tmp_path)


def test_cut_gzip(tmp_path: Path, default_records: list[Record]) -> None:
    whole = fx.write_results(tmp_path / "r.jsonl.gz", default_records).read_bytes()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ResultsError, match=r"gzip data is cut short|cannot read results"):
        build_report(cut)


def test_an_over_long_line_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results_module, "LINE_LIMIT", 1 << 10)
    path = fx.write_results(tmp_path / "r.jsonl", [_base(), _base(prompt="x" * 5000)])
    with pytest.raises(ResultsError, match="line 2: longer than"):
        build_report(path)


def test_a_corrupt_parquet_file(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "r.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 64)
    with pytest.raises(ResultsError, match="not a readable Parquet file"):
        build_report(path)


def test_the_batch_writes_records_the_report_reads(tmp_path: Path) -> None:
    """The fixture helper's records and the batch's own have the same fields, and the report
    reads the batch's."""
    import datetime as dt

    import routescope

    inspection = routescope.inspect("How do I install OpenClaw today?", today=dt.date(2026, 2, 5))
    theirs = inspection.outcome.to_record("log.txt", 4)
    ours = fx.record("log.txt", 4, inspection)
    assert set(theirs) == set(ours)
    report = build_report(fx.write_results(tmp_path / "r.jsonl", [theirs]))
    assert report.strategies.count("tech") == 1
    assert report.leak_count == 0
