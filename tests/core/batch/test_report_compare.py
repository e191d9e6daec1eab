"""`compare_results`: two results files over the same prompts, changes grouped by kind."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from routescope.batch import ResultsComparison, ResultsError, compare_results
from routescope.batch import _changes as changes_module

from . import _fixtures as fx
from .test_report import _base

Record = dict[str, Any]


@pytest.fixture(scope="module")
def packs(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Record], list[Record]]:
    """The built-in suites' prompts under the default pack and under the leaky one."""
    folder = tmp_path_factory.mktemp("packs")
    prompts = fx.suite_prompts()
    search = fx.tool_search(folder / "cache")
    default = fx.records(prompts, tools=search)
    leaky = fx.records(prompts, rules=fx.leaky_rules(folder), tools=search)
    return default, leaky


def _agent(record: Record) -> str:
    return record["contract"]["agent"] if record["contract"] else "(contract off)"


def _routing(record: Record) -> tuple[Any, ...]:
    """What the comparison compares, computed independently."""
    contract = record["contract"] or {}
    tool = record["top_tool"] if record["tool_fits"] else "(no tool fits)"
    return (
        record["strategy"],
        record["lint_class"],
        contract.get("agent"),
        contract.get("mode"),
        tool,
        record["queries"],
    )


def test_two_rule_packs_over_the_same_prompts(
    tmp_path: Path, packs: tuple[list[Record], list[Record]]
) -> None:
    default, leaky = packs
    a = fx.write_results(tmp_path / "a.jsonl", default)
    b = fx.write_results(tmp_path / "b.jsonl.gz", leaky)
    comparison = compare_results(a, b)
    assert comparison.matched == len(default)
    assert comparison.only_a.count == comparison.only_b.count == 0
    assert comparison.prompt_differs.count == 0

    pairs = list(zip(default, leaky, strict=True))
    strategy = Counter(
        f"{x['strategy']} → {y['strategy']}" for x, y in pairs if x["strategy"] != y["strategy"]
    )
    group = comparison.group("strategy")
    assert {t.label: t.count for t in group.transitions} == dict(strategy)
    assert group.count == sum(strategy.values()) > 0
    assert dict(strategy) == {"general → tech": group.count}  # "pools" became a tech word
    pools = group.transitions[0].examples
    assert all("pools" in change.ref.prompt.lower() for change in pools)
    assert all(change.before == ("general",) and change.after == ("tech",) for change in pools)

    lint = Counter(
        f"{x['lint_class']} → {y['lint_class']}"
        for x, y in pairs
        if x["lint_class"] != y["lint_class"]
    )
    assert {t.label: t.count for t in comparison.group("lint_class").transitions} == dict(lint)
    modes = sum(x["contract"]["mode"] != y["contract"]["mode"] for x, y in pairs)
    assert comparison.group("mode").count == modes > 0
    assert comparison.group("agent").count == sum(_agent(x) != _agent(y) for x, y in pairs)
    queries = sum(x["queries"] != y["queries"] for x, y in pairs)
    assert comparison.group("queries").count == queries > 0
    changed = sum(_routing(x) != _routing(y) for x, y in pairs)
    assert comparison.changed == changed
    assert comparison.unchanged == comparison.matched - changed
    assert comparison.a.leak_count == 0 < comparison.b.leak_count


def test_the_queries_group_says_how_and_under_which_strategy(
    tmp_path: Path, packs: tuple[list[Record], list[Record]]
) -> None:
    default, leaky = packs
    comparison = compare_results(
        fx.write_results(tmp_path / "a.jsonl", default),
        fx.write_results(tmp_path / "b.jsonl", leaky),
        examples=2,
    )
    labels = {t.label: t for t in comparison.group("queries").transitions}
    assert "reworded (general)" in labels
    assert "reworded (general → tech)" in labels
    example = labels["reworded (general)"].examples[0]
    record = next(
        r for r in leaky if (r["source"], r["line"]) == (example.ref.source, example.ref.line)
    )
    assert example.after == tuple(record["queries"])
    assert all(len(t.examples) <= 2 for t in labels.values())


def test_a_file_compared_with_itself_has_no_change(
    tmp_path: Path, packs: tuple[list[Record], list[Record]]
) -> None:
    path = fx.write_results(tmp_path / "a.jsonl", packs[0])
    comparison = compare_results(path, path)
    assert comparison.changed == 0
    assert comparison.matched == len(packs[0])
    assert all(group.count == 0 and group.transitions == () for group in comparison.groups)


Compare = Callable[..., ResultsComparison]


@pytest.fixture
def compare(tmp_path: Path) -> Compare:
    """Compare two lists of records, written as results files A and B."""

    def run(a: list[Record], b: list[Record], **options: Any) -> ResultsComparison:
        return compare_results(
            fx.write_results(tmp_path / "a.jsonl", a),
            fx.write_results(tmp_path / "b.jsonl", b),
            **options,
        )

    return run


