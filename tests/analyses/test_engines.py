"""The analyses on the real engines: seatings of a tournament replay the same games (the
chance of a game depends on seed and game index only), and the counterfactual mode runs."""
import polars as pl
import pytest

from analyses import tournament


@pytest.mark.parametrize("game,chance_cols", [
    ("bloomsim", ["event_more_or_less", "event_upper_hand", "enchanted_weather_fairy"]),
    ("rapinsim", ["rize_start"]),
])
def test_tournament_seatings_share_the_chance_of_each_game(game, chance_cols):
    mod = pytest.importorskip(game)
    policies = sorted(mod.POLICIES)[:2]
    t = tournament(mod, policies, 3, 30, 9)
    assert t.results["seating"].n_unique() == 6   # 2 line-ups x 3 rotations
    per_game = t.results.group_by("game").agg(pl.col(c).n_unique() for c in chance_cols)
    assert (per_game.select(chance_cols).to_numpy() == 1).all()
    seats = t.results.group_by("policy", "seat").len()["len"]
    assert seats.n_unique() == 1                   # each policy in each seat equally often


def test_balance_job_writes_both_games_on_one_page(tmp_path):
    pytest.importorskip("bloomsim")
    pytest.importorskip("rapinsim")
    from analyses.balance import balance
    from simcore import games
    lines = []
    page = balance(tmp_path / "rep", games=300, players=2, counterfactual_games=60,
                   ladder_games=2, log=lines.append, rungs={"bloomsim": ["random", "greedy"]},
                   rung_games=200, search_games=6, robust_games=100, luck_games=60,
                   leverage_positions=40, kingmaking_games=2, restricted_games=20)
    text = page.read_text()
    assert 'id="bloomsim"' in text and 'id="rapinsim"' in text
    # each game's verdicts under its declared alternatives, tagged beside the headlines
    assert text.count("Assumptions: every verdict re-measured under") == 2 + (
        "toydice" in games.names())
    assert "<i>roster: the seed&#x27;s three</i> (characters)" in text    # playable at 2 seats
    assert "[gap] board: an approximation of the printed map" in text     # assumptions box
    for game in ("bloomsim", "rapinsim"):
        assert (tmp_path / "rep" / f"{game}-results.parquet").exists()
        assert (tmp_path / "rep" / f"{game}-counterfactual.parquet").exists()
        assert (tmp_path / "rep" / f"{game}-robustness.parquet").exists()
        assert f'src="{game}-board.png"' in text and f'src="{game}-counterfactual.png"' in text
    assert any("rapinsim:" in m and "played in" in m for m in lines)
    # two rating tables per registered game, the tournament's and the ladder's (a test may
    # have registered a toy game)
    assert text.count("Bradley-Terry, Elo scale [95% CI]") == 2 * len(games.names())
    # every figure plays the default rules (Lapin: the players choose their characters) but
    # the table by character, whose games deal them at random, and whose headline says so
    import rapinsim
    from simcore.results import rules_label
    spec = games.get("rapinsim")
    label = pl.read_parquet(tmp_path / "rep" / "rapinsim-results.parquet")["rules"]
    assert label.unique().to_list() == [rules_label(spec, rapinsim.load_rules())]
    ladder_rules = pl.read_parquet(tmp_path / "rep" / "rapinsim-ladder.parquet")["rules"]
    assert ladder_rules.unique().to_list() == label.unique().to_list()
    dealt = pl.read_parquet(tmp_path / "rep" / "rapinsim-measured.parquet")
    assert dealt["rules"].unique().to_list() == [
        rules_label(spec, rapinsim.load_rules().replace(character_selection="draw"))]
    assert "Strongest character in games with characters dealt at random (rules option " \
        "character_selection = draw; by default the players choose)" in text
    assert "Strongest policy by Bradley-Terry rating" in text
    # the what-if page links each group of rules values to the report's section
    from starlette.testclient import TestClient

    from analyses.whatif import app
    for game in ("bloomsim", "rapinsim"):
        anchors = {g["report"] for g in games.rules_guide(games.get(game))}
        assert all(f'id="{game}-{a}"' in text for a in anchors), anchors
        c = TestClient(app(game, players=2, report=tmp_path / "rep"),
                       base_url="http://127.0.0.1:8765")
        link = c.get("/api/controls").json()["report"]
        assert link == f"/report/index.html#{game}-"
        assert c.get(link.split("#")[0]).text == text
    # verdicts by skill: the rungs named in each game's section and its headline
    assert text.count("<h3>Verdicts by skill: rungs ") == len(games.names())
    assert "Verdicts by skill: rungs <b>random</b>, <b>greedy</b></h3>" in text
    assert "Verdicts by skill (rungs <b>random</b>, <b>greedy</b> as given, every seat one rung, " \
        "200 games each; negligible: within -/+2.0 points)" in text
    skill = pl.read_parquet(tmp_path / "rep" / "bloomsim-skill.parquet")
    assert sorted(skill["rung"].unique()) == ["greedy", "random"]
    assert {"seat", "event", "policy"} <= set(skill["kind"])
    assert set(skill["status"]) <= {"holds", "negligible", "undetermined"}
    changes = pl.read_parquet(tmp_path / "rep" / "bloomsim-skill-changes.parquet")
    # rungs paired on their shared game indices: 200 each, 100 for the top policy's table
    assert set(changes.group_by("kind").agg(pl.col("shared").max()).iter_rows()) >= {
        ("seat", 200), ("event", 200), ("policy", 100)}
    assert changes["from"].to_list()[0] == "random"
    # rapinsim, not named: the tournament's weakest, second strongest and strongest policy
    rapin = pl.read_parquet(tmp_path / "rep" / "rapinsim-skill.parquet")
    # ... then the distilled policy and the search rung, on fewer games
    assert rapin["rung"].n_unique() == 5 and "random" in rapin["rung"].to_list()
    assert rapin["rung"].unique(maintain_order=True).to_list()[-2] == "distilled"
    import rapinsim
    assert rapin["rung"].unique(maintain_order=True).to_list()[-1] == rapinsim.agent.strong
    assert any("rapinsim: verdicts at rungs random, " in m for m in lines)
    # the skill ladder: weakest, strongest heuristic, then the distilled and the search rung
    for game in ("bloomsim", "rapinsim"):
        lad = pl.read_parquet(tmp_path / "rep" / f"{game}-ladder.parquet")
        strong = games.get(game).module().agent.strong
        assert {strong, "distilled"} <= set(lad["policy"].cast(pl.String))
        assert lad["game"].n_unique() == 2 * 2         # the seat rotated across game indices
        assert f'src="{game}-ladder-matrix.png"' in text
    assert text.count("place rotated across 4 game indices") == len(games.names())
    assert sum(text.count(f'<h3 id="{g}-ladder">Skill ladder: ') for g in games.names()) \
        == len(games.names())
    # the luck part leads with luck by source, then the variance share; random is never an
    # end of the x%-chess
    assert text.count("Share of the outcome variance due to skill among ") == len(games.names())
    for game in ("bloomsim", "rapinsim"):
        luck = pl.read_parquet(tmp_path / "rep" / f"{game}-luck.parquet")
        assert set(luck["source"]) == {*games.get(game).chance, "policies"}
        assert (luck["clusters"] == 60).all()
        part = text[text.index(f'id="{game}"'):]
        assert part.index("Luck by source, share of the variance of the seats") \
            < part.index("Share of the outcome variance due to skill among ")
        assert f'<h3 id="{game}-luck">Luck by source</h3>' in part
    assert "skill controls" not in text and "against 1 x random" not in text
    # the designer's lenses, after the ladder, for the games with search agents
    for game in ("bloomsim", "rapinsim"):
        lev = pl.read_parquet(tmp_path / "rep" / f"{game}-leverage.parquet")
        assert 30 <= lev.height <= 40 and lev["options"].min() >= 2
        part = text[text.index(f'id="{game}"'):]
        assert part.index(f'id="{game}-ladder"') < part.index(f'id="{game}-leverage"')
        assert part.index(f'id="{game}-leverage"') < part.index(f'id="{game}-kingmaking"') \
            < part.index(f'id="{game}-restricted"')
        king = pl.read_parquet(tmp_path / "rep" / f"{game}-kingmaking.parquet")
        assert set(king["game"]) <= {0, 1}
        probes = pl.read_parquet(tmp_path / "rep" / f"{game}-restricted.parquet")
        assert probes["probe"].n_unique() >= 30 and "distilled" in set(probes["rung"])
    assert text.count("Decisions: ") >= 2 and text.count("% of decisions are meaningful") >= 2
    assert text.count("Kingmaking (a seat below 2% whatever it does") >= 2
    assert text.count("Restricted play (") >= 2


