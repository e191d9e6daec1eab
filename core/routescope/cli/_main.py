"""`main`: run one command; bad input or configuration is one line on stderr and exit 2."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence

from .._errors import RoutescopeError
from ._parser import UsageError, build_parser
from ._terminal import escape

__all__ = ["EXIT_FAILED", "EXIT_USAGE", "main"]

EXIT_FAILED = 1
"""`regress`: at least one case failed. Other commands: an internal error."""
EXIT_USAGE = 2
"""Bad input or configuration; for `regress` also an internal error, so 1 only means failures."""


def _usable_output() -> bool:
    """Output that cannot encode a character shows it escaped rather than failing."""
    if sys.stdout is None:
        return False
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    return True


def _fail(message: str) -> None:
    if sys.stderr is not None:
        print(f"routescope: {escape(message)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit status."""
    if not _usable_output():
        _fail("error: standard output is closed")
        return EXIT_USAGE
    command = None
    try:
        args = build_parser().parse_args(argv)
        command = args.command
        from ._commands import COMMANDS

        return COMMANDS[command](args)
    except (UsageError, RoutescopeError) as exc:
        _fail(f"error: {exc}")
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (`| head`): not an error of ours.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug of ours: still one line, never a traceback
        _fail(f"internal error: {type(exc).__name__}: {exc}")
        return EXIT_USAGE if command == "regress" else EXIT_FAILED
