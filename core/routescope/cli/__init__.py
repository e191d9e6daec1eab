"""The `routescope` command line. Bad input or configuration: one line on stderr, exit 2."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .._errors import RoutescopeError
from ._parser import UsageError, build_parser

__all__ = ["EXIT_FAILED", "EXIT_USAGE", "main"]

EXIT_FAILED = 1
"""`regress`: at least one case failed. Other commands: an internal error."""
EXIT_USAGE = 2
"""Bad input or configuration; for `regress` also an internal error, so 1 only means failures."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit status."""
    command = None
    try:
        args = build_parser().parse_args(argv)
        command = args.command
        from ._commands import COMMANDS

        return COMMANDS[command](args)
    except (UsageError, RoutescopeError) as exc:
        print(f"routescope: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of ours.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug of ours: still one line, never a traceback
        print(f"routescope: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_USAGE if command == "regress" else EXIT_FAILED
