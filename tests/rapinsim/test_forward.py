"""The forward model (``rapinsim.new_game``): stepping a game with a policy is the batch
engine's game; bad steps are refused; copies are independent; ``determinize`` keeps what the
seat sees and resamples what it does not see with the true distribution."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency

import rapinsim
from rapinsim.policies import OB_CHAR, OB_TURN, POLICIES
from rapinsim.reference import builtin
from rapinsim.rules import ITEM, ITEMS, N_CHANCE, RING10, TRAP, TREASURE, load_rules

RULES = load_rules()
VARIANTS = {"default": RULES, "ring10": load_rules(RING10),
            "draw": RULES.replace(character_selection="draw"),
            "reaction": RULES.replace(disguise="reaction", whistle_steps=0)}


def batch_rows(policies, seed, game, rules, characters=None):
    df = rapinsim.simulate(policies, 1, seed, rules=rules, characters=characters, threads=1,
                           first_game=game)
    return df.drop("policy")


@settings(max_examples=60, deadline=None)
@given(policy=st.sampled_from(sorted(POLICIES)), n=st.integers(2, 6),
       seed=st.integers(0, 2**32), game=st.integers(0, 50),
       variant=st.sampled_from(sorted(VARIANTS)))
def test_stepping_a_policy_gives_the_batch_game(policy, n, seed, game, variant):
    rules = VARIANTS[variant]
    g = rapinsim.new_game(n, seed, game, rules=rules).play(builtin(POLICIES[policy]))
    assert g.done and g.current is None
    assert g.result().drop("policy").equals(batch_rows([policy] * n, seed, game, rules))


@pytest.mark.parametrize("seed", [1, 2])
def test_mixed_seats_and_fixed_characters(seed):
    names = ["keeper", "random", "careful", "greedy", "evader"]
    chars = ["inaba", "lapin", "aoyama", "chimame", "chiya"]
    for characters in (None, chars):
        g = rapinsim.new_game(5, seed, 3, characters=characters)
        if characters is not None:
            assert g.current.kind == "place"      # nobody chooses a character
        g.play([builtin(POLICIES[p]) for p in names])
        assert g.result().drop("policy").equals(batch_rows(names, seed, 3, RULES, characters))


def test_first_decision_is_the_character_choice():
    g = rapinsim.new_game(3, 7)
    d = g.current
    assert (d.seat, d.kind, d.n) == (0, "character", len(RULES.characters))
    assert d.options[0] == "play lapin"
    g.step(1)
    assert g.current.seat == 1 and g.current.n == len(RULES.characters) - 1
    assert g.observation(1)[OB_CHAR] == -1 and g.state()["characters"][0] == 1   # OB_CHAR


def test_bad_steps_and_queries_are_refused():
    g = rapinsim.new_game(4, 5)
    n = g.current.n
    for bad in (-1, n, 1.5, True, "0"):
        with pytest.raises(ValueError, match="option must be an integer"):
            g.step(bad)
    with pytest.raises(ValueError, match="the game is not over"):
        g.result()
    with pytest.raises(ValueError, match="seat 2 asked, seat 0 is to act"):
        g.determinize(2, 1)
    with pytest.raises(ValueError, match="seed must be"):
        g.determinize(0, -1)
    with pytest.raises(ValueError, match="seat must be"):
        g.observation(4)
    g.play(builtin(POLICIES["careful"]))
    with pytest.raises(ValueError, match="the game is over"):
        g.step(0)
    with pytest.raises(ValueError, match="no decision is pending"):
        g.observation(0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_players=1), "players"), (dict(n_players=7), "players"),
    (dict(n_players=3, characters=["lapin", "lapin", "inaba"]), "distinct"),
    (dict(n_players=3, characters=["lapin"]), "one per seat"),
    (dict(n_players=3, seed=-1), "seed"), (dict(n_players=3, game=-2), "game")])
def test_bad_new_game_is_refused(kwargs, match):
    kwargs = {"seed": 1, **kwargs}
    with pytest.raises(ValueError, match=match):
        rapinsim.new_game(**kwargs)


def test_a_copy_is_independent():
    g = rapinsim.new_game(4, 11)
    for _ in range(20):
        g.step(g.current.n - 1)
    before = (g.history, g.current, g.observation(g.current.seat).tobytes())
    twin = g.copy()
    twin.play(builtin(POLICIES["greedy"]))
    assert twin.done and not g.done
    assert (g.history, g.current, g.observation(g.current.seat).tobytes()) == before
    done = twin.history
    g.step(0)
    assert twin.history == done and twin.done


def advance(g, rng, until):
    """Step g at random until ``until(g)`` holds at a decision (None if the game ends first)."""
    while not g.done:
        if until(g):
            return g
        g.step(int(rng.integers(g.current.n)))
    return None


def late_action(turn):
    return lambda g: g.current.kind == "action" and g.observation(g.current.seat)[OB_TURN] >= turn


def hidden(v, s):
    """Seat s's hidden places as (place, tile): houses face down it has not seen, the other
    seats' tiles it has not seen (('hand', q)), Rize's bag's (('bag', i))."""
    seen = v["seen"][s]
    out = [(h, t) for h, t in enumerate(v["board"])
           if t >= 0 and not v["face_up"][h] and not seen[t]]
    out += [(("hand", q), t) for q in range(len(v["held"])) if q != s
            for t in np.flatnonzero(v["held"][q]) if not seen[t]]
    out += [(("bag", i), t) for i, t in enumerate(v["bag"]) if not seen[t]]
    return out


