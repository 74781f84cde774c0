"""Command line: ``rapinsim simulate | replay | rules`` (``simcore.cli``, the same for every
game; ``--character`` fixes one character per seat). Errors are one line and exit code 2."""
from __future__ import annotations

import sys

from simcore.cli import main as game_main


def main(argv: list[str] | None = None) -> int:
    return game_main("rapinsim", argv)


if __name__ == "__main__":
    sys.exit(main())
