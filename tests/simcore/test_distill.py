"""Distilled policies (``simcore.distill``): the fit finds a planted policy, the shipped
policies play legal games wherever a built-in name does, their weights files say how they were
made and a bad file is named, ``python -m analyses distill`` writes a file and resumes, and
``python -m analyses improve`` improves one, keeping the features it weighs."""
import json
from pathlib import Path

import numpy as np
import pytest

import bloomsim
import rapinsim
from analyses import distill as AD
from analyses.cli import main as analyses_main
from simcore import cli
from simcore import distill as D

GAMES = {"bloomsim": (bloomsim, "cloud"), "rapinsim": (rapinsim, "keeper")}


def test_the_fit_recovers_a_planted_linear_policy():
    rng = np.random.default_rng(0)
    n, k = 3000, 6
    sizes = rng.integers(2, 8, n)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    X = rng.normal(size=(starts[-1], k))
    planted = np.array([2.0, -1.0, 0.5, 0.0, 1.5, -2.0])
    z = X @ planted
    chosen = np.array([rng.choice(sizes[d], p=np.exp(z[starts[d]:starts[d + 1]])
                                  / np.exp(z[starts[d]:starts[d + 1]]).sum())
                       for d in range(n)])
    w = D.fit_kind(X, starts, chosen, np.zeros(k), 1e-6)
    assert np.abs(w - planted).max() < 0.25


def test_a_kind_without_positions_keeps_the_prior():
    from rapinsim.distilled import FEATURES
    empty = D.Positions(np.zeros(0, np.int64), np.zeros((0, 1), np.float32),
                        np.zeros((0, 13), np.float32), np.zeros(1, np.int64),
                        np.zeros(0, np.int64), np.zeros(0, np.int64))
    pos = D.play_positions(lambda g: rapinsim.new_game(3, 1, g), "ismcts-8", "careful", 0, 1,
                           0)
    W = D.fit(FEATURES, D.Positions.concat([empty, pos]), 1e-3)
    missing = [k for k in range(len(FEATURES.kinds)) if not (pos.kinds == k).any()]
    assert missing and np.array_equal(W[missing], FEATURES.prior()[missing])


@pytest.mark.parametrize("game", GAMES)
def test_distilled_plays_legal_games_wherever_a_built_in_name_does(game, tmp_path):
    mod, other = GAMES[game]
    seats = ["distilled", other, other, other]
    df = mod.simulate(seats, 8, 3)
    assert df["policy"].to_list()[:4] == seats and df.height == 32
    assert df.equals(mod.simulate(seats, 8, 3, engine="reference"))
    assert mod.new_game(4, 3).play("distilled").done
    assert cli.main(game, ["simulate", "--policy", "distilled", "--policy", other,
                           "--games", "4", "--seed", "1"]) == 0


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("which", ["shipped", "prior"])
def test_the_engines_built_in_distilled_takes_the_user_policys_decisions(game, which):
    """The engines play ``distilled`` as a built-in, its weights passed in as data: the same
    games as the same weights compiled as a user policy, for the shipped weights and others."""
    import importlib
    mod, other = GAMES[game]
    dmod = importlib.import_module(f"{game}.distilled")
    W = dmod.distilled().weights if which == "shipped" else dmod.FEATURES.prior()
    built_in = D.Distilled("distilled", dmod.FEATURES, W)
    user = D.compile_policy(dmod.FEATURES, W, "distilled")
    foreign = GAMES[next(g for g in GAMES if g != game)][0].BUNDLED["distilled"]()
    with pytest.raises(ValueError, match=f"distilled policy of {foreign.features.game}"):
        mod.simulate([other, foreign, other], 1, 0)
    with pytest.raises(ValueError, match="one set of distilled weights per batch"):
        mod.simulate([built_in, D.Distilled("d2", dmod.FEATURES, W), other], 1, 0)
    seats = [other, built_in, "careful", other]
    a = mod.simulate(seats, 12, 7, threads=1)
    assert a.equals(mod.simulate([other, user, "careful", other], 12, 7, threads=1))


