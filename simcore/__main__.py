"""``python -m simcore GAME simulate | replay | rules ...``: any registered game's command line
(``simcore.cli``)."""
import sys

from .cli import main

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        print("usage: python -m simcore GAME {simulate,replay,rules} ...", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
