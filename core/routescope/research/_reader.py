"""Reading result pages over the web for the loop: the safe fetcher (policy, pinned addresses,
caps) and main-text extraction in worker threads. (`OfflineReader` reads the offline index.)"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ._extract import extract_main_text
from ._fetch import FetchOutcome, SafeFetcher
from ._records import PageRead

__all__ = ["WebReader"]


class WebReader:
    """Fetches the pages of result URLs with bounded concurrency and extracts their text.
    A page that is refused, fails or has too little text is still reported, with why."""

    def __init__(self, fetcher: SafeFetcher | None = None, *, concurrency: int = 4) -> None:
        self.fetcher = fetcher or SafeFetcher()
        self.concurrency = concurrency

    async def read(self, urls: Sequence[str]) -> list[PageRead]:
        outcomes = await self.fetcher.fetch_all(urls, len(urls), self.concurrency)
        return list(await asyncio.gather(*(asyncio.to_thread(_page, o) for o in outcomes)))


def _page(outcome: FetchOutcome) -> PageRead:
    verdict = outcome.verdict
    if outcome.error is not None:
        return PageRead(
            outcome.url,
            verdict.allowed,
            verdict.rule,
            outcome.status,
            f"{outcome.error}: {outcome.reason}",
        )
    html = outcome.text()
    extracted = extract_main_text(html, url=outcome.final_url)
    if not extracted.has_content:
        return PageRead(
            outcome.url, True, verdict.rule, outcome.status, "no main text", extracted.title
        )
    return PageRead(
        outcome.url, True, verdict.rule, outcome.status, None, extracted.title, extracted.text
    )
