"""What is never shown: the secrets of a request (`Secrets`, masked wherever they appear in a
message or a record) and a URL without its credentials (`redact_url`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

__all__ = ["MASK", "NO_SECRETS", "Secrets", "redact_url"]

MASK = "***"
_SECRET_NAMES = re.compile(
    r"key|token|secret|passw|pwd|auth|sig|cred|session|cookie|code|jwt", re.I
)


class Secrets:
    """Strings never to be shown (each also percent-encoded, as a URL carries it) and the
    `mask` shown in their place. Its repr shows neither."""

    __slots__ = ("_forms", "mask")

    def __init__(self, values: Iterable[str | None] = (), mask: str = MASK) -> None:
        forms: set[str] = set()
        for value in values:
            if value:
                forms.update({value, quote(value), quote(value, safe=""), quote_plus(value)})
        # Longest first, so that a secret holding another is masked whole.
        self._forms = tuple(sorted(forms, key=len, reverse=True))
        self.mask = mask

    def scrub(self, text: str) -> str:
        for form in self._forms:
            text = text.replace(form, self.mask)
        return text

    def __repr__(self) -> str:
        return f"Secrets(<{len(self._forms)} hidden>)"


NO_SECRETS = Secrets()


def redact_url(url: str, secrets: Secrets | Iterable[str] = ()) -> str:
    """`url` for a message or a record: its userinfo (`http://***@host/…`), the value of every
    query parameter named like a credential (`?api_key=***`), its fragment and every known
    secret masked. Never raises, also for a URL that cannot be parsed."""
    known = secrets if isinstance(secrets, Secrets) else Secrets(secrets)
    mask = known.mask
    text = str(url)
    userinfo = r"^([^:/?#]*://)[^/?#]*@" if "://" in text else r"^()[^/?#]*@"
    text = re.sub(userinfo, lambda m: f"{m[1]}{mask}@", text)
    text = re.sub(r"#.*$", lambda m: f"#{mask}", text, flags=re.DOTALL)
    text = re.sub(
        r"([?&;])([^=&;#]*)=([^&;#]*)",
        lambda m: f"{m[1]}{m[2]}={mask}" if _SECRET_NAMES.search(m[2]) else m[0],
        text,
    )
    return known.scrub(text)
