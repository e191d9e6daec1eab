"""The exceptions Routescope raises.

RoutescopeError
 ├── InputError      the text given to a router cannot be used (empty, too large, not text)
 └── RulePackError   a rule pack cannot be read or does not validate
"""

from __future__ import annotations

__all__ = ["InputError", "RoutescopeError", "RulePackError"]


class RoutescopeError(Exception):
    """Base class: every message is one line a user can act on."""


class InputError(RoutescopeError, ValueError):
    """The input text cannot be routed."""


class RulePackError(RoutescopeError):
    """A rule pack file is unreadable or invalid; the message names file, place and problem."""
