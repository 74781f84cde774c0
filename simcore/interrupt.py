"""Ctrl-C while a command starts: one line and status 130, not a traceback through the imports.

A command's own code turns Ctrl-C into one line (``simcore.cli.run_main``), but ``python -m
bloomsim`` (``rapinsim``, ``analyses``, ``simcore``, or an installed ``bloomsim`` or
``rapinsim`` script) first imports its package: numba, polars and the compiled kernels,
seconds on a busy machine.
A Ctrl-C there ended in 8 to 58 lines of traceback. ``while_starting`` runs first in every such
package (``simcore/__init__``, which the others import first) and, only in a process started as
one of these commands, makes an unhandled KeyboardInterrupt that one line.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

COMMANDS = ("bloomsim", "rapinsim", "analyses", "simcore")


def command() -> str | None:
    """The command this process was started as, while its package is imported; else None."""
    if sys.argv[:1] == ["-m"]:      # python -m PKG: argv[0] is "-m" until PKG is imported
        argv = sys.orig_argv
        name = argv[argv.index("-m") + 1].split(".")[0] if "-m" in argv[:-1] else ""
    else:                           # an installed script (pyproject's project.scripts)
        name = Path(sys.argv[0]).name if sys.argv else ""
    return name if name in COMMANDS else None


def while_starting() -> None:
    name = command()
    if name is None or getattr(sys.excepthook, "command", None):
        return
    previous = sys.excepthook

    def hook(kind, value, tb):
        if not (interrupted(value) or _caught):
            return previous(kind, value, tb)
        print(f"{name}: interrupted", file=sys.stderr, flush=True)
        sys.stdout.flush()
        os._exit(130)               # what run_main returns for Ctrl-C; nothing has run yet
    hook.command = name
    sys.excepthook = hook
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_ctrl_c)
        previous_unraisable = sys.unraisablehook

        def unraisable(u):
            if not isinstance(u.exc_value, KeyboardInterrupt):
                previous_unraisable(u)
        sys.unraisablehook = unraisable


_caught = False


def _on_ctrl_c(signum, frame) -> None:
    """Python's own Ctrl-C, remembered: raised inside a ctypes callback (numba's cache
    notification runs Python code inside LLVM) the KeyboardInterrupt is printed as
    "Exception ignored" and lost, and the command would run on to its end."""
    global _caught
    _caught = True
    raise KeyboardInterrupt


def check() -> None:
    """Raise a Ctrl-C that a callback swallowed (see ``_on_ctrl_c``); called where a command
    starts its work and at each progress step."""
    if _caught:
        raise KeyboardInterrupt


def interrupted(e: BaseException | None) -> bool:
    """A Ctrl-C, or an error raised while one was handled (numba, stopped while it loads a
    kernel, raises "no compiled object yet")."""
    while e is not None and not isinstance(e, KeyboardInterrupt):
        e = e.__context__
    return e is not None
