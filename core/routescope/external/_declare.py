"""External routers declared in one TOML file (`load_routers`), each a `[routers.NAME]` table:

    [routers.support]                       # a semantic-router file, run with the shipped model
    kind = "semantic-router"
    file = "support-router.yaml"            # relative to this file

    [routers.mine]                          # a Python function, in a worker process
    kind = "python"
    function = "keyword_router:route"       # module:function
    path = "."                              # put on the worker's sys.path (relative to this file)

    [routers.vsr]                           # an HTTP service, shaped by a preset
    kind = "http"
    preset = "vllm-semantic-router"         # or vllm-semantic-router-intent, openai-model-router
    url = "http://127.0.0.1:8080"
    secret_env = "VSR_TOKEN"                # or secret_file = "~/.config/vsr.key" (mode 600)
    headers = { Authorization = "Bearer {secret}" }
    timeout_s = 5                           # the whole request, retries included
    concurrency = 4                         # requests in flight at most
    rate_per_s = 20                         # requests a second at most (none: no limit)

    [routers.custom]                        # any HTTP service: the request and the answer map
    kind = "http"
    url = "http://127.0.0.1:9000/route"
    body = { query = "{prompt}", day = "{today}", user = "{context.user_id}" }
    [routers.custom.answer]
    route = "decision.name"                 # answer paths: see `_paths`
    score = "decision.confidence"
    scores = "candidates[*]"                # an object of route → score, or a list of objects
    scores_name = "name"                    # … whose route and score are at these paths
    scores_value = "score"
    tools = "tools[*].name"
    flags = "flags"
    signals = "matched"

A secret is read from the environment or from a key file only its owner can read, put where a
header says `{secret}`, and masked (`***`) in every message, raw answer and record: it is never
written to history, a session or a report. A URL is used as declared, loopback or not (the
analyst declared it); redirects are never followed; proxies from the environment are not used.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from .._errors import RouterError, describe, one_line
from .._files import read_text
from ._paths import parse_path

__all__ = [
    "PRESETS",
    "AnswerMap",
    "HttpSpec",
    "PythonSpec",
    "RouterSpec",
    "Routers",
    "SemanticRouterSpec",
    "load_routers",
    "parse_routers",
    "read_secret",
]

_MAX_FILE = 1 << 20
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_MAX_SECRET = 4096
Preset = Literal["vllm-semantic-router", "vllm-semantic-router-intent", "openai-model-router"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AnswerMap(_Strict):
    """Where the decision is in a router's answer (answer paths; see `_paths`)."""

    route: str = "route"
    score: str | None = None
    scores: str | None = None
    scores_name: str = "name"
    scores_value: str = "score"
    tools: str | None = None
    flags: str | None = None
    signals: str | None = None

    @field_validator("route", "score", "scores", "scores_name", "scores_value", "tools", "flags")
    @classmethod
    def _readable(cls, value: str | None) -> str | None:
        if value is not None:
            parse_path(value)
        return value

    @field_validator("signals")
    @classmethod
    def _readable_signals(cls, value: str | None) -> str | None:
        if value is not None:
            for part in value.split(","):
                parse_path(part)
        return value


PYTHON_ANSWER = AnswerMap(
    route="route", score="score", scores="scores", tools="tools", flags="flags", signals="signals"
)
"""What a Python router's mapping holds, unless its declaration says otherwise."""


class _Limits(_Strict):
    timeout_s: float = Field(10.0, gt=0, le=600)
    concurrency: int = Field(4, ge=1, le=256)
    rate_per_s: float | None = Field(None, gt=0, le=100_000)


class HttpSpec(_Limits):
    kind: Literal["http"]
    url: str
    preset: Preset | None = None
    method: Literal["POST", "GET"] = "POST"
    body: dict[str, Any] | None = None
    query: dict[str, str] | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    model: str | None = None
    """The `model` an `openai-model-router` or `vllm-semantic-router` request names."""
    secret_env: str | None = None
    secret_file: str | None = None
    answer: AnswerMap | None = None
    max_bytes: int = Field(1 << 20, ge=1024, le=64 << 20)
    retries: int = Field(1, ge=0, le=5)
    """Further requests after a 429, each after the wait the server asks (within `timeout_s`)."""

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        if "@" in parts.netloc:
            raise ValueError("must not carry credentials (use headers and a secret)")
        return value


class PythonSpec(_Limits):
    kind: Literal["python"]
    function: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    path: str | None = None
    answer: AnswerMap | None = None


class SemanticRouterSpec(_Limits):
    kind: Literal["semantic-router"]
    file: str


RouterSpec = Annotated[HttpSpec | PythonSpec | SemanticRouterSpec, Field(discriminator="kind")]
_SPEC: TypeAdapter[HttpSpec | PythonSpec | SemanticRouterSpec] = TypeAdapter(RouterSpec)


@dataclass(frozen=True, slots=True)
class Routers:
    """The routers of one declaration file, by name, in the file's order."""

    path: Path
    specs: Mapping[str, HttpSpec | PythonSpec | SemanticRouterSpec]

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def names(self) -> list[str]:
        return list(self.specs)

    def spec(self, name: str) -> HttpSpec | PythonSpec | SemanticRouterSpec:
        found = self.specs.get(name)
        if found is None:
            known = ", ".join(self.specs) or "none"
            raise RouterError(
                one_line(f"{self.path}: no router {name!r} (it declares: {known})", 300)
            )
        return found

    def resolve(self, relative: str) -> Path:
        """A path of the declaration, relative to its file (`~` expanded)."""
        path = Path(relative).expanduser()
        return path if path.is_absolute() else self.folder / path


