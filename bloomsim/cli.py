"""Command line: ``bloomsim simulate | replay | rules`` (``simcore.cli``, the same for every
game). Errors are one line and exit code 2."""
from __future__ import annotations

import sys

from simcore.cli import main as game_main


def main(argv: list[str] | None = None) -> int:
    return game_main("bloomsim", argv)


if __name__ == "__main__":
    sys.exit(main())