@pytest.mark.parametrize("game", GAMES)
def test_the_score_is_the_features_times_their_weights_to_the_bit(game):
    """The scorer weighs every feature over the contexts in one vector loop (``flat_weights``'
    layout) and adds a one-hot group's one weight where the features have k products (all
    but one zero): the same sums, bit for bit, as every weight times its context and every
    feature times its weight in order, so neither changes a game. Shipped weights with noise,
    so every weight counts, and a third of the (kind, feature) rows zero."""
    import importlib
    mod, other = GAMES[game]
    F = importlib.import_module(f"{game}.distilled").FEATURES
    rng = np.random.default_rng(1)
    W = mod.BUNDLED["distilled"]().weights + rng.normal(size=F.shape)
    W[rng.random(F.shape[:2]) < 1 / 3] = 0.0
    S, expand, (_, R, C) = D.scorer(F), D.expander(F), F.shape
    flat = D.flat_weights(W)
    grouped = [r + i for r, k in F.layout if k > 1 for i in range(k)]
    u, f = np.zeros(R), np.zeros(R)
    g, hot, scored = mod.new_game(4, 2), 0, 0
    rng, policy = g.streams(), g.builtin(other)
    while not g.done and scored < 300:
        s, n = g.to_act
        kind, obs, opts = g.kind, g.observation(s), g.options()
        ctx = S.weigh(flat, kind, obs, opts, n, u)
        for r in range(R):
            w = W[kind, r, 0] * ctx[0]
            for c in range(1, C):
                w += W[kind, r, c] * ctx[c]
            assert u[r] == w
        for i in range(n):
            expand(F.option(kind, obs, opts[i], ctx), f)
            total = u[0] * f[0]
            for r in range(1, R):
                total += u[r] * f[r]
            assert S.score(kind, obs, opts[i], ctx, u) == total
            hot, scored = hot + int(f[grouped].sum() > 0), scored + 1
        g.step(int(policy(kind, obs, opts, n, rng[s:s + 1])))
    assert scored >= 300 and hot > 0


@pytest.mark.parametrize("game", GAMES)
def test_search_can_play_out_and_lead_with_the_distilled_policy(game):
    mod, other = GAMES[game]
    a = mod.agent("ismcts", 12, playout="distilled")
    assert a.name == "ismcts-12[playout=distilled]" and mod.agent.parse(a.name) == a
    seats = [a, other, other]
    df = mod.simulate(seats, 2, 5, threads=1)
    assert df.equals(mod.simulate(seats, 2, 5, threads=2))
    assert not df.equals(mod.simulate([mod.agent("ismcts", 12), other, other], 2, 5,
                                      threads=1))


@pytest.mark.parametrize("game", GAMES)
def test_the_weights_file_says_how_it_was_made(game):
    import importlib
    dmod = importlib.import_module(f"{game}.distilled")
    W, made = D.load(dmod.FILE, dmod.FEATURES)
    assert W.shape == dmod.FEATURES.shape
    assert dmod.FILE.stat().st_size < 100_000
    if made["command"].startswith(f"python -m analyses improve {game} "):
        assert {"seed", "steps", "opponents", "check"} <= set(made)
        start = D.load(dmod.FILE.with_name(Path(made["start"]["file"]).name), dmod.FEATURES)
        assert start[1] == made["start"]["made"]
        made = start[1]
    assert made["command"].startswith(f"python -m analyses distill {game} ")
    assert {"seed", "games", "agent", "opponents", "positions"} <= set(made)


@pytest.mark.parametrize("text, why", [("{not json", "cannot be read"),
                                      ('{"format": "other"}', "not a simcore.distill/1 file")])