PRESETS: dict[str, dict[str, Any]] = {
    # vLLM Semantic Router's route preview: every configured signal and the decision, without
    # a generation call. Answer: decision_result{decision_name, confidence},
    # signal_confidences{"<kind>:<name>": confidence}, matched_signals{<kind>s: [names]}.
    "vllm-semantic-router": {
        "path": "/api/v1/routing/preview",
        "body": {"model": "{model}", "text": "{prompt}"},
        "model": "auto",
        "answer": AnswerMap(
            route="decision_result.decision_name",
            score="decision_result.confidence",
            signals="signal_confidences,matched_signals",
        ),
    },
    # Its classification API: the category, its confidence, every category's probability.
    "vllm-semantic-router-intent": {
        "path": "/api/v1/classify/intent",
        "body": {"text": "{prompt}", "options": {"return_probabilities": True}},
        "answer": AnswerMap(
            route="classification.category",
            score="classification.confidence",
            scores="probabilities",
        ),
    },
    # A model router behind an OpenAI-compatible endpoint (RouteLLM's `router-mf-0.11593`):
    # the model it chose is the answer's `model`; one token is asked for.
    "openai-model-router": {
        "path": "/v1/chat/completions",
        "body": {
            "model": "{model}",
            "messages": [{"role": "user", "content": "{prompt}"}],
            "max_tokens": 1,
        },
        "model": "router-mf-0.11593",
        "answer": AnswerMap(route="model"),
    },
}


def preset_applied(spec: HttpSpec) -> HttpSpec:
    """The spec with its preset's request and answer where the spec gives none (the preset's
    path is added to a URL that has none)."""
    if spec.preset is None:
        return spec
    preset = PRESETS[spec.preset]
    url = spec.url
    if urlsplit(url).path in ("", "/"):
        url = url.rstrip("/") + preset["path"]
    return spec.model_copy(
        update={
            "url": url,
            "body": spec.body if spec.body is not None else preset["body"],
            "model": spec.model or preset.get("model"),
            "answer": spec.answer or preset["answer"],
        }
    )


def load_routers(path: str | Path) -> Routers:
    """The routers a TOML file declares (RouterError: one line naming file, router, field)."""
    path = Path(path)
    text = read_text(path, what="routers file", limit=_MAX_FILE, error=RouterError)
    return parse_routers(text, path)


def parse_routers(text: str, path: Path) -> Routers:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RouterError(one_line(f"{path}: not TOML: {exc}", 300)) from None
    tables = data.get("routers")
    unknown = sorted(set(data) - {"routers"})
    if unknown:
        raise RouterError(
            one_line(f"{path}: unknown key {unknown[0]!r} (routers are [routers.NAME])")
        )
    if not isinstance(tables, dict) or not tables:
        raise RouterError(one_line(f"{path}: no router declared ([routers.NAME] tables)"))
    specs: dict[str, HttpSpec | PythonSpec | SemanticRouterSpec] = {}
    for name, table in tables.items():
        if not _NAME.fullmatch(name):
            raise RouterError(
                one_line(
                    f"{path}: router name {name!r}: letters, digits, '_', '-' and '.' "
                    "(at most 64, a letter or digit first): it names columns and flags"
                )
            )
        if not isinstance(table, dict):
            raise RouterError(one_line(f"{path}: routers.{name} must be a table"))
        try:
            spec = _SPEC.validate_python(table)
        except ValidationError as exc:
            raise RouterError(
                one_line(f"{path}: " + describe(exc, functools.partial(_where, name)), 300)
            ) from None
        except ValueError as exc:
            raise RouterError(one_line(f"{path}: routers.{name}: {exc}", 300)) from None
        if isinstance(spec, HttpSpec):
            spec = preset_applied(spec)
            if spec.body is None and spec.method == "POST":
                spec = spec.model_copy(update={"body": {"prompt": "{prompt}"}})
        specs[name] = spec
    return Routers(path, specs)


def _where(name: str, loc: tuple[int | str, ...]) -> str:
    # The discriminated union puts the kind first ("http.url"): the table's key is what to fix.
    parts = [str(part) for part in loc]
    if parts and parts[0] in ("http", "python", "semantic-router"):
        parts = parts[1:]
    return ".".join(["routers", name, *parts])


def read_secret(routers: Routers, name: str, spec: HttpSpec) -> str | None:
    """The router's secret: from `secret_env` (which must be set), else from `secret_file` (a
    regular file only its owner may read: mode 600). RouterError when declared but missing."""
    where = f"{routers.path}: routers.{name}"
    if spec.secret_env:
        value = os.environ.get(spec.secret_env, "").strip()
        if not value:
            raise RouterError(
                one_line(f"{where}: the environment variable {spec.secret_env} is not set")
            )
        return value
    if not spec.secret_file:
        return None
    file = routers.resolve(spec.secret_file)
    try:
        info = os.stat(file)
    except OSError as exc:
        raise RouterError(one_line(f"{where}: secret_file {file}: {exc.strerror or exc}")) from None
    if not stat.S_ISREG(info.st_mode):
        raise RouterError(one_line(f"{where}: secret_file {file} is not a regular file"))
    if info.st_mode & 0o077:
        raise RouterError(
            one_line(
                f"{where}: secret_file {file} can be read by others "
                f"(mode {stat.S_IMODE(info.st_mode):o}): chmod 600 it"
            )
        )
    value = file.read_bytes()[:_MAX_SECRET].decode("utf-8", "replace").strip()
    if not value:
        raise RouterError(one_line(f"{where}: secret_file {file} is empty"))
    return value
