"""Search agents are honest, checked from histories: a second history of the same game in which
chance dealt the tiles otherwise, yet everything public and everything the acting seat has
looked at came out alike, gives that seat the same observations and options all along, and so
must give the same search decision and option values (``ForwardGame.values``) for the same
seed. The second world is built by replaying the game, never by ``determinize`` (the function
under test)."""
import numpy as np
import pytest

from rapinsim import new_game
from simcore.forward import MAX_MARKS, ForwardGame

AGENTS = ["ismcts-48", "pimc-48", "flat-24"]


def other_chance(g: ForwardGame, marks, choices=()) -> ForwardGame:
    """Game g after ``choices``, with other draws of chance (the deal, Rize's die, the escorts'
    dice) and of the other seats from each mark ``(decision, -1 - seat, seed)`` on; ``seat``'s
    own stream is kept, as the seat knows its own randomness. (A mark with a negative seat
    renews every stream but one, as an oracle's search does: ``engine.forward.fm_decide``.)"""
    return ForwardGame(g._engine, choices, marks, g._label)


def public(option: str) -> str:
    """An option as the table sees it: without what the acting seat knows of a house's tile."""
    return option.split(" (")[0]


def knowledge(v, s):
    """What seat s knows of the tiles: each tile it has seen, where it is (or gone: an item
    played) and what it is."""
    where = {}
    for h, t in enumerate(v["board"]):
        if t >= 0:
            where[t] = ("house", h)
    for q, held in enumerate(v["held"]):
        for t in np.flatnonzero(held):
            where[t] = ("hand", q)
    for i, t in enumerate(v["bag"]):
        where[t] = ("bag", i)
    return sorted((where.get(t, ("gone",)), int(v["tile_kind"][t]), int(v["tile_sub"][t]),
                   int(v["tile_brown"][t]), int(v["tile_white"][t]), int(v["tile_chest"][t]))
                  for t in np.flatnonzero(v["seen"][s]))


def hidden_differs(a, b):
    """The two positions differ somewhere: the tiles' places (the streams aside)."""
    return any(not np.array_equal(a[k], b[k]) for k in ("board", "held", "bag", "items"))


def _path(n_players, seed, rng, seat, skip):
    """A random history up to seat's ``skip``-th decision: the game, or None where it ended
    first (``seen`` gives what the seat saw on the way, for the paths that are kept)."""
    g = new_game(n_players, seed)
    while not g.done:
        d = g.current
        if d.seat == seat:
            if skip == 0:
                return g
            skip -= 1
        g.step(pick(d.options, rng))
    return None


def seen(g, seat):
    """g's history replayed: at each decision its seat, kind, public options, seat's
    observation and (at its own decisions) its option rows, with the option taken."""
    h = other_chance(g, ())
    steps = []
    for i in g.history:
        steps.append(seen_at(h, seat) + (i,))
        h.step(i)
    return steps


def pick(options, rng):
    """A random option, a search mostly left out: every search may reveal a tile that the
    other deal must match, so without this the pairs found would all be early in the game."""
    quiet = [i for i, o in enumerate(options) if not o.startswith(("search", "take"))]
    if quiet and rng.random() < 0.9:
        return quiet[int(rng.integers(len(quiet)))]
    return int(rng.integers(len(options)))


def seen_at(g, seat):
    """What ``seat`` sees at g's decision (and whose decision of what kind it is, with the
    public options)."""
    d = g.current
    rows = g.options().tobytes() if d.seat == seat else None
    return (d.seat, d.kind, tuple(public(o) for o in d.options),
            g.observation(seat).tobytes(), rows)


def twin(g, steps, seat, rng) -> ForwardGame | None:
    """g replayed by ``steps`` under other chance: a new deal, and where what ``seat`` sees
    would differ at a decision, new draws from the decision before (a few tries, as the
    marks allow); None where ``seat`` would see anything differ (its observation at every
    decision, anyone's, its options at its own, what it knows of the tiles) or the hidden
    tiles lie alike."""
    marks = [(0, -1 - seat, int(rng.integers(2**31)))]
    alt = other_chance(g, marks)
    target = [tuple(was) for *was, _ in steps] + [seen_at(g, seat)]
    for j, want in enumerate(target):
        if alt.done or seen_at(alt, seat) != want:
            if j == 0 or len(marks) == MAX_MARKS - 1:
                return None
            for _ in range(16):
                renewed = marks + [(j - 1, -1 - seat, int(rng.integers(2**31)))]
                alt = other_chance(g, renewed, [i for *_, i in steps[:j]])
                if not alt.done and seen_at(alt, seat) == want:
                    marks = renewed
                    break
            else:
                return None
        if j < len(steps):
            alt.step(steps[j][-1])
    a, b = g.state(), alt.state()
    if knowledge(a, seat) != knowledge(b, seat) or not hidden_differs(a, b):
        return None
    return alt


def pairs(n_cases, seed=0):
    """Positions (3 to 5 players, no decision kind more than a quarter of them) with a second
    history: (g, alt)."""
    rng = np.random.default_rng(seed)
    out, kinds = [], {}
    for case in range(40 * n_cases):
        if len(out) >= n_cases:
            break
        n_players = 3 + case % 3
        seat = int(rng.integers(n_players))
        g = _path(n_players, 100 + case, rng, seat, int(rng.integers(40)))
        if g is None or 4 * kinds.get(g.current.kind, 0) >= n_cases:
            continue
        alt = twin(g, seen(g, seat), seat, rng)
        if alt is not None:
            out.append((g, alt))
            kinds[g.current.kind] = kinds.get(g.current.kind, 0) + 1
    return out


def test_other_deals_the_seat_cannot_tell_apart_give_the_same_search():
    """At every decision kind after the deal but the rare ones (a target, a disguise)."""
    found = pairs(32, 1) + pairs(32, 4)
    assert len(found) >= 48
    assert {g.current.kind for g, _ in found} >= {"place", "action", "step", "house", "district"}
    differ = []
    for g, alt in found:
        for spec in AGENTS:
            a, b = g.search(spec, 11), alt.search(spec, 11)
            if a != b:
                differ.append((g.n_players, len(g.history), g.current.kind, spec, a, b))
        if not np.array_equal(g.values(11, 2), alt.values(11, 2)):     # ForwardGame.values
            differ.append((g.n_players, len(g.history), g.current.kind, "values"))
    assert not differ, differ


@pytest.mark.parametrize("spec", AGENTS)
def test_at_the_first_decision_only_the_seat_own_stream_matters(spec):
    """Before anything is dealt nothing is hidden: other chance (the seat's own stream kept)
    gives the same search."""
    for n_players in (3, 4, 5):
        g = new_game(n_players, 3)
        s = g.current.seat
        assert g.search(spec, 5) == other_chance(g, [(0, -1 - s, 77)]).search(spec, 5)