def test_a_malformed_weights_file_is_a_one_line_error_naming_it(tmp_path, text, why):
    from bloomsim.distilled import FEATURES
    path = tmp_path / "w.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=why) as e:
        D.load(path, FEATURES)
    assert str(path) in str(e.value) and "\n" not in str(e.value)
    doc = {"format": D.FORMAT, "game": "bloomsim", "version": FEATURES.version,
           "weights": [[1.0]]}
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="weights of shape"):
        D.load(path, FEATURES)


def test_the_distill_command_writes_a_loadable_file_and_resumes(tmp_path, monkeypatch,
                                                                 capsys):
    from rapinsim.distilled import FEATURES
    out = tmp_path / "w.json"
    args = ["distill", "rapinsim", "--seed", "3", "--agent", "ismcts-8", "--players", "3",
            "--out", str(out)]
    assert analyses_main([*args, "--games", "2"]) == 0
    assert "wrote" in capsys.readouterr().out
    first, made = D.load(out, FEATURES)
    assert made["games"] == 2 and made["agent"] == "ismcts-8"
    played = []
    real = D.play_positions
    monkeypatch.setattr(D, "play_positions", lambda *a: played.append(a[5]) or real(*a))
    assert analyses_main([*args, "--games", "3"]) == 0
    assert played == [2]        # games 0 and 1 were read back, not played again
    assert [p.name for p in AD.positions_dir(out).glob("part-*")] == ["part-000000-000003.npz"]
    assert analyses_main([*args, "--games", "2", "--opponents", "careful"]) == 2
    assert "other settings" in capsys.readouterr().err
    round2 = tmp_path / "round2.json"
    assert analyses_main(["distill", "rapinsim", "--seed", "3", "--games", "1", "--players", "3",
                          "--agent", "ismcts-8[playout=distilled]", "--out", str(round2)]) == 0
    previous = D.load(rapinsim.distilled.FILE, FEATURES)[1]
    assert D.load(round2, FEATURES)[1]["playout_policy"] == previous   # expert iteration
    assert analyses_main(["distill", "rapinsim", "--games", "2", "--agent", "keeper",
                          "--out", str(out)]) == 2
    assert "search agent" in capsys.readouterr().err


def test_the_improve_command_keeps_live_features_resumes_and_checks(tmp_path, capsys):
    from bloomsim.distilled import FEATURES, FILE
    out, whole = tmp_path / "w.json", tmp_path / "whole.json"
    args = ["improve", "bloomsim", "--seed", "2", "--players", "2", "--games", "2",
            "--population", "2", "--check-games", "3", "--opponents", "cloud,careful"]
    assert analyses_main([*args, "--steps", "1", "--out", str(out)]) == 0
    assert analyses_main([*args, "--steps", "2", "--out", str(out)]) == 0     # goes on
    assert "gain" in capsys.readouterr().out
    assert analyses_main([*args, "--steps", "2", "--out", str(whole)]) == 0
    W, made = D.load(out, FEATURES)
    assert np.array_equal(W, D.load(whole, FEATURES)[0])
    W0, made0 = D.load(FILE, FEATURES)
    assert not np.array_equal(W, W0)
    weighed = (W0 != 0).any(axis=2)      # a feature the start ignores stays ignored
    assert not weighed.all() and np.array_equal((W != 0).any(axis=2), weighed)
    assert made["start"]["made"] == made0 and len(made["mean_win_share_by_step"]) == 2
    assert [c["opponent"] for c in made["check"]] == ["cloud", "careful"]
    assert made["command"].startswith("python -m analyses improve bloomsim --steps 2 ")
    for bad, words in ((["--opponents", "distilled"], "built-in heuristics"),
                       (["--opponents", "cloudy"], "cloudy"),
                       (["--lr", "0"], "lr"),
                       (["--players", "9"], "takes 2 to 5 players"),
                       (["--start", str(out)], "is the start file"),
                       (["--sigma", "0.2"], "other settings")):
        assert analyses_main([*args, "--steps", "2", "--out", str(out), *bad]) == 2
        assert words in capsys.readouterr().err
