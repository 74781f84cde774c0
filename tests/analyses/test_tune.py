"""``analyses.tune``: the search plays its candidates seat by seat on blocks of the tuning seed,
the check plays fresh game indices only, the same seed gives the same result, and bad
arguments are named in one line."""
from types import SimpleNamespace

import pytest

import bloomsim
import rapinsim
from analyses import tune
from analyses.cli import main


def _recording(mod):
    """The game module, with every simulate call's (seats, first game, games) recorded."""
    calls = []

    def simulate(policies, n, seed, **kw):
        calls.append(([getattr(p, "name", p) for p in policies], kw.get("first_game", 0), n))
        return mod.simulate(policies, n, seed, **kw)
    fake = SimpleNamespace(simulate=simulate, POLICIES=mod.POLICIES, WEIGHTS=mod.WEIGHTS,
                           heuristic=mod.heuristic, __name__=mod.__name__)
    return fake, calls


def test_the_check_plays_only_games_the_search_never_played():
    fake, calls = _recording(bloomsim)
    t = tune(fake, "careful", {"points": (0.5, 2.0)}, opponents=["greedy"], players=3,
             budget=4, games=5, check_games=30, seed=1, progress=False, finalists=2, final=2)
    search, race, check = calls[:4 * 3], calls[4 * 3:-6], calls[-6:]
    tuned_games = {g for _, first, n in search for g in range(first, first + n)}
    race_games = {g for _, first, n in race for g in range(first, first + n)}
    check_games = {g for _, first, n in check for g in range(first, first + n)}
    assert tuned_games == set(range(20)) and race_games == set(range(20, 30))
    assert check_games == set(range(30, 60))
    assert len(race) == 3 * 2 * len(t.race) and 2 <= len(t.race) <= 3
    assert t.evaluations == 4 + 2 * len(t.race)
    for i in range(4):       # each evaluation: one block, the candidate in every seat
        block = search[3 * i:3 * i + 3]
        assert {first for _, first, _ in block} == {5 * i}
        assert [seats.index(next(s for s in seats if s.startswith("careful")))
                for seats, _, _ in block] == [0, 1, 2]
    assert t.check_seeds == 30
    assert t.field == ("greedy", "greedy") and t.games_tuning == t.evaluations * 5 * 3
    assert t.policy.name.startswith("careful[points=") and t.ci_low <= t.gain <= t.ci_high
    assert t.win_untuned == pytest.approx(
        bloomsim.simulate(["careful", "greedy", "greedy"], 30, 1, first_game=30)
        .filter(seat=0)["win"].mean() / 3 + sum(
            bloomsim.simulate(s, 30, 1, first_game=30).filter(seat=k)["win"].mean() / 3
            for k, s in ((1, ["greedy", "careful", "greedy"]),
                         (2, ["greedy", "greedy", "careful"]))))


def test_the_same_seed_gives_the_same_tuning():
    args = dict(params={"unknown": (4.0, 16.0), "step_tiles": [0.5, 1.0, 2.0]},
                opponents=["evader", "greedy"], players=3, budget=6, games=4,
                check_games=20, progress=False)
    a, b = (tune("rapinsim", "careful", seed=3, **args) for _ in range(2))
    assert a == b
    assert set(a.params) == {"unknown", "step_tiles"}
    assert a.untuned == {"unknown": 8.0, "step_tiles": 1.0}
    assert a.table().height == 1 and a.table()["policy"][0] == a.policy.name


@pytest.mark.parametrize("kw, words", [
    ({"params": {"nope": (0, 1)}}, "unknown heuristic weight 'nope'"),
    ({"params": {"points": (-1.0, 1.0)}}, "out of range [0, 10]"),
    ({"params": {"points": (2.0, 1.0)}}, "needs low < high"),
    ({"params": {}}, "params must map weight names"),
    ({"base": "random"}, "unknown heuristic 'random'"),
    ({"opponents": ["nope"]}, "unknown policy 'nope'"),
    ({"budget": 0}, "budget must be a positive integer"),
])
def test_bad_arguments_are_named_in_one_line(kw, words):
    args = {"base": "careful", "params": {"points": (0.5, 2.0)}, **kw}
    with pytest.raises(ValueError) as e:
        tune(bloomsim, args.pop("base"), args.pop("params"), **args, progress=False)
    assert words in str(e.value) and "\n" not in str(e.value)


def test_the_command_line_tunes_and_names_bad_weights(capsys):
    assert main(["tune", "bloomsim", "--param", "points=0.5:2", "--param", "max_risk=0,0.5",
                 "--opponent", "cloud", "--budget", "3", "--games", "3", "--check-games",
                 "10", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert "tuned: careful[points=" in out and "gain" in out
    assert main(["tune", "bloomsim", "--param", "points=x"]) != 0
    assert "write NAME=LO:HI" in capsys.readouterr().err


def test_a_tuned_heuristic_enters_a_tournament_by_name():
    from analyses import tournament
    t = tournament(rapinsim, ["careful[unknown=12.0]", "careful"], 2, 10, 0)
    assert "careful[unknown=12.0]" in t.matrix["policy"].to_list()
