"""`Request`: the named input of a router run. Frozen, picklable, with a content fingerprint.

The command line, the window, regression cases and (later) history, compare and batch all build
their input here, so a run can be stored, diffed, repeated and sent to another process.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .contract import RouterContext, load_context, parse_context
from .rules import (
    BUILTIN_PACKS,
    RulePack,
    builtin_rules_text,
    default_rules,
    default_rules_text,
    parse_rules,
    read_rules_text,
)
from .toolsearch import SearchSettings

if TYPE_CHECKING:
    from .toolsearch import Catalog

__all__ = ["BUILTIN_RULES", "CatalogRef", "Request", "RulesRef", "default_today"]

BUILTIN_RULES = "default.toml"
"""The `source` of the built-in rule pack."""


def default_today() -> dt.date:
    """The date the routers see when none is given: the local date. The only clock read."""
    return dt.date.today()


def _digest(data: str | bytes) -> str:
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()[:16]


@functools.lru_cache(maxsize=32)
def _parsed(text: str, source: str) -> RulePack:
    return parse_rules(text, source)


@dataclass(frozen=True, slots=True)
class RulesRef:
    """A rule pack by content: its TOML text, where it came from, and a digest of the text."""

    source: str
    text: str = field(repr=False)
    digest: str

    @classmethod
    def builtin(cls) -> RulesRef:
        return _builtin_ref()

    @classmethod
    def named(cls, name: str) -> RulesRef:
        """A pack shipped with Routescope, by name (`default`, `refined`, `refined-semantic`)."""
        if name == "default":
            return _builtin_ref()
        return cls.from_text(builtin_rules_text(name), f"{name}.toml")

    @classmethod
    def from_text(cls, text: str, source: str = "<memory>") -> RulesRef:
        """A pack given as TOML text; validated now (RulePackError names source, line, field)."""
        ref = cls(source, text, _digest(text))
        ref.load()
        return ref

    @classmethod
    def from_path(cls, path: str | Path) -> RulesRef:
        """A pack file, read and validated now."""
        return cls.from_text(read_rules_text(path), str(path))

    @classmethod
    def given(cls, path: str | Path | None) -> RulesRef:
        """What `--rules` names: a pack file, a built-in pack by name (`refined`) when no file
        has that name, or (None) the built-in `default`."""
        return _rules_ref(path)

    @property
    def is_builtin(self) -> bool:
        return self.source == BUILTIN_RULES and self.digest == _builtin_ref().digest

    def load(self) -> RulePack:
        """The validated pack (parsed once per text and kept)."""
        return default_rules() if self.is_builtin else _parsed(self.text, self.source)


@functools.cache
def _builtin_ref() -> RulesRef:
    text = default_rules_text()
    return RulesRef(BUILTIN_RULES, text, _digest(text))


@dataclass(frozen=True, slots=True)
class CatalogRef:
    """A tool catalog by content: its path, a hash of its standardised tools, and the id of the
    embedding model that vectorises it."""

    path: str
    digest: str
    model: str

    @classmethod
    def from_path(cls, path: str | Path, model: str | None = None) -> CatalogRef:
        """Load the catalog now (CatalogError when no tool loads) to take its fingerprint."""
        from .toolsearch import load_catalog

        return cls.of(load_catalog(Path(path).resolve()), model)

    @classmethod
    def of(cls, catalog: Catalog, model: str | None = None) -> CatalogRef:
        """The reference of a catalog already loaded (from its `source` path)."""
        from .toolsearch import default_model_id

        return cls(catalog.source, catalog.fingerprint, model or default_model_id())

    @classmethod
    def sample(cls) -> CatalogRef:
        """The 41-tool sample catalog shipped in `resources/catalog`."""
        return cls.from_path(cls.sample_path())

    @staticmethod
    def sample_path() -> Path:
        """Where the sample catalog is: the one place its path is written (as found, not
        resolved: it is shown, and stored in results)."""
        from ._resources import resources_root

        return Path(str(resources_root() / "catalog"))

    @property
    def is_sample(self) -> bool:
        """Whether this is the sample catalog, wherever it is installed (by its path:
        symbolic links resolved)."""
        return Path(self.path).resolve() == self.sample_path().resolve()


@dataclass(frozen=True, slots=True)
class Request:
    """Everything one run of the routers depends on. `inspect(request)` is a pure function of it.

    Frozen all the way down (settings, context and its argument data too), so it is hashable
    and can key a cache, a history entry or a batch partition.

    Identity is `fingerprint()`, a hash of the contents (text, date, the pack's text, context,
    the catalog's tools and model, search settings): two requests with equal fingerprints give
    equal results.
    """

    text: str
    today: dt.date
    rules: RulesRef = field(default_factory=RulesRef.builtin)
    context: RouterContext | None = None
    catalog: CatalogRef | None = None
    """The catalog whose tools are ranked for the prompt; None: no tool search."""
    search: SearchSettings = field(default_factory=SearchSettings)

    @classmethod
    def build(
        cls,
        text: str,
        *,
        today: dt.date | None = None,
        rules: RulesRef | str | Path | None = None,
        context: RouterContext | dict[str, object] | str | Path | None = None,
        catalog: CatalogRef | str | Path | None = None,
        search: SearchSettings | None = None,
    ) -> Request:
        """The one place inputs are put together: paths are read and validated, `today`
        defaults to the local date, `rules` to the built-in pack."""
        if isinstance(context, dict):
            context = parse_context(context)
        elif isinstance(context, str | Path):
            context = load_context(context)
        return cls(
            text=text,
            today=today or default_today(),
            rules=rules if isinstance(rules, RulesRef) else _rules_ref(rules),
            context=context,
            catalog=catalog
            if isinstance(catalog, CatalogRef) or catalog is None
            else CatalogRef.from_path(catalog),
            search=search or SearchSettings(),
        )

    def replace(self, **changes: Any) -> Request:
        """A copy with some fields changed (`request.replace(text=…)`)."""
        return dataclasses.replace(self, **changes)

    def fingerprint(self) -> str:
        """A stable hash of the contents; equal for requests that must give equal results."""
        payload = {
            "text": self.text,
            "today": self.today.isoformat(),
            "rules": self.rules.digest,
            "context": None if self.context is None else self.context.model_dump(mode="json"),
            "catalog": None
            if self.catalog is None
            else {"tools": self.catalog.digest, "model": self.catalog.model},
            "search": _settings_data(self.search),
        }
        encoded = json.dumps(payload, sort_keys=True, ensure_ascii=False, allow_nan=False)
        return hashlib.sha256(encoded.encode("utf-8", "surrogatepass")).hexdigest()


def _settings_data(settings: SearchSettings) -> dict[str, object]:
    data = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
    data["boosts"] = None if settings.boosts is None else dict(settings.boosts)
    return data


def _rules_ref(path: str | Path | None) -> RulesRef:
    """A pack file, or a built-in pack by name (`refined`) when no file has that name."""
    if path is None:
        return RulesRef.builtin()
    if isinstance(path, str) and path in BUILTIN_PACKS and not Path(path).exists():
        return RulesRef.named(path)
    return RulesRef.from_path(path)
