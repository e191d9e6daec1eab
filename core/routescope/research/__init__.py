"""Deep research (seed 003): a multi-attempt web research loop with quality scores.

`run_research(goal, ResearchSettings(...), keys=...)` is the one entry point the command line
and the window use: it puts together a search provider (the offline documentation index,
SearXNG, Tavily or Brave), a page reader (the offline index, or the safe fetcher:
SSRF-checked, pinned, capped) and a model (the heuristic stand-in, or an OpenAI-compatible
endpoint) and runs the loop itself. Its result (`DeepResearchResult`: each `Attempt` with the
pages it read, the `NextStep`) becomes a report (`research_report_data`, `report_markdown`,
`write_research_report`); `decide_next_step` is the rule that chooses the next step. Keys come
from a `KeyStore` (environment or an owner-only file). The task router that decides whether a
message needs research at all is `routescope.task`.

Cheap to import: the settings and the key store load here, everything else on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_face
from ._keys import KeyStore as KeyStore
from ._settings import GROUNDING_MODES as GROUNDING_MODES
from ._settings import KEY_VARIABLES as KEY_VARIABLES
from ._settings import GroundingMode as GroundingMode
from ._settings import ResearchSettings as ResearchSettings

if TYPE_CHECKING:
    from ._backends import report_folder_name as report_folder_name
    from ._backends import run_research as run_research
    from ._extract import extract_main_text as extract_main_text
    from ._grounding import Grounding as Grounding
    from ._grounding import GroundingCue as GroundingCue
    from ._grounding import derive_grounding as derive_grounding
    from ._offline import OfflineSearch as OfflineSearch
    from ._page_evidence import PageEvidence as PageEvidence
    from ._quality import NextStep as NextStep
    from ._quality import decide_next_step as decide_next_step
    from ._records import Attempt as Attempt
    from ._records import DeepResearchResult as DeepResearchResult
    from ._records import PageRead as PageRead
    from ._report import default_reports_folder as default_reports_folder
    from ._report import report_markdown as report_markdown
    from ._report import research_report_data as research_report_data
    from ._report import write_research_report as write_research_report

__getattr__, __dir__, __all__ = lazy_face(__name__)
