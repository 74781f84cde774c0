"""The compiled engine: the rules of ``reference.py`` as numba kernels over one flat int32 array.

Everything a game needs lives in one int32 array ``G``: first the rules (``rule_vector``, the
same for every game of a batch), then the state of the game being played, then its decision log.
Every field sits at a fixed offset declared once in the layout ``G``, so numba freezes the
offsets as constants and a kernel gets ``G`` (a pointer) and its own arguments. The kernels
mirror the reference engine rule for rule and draw from the random streams in the same order;
each room below mirrors a section of ``reference.py`` (rules sections in brackets):

- ``tables.py``      the rules as the kernels read them: the head of ``G``, ``rule_vector``
- ``state.py``       the game's declared layout, views of ``G``, kernel types, hand counts
- ``observation.py`` the observation and option features the policies score options with
- ``decisions.py``   option rows, the policy's choice (``decide_policy``, ``ask``), the log
- ``setup.py``       setup (2): characters, tiles shuffled, Rize's start, pawns placed
- ``board.py``       the board: time markers, where a search is allowed, the legal steps
- ``tiles.py``       taking tiles: search, take, receive, step, Lapin's notice letter
- ``traps.py``       traps (7): alarm, pitfall, prank
- ``items.py``       items (6): which are offered, what each does, walking
- ``skills.py``      skills (8): which is offered, what each does
- ``rize.py``        Rize (4): he enters, finds (the disguise as a reaction), moves; the dawn
- ``turns.py``       turns (3): the action options, a turn, the end of a round
- ``scoring.py``     the end (5): the final score keys
- ``forward.py``     forward-model hooks: ``fm_decide``, ``determinize``, ``snapshot``
- ``search.py``      the search driver: ``search``, ``search_seat``
- ``play.py``        ``play_game``, ``play_games`` (a thread's games), ``play_batch``

A room imports only rooms earlier in this order: tables, state, observation, decisions, forward,
board, rize, traps, tiles, items, skills, turns, setup, scoring, search, play (numba compiles a
kernel with an explicit signature where it is defined, so its callees must exist by then). This
module re-exports what code outside the package uses.
"""
from __future__ import annotations

from ..rules import MAX_PLAYERS
from .tables import (ADDR, G, LOG_LEN, MAXD, MAXN, N_ITEMS, N_STREAMS, P, RULES_LEN, R_DEG,
                     R_NSTEPS, R_STEP_TO, rule_vector)
from .state import (ACTING, ACTIONS_LEFT, BAGR, BAG_CAP, BAG_HEAD, BAG_N, BOARD, CHARS, CHIYA_HOLD,
                    DAWN, DISGUISED, FACE_UP, FM_HALTED, FM_LEN, FM_MARKS, FM_N_MARKS, FM_OBS,
                    FM_PEND, FM_ROWS, FM_SEAT, FM_SIG, FM_STATE, FM_STOP, GAME_SIG, HELD, HITEM,
                    LETTER, LOG0, MARKER, OBS, PENDING, POS, RETURNED, RIZE, SEARCHED, SEEN,
                    SKILL_USED, SKIP, TBR, TCH, TK, TSUB, TURNS, TWH, WALK_LEFT, XS)
from .forward import fm_decide
from .search import search
from .play import play_batch, play_game, play_games

__all__ = ["ACTING", "ACTIONS_LEFT", "ADDR", "BAGR", "BAG_CAP", "BAG_HEAD", "BAG_N", "BOARD",
           "CHARS", "CHIYA_HOLD", "DAWN", "DISGUISED", "FACE_UP", "FM_HALTED", "FM_LEN", "FM_MARKS",
           "FM_N_MARKS", "FM_OBS", "FM_PEND", "FM_ROWS", "FM_SEAT", "FM_SIG", "FM_STATE", "FM_STOP",
           "G", "GAME_SIG", "HELD", "HITEM", "LETTER", "LOG0", "LOG_LEN", "MARKER", "MAXD", "MAXN",
           "MAX_PLAYERS", "N_ITEMS", "N_STREAMS", "OBS", "P", "PENDING", "POS", "RETURNED", "RIZE",
           "RULES_LEN", "R_DEG", "R_NSTEPS", "R_STEP_TO", "SEARCHED", "SEEN", "SKILL_USED", "SKIP",
           "TBR", "TCH", "TK", "TSUB", "TURNS", "TWH", "WALK_LEFT", "XS", "fm_decide", "play_batch",
           "play_game", "play_games", "rule_vector", "search"]
