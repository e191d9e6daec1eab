"""`routescope tools`: the fusion, the fit verdict and the steps from the command line
(issue 11 §3, §5, §6)."""

from __future__ import annotations

import json

from tests._support import routescope_cli


def test_the_text_output_shows_shares_the_verdict_and_the_steps() -> None:
    done = routescope_cli("tools", "find the config file, then email it to Bob")
    assert done.returncode == 0, done.stderr
    assert "·cos 0." in done.stdout and "·kw 0." in done.stdout and " + files 0." in done.stdout
    assert "fit       best score" in done.stdout and "calibrated fit threshold" in done.stdout
    assert "step 1    find the config file  (start)" in done.stdout
    assert "step 2    email it to Bob  (split at “, then” @20–26)" in done.stdout
    assert "mail.send" in done.stdout.split("step 2", 1)[1]


def test_json_carries_the_fusion_the_fit_and_the_steps() -> None:
    done = routescope_cli("tools", "--json", "find the config file, then email it to Bob")
    result = json.loads(done.stdout)
    assert result["fusion"] == "weighted" and result["fits"] is True
    top = result["results"][0]
    assert abs(sum(top["signals"]["shares"].values()) - top["score"]) < 1e-9
    assert [s["step"]["text"] for s in result["steps"]] == [
        "find the config file",
        "email it to Bob",
    ]
    assert result["steps"][1]["results"][0]["tool_name"] == "mail.send"


def test_canonical_fusion_no_steps_and_an_explicit_threshold() -> None:
    done = routescope_cli(
        "tools",
        "--json",
        "--fusion",
        "canonical",
        "--no-steps",
        "--fit-threshold",
        "0.5",
        "find the config file, then email it to Bob",
    )
    result = json.loads(done.stdout)
    assert result["fusion"] == "canonical" and result["steps"] == []
    assert result["results"][0]["signals"]["rrf"]
    assert result["fits"] is False and result["fit_threshold"] == 0.5
    assert "< fit threshold 0.500" in result["fit_reason"]


def test_a_bad_threshold_is_one_line_and_exit_2() -> None:
    for value in ("nan", "-1", "11", "high"):
        done = routescope_cli("tools", "--fit-threshold", value, "x")
        assert done.returncode == 2
        assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
