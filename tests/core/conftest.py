import pytest

import routescope
from routescope import RulePack


@pytest.fixture(scope="session")
def rules() -> RulePack:
    return routescope.default_rules()
