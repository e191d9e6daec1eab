"""`batch --router NAME`: an external router's decision is a column of every record (JSON
Lines and Parquet, local and Dask engines), its failures per-prompt results, never bad lines,
counted per router and kind in the summary and the report; a resumed batch must name the same
routers. The report shows how every pair of routers (the built-in strategy router among them)
agrees, with the prompts behind every cell."""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest

from routescope.batch import BUILTIN, BatchError, BatchOptions, build_report, report_data, run_batch
from routescope.batch._html import report_html
from tests._support import routescope_cli
from tests.core.research._loopback import Reply, Request, json_reply, serving

pytestmark = pytest.mark.timeout(180)


def _service(request: Request) -> Reply:
    prompt = request.json()["prompt"]
    if "fail" in prompt:
        return Reply(500, b'{"error": "boom"}')
    return json_reply({"route": "long" if len(prompt) > 12 else "short", "score": 0.5})


def _setup(tmp_path: Path, url: str) -> tuple[Path, Path]:
    routers = tmp_path / "routers.toml"
    routers.write_text(f'[routers.svc]\nkind = "http"\nurl = "{url}"\nconcurrency = 4\n')
    prompts = tmp_path / "in.jsonl"
    lines = [f"prompt number {i}" if i % 3 else f"p{i}" for i in range(20)] + ["please fail"]
    prompts.write_text("".join(json.dumps({"prompt": p}) + "\n" for p in lines))
    return routers, prompts


@pytest.mark.parametrize("engine", ["local", "dask"])
def test_every_record_holds_the_routers_decision(tmp_path: Path, engine: str) -> None:
    with serving(_service) as server:
        routers, prompts = _setup(tmp_path, server.url("/route"))
        options = BatchOptions(
            routers=routers,
            router_names=("svc",),
            timings=False,
            engine=engine,  # type: ignore[arg-type]
        )
        summary = run_batch([str(prompts)], tmp_path / "out.jsonl", options, progress=False)
    assert summary.prompts == 21 and summary.bad == 0
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    decided = [r["routers"]["svc"] for r in records]
    assert [d["route"] for d in decided[:3]] == ["short", "long", "long"]
    assert decided[-1]["route"] is None and decided[-1]["error"]["kind"] == "http"
    assert all(d["latency_ms"] is None for d in decided)  # --no-timings: identical reruns
    assert server.hits("/route") == 21


def test_parquet_columns_and_resuming_with_other_routers_is_refused(tmp_path: Path) -> None:
    pyarrow_parquet = pytest.importorskip("pyarrow.parquet")
    with serving(_service) as server:
        routers, prompts = _setup(tmp_path, server.url("/route"))
        options = BatchOptions(routers=routers, router_names=("svc",), workers=2)
        out = tmp_path / "out.parquet"
        run_batch([str(prompts)], out, options, progress=False)
        again = run_batch([str(prompts)], out, options, progress=False)
        assert again.already_complete
        table = pyarrow_parquet.read_table(out)
        assert table.column("router_svc_route").to_pylist()[:2] == ["short", "long"]
        assert table.column("router_svc_error").to_pylist()[-1] == "http"
        with pytest.raises(BatchError, match="other options"):
            run_batch([str(prompts)], out, BatchOptions(), progress=False)
    with pytest.raises(BatchError, match="--router NAME goes with --routers"):
        run_batch([str(prompts)], tmp_path / "x.jsonl", BatchOptions(routers=routers))


# --- failures counted, and how routers agree ---------------------------------------------------


def _moody(request: Request) -> Reply:
    """A routing service that answers by the prompt: slow, 503, rate-limited (asking for a wait
    past the deadline), garbage, or a route (`tech` for prompts with "install", else `other`)."""
    prompt = request.json()["prompt"]
    if "slow" in prompt:
        return Reply(200, b'{"route": "late"}', delay_s=3.0)
    if "busy" in prompt:
        return Reply(503, b'{"error": "overloaded"}')
    if "limit" in prompt:
        return json_reply({"error": "slow down"}, 429, {"Retry-After": "999"})
    if "garbage" in prompt:
        return Reply(200, b"<html>not json</html>", "text/html")
    return json_reply({"route": "tech" if "install" in prompt else "other"})


def _twin(request: Request) -> Reply:
    """Another service that never fails: `tech` for "install" and "pip", else `general`."""
    prompt = request.json()["prompt"]
    return json_reply({"decision": "tech" if "install" in prompt or "pip" in prompt else "general"})


MOODY_PROMPTS = [
    "How do I install FastAPI on Ubuntu?",
    "install numpy with pip",
    "pip cache purge",
    "History of jazz music",
    "a slow prompt",
    "busy busy",
    "please limit me",
    "garbage in",
    "busy again",
]


