"""`run_research` and `ResearchSettings`: the one place backends are put together."""

import asyncio

import pytest

from routescope import ResearchConfigError
from routescope.research import Attempt, OfflineSearch, ResearchSettings, run_research
from routescope.research._offline import OfflineDocument

CORPUS = (
    OfflineDocument(
        url="https://docs.python.org/3/library/asyncio-eventloop.html",
        title="asyncio — Event Loop",
        body="The event loop runs in a thread; run_coroutine_threadsafe submits a coroutine "
        "to the event loop of another thread.",
        kind="stdlib",
    ),
)


@pytest.mark.parametrize(
    ("settings", "keys", "message"),
    [
        (ResearchSettings(search="tavily"), {}, "tavily needs a key: set TAVILY_API_KEY"),
        (ResearchSettings(search="brave"), {"TAVILY_API_KEY": "x"}, "BRAVE_API_KEY"),
        (ResearchSettings(search="searxng", searxng_url="ftp://x"), {}, "SearXNG needs"),
        (ResearchSettings(llm="openai"), {}, "/v1 base URL"),
        (ResearchSettings(llm="openai", llm_url="http://h/v1", model=" "), {}, "model name"),
        (ResearchSettings(max_attempts=11), {}, "from 1 to 10"),
        (ResearchSettings(search="bing"), {}, "unknown search provider"),  # type: ignore[arg-type]
    ],
)
def test_settings_that_cannot_run_say_why(
    settings: ResearchSettings, keys: dict[str, str], message: str
) -> None:
    problem = settings.problem(keys)
    assert problem is not None and message in problem
    with pytest.raises(ResearchConfigError) as caught:
        asyncio.run(run_research("asyncio", settings, keys=keys))
    assert str(caught.value) == problem


def test_only_offline_search_with_the_heuristic_model_is_offline() -> None:
    assert ResearchSettings().offline
    assert not ResearchSettings(search="brave").offline
    assert not ResearchSettings(llm="openai").offline
    assert ResearchSettings().describe() == "offline index · heuristic model"
    described = ResearchSettings(
        search="searxng",
        searxng_url="http://search.lan:8080",
        llm="openai",
        llm_url="http://localhost:11434/v1",
        model="qwen3",
    ).describe()
    assert described == "SearXNG at search.lan · qwen3 at localhost · reads 5 host(s)"


def test_a_key_in_a_bad_model_setting_is_not_repeated() -> None:
    settings = ResearchSettings(llm="openai", llm_url="http://localhost:1/v1", model="m")
    with pytest.raises(ResearchConfigError) as caught:
        asyncio.run(run_research("asyncio", settings, keys={"OPENAI_API_KEY": "sk bad key"}))
    assert "sk bad key" not in str(caught.value)


def test_offline_research_reports_each_attempt_as_it_is_graded(tmp_path: object) -> None:
    seen: list[Attempt] = []
    search = OfflineSearch(tmp_path, documents=CORPUS)  # type: ignore[arg-type]
    result = asyncio.run(
        run_research(
            "asyncio event loop in a thread",
            ResearchSettings(max_attempts=3),
            offline=lambda: search,
            on_attempt=seen.append,
        )
    )
    assert seen == result.attempts and seen
    assert result.model == "heuristic"
    assert result.findings[0].url == CORPUS[0].url


def test_the_host_allowlist_is_a_setting() -> None:
    """Issue 27 §5: the allowlist is configurable (the seed's five hosts by default)."""
    default = ResearchSettings()
    assert default.allowlist() == (
        "nodejs.org",
        "docs.python.org",
        "developer.mozilla.org",
        "stackoverflow.com",
        "vitejs.dev",
    )
    assert ResearchSettings(allowed_hosts=" *").allowlist() == ()  # any public host
    mine = ResearchSettings(allowed_hosts="docs.python.org, *.readthedocs.io")
    assert mine.allowlist() == ("docs.python.org", "*.readthedocs.io")
    assert ResearchSettings.from_json(mine.to_json()) == mine
    for bad, said in [("", "empty"), ("docs python", "not a host name"), ("*, a.org", "'*'")]:
        problem = ResearchSettings(allowed_hosts=bad).problem({})
        assert problem is not None and said in problem
    web = ResearchSettings(search="searxng", searxng_url="http://s.lan", allowed_hosts="*")
    assert web.describe().endswith("reads any public host")


def test_the_reader_fetches_under_the_settings_allowlist() -> None:
    from routescope.research._backends import _reader
    from routescope.research._reader import WebReader

    provider = object()
    reader = _reader(provider, ResearchSettings(allowed_hosts="example.org"))  # type: ignore[arg-type]
    assert isinstance(reader, WebReader)
    policy = reader.fetcher.policy
    assert policy.allowed_hosts == ("example.org",)
    assert policy.verdict("https://docs.example.org/x").allowed
    assert not policy.verdict("https://other.net/x").allowed


def test_a_blank_stack_hint_switches_the_inference_off() -> None:
    from routescope.research._backends import _stack

    assert _stack("open a page in the browser", " ", None) == ""
    assert _stack("open a page in the browser", None, None) == ""  # no language named
    assert _stack("read a file with pytest fixtures", None, None) == "Python"
    assert _stack("style the buttons", None, "A Flask API server in Python") == "Python backend"
    assert _stack("anything", "Rust CLI", None) == "Rust CLI"