@pytest.mark.parametrize("kw, name", [(dict(games=0), "games"),
                                      (dict(counterfactual_games=0), "counterfactual_games"),
                                      (dict(games=2.5), "games"),
                                      (dict(leverage_positions=-1), "leverage_positions"),
                                      (dict(kingmaking_games=-1), "kingmaking_games")])
def test_balance_job_refuses_a_count_that_is_not_positive_before_playing(tmp_path, kw, name):
    from analyses.balance import balance
    with pytest.raises(ValueError, match=f"^{name} must be a (positive|non-negative) integer"):
        balance(tmp_path / "rep", **kw, log=pytest.fail)
    assert not (tmp_path / "rep").exists()


@pytest.mark.parametrize("rungs, message", [
    ("random,nosuch", "unknown policy 'nosuch'"),   # from the first game that cannot seat it
    ("random,,careful", "rungs: the spec at position 2 of ['random', '', 'careful'] is empty"),
    ("careful", "rungs: give at least two rungs to compare, got ['careful']"),
    ("chess=random,careful", "--rungs 'chess=random,careful': unknown game 'chess'"),
])
def test_balance_cli_refuses_bad_rungs_in_one_line_before_playing(tmp_path, capsys, rungs,
                                                                   message):
    pytest.importorskip("bloomsim")
    from analyses.cli import main
    out = tmp_path / "rep"
    assert main(["balance", "--out", str(out), "--rungs", rungs]) == 2
    err = capsys.readouterr().err
    assert err.startswith("analyses: error: ") and message in err and err.count("\n") == 1
    if "nosuch" in rungs:
        assert err.startswith("analyses: error: rung 'nosuch' for ")
    assert not out.exists() and not (tmp_path / "rep.partial").exists()


def test_tournament_cli_prints_ratings_with_intervals_and_the_matrix(capsys):
    pytest.importorskip("rapinsim")
    from analyses.cli import main
    assert main(["tournament", "rapinsim", "--policy", "greedy", "--policy", "random",
                 "--players", "2", "--games", "100"]) == 0
    out = capsys.readouterr().out
    assert "Bradley-Terry, Elo scale [95% CI]" in out and "win rate [95% CI]" in out
    assert "ahead of greedy" in out and "ahead of random" in out  # the matrix beside them