def _moody_batch(tmp_path: Path, moody: str, twin: str) -> tuple[Path, Path]:
    routers = tmp_path / "routers.toml"
    routers.write_text(
        f'[routers.moody]\nkind = "http"\nurl = "{moody}"\ntimeout_s = 1\nconcurrency = 4\n'
        f'[routers.twin]\nkind = "http"\nurl = "{twin}"\n'
        '[routers.twin.answer]\nroute = "decision"\n'
    )
    prompts = tmp_path / "in.jsonl"
    prompts.write_text("".join(json.dumps({"prompt": p}) + "\n" for p in MOODY_PROMPTS))
    return routers, prompts


EXPECTED_ERRORS = {"http 5xx": 2, "garbage": 1, "rate_limited": 1, "timeout": 1}


@pytest.fixture(scope="module")
def moody_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """A batch of MOODY_PROMPTS through both services, as JSON lines and Parquet."""
    folder = tmp_path_factory.mktemp("moody")
    with serving(_moody) as moody, serving(_twin) as twin:
        routers, prompts = _moody_batch(folder, moody.url("/route"), twin.url("/route"))
        options = BatchOptions(routers=routers, router_names=("moody", "twin"), timings=False)
        summary = run_batch([str(prompts)], folder / "out.jsonl", options, progress=False)
        if importlib.util.find_spec("pyarrow") is not None:
            run_batch([str(prompts)], folder / "out.parquet", options, progress=False)
    return folder, summary


def test_the_summary_counts_each_routers_failures_by_kind(
    moody_results: tuple[Path, Any],
) -> None:
    folder, summary = moody_results
    assert summary.prompts == len(MOODY_PROMPTS) and summary.bad == 0
    assert summary.routers == ["moody", "twin"]
    assert summary.router_errors == {"moody": EXPECTED_ERRORS}
    assert list(summary.router_errors["moody"]) == [
        "http 5xx",
        "garbage",
        "rate_limited",
        "timeout",
    ]
    state = json.loads((folder / "out.state.json").read_text())
    assert state["router_errors"] == {"moody": EXPECTED_ERRORS}
    records = [json.loads(line) for line in (folder / "out.jsonl").read_text().splitlines()]
    busy = records[MOODY_PROMPTS.index("busy busy")]["routers"]["moody"]["error"]
    assert busy["kind"] == "http" and busy["status"] == 503


def test_a_resumed_batch_keeps_the_counts_of_the_run_before(tmp_path: Path) -> None:
    with serving(_moody) as moody, serving(_twin) as twin:
        routers, _ = _moody_batch(tmp_path, moody.url("/route"), twin.url("/route"))
        halves = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]  # a partition each
        for half, prompts in zip(halves, (MOODY_PROMPTS[:6], MOODY_PROMPTS[6:]), strict=True):
            half.write_text("".join(json.dumps({"prompt": p}) + "\n" for p in prompts))
        inputs = [str(half) for half in halves]
        options = BatchOptions(routers=routers, router_names=("moody",), timings=False)
        stopped = threading.Event()
        first = run_batch(
            inputs,
            tmp_path / "out.jsonl",
            options,
            progress=False,
            on_chunk=lambda prompts, bad: stopped.set(),
            cancel=stopped,
        )
        assert not first.complete and first.prompts == 6
        assert first.router_errors == {"moody": {"http 5xx": 1, "timeout": 1}}
        done = run_batch(inputs, tmp_path / "out.jsonl", options, progress=False)
        again = run_batch(inputs, tmp_path / "out.jsonl", options, progress=False)
    assert done.complete and done.router_errors == {"moody": EXPECTED_ERRORS}
    assert again.already_complete and again.router_errors == {"moody": EXPECTED_ERRORS}


def test_the_cli_summary_says_each_routers_failures(tmp_path: Path) -> None:
    with serving(_moody) as moody, serving(_twin) as twin:
        routers, prompts = _moody_batch(tmp_path, moody.url("/route"), twin.url("/route"))
        out = tmp_path / "out.jsonl"
        done = routescope_cli(
            "batch", str(prompts), "--out", str(out), "--routers", str(routers),
            "--router", "moody", "--router", "twin",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        "router moody: 5 errors in 9 prompts (http 5xx 2, garbage 1, rate_limited 1, timeout 1)"
        in done.stdout
    )
    assert "router twin: no errors in 9 prompts" in done.stdout


