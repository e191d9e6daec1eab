"""Generated hostile files fed to every loader the command line has: each run ends in success
or exit 2 with one line on stderr, within a time the harness enforces (SIGALRM), never in a
traceback, a hang or `internal error`."""

import contextlib
import io
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import routescope
from routescope.cli import main

HARNESS_SECONDS = 30
Factory = pytest.TempPathFactory
DEFAULT_PACK = (Path(str(routescope.resources_root())) / "rules" / "default.toml").read_text()

_PIECES = [
    "[" * 3000,
    "{" * 3000,
    "]]",
    "\x00",
    "\x1b[2J",
    "\ufeff",
    "\udcff".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
    "nan",
    "inf",
    "1" * 5000,
    "é" * 1000,
    "{goal",
    "{goal:>99999999}",
    "*a",
    "&a [x]",
    "--- \n",
    "name: x\n",
    '"',
    "'",
    "\n" * 50,
    "key = ",
    "= 1",
    "[intents]",
    "cases:\n  - id: a\n",
]
_TEXT = st.lists(st.sampled_from(_PIECES) | st.text(max_size=40), max_size=12).map("".join)
_BYTES = st.binary(max_size=300)


@contextlib.contextmanager
def _harness_deadline() -> Iterator[None]:
    def expire(*_: object) -> None:
        raise TimeoutError(f"no answer within {HARNESS_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(HARNESS_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _run(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with (
        _harness_deadline(),
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(err),
    ):
        code = main(list(args))
    return code, err.getvalue()


def _check(code: int, err: str, ok: tuple[int, ...] = (0,)) -> None:
    errors = [line for line in err.splitlines() if not line.startswith("routescope: warning:")]
    if code in ok:
        assert not errors, err
        return
    assert code == 2, err
    (line,) = errors
    assert line.startswith("routescope: error: "), line


def _write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    else:
        path.write_bytes(content)
    return path


_SETTINGS = settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)


@_SETTINGS
@given(st.one_of(_TEXT.map(lambda t: DEFAULT_PACK.replace("{goal}", t, 1)), _TEXT, _BYTES))
def test_hostile_rule_packs(tmp_path_factory: Factory, content: str | bytes) -> None:
    folder = tmp_path_factory.mktemp("pack")
    path = _write(folder, "pack.toml", content)
    _check(*_run("inspect", "--no-tools", "--rules", str(path), "best ramen near Denver"))


@_SETTINGS
@given(st.one_of(_TEXT, _BYTES, _TEXT.map(lambda t: '{"last_action": {"tool": "' + t + '"}}')))
def test_hostile_contexts(tmp_path_factory: Factory, content: str | bytes) -> None:
    folder = tmp_path_factory.mktemp("context")
    path = _write(folder, "context.json", content)
    _check(*_run("decide", "--context", str(path), "try again"))


@_SETTINGS
@given(
    st.one_of(
        _TEXT,
        _BYTES,
        _TEXT.map(
            lambda t: (
                "suite: s\nrouter: strategy\ncases:\n  - id: a\n    prompt: pizza\n"
                f"    expect:\n      strategy: {t!r}\n"
            )
        ),
    )
)
def test_hostile_suites(tmp_path_factory: Factory, content: str | bytes) -> None:
    folder = tmp_path_factory.mktemp("suite")
    path = _write(folder, "suite.yaml", content)
    _check(*_run("regress", str(path)), ok=(0, 1))


@_SETTINGS
@given(
    st.one_of(_TEXT, _BYTES, _TEXT.map(lambda t: f'[{{"tool_name": "a.b", "description": {t!r}}}]'))
)
def test_hostile_json_catalogs(tmp_path_factory: Factory, content: str | bytes) -> None:
    folder = tmp_path_factory.mktemp("catalog")
    path = _write(folder, "catalog.json", content)
    _check(*_run("tools", "--strategy", "exact", "--catalog", str(path), "run"))


@_SETTINGS
@given(st.lists(st.one_of(_TEXT.map(lambda t: f"---\n{t}\n---\n"), _TEXT, _BYTES), max_size=3))
def test_hostile_skill_folders(tmp_path_factory: Factory, skills: list[str | bytes]) -> None:
    folder = tmp_path_factory.mktemp("skills")
    (folder / "ok").mkdir()
    _write(folder / "ok", "SKILL.md", "---\nname: ok\ncommands:\n  - name: run\n---\n")
    for number, content in enumerate(skills):
        (folder / f"s{number}").mkdir()
        _write(folder / f"s{number}", "SKILL.md", content)
    _check(*_run("tools", "--strategy", "exact", "--catalog", str(folder), "run"))
