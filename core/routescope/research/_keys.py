"""API keys for the research providers: from the environment, or from a key file only its
owner can read or write (0600, like `~/.ssh`). A key file that others can read is not used,
and says why; keys are shown masked, never in full.

The environment wins over the file: a variable set for one session is the more deliberate
choice."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ._settings import KEY_VARIABLES

__all__ = ["KeyStore", "ResolvedKey", "default_key_file", "mask_key"]

_MAX_KEY_FILE = 64 * 1024
_MAX_KEY_CHARS = 512


def default_key_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("routescope")) / "research-keys.json"


def mask_key(key: str) -> str:
    """Enough of a key to tell two apart, never enough to use it."""
    if len(key) < 12:
        return "•" * 6
    return f"{key[:3]}…{key[-4:]}"


@dataclass(frozen=True, slots=True)
class ResolvedKey:
    variable: str
    key: str
    source: str
    """`environment`, `key file` or `` (no key)."""

    @property
    def masked(self) -> str:
        return mask_key(self.key) if self.key else ""


@dataclass(slots=True)
class KeyStore:
    """The stored keys in `path` (default `default_key_file()`), by variable name."""

    path: Path = field(default_factory=default_key_file)
    problem: str = ""
    """Why the file's keys are not used ("" when they are, or there is no file)."""

    def stored(self) -> dict[str, str]:
        """The keys in the file; {} (with `problem` set) when it is unsafe or unreadable."""
        self.problem = ""
        try:
            descriptor = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self.problem = f"key file {self.path}: {exc.strerror or exc}"
            return {}
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                self.problem = f"key file {self.path} is not a regular file"
                return {}
            if info.st_mode & 0o077:
                self.problem = (
                    f"key file {self.path} can be read by others "
                    f"(mode {stat.S_IMODE(info.st_mode):o}): not used; chmod 600 it"
                )
                return {}
            data = os.read(descriptor, _MAX_KEY_FILE + 1)
        finally:
            os.close(descriptor)
        return self._parse(data)

    def _parse(self, data: bytes) -> dict[str, str]:
        try:
            if len(data) > _MAX_KEY_FILE:
                raise ValueError("too large")
            loaded = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self.problem = f"key file {self.path} is not a JSON object of keys"
            return {}
        if not isinstance(loaded, dict):
            self.problem = f"key file {self.path} is not a JSON object of keys"
            return {}
        return {
            name: value
            for name, value in loaded.items()
            if name in KEY_VARIABLES.values() and _usable(value)
        }

    def save(self, keys: Mapping[str, str]) -> None:
        """Replace the stored keys (empty values are dropped). The file is created owner-only
        (`mkstemp` makes it 0600) before anything is written to it. Raises OSError."""
        from .._cache import write_atomically

        kept = {name: key.strip() for name, key in sorted(keys.items()) if _usable(key.strip())}
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Through a temporary sibling that `mkstemp` makes 0600, so the keys are never readable
        # by others, not even while they are written.
        write_atomically(self.path, json.dumps(kept, indent=2).encode("utf-8"))

    def resolve(self, environ: Mapping[str, str] | None = None) -> dict[str, ResolvedKey]:
        """Every key variable with its key and where it came from."""
        environ = os.environ if environ is None else environ
        stored = self.stored()
        resolved = {}
        for variable in sorted(set(KEY_VARIABLES.values())):
            from_environment = environ.get(variable, "").strip()
            if from_environment:
                resolved[variable] = ResolvedKey(variable, from_environment, "environment")
            elif variable in stored:
                resolved[variable] = ResolvedKey(variable, stored[variable], "key file")
            else:
                resolved[variable] = ResolvedKey(variable, "", "")
        return resolved

    def keys(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """Variable → key, for `run_research`."""
        return {v: r.key for v, r in self.resolve(environ).items() if r.key}


def _usable(value: object) -> bool:
    return (
        isinstance(value, str)
        and 0 < len(value) <= _MAX_KEY_CHARS
        and value.isprintable()
        and not any(c.isspace() for c in value)
    )