@pytest.mark.parametrize("name", ["out.jsonl", "out.parquet"])
def test_the_report_counts_failures_and_shows_how_routers_agree(
    moody_results: tuple[Path, Any], name: str
) -> None:
    folder, _ = moody_results
    if not (folder / name).exists():
        pytest.skip("pyarrow is not installed")
    report = build_report(folder / name)
    moody, twin = report.routers
    assert (moody.name, moody.prompts, moody.failed) == ("moody", 9, 5)
    assert {bar.label: bar.count for bar in moody.errors.bars} == EXPECTED_ERRORS
    assert [ref.prompt for ref in moody.errors.bar("http 5xx").examples] == [  # type: ignore[union-attr]
        "busy busy",
        "busy again",
    ]
    assert twin.failed == 0 and twin.routes.count("tech") == 3
    pairs = {(pair.a, pair.b): pair for pair in report.agreement}
    assert list(pairs) == [(BUILTIN, "moody"), (BUILTIN, "twin"), ("moody", "twin")]
    builtin_twin = pairs[(BUILTIN, "twin")]
    # the strategy router and twin share "tech" and "general": they agree on both
    strategies = [fx_strategy(p) for p in MOODY_PROMPTS]
    twins = ["tech" if "install" in p or "pip" in p else "general" for p in MOODY_PROMPTS]
    assert builtin_twin.agreed == sum(a == b for a, b in zip(strategies, twins, strict=True))
    assert builtin_twin.total == 9
    assert sum(map(sum, builtin_twin.matrix())) == 9
    moody_twin = pairs[("moody", "twin")]
    assert moody_twin.agreed == 2  # tech × tech (the third "tech" of twin: "pip cache purge")
    cell = moody_twin.cell("error: http", "general")
    assert cell is not None and [r.prompt for r in cell.examples] == ["busy busy", "busy again"]
    assert moody_twin.cell("other", "tech") is not None  # pip cache purge
    data = report_data(report)["routers"]
    assert data["names"] == ["moody", "twin"] and data["builtin"] == BUILTIN
    assert data["routers"]["moody"]["failed"] == 5
    assert {b["label"]: b["count"] for b in data["routers"]["moody"]["errors"]["bars"]} == (
        EXPECTED_ERRORS
    )
    agreement = data["agreement"][2]
    assert (agreement["a"], agreement["b"], agreement["agreed"]) == ("moody", "twin", 2)
    assert sum(map(sum, agreement["matrix"])) == 9
    shown = {
        (c["row"], c["column"]): [e["prompt"] for e in c["examples"]] for c in agreement["cells"]
    }
    assert shown[("error: http", "general")] == ["busy busy", "busy again"]
    page = report_html(report)
    assert 'id="routers"' in page and 'id="agreement"' in page
    assert "moody × twin" in page and "busy again" in page


def test_a_report_without_routers_has_none(tmp_path: Path) -> None:
    prompts = tmp_path / "in.jsonl"
    prompts.write_text(json.dumps({"prompt": "pizza near me"}) + "\n")
    run_batch([str(prompts)], tmp_path / "out.jsonl", BatchOptions(), progress=False)
    report = build_report(tmp_path / "out.jsonl")
    assert report.routers == () and report.agreement == ()
    assert report_data(report)["routers"] is None
    assert 'id="agreement"' not in report_html(report)
    assert "router_errors" not in json.loads((tmp_path / "out.state.json").read_text())


def fx_strategy(prompt: str) -> str:
    import routescope

    return routescope.inspect(prompt).strategy


def test_a_second_batch_in_one_process_routes_with_the_file_as_it_is_now(tmp_path: Path) -> None:
    """The routers a process keeps between partitions are those of the file's content: a
    routers file edited between two batches (another URL, another concurrency) is read again."""
    with serving(_service) as first, serving(_service) as second:
        routers, prompts = _setup(tmp_path, first.url("/route"))
        options = BatchOptions(routers=routers, router_names=("svc",), timings=False)
        run_batch([str(prompts)], tmp_path / "a.jsonl", options, progress=False)
        routers.write_text(
            f'[routers.svc]\nkind = "http"\nurl = "{second.url("/route")}"\nconcurrency = 8\n'
        )
        run_batch([str(prompts)], tmp_path / "b.jsonl", options, progress=False)
        assert (first.hits("/route"), second.hits("/route")) == (21, 21)


def test_the_routers_a_batch_started_are_stopped_when_it_ends(tmp_path: Path) -> None:
    routers = tmp_path / "routers.toml"
    folder = Path(__file__).resolve().parents[3] / "examples" / "routers"
    routers.write_text(
        f'[routers.keywords]\nkind = "python"\nfunction = "keyword_router:route"\n'
        f'path = "{folder}"\n'
    )
    prompts = tmp_path / "in.jsonl"
    prompts.write_text(json.dumps({"prompt": "refund my invoice"}) + "\n")
    options = BatchOptions(routers=routers, router_names=("keywords",), timings=False)
    run_batch([str(prompts)], tmp_path / "out.jsonl", options, progress=False)
    record = json.loads((tmp_path / "out.jsonl").read_text())
    assert record["routers"]["keywords"]["route"] == "billing"
    assert not [p for p in multiprocessing.active_children() if p.name == "routescope-router"]


def test_a_routers_file_edited_while_the_batch_runs_is_refused(tmp_path: Path) -> None:
    with serving(_service) as server:
        routers, prompts = _setup(tmp_path, server.url("/route"))

        def edit(progress: object) -> None:  # told once planned, before the first partition
            routers.write_text(routers.read_text() + "rate_per_s = 5\n")

        options = BatchOptions(routers=routers, router_names=("svc",))
        with pytest.raises(BatchError, match="the routers file changed while the batch ran"):
            run_batch([str(prompts)], tmp_path / "out.jsonl", options, on_progress=edit)
        assert server.hits("/route") == 0
