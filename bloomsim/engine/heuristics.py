"""The built-in policies' shortcuts, apart from the rules: a heuristic's or the distilled
policy's value of a card's row (``card_score``: ``P._score`` or the distilled score of the
features ``can_do.card_terms`` gives) and its choice made without writing the rows
(``best_card`` for LEAD and FOLLOW; ``select_rows`` picks a whole hand, or writes the SELECT
rows for a user policy). ``decisions.offer`` values the other
decisions' options as they are offered. The rules reach this room only where a built-in
heuristic may decide (``turn.play_turn``, ``rounds.select_roles``)."""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros

from .. import policies as P
from ..rules import EC_HAND, NO_HAND, P_N_ROLES, RO_KIND, WITCH
from .can_do import NEG, card_row, card_terms, card_values
from .decisions import distilled_score, distilled_u, distilled_weigh, record, seat_weights
from .state import B1, G_OAB, I8, ST, S_HAND, S_NHAND, S_POLICY, TT, sc
from .tables import event_of, role_of


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def card_score(t, g, r, kind, brave, v, w, weights, distilled, u, row_brave, risk):
    """A built-in policy's value of the row ``card_row`` would write, with ``row_brave`` and
    ``risk`` as its brave and risk features: the distilled policy's score under ``u``
    (``distilled_weigh``), else a heuristic's (``P._value``)."""
    points, pay_potions, pay_wands, gain_potions, gain_wands, lightning, penalty = card_terms(
        t, g, r, kind, brave, v, w)
    if distilled:
        return distilled_score(u, points, pay_potions, pay_wands, gain_potions, gain_wands,
                               lightning, penalty, row_brave, risk, False, r, r)
    return P._score(points, penalty, gain_potions, gain_wands, lightning,
                    pay_potions + pay_wands, weights[0], weights[1], weights[2])


@njit((TT, ST, I8, I8, I8, I8, I8, types.float32, types.UniTuple(types.float64, 4)),
      cache=True, _nrt=False, no_cpython_wrapper=True)
def best_card(t, s, seat, kind, hand, roles, at, risk, weights):
    """A built-in heuristic's or the distilled policy's LEAD or FOLLOW (``kind``) choice
    without the rows: the first best of those ``pair_rows`` writes for each role in ``hand``
    (option 2j + brave for the j-th), valued from ``card_values`` at ``at`` (roles not in
    ``roles``: NEG) and brave ``risk``; a heuristic takes no brave option above its risk."""
    g = s.g
    distilled = g[sc(seat, S_POLICY)] == P.DISTILLED
    brave_ok = distilled or not risk > weights[3]
    u = distilled_u(g)
    if distilled:
        distilled_weigh(t, s, seat, kind)
    c, best_v, n = 0, -np.inf if distilled else -1e30, 0   # as distilled_pick and P._best
    m = hand
    while m:
        r = trailing_zeros(m)
        m &= m - 1
        role = role_of(t, r, RO_KIND)
        v = g[at + 2 * r] if (roles >> r) & 1 else NEG
        witch = role == WITCH
        x = card_score(t, g, r, role, False, NEG if witch else v, 0 if witch else g[at + 2 * r + 1],
                       weights, distilled, u, False, risk)
        if x > best_v:
            c, best_v = n, x
        if brave_ok:
            x = card_score(t, g, r, role, True, v, g[at + 2 * r + 1], weights, distilled, u,
                           True, risk)
            if x > best_v:
                c, best_v = n + 1, x
        n += 2
    record(g, seat, kind, n, c)
    return c


@njit((TT, ST, I8, I8, I8, I8, B1), cache=True, _nrt=False, no_cpython_wrapper=True)
def select_rows(t, s, seat, c0, max_size, ev, mol):
    """Each role's SELECT row for the seat (rows c0 + r, a brave play's features, not brave);
    a built-in heuristic or the distilled policy instead picks its whole hand here, from each
    row's value (the first highest; a stop row is worth 0 to a heuristic), and True is
    returned. The values are found once (a heuristic's from the features without a row), not
    once per pick: neither rows nor the seat's standing change while hands are picked. They
    are kept in the option slots, free then: the stop row's, then each role's."""
    R = t[P_N_ROLES]
    at = card_values(t, s.g, seat, (np.int64(1) << np.int64(R)) - 1)
    pid = s.g[sc(seat, S_POLICY)]
    if not P.scores_cards(pid):
        for r in range(R):
            card_row(t, s, seat, r, role_of(t, r, RO_KIND), True, c0 + r, s.g[at + 2 * r],
                     s.g[at + 2 * r + 1])
            s.opts[c0 + r, P.F_BRAVE] = 0
        return False
    values = s.g.view(np.float64)[G_OAB:G_OAB + R + 1]
    distilled = pid == P.DISTILLED
    weights = seat_weights(s.g, seat)
    u = distilled_u(s.g)
    values[0] = 0.0
    if distilled:     # the stop row (``stop_option``), then each role's as card_row writes it
        distilled_weigh(t, s, seat, P.SELECT)
        values[0] = distilled_score(u, 0, 0, 0, 0, 0, 0, 0, False, np.float32(0), True, -1, -1)
    for r in range(R):
        values[1 + r] = card_score(t, s.g, r, role_of(t, r, RO_KIND), True, s.g[at + 2 * r],
                                   s.g[at + 2 * r + 1], weights, distilled, u, False,
                                   np.float32(0))
    while s.g[sc(seat, S_NHAND)] < max_size:
        hand = s.g[sc(seat, S_HAND)]
        stop = mol and event_of(t, ev, EC_HAND + s.g[sc(seat, S_NHAND)]) != NO_HAND
        n, c, best, best_v = 0, 0, -1, -1e30
        for r in range(R):
            if not (hand >> r) & 1:
                v = values[1 + r]
                if v > best_v:
                    c, best, best_v = n, r, v
                n += 1
        if stop:
            if values[0] > best_v:
                c, best = n, -1
            n += 1
        if n == 1:
            c = 0
            best = -1 if stop else best
        else:
            record(s.g, seat, P.SELECT, n, c)
        if best < 0:
            break
        s.g[sc(seat, S_HAND)] |= 1 << best
        s.g[sc(seat, S_NHAND)] += 1
    return True
