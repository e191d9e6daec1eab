"""The query linter against the five examples of seed 002, exactly, and its rules."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

import routescope
from routescope.linter import _lint, lint
from routescope.linter._lint import MAX_EVIDENCE_PER_KIND, fold

RULES = routescope.default_rules()


def shape(text: str) -> dict[str, object]:
    data = dataclasses.asdict(lint(text, RULES))
    return {k: data[k] for k in ("query_class", "changed", "expanded_query", "changes")}


def test_seed_example_1_vague_default() -> None:
    assert shape("config") == {
        "query_class": "vague",
        "changed": True,
        "expanded_query": "config agent.md prime.md",
        "changes": {"added_strong": ["agent.md", "prime.md"], "reasons": ["vague_default_boost"]},
    }


def test_seed_example_2_vague_doc_intent() -> None:
    assert shape("docs") == {
        "query_class": "vague",
        "changed": True,
        "expanded_query": "docs docs/ readme.md",
        "changes": {"added_strong": ["docs/", "readme.md"], "reasons": ["doc_intent_boost"]},
    }


def test_seed_example_3_guided_english() -> None:
    assert shape("check agent.md template creation code") == {
        "query_class": "guided",
        "changed": False,
        "expanded_query": "check agent.md template creation code",
        "changes": {},
    }


def test_seed_example_4_spanish_alias() -> None:
    result = lint("Muéstrame documentación sobre la persistencia de sesión", RULES)
    assert (result.query_class, result.changed) == ("guided", False)
    assert result.anchors_detected.aliases_matched == ["persistencia de sesión"]
    assert result.anchors_detected.strong == ["session.md", "session append"]


def test_seed_example_5_semi() -> None:
    result = lint("update telemetry logic", RULES)
    assert (result.query_class, result.changed) == ("semi", False)
    assert (result.anchors_detected.strong, result.anchors_detected.weak) == (["telemetry"], [])


def test_aliases_match_without_accents_and_keep_spans() -> None:
    text = "Quiero ver la PERSISTENCIA DE SESION ahora"
    result = lint(text, RULES)
    assert result.anchors_detected.aliases_matched == ["persistencia de sesión"]
    match = result.evidence[0]
    assert text[match.start : match.end] == "PERSISTENCIA DE SESION"


def test_classification_arithmetic_is_reported() -> None:
    result = lint("check agent.md template creation code", RULES)
    c = result.classification
    assert (c.tokens, c.strong, c.weak, c.total_anchors) == (5, 1, 1, 2)
    assert c.rule == "guided: tokens 5 ≥ 5 and strong 1 ≥ 1"


@pytest.mark.parametrize(
    ("text", "query_class"),
    [
        ("how does this thing work at all", "vague"),  # no anchors
        ("config schema", "vague"),  # 2 tokens
        ("change the config schema now please", "guided"),  # 2 weak anchors
        ("change the config now please", "semi"),  # 1 weak anchor, 5 tokens
    ],
)
def test_thresholds(text: str, query_class: str) -> None:
    assert lint(text, RULES).query_class == query_class


def test_no_duplicates_and_at_most_two_added() -> None:
    assert shape("agent.md")["expanded_query"] == "agent.md prime.md"
    assert shape("docs readme.md")["changes"] == {
        "added_strong": ["docs/"],
        "reasons": ["doc_intent_boost"],
    }


def test_vague_long_query_without_doc_intent_is_left_alone() -> None:
    assert shape("how does this thing work at all")["changed"] is False


def test_weak_anchor_inside_a_strong_one_is_not_counted_twice() -> None:
    result = lint("open session.md", RULES)
    assert result.anchors_detected.strong == ["session.md"]
    assert result.anchors_detected.weak == []


def test_fold_keeps_length() -> None:
    assert fold("Sesión Ñandú") == "sesion nandu"
    assert fold("İstanbul") is None


def test_aliases_and_anchors_with_letters_that_casefold_differently() -> None:
    text = routescope.resources_root().joinpath("rules", "default.toml").read_text(encoding="utf-8")
    pack = routescope.parse_rules(
        text.replace('alias = "telemetría"', 'alias = "Straße der Sitzung"')
    )
    result = lint("zeige die straße der sitzung bitte jetzt", pack)
    assert result.anchors_detected.aliases_matched == ["Straße der Sitzung"]
    assert result.anchors_detected.strong == ["telemetry"]


# --- F2: one pass over the anchors, evidence capped, counts complete -------------------------


def reference_anchors(text: str, rules: routescope.RulePack) -> list[tuple[str, str, int, int]]:
    """The former overlap test: every match against every span taken so far (quadratic)."""
    compiled = rules.derived(_lint._compile)
    matches = _lint._matches(text, fold(text), compiled)
    found: list[tuple[str, str, int, int]] = []
    taken: list[tuple[int, int]] = []

    def overlaps(start: int, end: int) -> bool:
        return any(start < t_end and t_start < end for t_start, t_end in taken)

    for start, end, term in matches["alias"]:
        found += [("strong", a, start, end) for a in compiled.alias_anchors[term][1]]
        taken.append((start, end))
    for start, end, term in matches["strong"]:
        if not overlaps(start, end):
            found.append(("strong", compiled.canonical.get(term, term), start, end))
            taken.append((start, end))
    for start, end, term in matches["weak"]:
        if not overlaps(start, end):
            found.append(("weak", compiled.canonical.get(term, term), start, end))
    return found


_PIECES = st.sampled_from(
    [
        "session",
        "session.md",
        "session append",
        "append",
        "telemetry",
        "telemetría",
        "docs/",
        "readme.md",
        "docs/readme.md",
        "persistencia de sesión",
        "sesión",
        "config",
        "schema",
        "agent",
        "agent.md",
        "template",
        "plantilla de agente",
        "x",
        "Sesion",
        "TELEMETRY",
    ]
)
_GAPS = st.sampled_from([" ", "  ", "/", ".", "-", "", "\t"])


@given(st.lists(st.tuples(_PIECES, _GAPS), min_size=1, max_size=30))
def test_anchors_agree_with_the_pairwise_reference(parts: list[tuple[str, str]]) -> None:
    text = "".join(piece + gap for piece, gap in parts)
    expected = reference_anchors(text, RULES)
    result = lint(text, RULES)
    kept = [
        m
        for kind in ("strong", "weak")
        for m in [e for e in expected if e[0] == kind][:MAX_EVIDENCE_PER_KIND]
    ]
    assert sorted((m.kind, m.anchor, m.start, m.end) for m in result.evidence) == sorted(kept)
    assert result.evidence_counts == {
        kind: sum(e[0] == kind for e in expected) for kind in ("strong", "weak")
    }
    strong = list(dict.fromkeys(a for kind, a, _, _ in expected if kind == "strong"))
    weak = list(dict.fromkeys(a for kind, a, _, _ in expected if kind == "weak"))
    assert (result.anchors_detected.strong, result.anchors_detected.weak) == (strong, weak)


@pytest.mark.parametrize(
    "unit", ["readme.md ", "docs/readme.md ", "session append ", "telemetry session sesión "]
)
def test_a_long_run_of_anchors_keeps_capped_evidence_and_full_counts(unit: str) -> None:
    """The findings' shapes (minutes at 1 MB before); the bench times them ("file anchors")."""
    once = reference_anchors(unit, RULES)
    assert once, "each unit holds an anchor"
    repeats = 30_000
    result = lint(unit * repeats, RULES)
    assert result.anchors_detected.strong == list(
        dict.fromkeys(a for kind, a, _, _ in once if kind == "strong")
    )
    assert result.evidence_counts == {
        kind: repeats * sum(m[0] == kind for m in once) for kind in ("strong", "weak")
    }
    for kind in ("strong", "weak"):
        kept = [m for m in result.evidence if m.kind == kind]
        assert len(kept) == min(result.evidence_counts[kind], MAX_EVIDENCE_PER_KIND)
    for match in result.evidence:
        assert (unit * repeats)[match.start : match.end] == match.text
