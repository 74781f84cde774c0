"""Search agents (``simcore.search``), for every registered game that offers them: policies
like any other, the same game on any thread count and batch split, and honest (a choice never
depends on what the acting seat cannot see)."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import polars as pl
import pytest
import toydice  # noqa: F401 - registers the toy game

from simcore import games
from simcore.policy import policy
from simcore.search import Agent, blend, make_agent, parse_agent

GAMES = sorted(n for n in games.names() if hasattr(games.get(n).module(), "agent"))
SPECS = ("ismcts-40", "pimc-32", "flat-24")


@policy("first_option")
def first_option(kind, obs, opts, n_opts, rng):
    return 0


@pytest.fixture(params=GAMES)
def game(request):
    return games.get(request.param)


def _field(game, n):
    return ["careful", "greedy", "random", "careful", "greedy", "random"][:n]


@pytest.mark.parametrize("spec", SPECS)
def test_an_agent_game_is_the_same_on_any_thread_count_and_batch_split(game, spec):
    sim = game.module().simulate
    pols = [spec] + _field(game, 2)
    whole = sim(pols, 6, 3, threads=1)
    assert whole.equals(sim(pols, 6, 3, threads=2))
    assert whole.equals(pl.concat([sim(pols, 2, 3), sim(pols, 4, 3, first_game=2)]))
    assert whole.filter(pl.col("seat") == 0)["policy"].to_list() == [spec] * 6


def test_a_search_reads_no_memory_it_has_freed(game):
    """With a fixed mmap threshold every allocation above it is its own mapping, unmapped when
    freed, so a kernel that reads an array numba has already freed (a raw pointer into it
    outliving its last use) crashes instead of reading stale memory that usually still holds
    the right values. In a subprocess: a crash must not take the test run down."""
    code = textwrap.dedent(f"""
        from simcore import games
        mod = games.get({game.name!r}).module()
        g = mod.new_game(4, 2026, 0)
        for _ in range(6):
            g.step(g.to_act[1] - 1)
        print([g.search(spec, 1) for spec in {SPECS!r}])
        print(mod.simulate(["ismcts-24"] + ["careful"] * 3, 2, 5, threads=2)["win"].sum())
    """)
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="4096")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1] == "2.0"     # two games, each won (shares summed)


def test_agents_by_name_and_with_parameters(game):
    mod = game.module()
    a = mod.agent("ismcts", 50)
    assert a.name == "ismcts-50" and a == mod.agent.parse("ismcts-50")
    b = mod.agent("pimc", 64, playout="greedy", determinizations=4)
    assert b.name == "pimc-64[playout=greedy,determinizations=4]"
    df = mod.simulate([b, "careful", "careful"], 2, 1)
    assert df.filter(pl.col("seat") == 0)["policy"].to_list() == [b.name] * 2
    assert mod.agent("ismcts", 20, oracle=True).name == "ismcts-20[oracle]"
    # a name with settings is the agent it names, wherever a policy is named
    for a in (b, mod.agent("ismcts", 30, c=0.5, bias=0.0, adaptive=False, oracle=True),
              mod.agent("flat", 12, opponents="table", margin=0.25)):
        assert mod.agent.parse(a.name) == a
    assert mod.simulate([b.name, "careful", "careful"], 2, 1).equals(df)
    for bad, match in (("ismcts-3[x=1]", "unknown setting 'x=1'"),
                       ("ismcts-3[bias=high]", "bias='high' is not a float"),
                       ("ismcts-3[adaptive=yes]", "adaptive='yes' is not on or off")):
        with pytest.raises(ValueError, match=re.escape(match)):
            mod.agent.parse(bad)


def test_an_oracle_sees_the_hidden_state(game):
    """The oracle (labelled, never a default) searches the true position: across worlds the
    honest agent cannot tell apart, its choice follows the hidden state somewhere."""
    oracle = game.module().agent("ismcts", 40, oracle=True)
    moved = 0
    for g in _positions(game, 10, 5):
        seat = g.to_act[0]
        picks = {g.determinize(seat, w).search(oracle, 1) for w in range(4)}
        moved += len(picks) > 1
    assert moved >= 1


@pytest.mark.parametrize("bad,match", [
    (lambda m: m.agent("mcts", 10), "unknown search algorithm 'mcts'"),
    (lambda m: m.agent("ismcts", 0), "iterations must be an integer from 1"),
    (lambda m: m.agent("ismcts", 10, playout="nobody"), "unknown playout policy 'nobody'"),
    (lambda m: m.agent("ismcts", 10, c=-1), "c .UCB exploration."),
    (lambda m: m.agent("pimc", 4, determinizations=8), "at least as many iterations"),
    (lambda m: m.simulate(["ismcts-10", "careful"], 1, 1, engine="reference"),
     "compiled engine only"),
    (lambda m: m.simulate(["mcts-10", "careful"], 1, 1), "unknown policy 'mcts-10'"),
])
def test_bad_agents_are_named(game, bad, match):
    with pytest.raises(ValueError, match=match):
        bad(game.module())


def test_a_playout_horizon_cuts_playouts_only_where_a_game_has_one(game):
    """``horizon``: rounds an iteration plays before the game is scored as if it ended. At
    least the game's rounds, it cuts nothing (the same games as playouts to the end); shorter,
    it changes the search. A game whose playouts always run to the end refuses it."""
    mod = game.module()
    if mod.agent.horizon is None:
        with pytest.raises(ValueError, match="playouts always run to the end"):
            mod.agent("ismcts", 10, horizon=2)
        return
    other = mod.agent.horizon + 1
    a = mod.agent("ismcts", 24, horizon=other)
    assert a.name == f"ismcts-24[horizon={other}]"
    assert mod.agent("ismcts", 24, horizon=mod.agent.horizon).name == "ismcts-24"
    assert parse_agent("ismcts-24", mod.POLICIES, a.playout, mod.agent.horizon).horizon == \
        mod.agent.horizon
    with pytest.raises(ValueError, match="horizon must be an integer from 0"):
        mod.agent("ismcts", 10, horizon=-1)
    field = _field(game, 2)
    cols = ["game", "seat", "score", "rank", "win"]

    def play(horizon):
        return mod.simulate([mod.agent("ismcts", 24, horizon=horizon)] + field, 3, 2)[cols]
    to_end = play(0)
    assert play(1000).equals(to_end)
    assert not play(1).equals(to_end)


def test_a_reward_margin_blends_in_the_score(game):
    """``margin``: the share of an iteration's reward that is the seat's score place rather
    than its win share. The game's usual margin is unnamed, another is in the name; a bad one
    is named; another margin changes the search."""
    mod = game.module()
    usual, playout = mod.agent.margin, mod.agent("ismcts", 24).playout
    assert parse_agent("ismcts-24", mod.POLICIES, playout, mod.agent.horizon, usual).margin == \
        usual
    other = 0.5 if usual != 0.5 else 0.0
    a = mod.agent("ismcts", 24, margin=other)
    assert a.name == f"ismcts-24[margin={other:g}]"
    for bad in (-0.1, 1.5, "half", True):
        with pytest.raises(ValueError, match="margin must be a number from 0"):
            mod.agent("ismcts", 10, margin=bad)
    field = _field(game, 3)
    cols = ["game", "seat", "rank", "win", "decisions"]

    def play(margin):
        # no prior: a strong prior's pull can hide the reward's change at 24 iterations
        return mod.simulate([mod.agent("ismcts", 24, margin=margin, bias=0)] + field, 4,
                            2)[cols]
    assert not play(usual).equals(play(other))


def test_blend_mixes_win_shares_with_score_places():
    win = np.array([1.0, 0.0, 0.0, 0.0], np.float32)
    keys = np.array([30, 10, 20, 10], np.int64)
    blend(win, keys, 4, 0.25)
    assert np.allclose(win, [0.75 + 0.25, 0.0, 0.25 * 0.5, 0.0])
    tied = np.array([0.5, 0.5, 0.0], np.float32)
    blend(tied, np.array([7, 7, 7], np.int32), 3, 1.0)        # all tie: every place is 1/2
    assert np.allclose(tied, 0.5)
    same = np.array([0.0, 1.0], np.float32)
    blend(same, np.array([3, 9], np.int64), 2, 0.0)
    assert same.tolist() == [0.0, 1.0]


def _positions(game, n_positions, seed):
    """Forward-model positions reached by random play, each at a decision."""
    rng = np.random.default_rng(seed)
    mod, (lo, hi) = game.module(), game.players
    out = []
    for k in range(n_positions):
        g = mod.new_game(lo + k % (hi - lo + 1), seed, k)
        for _ in range(int(rng.integers(0, 200))):
            if g.done:
                break
            g.step(int(rng.integers(g.to_act[1])))
        if not g.done:
            out.append(g)
    return out


@pytest.mark.parametrize("spec", SPECS)
def test_agents_are_honest(game, spec):
    """The same seed gives the same choice in every world the seat cannot tell from the true
    one: the agent's choice depends on nothing hidden from it."""
    checked = 0
    for g in _positions(game, 6, 21):
        seat = g.to_act[0]
        choice = g.search(spec, 5)
        assert 0 <= choice < g.to_act[1]
        for other in (1, 2):
            assert g.determinize(seat, other).search(spec, 5) == choice
            checked += 1
    assert checked >= 8


