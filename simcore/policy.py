"""The decision protocol both games share, and user policies.

At every decision the engine writes the legal options into ``opts`` (one row of features per
option, game-specific columns documented in each game's ``policies`` module) and the player's
view of the game into ``obs``; the policy returns the index of its choice. A policy never sees
anything else, so it cannot read another player's hand or the future decks.

Signature (fixed, so that a new user policy never recompiles an engine)::

    policy(kind: int64, obs: float32[::1], opts: float32[:, ::1], n_opts: int64,
           rng: uint64[::1]) -> int64

``kind`` is the decision kind (an int constant of the game), ``rng`` the seat's own one-slot
random stream (draw with ``simcore.rng.randint(rng, 0, n)``). Built-in policies are dispatched
by a non-negative integer id inside the engine; user policies enter as numba first-class
functions and get the id ``-1 - i``.

A user policy may raise or return something that is no choice (a float, a huge integer). The
reference engines call it from Python (``call_policy``). The compiled engines call it through
its C wrapper, which would swallow an exception (printing "Exception ignored" and returning 0),
so they call a compiled guard instead (``guarded``): it catches the exception and answers a
negative sentinel, which the engine records in the game's error slots like any illegal
choice; ``raise_policy_fault`` then replays that one game in the reference engine to name the
real exception or value.
"""
from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.core.registry import CPUDispatcher
from numba.core.types.function_type import WrapperAddressProtocol
from numba.experimental.function_type import _get_wrapper_address
from numba.extending import intrinsic

POLICY_SIG = types.int64(types.int64, types.float32[::1], types.float32[:, ::1], types.int64,
                         types.uint64[::1])
PolicyFunc = types.FunctionType(POLICY_SIG)


@dataclass(frozen=True)
class UserPolicy:
    """A user's compiled policy and the name it carries in results."""

    name: str
    func: Any

    def __call__(self, kind, obs, opts, n_opts, rng):
        return self.func(kind, obs, opts, n_opts, rng)


def policy(name: str | None = None):
    """Decorator that compiles a plain function as a user policy.

    >>> @policy("always_first")
    ... def always_first(kind, obs, opts, n_opts, rng):
    ...     return 0
    """
    def wrap(fn):   # the return type is inferred, so that a float is seen, not truncated
        return UserPolicy(name or fn.__name__, njit(POLICY_SIG.args, cache=False)(fn))
    if callable(name):
        fn, name = name, None
        return wrap(fn)
    return wrap


@njit(POLICY_SIG, cache=True)
def _placeholder(kind, obs, opts, n_opts, rng):  # pads the user policies' addresses; never called
    return 0


class FirstClass(WrapperAddressProtocol):
    """A compiled function as a numba first-class function value (its C wrapper's address)."""

    def __init__(self, func, sig):
        self.func, self.sig = func, sig
        self.address = _get_wrapper_address(func, sig)

    def __wrapper_address__(self):
        return self.address

    def signature(self):
        return self.sig


_FIRST_CLASS: dict = {}


def first_class(func, sig) -> FirstClass:
    """``func`` compiled for ``sig`` (on first use) as a first-class function, kept alive here.
    A kernel that calls another through one does not link the callee's code into its own, so
    LLVM does not optimise it again there (numba re-optimises every linked callee in each
    caller's module)."""
    if (func, sig) not in _FIRST_CLASS:
        _FIRST_CLASS[func, sig] = FirstClass(func, sig)
    return _FIRST_CLASS[func, sig]


RAISED = -(2 ** 31)
"""What ``guarded`` answers when the policy raised (recorded as an illegal choice)."""
NOT_INT = RAISED + 1
"""What ``guarded`` answers when the policy's return type is not an integer."""

_GUARDS: dict = {}


