"""What both games' command lines share: user policies from a script, and one-line errors."""
from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Container
from pathlib import Path

from .policy import UserPolicy


def load_policy(spec: str, builtins: Container[str]):
    """A built-in name, or ``FILE.py:NAME`` naming a ``@simcore.policy`` function in a
    script."""
    if spec in builtins or ":" not in spec:
        return spec
    path, name = spec.rsplit(":", 1)
    if not Path(path).is_file():
        raise ValueError(f"policy {spec!r}: file {path!r} does not exist")
    mod_spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    mod = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(mod)
    except Exception as e:  # noqa: BLE001 - any error of the user's script
        raise ValueError(f"policy {spec!r}: {path} failed to load ({type(e).__name__}: "
                         f"{one_line(e)})") from None
    obj = getattr(mod, name, None)
    if not isinstance(obj, UserPolicy):
        raise ValueError(f"policy {spec!r}: {name!r} in {path} is not a @simcore.policy "
                         f"function")
    return obj


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def run_main(prog: str, body: Callable[[], int | None],
             interrupted: Callable[[], str] | None = None,
             errors: tuple[type[BaseException], ...] = ()) -> int:
    """Run a command: exit status 0; a bad input or a failed write (or one of ``errors``) is
    one line on stderr and status 2; Ctrl-C is one line (``interrupted()`` may add where the
    partial results are) and status 130."""
    try:
        return body() or 0
    except KeyboardInterrupt:
        note = interrupted() if interrupted is not None else ""
        print(f"{prog}: interrupted{'; ' + note if note else ''}", file=sys.stderr)
        return 130
    except (ValueError, OSError, MemoryError, RecursionError, *errors) as e:
        print(f"{prog}: error: {describe(prog, e)}", file=sys.stderr)
        return 2


def describe(prog: str, e: BaseException) -> str:
    """The error's message on one line, without a repeat of ``prog: ``."""
    if isinstance(e, OSError) and e.strerror:
        msg = f"{e.strerror}: {e.filename}" if e.filename else e.strerror
    elif isinstance(e, MemoryError):
        msg = "out of memory; play fewer games at once or stream them with --out DIR"
    elif isinstance(e, RecursionError):
        msg = "input nested too deeply"
    else:
        msg = one_line(e)
    return msg.removeprefix(f"{prog}: ")