def test_determinize_forgets_the_true_hidden_state(game):
    """Two determinizations with one seed are the same state (every field, the engine's
    caches included), whatever world they start from: what the seat cannot see does not
    survive into the sample, so a search over samples cannot peek."""
    for g in _positions(game, 8, 4):
        seat = g.to_act[0]
        a = g.determinize(seat, 9).state()
        b = g.determinize(seat, 33).determinize(seat, 9).state()
        diff = [k for k in a if k not in ("n_marks", "marks") and not np.array_equal(a[k], b[k])]
        assert not diff, diff


def test_search_agent_beats_random_play(game):
    """A search agent with a small budget wins more than its share against random seats
    (a smoke test of strength; the ladder measures it properly)."""
    mod = game.module()
    df = mod.simulate(["ismcts-30", "random", "random"], 12, 8)
    assert df.filter(pl.col("seat") == 0)["win"].mean() > 0.5


def test_agent_is_a_frozen_value():
    a = Agent("flat", 10, "careful", default_playout="careful")
    with pytest.raises(AttributeError):
        a.iterations = 5
    assert a.name == "flat-10"


def test_search_rungs_climb_the_ladder(game):
    """Search agents are rungs like any policy: by name, and as a family at budgets."""
    from analyses import ladder
    lad = ladder(game.name, ["random", "ismcts-4", "ismcts-16"], 2, 2, 3)
    assert lad.rungs == ("random", "ismcts-4", "ismcts-16")
    assert set(lad.curves["budget"].to_list()) == {4, 16}