PUBLIC = ("rize", "dawn", "turns", "positions", "characters", "letters", "face_up")


def check_honest(g, d, s):
    """d is g determinized for seat s: what s sees is the same, what it does not see is a
    deal of the same tiles over the same places, items where items are known to lie."""
    assert d.current == g.current
    assert np.array_equal(d.options(), g.options())
    assert np.array_equal(d.observation(s), g.observation(s))
    a, b = g.state(), d.state()
    for k in PUBLIC:
        assert np.array_equal(a[k], b[k]), k
    assert np.array_equal(a["seen"][s], b["seen"][s]) and np.array_equal(a["held"][s],
                                                                          b["held"][s])
    assert np.array_equal(a["items"][s], b["items"][s])
    assert np.array_equal(a["held"].sum(1), b["held"].sum(1))
    assert np.array_equal(a["seen"].sum(1), b["seen"].sum(1))
    ha, hb = hidden(a, s), hidden(d.state(), s)
    assert [p for p, _ in ha] == [p for p, _ in hb]
    assert sorted(t for _, t in ha) == sorted(t for _, t in hb)
    for (p, t) in hb:
        if not isinstance(p, int) or a["returned"][a["board"][p]]:
            assert b["tile_kind"][t] == ITEM
    return ha, hb


@pytest.mark.parametrize("variant", ["default", "ring10", "reaction"])
def test_determinize_is_honest(variant):
    rng = np.random.default_rng(4)
    moved = total = 0
    for game in range(12):
        g = rapinsim.new_game(4, 21, game, rules=VARIANTS[variant])
        played = False
        while advance(g, rng, lambda g: rng.random() < 0.1) is not None:
            s = g.current.seat
            d = g.determinize(s, game)
            ha, hb = check_honest(g, d, s)
            moved += sum(x != y for x, y in zip(ha, hb))
            total += len(ha)
            if not played:                  # a determinized game plays on to its end
                assert d.copy().play(builtin(POLICIES["careful"])).result().height == 4
                played = True
            again = g.determinize(s, game)
            assert np.array_equal(again.state()["board"], d.state()["board"])
            assert np.array_equal(again.state()["streams"], d.state()["streams"])
            other = g.determinize(s, game + 1000)
            assert not np.array_equal(other.state()["streams"], d.state()["streams"])
            g.step(int(rng.integers(g.current.n)))
    assert total > 500 and moved > total / 2      # most hidden tiles move


def test_determinize_keeps_the_seat_own_stream_and_renews_the_others():
    g = advance(rapinsim.new_game(3, 2), np.random.default_rng(0), late_action(6))
    s = g.current.seat
    a, b = g.state()["streams"], g.determinize(s, 9).state()["streams"]
    assert a[N_CHANCE + s] == b[N_CHANCE + s]
    assert all(a[k] != b[k] for k in range(len(a)) if k != N_CHANCE + s)


def test_determinize_at_the_character_choice_deals_new_tiles():
    g = rapinsim.new_game(4, 3)
    boards = set()
    for seed in range(4):
        d = g.determinize(0, seed)
        assert d.current == g.current
        d.step(0)
        boards.add(tuple(advance(d, np.random.default_rng(0),
                                 lambda g: g.current.kind == "place").state()["board"]))
    assert len(boards) == 4


def label(v, p, t):
    """Where a hidden tile lies and what it is: the distribution test's cells."""
    if isinstance(p, tuple):
        where = p[0]
    elif v["returned"][t]:
        where = "returned"
    else:
        d = p // (len(v["board"]) // RULES.districts)
        where = "own" if d == v["positions"][0] else "rize" if d == v["rize"][0] else "house"
    kind = v["tile_kind"][t]
    what = ("treasure" if kind == TREASURE else "trap" if kind == TRAP
            else ITEMS[v["tile_sub"][t]])
    return where, what


def test_determinized_hidden_tiles_follow_the_true_distribution():
    """Over many games stopped at seat 0's first action from turn 13 on (random play), where
    each of its hidden tiles lies (its district, Rize's, another house, a house a tile came
    back to, another seat's hand, the bag) and what it is (treasure, trap, each item): the
    truth and one determinization per game agree (chi-square test of homogeneity)."""
    rng = np.random.default_rng(7)
    cells: dict = {}
    n = 0
    for game in range(300):
        g = advance(rapinsim.new_game(4, 99, game), rng,
                    lambda g: g.current.seat == 0 and late_action(13)(g))
        if g is None:
            continue
        n += 1
        truth, det = g.state(), g.determinize(0, game).state()
        for v, col in ((truth, 0), (det, 1)):
            for p, t in hidden(v, 0):
                cells.setdefault(label(v, p, t), [0, 0])[col] += 1
    table = np.array([c for c in cells.values() if sum(c) >= 20]).T
    assert n > 200 and table.shape[1] >= 10 and table.sum() > 5000
    assert chi2_contingency(table)[1] > 1e-3
    # an item known to lie somewhere stays an item
    assert all(cells[k][1] == 0 for k in cells if k[0] in ("hand", "bag", "returned")
               and k[1] in ("treasure", "trap"))


def test_districts_are_described_as_the_rules_number_them():
    """From 1 (Rize starts in district 2 or 7), as the docs and the replay log number them."""
    g = rapinsim.new_game(3, 1)
    while g.current.kind != "place":
        g.step(0)
    rize = int(g.state()["rize"][0])
    assert rize + 1 in (2, 7)
    assert f"district {rize + 1}" not in g.current.options       # nobody is placed with Rize
    assert g.current.options[0] == "district 1"