def guarded(func):
    """``func`` behind a compiled guard of the exact policy signature: an exception becomes
    ``RAISED``, a value of a non-integer type ``NOT_INT`` (numba supports only a bare
    ``except Exception`` in compiled code; the replay names the exception)."""
    if func not in _GUARDS:
        if isinstance(func.nopython_signatures[0].return_type, types.Integer):
            @njit(POLICY_SIG, cache=False)
            def guard(kind, obs, opts, n_opts, rng):
                try:
                    c = func(kind, obs, opts, n_opts, rng)
                except Exception:  # noqa: BLE001 - the replay names it
                    return RAISED
                return np.int64(c)  # an unsigned value past int64 wraps below 0: illegal
        else:
            @njit(POLICY_SIG, cache=False)
            def guard(kind, obs, opts, n_opts, rng):
                try:
                    func(kind, obs, opts, n_opts, rng)
                except Exception:  # noqa: BLE001 - the replay names it
                    return RAISED
                return NOT_INT
        _GUARDS[func] = guard
    return _GUARDS[func]


def user_addresses(user_py: Sequence, count: int) -> np.ndarray:
    """The addresses of the user policies' guarded compiled code (``guarded``), padded to
    ``count`` with a never-called placeholder's: the same argument whatever the seats play, so
    one compiled kernel serves built-in and user policies alike."""
    return np.array([first_class(f, POLICY_SIG).address
                     for f in (*map(guarded, user_py),
                               *[_placeholder] * (count - len(user_py)))], np.int64)


