"""A look at the history store without loading the routers: where it is, and the prompt the
window showed when it last closed (the window shows it at once, before its first paint; the
whole session is restored once the store is open)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

__all__ = ["default_history_path", "peek_last_prompt"]


def default_history_path() -> Path:
    """`history.sqlite3` in the user's data folder (`platformdirs.user_data_dir`)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("routescope")) / "history.sqlite3"


def peek_last_prompt(path: Path | None = None) -> str | None:
    """The last session's prompt, read-only (None: no store, no session kept, or anything
    unreadable: the store itself says why once it is opened)."""
    path = path or default_history_path()
    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.05)
        try:
            row = db.execute("SELECT value FROM state WHERE key = 'last_session'").fetchone()
        finally:
            db.close()
        prompt = json.loads(row[0]).get("prompt") if row else None
    except (sqlite3.Error, OSError, ValueError, RecursionError, AttributeError):
        return None
    return prompt if isinstance(prompt, str) and prompt else None
