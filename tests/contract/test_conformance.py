"""The conformance suite: every registered game (the shipped ones, and the toy third game of
this folder) keeps the same promises, checked through the contract only: the engines agree,
a (seed, game) is the same game on any thread count and batch split, bad input and illegal
choices are named, the command line answers in one line, and the forward model's laws hold."""
import numpy as np
import polars as pl
import pytest
import toydice  # noqa: F401 - registers the toy game

from simcore import cli, games
from simcore.policy import policy
from simcore.results import rules_label

GAMES = sorted(games.names())


@pytest.fixture(params=GAMES)
def game(request):
    return games.get(request.param)


def _seats(game, n=None):
    """Built-in policies cycled over the fewest seats the game allows (or n)."""
    names = sorted(game.module().POLICIES)
    return [names[i % len(names)] for i in range(n or game.players[0])]


def _no_policy(df):
    return df.drop("policy")


def test_a_results_frame_names_its_game_and_rules(game):
    """The ``rules`` column: the game's name and its rules' fingerprint, the same for the same
    rules (any seed), another for a rules variant; the analyses read the game off it."""
    from analyses.data import game_of
    mod = game.module()
    pols = _seats(game)
    df = mod.simulate(pols, 2, 1)
    label = rules_label(game, mod.load_rules())
    assert label.startswith(f"{game.name}:") and df["rules"].unique().to_list() == [label]
    assert mod.simulate(pols, 1, 7)["rules"][0] == label
    variant = game.switch_offs(mod.load_rules(), None, "replace")[0][3]
    assert mod.simulate(pols, 1, 1, rules=variant)["rules"][0] != label
    assert game_of(df.drop(list(game.marks)).lazy()).name == game.name


def test_the_engines_agree(game):
    sim = game.module().simulate
    pols = _seats(game, 3)
    assert sim(pols, 3, 5, engine="compiled").equals(sim(pols, 3, 5, engine="reference"))


def test_a_game_is_the_same_on_any_thread_count_and_batch_split(game):
    sim = game.module().simulate
    pols = _seats(game, 3)
    whole = sim(pols, 40, 9, threads=1)
    assert whole.equals(sim(pols, 40, 9, threads=2))
    parts = pl.concat([sim(pols, 15, 9), sim(pols, 25, 9, first_game=15)])
    assert whole.equals(parts)
    assert not whole.equals(sim(pols, 40, 10))


@pytest.mark.parametrize("bad,match", [
    (dict(policies=["random", "no_such_policy"]), "unknown policy 'no_such_policy'"),
    (dict(policies=["random"]), "players"),
    (dict(n_games=0), "n_games"),
    (dict(seed=-1), "seed"),
    (dict(engine="gpu"), "engine"),
])
def test_bad_input_is_a_named_value_error(game, bad, match):
    args = dict(policies=_seats(game), n_games=3, seed=1) | bad
    engine = args.pop("engine", "compiled")
    with pytest.raises(ValueError, match=match):
        game.module().simulate(args.pop("policies"), args.pop("n_games"), args.pop("seed"),
                               engine=engine)


@policy("past_the_end")
def past_the_end(kind, obs, opts, n_opts, rng):
    return n_opts


def test_an_illegal_choice_names_the_policy_and_seat(game):
    pols = _seats(game)
    pols[1] = past_the_end
    with pytest.raises(ValueError, match=r"'past_the_end' at seat 1 .*illegal choice"):
        game.module().simulate(pols, 2, 1)


def test_the_command_line_is_the_same_and_errors_are_one_line(game, capsys):
    flags = [f for p in _seats(game) for f in ("--policy", p)]
    assert cli.main(game.name, ["simulate", *flags, "--games", "20", "--seed", "2"]) == 0
    assert "95% Wilson" in capsys.readouterr().out
    assert cli.main(game.name, ["simulate", "--policy", "random", "--policy", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{game.name}: error:") and "nope" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as e:
        cli.main(game.name, ["simulate", "--games", "x", *flags])
    assert e.value.code == 2 and capsys.readouterr().err.count("\n") == 1


def test_each_declared_alternative_tests_a_guess_and_changes_the_rules(game):
    """``Game.alternatives``: each names a provenance entry that no seed states (where the
    game keeps provenance) and loads as rules other than the defaults."""
    from analyses.robust import alternatives_of
    from simcore import provenance
    prov = provenance.load(game) if game.provenance else None
    mod = game.module()
    for variant, key in (alternatives_of(game.name) if game.alternatives else []):
        if prov is not None:
            assert prov[key]["tag"] != "seed", key
        assert variant.rules(mod) != mod.load_rules(), variant.label


@pytest.mark.parametrize("command", ["simulate", "replay", "rules"])
def test_every_option_s_help_says_its_real_default(game, command, capsys):
    # the help of each option not required says its default; where the option has one, the
    # value it really has
    sub = next(a for a in cli.parser(game)._actions if a.dest == "cmd").choices[command]
    with pytest.raises(SystemExit):
        sub.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for a in sub._actions:
        if a.required or a.dest == "help":
            continue
        said = " ".join((a.help % {"default": a.default}).split())
        assert "(default: " in said and said in text, a.dest
        if a.default is not None:
            assert f"(default: {a.default})" in said, a.dest


# ---------------------------------------------------------------- the forward model's laws

@pytest.mark.parametrize("game_index", [0, 17])
def test_stepping_a_game_with_its_policies_is_the_batch_engines_game(game, game_index):
    mod = game.module()
    pols = _seats(game, 3)
    g = mod.new_game(3, 4, game_index).play(pols)
    assert g.done and g.current is None
    batch = mod.simulate(pols, 1, 4, first_game=game_index)
    assert _no_policy(g.result()).equals(_no_policy(batch))


def test_copy_step_and_determinize_keep_their_promises(game):
    g = game.module().new_game(game.players[0], 3, 2)
    twin = g.copy()
    d = g.current
    assert d.n >= 2 and len(d.options) == d.n
    g.step(d.n - 1)
    assert twin.history == () and g.history == (d.n - 1,)
    with pytest.raises(ValueError, match="option"):
        g.step(g.current.n)
    with pytest.raises(ValueError, match="not over"):
        g.result()
    seat = g.current.seat
    det = g.determinize(seat, 99)
    assert np.array_equal(det.observation(seat), g.observation(seat))
    assert np.array_equal(det.options(), g.options())
    det.play("random")
    assert det.done and det.result().height == g.n_players


def test_the_reinforcement_learning_environment_passes_pettingzoo_api_test(game):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test
    import warnings
    with warnings.catch_warnings():     # a Dict observation with a mask is the documented way
        warnings.simplefilter("ignore", UserWarning)
        api_test(game.module().env(game.players[0], seed=3), num_cycles=200)
