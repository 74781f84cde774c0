"""The compiled engine: the rules of ``reference.py`` as numba kernels over packed arrays, in
rooms named like the reference's sections (each module imports only those above it):

- ``state``: the declared state layout (``G_*``, a seat's ``S_*``), ``State``, the kernels' types
- ``tables``: the rules as one int64 array (``flat_tables``, the ``T_*`` header, ``role_of`` ...)
- ``scoring``: the score marker (``add_points``), lightning and resource-set points
- ``forward``: the forward model's hooks (``determinize``, ``action_key``, ``snapshot``,
  ``fm_game``)
- ``decisions``: what a seat sees, the option rows, the log, and ``decide`` (every policy's path,
  the forward model's ``fm_decide`` included)
- ``can_do``: what a card can do now, the option rows' features (towers that take a potion,
  areas a witch enters, what a role reaches: ``card_values``, a card's rows, ``cancel_risk``)
- ``heuristics``: the built-in heuristics' shortcuts (``card_score``, ``best_card``,
  ``select_rows``)
- ``setup``: a batch's ``State`` (``new_state``, ``init_state``) and each game's ``setup``
- ``roles``: ``witch``, ``druid``, ``deliver_potion``, ``gatherer``, ``weather_fairy``,
  ``role_action``
- ``events``: Black Market / Distillery, the round-end events (``upper_hand``, ``the_works`` ...)
- ``turns``: a turn (``play_turn``, ``play_card``, ``cowardly_action``)
- ``rounds``: the round's parts (``reveal_enchanted_roles``, ``select_roles``, ``mark_leaders``)
- ``search``: the search driver (``search``, ``search_seat``)
- ``play``: ``play_game`` (setup, the rounds, end scoring), ``play_games``, ``play_batch``

``play_batch`` plays games ``start .. start+n-1`` over all threads (``simcore.parallel.spread``
runs ``play_games`` on each thread, over the units of games it claims; each thread owns one
``State``, reset per game, so nothing is allocated inside a game).
Every function mirrors the reference function of the same name, draws the same random numbers
in the same order and builds the same options, so both engines play the same game
(``tests/bloomsim/test_differential.py`` holds them to it).

Why it is shaped like this (measured; see docs/bloomsim.md):

- numba passes an array as 7-9 machine words and a NamedTuple of arrays as all of them, at every
  call between kernels. So the rules are one int64 array (``flat_tables``: a header of
  parameters and offsets, read through tiny accessors such as ``tower_of``) and a game's state
  is three arrays (``State``: all integers in ``g``, the observation, the option rows).
  Reading a seat's columns through a 2-D view of ``g`` (``reshape``) was 2.5x slower, hence
  ``s.g[sc(seat, S_...)]``.
- Every kernel numba compiles separately is linked into, and optimised again with, each caller.
  Kernels with a single call site are inlined into it (``inline="always"``), ``play_games``
  calls ``play_game`` through a function pointer (so the batch kernel does not carry the
  engine), and kernels called with constants have explicit signatures (numba compiles a new
  version for every literal argument otherwise).
- One compiled kernel serves built-in and user policies: user policies come as the addresses of
  their compiled code (padded with a placeholder's), kept in ``State.g`` and turned back into
  first-class functions by ``policy_at`` when one decides. The built-in random policy
  is drawn inside ``decide``; the heuristics get option features but no observation (they never
  read it); only user policies get the observation built.

A policy's illegal choice is recorded in the state (the game goes on with option 0) and raised
by the caller after the kernel returns. Kernels called inside a game are compiled without
numba's reference counting (``_nrt=False``): they never allocate, and shared rules arrays
touched by every thread would otherwise make the threads fight over their reference counts.

numba's cache does not see an edit to a kernel in another file than its caller's: after
changing a room, clear ``NUMBA_CACHE_DIR`` (or ``__pycache__``).
"""
from .forward import fm_game
from .play import play_batch, play_game
from .search import search
from .setup import init_state, new_state
from .state import (FM_SEAT, G, G_ENCH_N, G_ENCH_PTR, G_FM_STOP, G_LOG_AT, G_MARKS, G_N_MARKS,
                    G_PEND, G_ROUND, G_SEAT, GAME_SIG, LOG_CAP, MAX_PLAYERS, N_SEAT, OBS_LEN,
                    S_POLICY, SEAT)
from .tables import (T_DECKS, T_LOG, T_MAXO, T_N_EVENT, T_N_TILES, T_REDRAW, T_REDRAW_KEY,
                     flat_tables, with_distilled)

__all__ = ["FM_SEAT", "G", "G_ENCH_N", "G_ENCH_PTR", "G_FM_STOP", "G_LOG_AT", "G_MARKS",
           "G_N_MARKS", "G_PEND", "G_ROUND", "G_SEAT", "GAME_SIG", "LOG_CAP", "MAX_PLAYERS",
           "N_SEAT", "OBS_LEN", "S_POLICY", "SEAT", "T_DECKS", "T_LOG", "T_MAXO", "T_N_EVENT",
           "T_N_TILES", "T_REDRAW", "T_REDRAW_KEY", "fm_game", "flat_tables", "init_state",
           "new_state", "play_batch", "play_game", "search", "with_distilled"]