def test_a_prior_bias_favours_the_playout_policys_pick(game):
    """``bias``: the playout policy's pick is tried first in the tree and favoured by
    ``bias / (visits + 1)``. The game's usual bias is unnamed, another is in the name and
    changes the search; a bad one is named."""
    mod = game.module()
    usual = mod.agent.bias
    assert mod.agent("ismcts", 24).bias == usual == mod.agent.parse("ismcts-24").bias
    other = 0.0 if usual else 2.0
    assert mod.agent("ismcts", 24, bias=other).name == f"ismcts-24[bias={other:g}]"
    for bad in (-1, 101, "strong", True):
        with pytest.raises(ValueError, match="bias .the prior's progressive bias."):
            mod.agent("ismcts", 10, bias=bad)
    picks = [[g.search(mod.agent("ismcts", 40, bias=b), 3) for g in _positions(game, 12, 8)]
             for b in (usual, other)]
    assert picks[0] != picks[1]


def test_a_distilled_prior_is_the_distilled_policys_pick(game):
    """``prior="distilled"``: the tree favours the distilled policy's pick, whatever the
    playout. One iteration expands only the prior's pick, so that is the decision; a bad
    prior is named."""
    mod = game.module()
    usual = mod.agent.prior
    other = "distilled" if usual == "playout" else "playout"
    assert mod.agent("ismcts", 24, prior=other).name == f"ismcts-24[prior={other}]"
    assert mod.agent.parse(f"ismcts-24[prior={other}]").prior == other
    assert mod.agent.parse("ismcts-24").prior == usual
    with pytest.raises(ValueError, match="prior must be one of"):
        mod.agent("ismcts", 10, prior="keeper")
    dist = mod.BUNDLED["distilled"]()
    agent = mod.agent("ismcts", 1, prior="distilled", playout="random")
    checked = 0
    for g in _positions(game, 16, 9):
        seat, n = g.to_act
        if n < 2:
            continue
        want = dist(g.kind, g.observation(seat), g.options(), n, g.streams()[seat:seat + 1])
        assert g.search(agent, 5) == want
        checked += 1
    assert checked >= 10