def test_every_kind_of_change(compare: Compare) -> None:
    a = [
        _base(line=1, queries=["q1", "q2"]),
        _base(line=2, queries=["q1", "q2"]),
        _base(line=3, queries=["q1", "q2"]),
        _base(line=4, queries=["q1", "q2"]),
        _base(line=5, tools=["t1"], top_tool="t1", tool_fits=True),
        _base(line=6),
    ]
    b = [
        _base(line=1, queries=["q1", "q2", "q3"]),
        _base(line=2, queries=["q1"]),
        _base(line=3, queries=["q1", "q9"]),
        _base(line=4, queries=["q2", "q1"]),
        _base(line=5, tools=["t2", "t1"], top_tool="t2", tool_fits=False),
        _base(line=6, contract={"agent": "lending", "mode": "decide", "tools": []}),
    ]
    comparison = compare(a, b)
    queries = {t.label: t.count for t in comparison.group("queries").transitions}
    assert queries == {
        "added (general)": 1,
        "removed (general)": 1,
        "reworded (general)": 1,
        "reordered (general)": 1,
    }
    assert [t.label for t in comparison.group("top_tool").transitions] == ["t1 → (no tool fits)"]
    assert [t.label for t in comparison.group("agent").transitions] == ["knowledge → lending"]
    assert [t.label for t in comparison.group("mode").transitions] == ["explore → decide"]
    assert comparison.changed == 6
    assert comparison.group("mode").share == pytest.approx(1 / 6)


def test_prompts_in_another_order_missing_or_different(compare: Compare) -> None:
    a = [_base(line=n, prompt=f"prompt {n}") for n in range(1, 201)]
    b = [dict(r) for r in a if r["line"] not in (7, 8)]
    b.append(_base(line=999, prompt="only in b"))
    b[0] = _base(line=1, prompt="another prompt")
    random.Random(18).shuffle(b)
    comparison = compare(a, b)
    assert comparison.only_a.count == 2
    assert {ref.line for ref in comparison.only_a.examples} == {7, 8}
    assert comparison.only_b.count == 1
    assert comparison.only_b.examples[0].prompt == "only in b"
    assert comparison.prompt_differs.count == 1
    assert comparison.matched == 197
    assert comparison.changed == 0


def test_far_apart_matches_count_as_missing_past_the_limit(
    monkeypatch: pytest.MonkeyPatch, compare: Compare
) -> None:
    monkeypatch.setattr(changes_module, "PENDING_LIMIT", 10)
    a = [_base(line=n) for n in range(1, 101)]
    comparison = compare(a, list(reversed(a)))
    assert comparison.matched < 100
    assert comparison.only_a.count == comparison.only_b.count == 100 - comparison.matched


def test_an_empty_or_bad_side_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path
    good = fx.write_results(folder / "good.jsonl", [_base()])
    empty = folder / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(ResultsError, match=r"empty\.jsonl: no results in it"):
        compare_results(good, empty)
    bad = folder / "bad.jsonl"
    bad.write_text('{"source": "x", "line": 1, "prompt": "p", "strategy": 3}\n')
    with pytest.raises(ResultsError, match=r"bad\.jsonl: line 1: "):
        compare_results(bad, good)


def test_one_log_named_relatively_and_absolutely_matches_line_by_line(tmp_path: Path) -> None:
    """Issue 25 §2: the same log given once as `logs/a.jsonl` and once as an absolute path
    matched nothing ("0 of 0 matched prompts changed routing", exit 0)."""
    relative = [_base(source="logs/a.jsonl", line=n, prompt=f"p{n}") for n in (1, 2, 3)]
    absolute = [_base(source="/home/me/logs/a.jsonl", line=n, prompt=f"p{n}") for n in (1, 2, 3)]
    other = [_base(source="/elsewhere/b.jsonl", line=1, prompt="p1")]
    comparison = compare_results(
        fx.write_results(tmp_path / "a.jsonl", relative),
        fx.write_results(tmp_path / "b.jsonl", absolute + other),
    )
    assert (comparison.matched, comparison.only_a.count, comparison.only_b.count) == (3, 0, 1)


def test_two_logs_that_share_no_prompt_are_an_error(tmp_path: Path) -> None:
    a = fx.write_results(tmp_path / "a.jsonl", [_base(source="x.jsonl")])
    b = fx.write_results(tmp_path / "b.jsonl", [_base(source="y.jsonl")])
    with pytest.raises(ResultsError, match="no prompt of one is in the other"):
        compare_results(a, b)


def test_intent_flags_are_a_kind_of_change(tmp_path: Path) -> None:
    """Issue 25 §2: a pack that turns time_sensitive off showed only as reworded queries."""
    before = [_base(line=n, prompt=f"p{n}", intents=["time_sensitive"]) for n in (1, 2)]
    after = [
        _base(line=1, prompt="p1", intents=[]),
        _base(line=2, prompt="p2", intents=["time_sensitive"]),
    ]
    comparison = compare_results(
        fx.write_results(tmp_path / "a.jsonl", before),
        fx.write_results(tmp_path / "b.jsonl", after),
    )
    group = comparison.group("intents")
    assert group.count == 1 and [t.label for t in group.transitions] == ["time_sensitive → (none)"]
