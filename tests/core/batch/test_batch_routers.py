"""`batch --router NAME`: an external router's decision is a column of every record (JSON
Lines and Parquet, local and Dask engines), its failures per-prompt results, never bad lines;
a resumed batch must name the same routers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from routescope.batch import BatchError, BatchOptions, run_batch
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