def function_at(fn_type: types.FunctionType):
    """An intrinsic that makes the compiled code at an address (``first_class(...).address``)
    a numba first-class function of ``fn_type``: a call through it does not link the callee
    into the caller."""
    @intrinsic
    def at(typingctx, addr):
        if not isinstance(addr, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            f = cgutils.create_struct_proxy(fn_type)(context, builder)
            f.c_addr = builder.inttoptr(args[0], cgutils.voidptr_t)
            f.py_addr = cgutils.get_null_value(cgutils.voidptr_t)
            f.jit_addr = cgutils.get_null_value(cgutils.voidptr_t)
            return f._getvalue()
        return fn_type(types.int64), codegen
    return at


policy_at = function_at(PolicyFunc)
"""The compiled policy at an address (``user_addresses``) as a numba first-class function.
User policies reach the kernels as addresses in each thread's own state, not as a typed list
or a tuple of first-class functions: a tuple is three machine words per policy at every call
between kernels, and a list shared by the threads has one reference count that every call
changes (atomically: the cores fight over it)."""


@dataclass(frozen=True)
class Heuristic:
    """A game's built-in heuristic ``base`` playing with other weights (``Weights.heuristic``).
    The engine plays it as the built-in (same id, same speed), with this seat's weights."""

    game: str
    base: str
    weights: tuple[float, ...]            # every weight, in the order of ``Weights.names``
    changed: tuple[tuple[str, float], ...]  # (name, value) of the weights set, as given

    @property
    def name(self) -> str:
        """``base[name=value,...]`` (the weights set); the base's name if none is."""
        if not self.changed:
            return self.base
        return f"{self.base}[{','.join(f'{k}={float(v)!r}' for k, v in self.changed)}]"

    def __repr__(self) -> str:
        return f"{self.game}.heuristic({self.name!r})"


_SPEC = re.compile(r"^\s*([\w-]+)\s*\[(.*)\]\s*$")


@dataclass(frozen=True)
class Weights:
    """The weights of a game's built-in heuristics: what a tuner may change. Each heuristic
    scores options with the same formula; its weights are data, carried per seat in the
    engine's state, so a heuristic with other weights plays at the built-in's speed and never
    recompiles anything."""

    game: str
    names: tuple[str, ...]
    meanings: tuple[str, ...]                   # what each weight does (docs, errors)
    bounds: tuple[tuple[float, float], ...]     # the values each may take (inclusive)
    defaults: Mapping[str, tuple[float, ...]]   # each built-in heuristic's weights
    other: tuple[float, ...]                    # the row of a seat that is no heuristic

    def heuristic(self, base: str, /, **weights: float) -> Heuristic:
        """The heuristic ``base`` with these weights changed, e.g.
        ``heuristic("careful", points=1.2)``; ``base`` may also be a name such as
        ``"careful[points=1.2]"``. Unknown names and values out of bounds raise."""
        if not isinstance(base, str):
            raise ValueError(f"{self.game}: a heuristic's base must be a name, got {base!r}")
        m = _SPEC.match(base)
        if m:
            base, given = m.group(1), {}
            for item in filter(None, (x.strip() for x in m.group(2).split(","))):
                k, eq, v = item.partition("=")
                if not eq:
                    raise ValueError(f"{self.game}: heuristic weight {item!r} must be "
                                     f"written name=value")
                try:
                    given[k.strip()] = float(v)
                except ValueError:
                    raise ValueError(f"{self.game}: heuristic weight {k.strip()!r} must be a "
                                     f"number, got {v.strip()!r}") from None
            weights = {**given, **weights}
        if base not in self.defaults:
            raise ValueError(f"{self.game}: unknown heuristic {base!r}; heuristics with "
                             f"weights are {sorted(self.defaults)}")
        values = list(self.defaults[base])
        changed = []
        for k, v in weights.items():
            if k not in self.names:
                raise ValueError(f"{self.game}: unknown heuristic weight {k!r}; weights are "
                                 f"{list(self.names)}")
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise ValueError(f"{self.game}: heuristic weight {k!r} must be a number, "
                                 f"got {v!r}")
            i = self.names.index(k)
            lo, hi = self.bounds[i]
            if math.isnan(v) or not lo <= v <= hi:
                raise ValueError(f"{self.game}: heuristic weight {k}={v!r} is out of range "
                                 f"[{lo:g}, {hi:g}]")
            values[i] = float(v)
            changed.append((k, float(v)))
        return Heuristic(self.game, base, tuple(values), tuple(changed))

    def row(self, policy: Any) -> tuple[float, ...]:
        """The weights an engine gives a seat playing ``policy`` (resolved)."""
        if isinstance(policy, Heuristic):
            return policy.weights
        return self.defaults.get(policy, self.other) if isinstance(policy, str) else self.other


@dataclass(frozen=True)
class SeatPolicies:
    """Policies resolved for one batch: what the engine needs and what results show."""

    ids: np.ndarray          # [P] int64: built-in id >= 0, user policy -1 - i, search agent
    #                          simcore.search.SEARCH_ID
    names: tuple[str, ...]   # [P] names shown in results and errors
    user_py: tuple           # the user dispatchers (``user_addresses``; reference engines)
    weights: np.ndarray | None = None   # [P, W] float64: each seat's heuristic weights
    heuristics: tuple = ()   # [P] the seat's ``Heuristic`` with other weights, or None
    agents: tuple = ()       # [P] each seat's simcore.search.Agent, or None
    distilled: Any = None    # the seats' simcore.distill.Distilled (one per batch), or None
    restrictions: np.ndarray | None = None  # [P, simcore.restrict.RW] int64: each seat's
    #                          restriction words (``restrict.words``; zeros where none), or None
    probes: tuple = ()       # [P] each seat's simcore.games.Probe, or None

    def engine_ids(self) -> np.ndarray:
        """The ids the compiled engines play: ``ids`` with restricted seats'
        ``simcore.restrict.RESTRICTED_ID`` (their base policy in ``restrictions``)."""
        from .restrict import RESTRICTED_ID
        if self.restrictions is None:
            return self.ids
        return np.where([p is not None for p in self.probes], RESTRICTED_ID, self.ids)

    def reference(self, funcs: Sequence) -> list:
        """The reference engines' seat functions: ``funcs`` (one per seat, the base
        policies'), a restricted seat's wrapped in ``simcore.restrict.RowRestriction``."""
        from .restrict import RowRestriction
        if not self.probes:
            return list(funcs)
        return [f if p is None else RowRestriction(f, p) for f, p in zip(funcs, self.probes)]

    def agent_words(self, playout_ids: Mapping[str, int], max_players: int,
                    weights: Weights) -> np.ndarray:
        """The engine's words for the search seats (``Agent.params``, zeros elsewhere)."""
        from .search import AGENT_WORDS
        out = np.zeros(AGENT_WORDS * max_players, np.int64)
        for seat, a in enumerate(self.agents):
            if a is not None:
                out[AGENT_WORDS * seat:AGENT_WORDS * (seat + 1)] = a.params(playout_ids,
                                                                            weights)
        return out


def resolve(policies: Sequence, builtins: Mapping[str, int], game: str,
            n_players: tuple[int, int], weights: Weights | None = None,
            agent: Callable[[Any], Any] | None = None,
            bundled: Mapping[str, Callable[[], UserPolicy]] | None = None) -> SeatPolicies:
    """Turn one entry per seat (a built-in name, a heuristic with other weights, its name
    ``base[name=value,...]``, a user policy, the name of one the game ships as data
    (``bundled``: name -> the policy, such as ``"distilled"``) or, where the game has
    ``agent``, a search agent or its name such as ``"ismcts-1000"``) into engine ids and each
    seat's weights. Any of them but a search agent may be restricted
    (``simcore.restrict``: ``cloud[never=witch]``)."""
    from .distill import Distilled
    from .search import SEARCH_ID, Agent, is_agent_spec
    if isinstance(policies, (str, bytes)) or not isinstance(policies, Sequence):
        raise ValueError(f"{game}: policies must be a list with one entry per seat, "
                         f"got {policies!r}")
    policies, probes = _restrictions(policies, game)
    lo, hi = n_players
    if not lo <= len(policies) <= hi:
        raise ValueError(f"{game} is played by {lo} to {hi} players, but {len(policies)} "
                         f"policies were given (one per seat)")
    ids, names, pys, rows, heur, agents = [], [], [], [], [], []
    dist = None
    bundled = bundled or {}
    for seat, p in enumerate(policies):
        agents.append(None)
        if isinstance(p, str) and p in bundled:
            p = bundled[p]()
        if isinstance(p, Distilled) and "distilled" in builtins:
            if p.features.game != game:
                raise ValueError(f"{game}: policy at seat {seat} is a distilled policy of "
                                 f"{p.features.game}, not of {game}")
            if dist is not None and dist is not p:
                raise ValueError(f"{game}: distilled policies {dist.name!r} and {p.name!r} "
                                 f"in one batch; the engine plays one set of distilled "
                                 f"weights per batch")
            dist = p
            rows.append(None if weights is None else weights.other)
            heur.append(None)
            ids.append(builtins["distilled"])
            names.append(p.name)
            continue
        if agent is not None and is_agent_spec(p) and p not in builtins:
            agents[-1] = a = p if isinstance(p, Agent) else agent(p)
            rows.append(None if weights is None else weights.other)
            heur.append(None)
            ids.append(SEARCH_ID)
            names.append(a.name)
            continue
        if weights is not None and isinstance(p, str) and "[" in p:
            p = weights.heuristic(p)
        rows.append(None if weights is None else weights.row(p))
        heur.append(p if isinstance(p, Heuristic) and p.changed else None)
        if isinstance(p, Heuristic):
            if weights is None or p.game != game:
                raise ValueError(f"{game}: policy at seat {seat} is a heuristic of "
                                 f"{p.game}, not of {game}")
            ids.append(builtins[p.base])
            names.append(p.name)
            continue
        if isinstance(p, str):
            if p not in builtins:
                raise ValueError(f"{game}: unknown policy {p!r} at seat {seat}; built-in "
                                 f"policies are {sorted([*builtins, *bundled])}")
            ids.append(builtins[p])
            names.append(p)
            continue
        if isinstance(p, (UserPolicy, Distilled)):
            name, func = p.name, p.func
        elif isinstance(p, CPUDispatcher):
            name, func = p.__name__, p
        else:
            raise ValueError(f"{game}: policy at seat {seat} must be a built-in name"
                             f"{', a search agent' if agent else ''} or a function compiled "
                             f"with simcore.policy, got {p!r}")
        sigs = getattr(func, "signatures", [])
        if len(sigs) != 1 or tuple(sigs[0]) != tuple(POLICY_SIG.args):
            raise ValueError(f"{game}: user policy {name!r} at seat {seat} must be compiled "
                             f"with the policy signature (use @simcore.policy)")
        if func in pys:
            ids.append(-1 - pys.index(func))
        else:
            pys.append(func)
            ids.append(-len(pys))
        names.append(name)
    restrictions = None
    if any(probes):
        from .restrict import RW, Restricted, words
        for seat, pr in enumerate(probes):
            if pr is not None and ids[seat] == SEARCH_ID:
                raise ValueError(f"{game}: policy at seat {seat}: a search agent "
                                 f"({names[seat]!r}) cannot be restricted")
        restrictions = np.array([np.zeros(RW, np.int64) if pr is None else
                                 words(ids[seat], pr) for seat, pr in enumerate(probes)])
        names = [n if pr is None else Restricted(n, pr.name).name
                 for n, pr in zip(names, probes)]
    return SeatPolicies(np.array(ids, dtype=np.int64), tuple(names), tuple(pys),
                        None if weights is None else np.array(rows, np.float64), tuple(heur),
                        tuple(agents) if any(a is not None for a in agents) else (), dist,
                        restrictions, tuple(probes) if restrictions is not None else ())


def _restrictions(policies: Sequence, game: str) -> tuple[list, list]:
    """Each seat's base policy and its probe or None (``simcore.restrict.split``, the probes
    the game declares)."""
    from .restrict import is_restricted, split
    if not any(is_restricted(p) for p in policies):
        return list(policies), [None] * len(policies)
    from . import games
    declared = games.get(game).probes
    pairs = [split(p, declared, game) for p in policies]
    return [b for b, _ in pairs], [pr for _, pr in pairs]


class PolicyError(ValueError):
    """A policy raised, or returned something that is not a legal choice; the message names
    the policy, the seat, the decision and the game."""


def _where(game: str, names: Sequence[str], seat: int) -> str:
    return f"{game}: policy {names[seat]!r} at seat {seat}"


def illegal_choice_error(game: str, names: Sequence[str], seat: int, kind_name: str,
                         choice: int, n_opts: int, game_index: int) -> PolicyError:
    return PolicyError(
        f"{_where(game, names, seat)} returned illegal choice {choice} for "
        f"decision {kind_name!r} (legal: 0..{n_opts - 1}) in game {game_index}")


def call_policy(func, kind: int, obs, opts, n_opts: int, rng, *, game: str,
                names: Sequence[str], seat: int, kind_name: str, game_index: int) -> int:
    """The reference engines' call of a policy: its choice, checked to be an integer from 0 to
    ``n_opts - 1``; else a ``PolicyError`` with the exception it raised or the value it
    returned."""
    try:
        value = func(kind, obs, opts, n_opts, rng)
    except Exception as e:  # noqa: BLE001 - reported whatever it is
        msg = str(e).splitlines()[0] if str(e) else ""
        raise PolicyError(f"{_where(game, names, seat)} raised {type(e).__name__}"
                          f"{': ' + msg if msg else ''} at decision {kind_name!r} in game "
                          f"{game_index}") from e
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise PolicyError(f"{_where(game, names, seat)} returned {value!r} "
                          f"({type(value).__name__}), not an integer, for decision "
                          f"{kind_name!r} in game {game_index}")
    if not 0 <= value < n_opts:
        raise illegal_choice_error(game, names, seat, kind_name, int(value), n_opts, game_index)
    return int(value)


def ask_reference(rng, func, seat: int, kind: int, obs, opts, n_opts: int, *, game: str,
                  names: Sequence[str], kind_names: Sequence[str], game_index: int,
                  decisions: list) -> int:
    """A reference engine's decision, as the compiled engines take it: the seat's policy
    called with the seat's own stream of ``rng`` (a ``simcore.rng.PyRng``), its choice checked
    (``call_policy``) and logged in ``decisions`` as (seat, kind, n_opts, choice)."""
    stream = rng.stream_array(rng.seat(seat))
    choice = call_policy(func, kind, obs, opts, n_opts, stream, game=game, names=names,
                         seat=seat, kind_name=kind_names[kind], game_index=game_index)
    rng.set_stream(rng.seat(seat), stream)
    decisions.append((seat, kind, n_opts, choice))
    return choice


@contextmanager
def compiled_call(game: str, sp: SeatPolicies) -> Iterator[None]:
    """Around a compiled engine's call with the seats ``sp``: numba's warning that first-class
    functions are experimental silenced, and an exception a user policy raised inside
    ``numba.objmode`` named. Such an exception passes ``guarded``'s handler (numba's
    ``except`` sees no error) and leaves Python's error set, which the kernel's return then
    reports as a bare ``SystemError``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
        try:
            yield
        except SystemError as e:
            from .search import SEARCH_ID
            cause = e.__cause__ or e.__context__
            users = [n for n, i in zip(sp.names, sp.ids) if i < 0 and i != SEARCH_ID]
            if cause is None or not users:
                raise
            raise PolicyError(f"{game}: {_user_policies(users)} raised "
                              f"{type(cause).__name__}: {cause} inside numba.objmode (the "
                              f"compiled engine cannot tell which decision: play the games "
                              f"with engine='reference' to find it)") from cause


def _user_policies(names: Sequence[str]) -> str:
    names = sorted(set(names))
    return f"user policy {names[0]!r}" if len(names) == 1 else f"one of the user policies {names}"


def raise_policy_fault(game: str, sp: SeatPolicies, kind_names: Sequence[str], start: int,
                       errors: np.ndarray, replay: Callable[[int], Any]) -> None:
    """Raise the first policy error a compiled batch of games ``start ..`` recorded, if any.

    ``errors``: [G, >= 5] int (flag, seat, kind, choice, n_opts) per game. ``replay(game)``
    plays that one game in the reference engine, which raises the error with the real
    exception or value; should it not, or should a search seat play in these games (the
    reference engines have no search to replay them with), the compiled engine's record is
    reported."""
    bad = np.flatnonzero(errors[:, 0])
    if not bad.size:
        return
    i = int(bad[0])
    seat, kind, choice, n_opts = (int(x) for x in errors[i, 1:5])
    from .search import SEARCH_ID
    if sp.ids[seat] == SEARCH_ID:   # the reference engines have no search to replay
        raise RuntimeError(f"{game}: search agent {sp.names[seat]!r}: a replay diverged in "
                           f"game {start + i} (a bug of the engine)")
    if not sp.agents:
        try:
            replay(start + i)
        except PolicyError as e:
            raise PolicyError(str(e)) from None     # the reference engine's traceback is noise
    where = (f"{_where(game, sp.names, seat)} at decision {kind_names[kind]!r} in game "
             f"{start + i}")
    if choice == RAISED and sp.ids[seat] < 0:
        raise PolicyError(f"{where} raised an exception in the compiled engine")
    if choice == NOT_INT and sp.ids[seat] < 0:
        rt = sp.user_py[-1 - sp.ids[seat]].nopython_signatures[0].return_type
        raise PolicyError(f"{where} returned a {rt}, not an integer")
    raise illegal_choice_error(game, sp.names, seat, kind_names[kind], choice, n_opts,
                               start + i)
