"""Search agents are honest, checked from histories: a second history in which the other seats
made other secret choices (the roles they took into hand, their hand sizes under More or
Less?, their bids under The Upper Hand) but everything public happened alike gives the acting
seat the same observations all along, and so must give the same search decision and option
values (``ForwardGame.values``) for the same seed. The second world is built by replaying the
game, never by ``determinize`` (the function under test)."""
import numpy as np
import pytest

import bloomsim
from bloom_helpers import every_round
from simcore.forward import ForwardGame

SECRET = ("select", "bid")
"""Decision kinds whose choice the other seats never see."""
AGENTS = ["ismcts-48", "pimc-48", "flat-24"]


def _path(n_players, seed, rules, rng, want, skip):
    """A random history up to the ``skip``-th decision whose kind is in ``want`` of a seat
    other than 0 (whose secret choices came first): the game and each step's (seat, kind,
    option taken)."""
    g = bloomsim.new_game(n_players, seed, rules=rules)
    steps = []
    while not g.done:
        d = g.current
        if d.seat > 0 and d.kind in want:
            if skip == 0:
                return g, steps
            skip -= 1
        i = int(rng.integers(d.n))
        steps.append((d.seat, d.kind, d.options[i]))
        g.step(i)
    return None, steps


def twin(n_players, seed, rules, steps, seat, rng, sizes_vary) -> ForwardGame | None:
    """The game of ``steps`` replayed with the other seats' secret choices of the last round
    drawn anew where nothing public would show it: each other seat's hand holds the roles it
    has played this round and others drawn from those it cannot hold (a role led this round
    that it did not follow), of its hand size (any size under More or Less? while the hands
    are still being chosen, when the sizes are secret); the bids under The Upper Hand are
    drawn anew. ``sizes_vary``: the event in force lets players choose their hand sizes.
    Every other choice is as in ``steps``. None where ``seat`` would see anything
    differ (its observation at every decision, anyone's) or nothing secret changed."""
    start = max(k for k, (p, kind, _) in enumerate(steps)
                if p == 0 and kind == "select" and (k == 0 or steps[k - 1][1] != "select"))
    now = steps[start:]
    selecting = all(kind == "select" for _, kind, _ in now)
    led = {o.split()[0] for _, kind, o in now if kind == "lead"}
    hands, changed = {}, False
    for p in range(n_players):
        chosen = [o.split()[1] for q, kind, o in now if q == p and o.startswith("select ")]
        if p == seat or not chosen:
            continue
        played = {o.split()[0] for q, kind, o in now if q == p and kind in ("lead", "follow")}
        pool = sorted(set(bloomsim.load_rules().role_ids) - played - (led - played))
        size = len(chosen)
        if selecting and sizes_vary:
            size = int(rng.integers(1, len(chosen) + 2))
        extra = size - len(played)
        if extra < 0 or extra > len(pool):
            return None
        hands[p] = sorted(played | set(rng.choice(pool, extra, replace=False).tolist()))
        changed |= set(hands[p]) != set(chosen)
    truth = bloomsim.new_game(n_players, seed, rules=rules)
    alt = bloomsim.new_game(n_players, seed, rules=rules)
    i = 0
    while True:
        while i < len(steps) and i >= start and steps[i][0] != seat \
                and steps[i][1] in SECRET:
            truth.step(truth.current.options.index(steps[i][2]))
            i += 1
        while not alt.done and i >= start and alt.current.seat != seat \
                and alt.current.kind in SECRET:
            d = alt.current
            if d.kind == "bid":
                k = int(rng.integers(d.n))
                changed |= True
            else:
                left = [r for r in hands[d.seat] if f"select {r}" in d.options]
                k = d.options.index(f"select {left[0]}" if left else "stop")
            alt.step(k)
        if alt.done or truth.current.seat != alt.current.seat \
                or truth.current.kind != alt.current.kind \
                or not np.array_equal(truth.observation(seat), alt.observation(seat)):
            return None
        if i == len(steps):
            return alt if changed and truth.current == alt.current else None
        option = steps[i][2]
        if option not in alt.current.options:
            return None
        truth.step(truth.current.options.index(option))
        alt.step(alt.current.options.index(option))
        i += 1


def _checked(event, want, cases, agents=AGENTS):
    """Search both worlds of ``cases`` positions of ``event``'s rules; the number of
    (position, agent) pairs compared, and those that disagreed."""
    rules = every_round(event) if event else bloomsim.load_rules()
    rng = np.random.default_rng(7)
    compared, differ = 0, []
    for case in range(cases * 6):
        if compared >= cases * len(agents):
            break
        n_players = 3 + case % 3
        g, steps = _path(n_players, 100 + case, rules, rng, want, int(rng.integers(3)))
        if g is None:
            continue
        seat = g.current.seat
        alt = twin(n_players, 100 + case, rules, steps, seat, rng, event == "more_or_less")
        if alt is None:
            continue
        for spec in agents:
            a, b = g.search(spec, 11), alt.search(spec, 11)
            compared += 1
            if a != b:
                differ.append((event, case, g.current.kind, spec, a, b))
        if not np.array_equal(g.values(11, 2), alt.values(11, 2)):     # ForwardGame.values
            differ.append((event, case, g.current.kind, "values"))
    return compared, differ


@pytest.mark.parametrize("event, want", [
    ("more_or_less", ("select",)),
    ("upper_hand", ("bid",)),
])
def test_secret_hand_sizes_and_bids_do_not_reach_the_search(event, want):
    compared, differ = _checked(event, want, 8)
    assert compared >= 12
    assert not differ, differ


@pytest.mark.parametrize("event", [e for e in bloomsim.load_rules().event_ids])
def test_other_seats_secret_hands_do_not_reach_the_search_under_any_event(event):
    """At every kind of decision (after the hands are chosen), under every event card."""
    kinds = ("lead", "follow", "alternative", "colour", "move", "deliver", "charm", "gather",
             "pay", "works", "select", "bid")
    compared, differ = _checked(event, kinds, 3, ["ismcts-32"])
    assert compared >= 2
    assert not differ, differ