def test_an_adaptive_search_takes_the_full_budgets_decision(game):
    """``adaptive``: a search that stops once no other option can overtake its most visited
    one takes the option the whole budget takes, at every position and seed."""
    mod = game.module()
    assert mod.agent("ismcts", 24, adaptive=not mod.agent.adaptive).name.endswith(
        f"[adaptive={'off' if mod.agent.adaptive else 'on'}]")
    with pytest.raises(ValueError, match="adaptive must be True or False"):
        mod.agent("ismcts", 10, adaptive="yes")
    for i, g in enumerate(_positions(game, 12, 9)):
        for bias in (0.0, 2.0):
            full, early = (g.search(mod.agent("ismcts", 60, bias=bias, adaptive=a), i)
                           for a in (False, True))
            assert full == early


def test_opponents_from_the_table_play_out_as_they_play(game):
    """``opponents="table"``: each other seat plays out with the built-in policy it plays at
    the table. Against heuristic seats that changes the search; where the table is unknown
    (a forward game) or the other seats play user policies, it is the usual playout."""
    mod = game.module()
    usual = mod.agent.opponents
    other = "table" if usual == "playout" else "playout"
    assert mod.agent("ismcts", 24, opponents=other).name == f"ismcts-24[opponents={other}]"
    with pytest.raises(ValueError, match="opponents must be one of"):
        mod.agent("ismcts", 10, opponents="mirror")
    cols = ["game", "seat", "rank", "win", "decisions"]

    def play(opponents, field):
        return mod.simulate([mod.agent("ismcts", 40, opponents=opponents)] + field, 6, 4,
                            progress=False)[cols]
    # the playout is not what the other seats play: modelling them changes the search
    field = ["random"] * 3 if mod.agent("ismcts", 1).playout != "random" else ["greedy"] * 3
    assert not play("table", field).equals(play("playout", field))
    assert play("table", [first_option] * 3).equals(play("playout", [first_option] * 3))
    for g in _positions(game, 6, 11):
        assert g.search(mod.agent("ismcts", 40, opponents="table"), 2) == \
            g.search(mod.agent("ismcts", 40, opponents="playout"), 2)


def test_the_own_playout_is_the_searching_seats_alone(game):
    """``own="distilled"``: the searching seat plays out as the distilled policy, the others
    as ``opponents`` says. Where the other seats play out as the table plays (heuristics),
    that is the search whose playout is ``distilled`` for every seat but the table's; with
    the usual opponents it is a search of its own."""
    mod = game.module()
    own = mod.agent("ismcts", 24, own="distilled")
    assert own.name == "ismcts-24[own=distilled]" and mod.agent.parse(own.name) == own
    with pytest.raises(ValueError, match=re.escape("own must be one of ['playout', "
                                                   "'distilled'], got 'keeper'")):
        mod.agent.parse("ismcts-3[own=keeper]")
    cols = ["game", "seat", "rank", "win", "decisions"]
    field = ["greedy"] * 3

    def play(**kw):      # no prior: the playouts alone lead the search
        return mod.simulate([mod.agent("ismcts", 30, bias=0.0, **kw)] + field, 4, 7,
                            progress=False)[cols]
    assert play(own="distilled", opponents="table").equals(
        play(playout="distilled", opponents="table"))
    assert not play(own="distilled").equals(play())
    assert not play(own="distilled").equals(play(playout="distilled"))


def test_an_own_playout_the_game_lacks_is_refused():
    with pytest.raises(ValueError, match="own='distilled': this game has no distilled policy"):
        make_agent("ismcts", 10, playout=None, playouts={"greedy": 0}, default="greedy",
                   own="distilled")
