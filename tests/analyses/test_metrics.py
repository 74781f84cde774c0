"""Designer metrics on planted data: lead changes counted exactly, the leader after each round
winning at a planted rate, and one end-to-end run per game."""
import numpy as np
import polars as pl
import pytest

from analyses.metrics import designer_metrics, lead_changes, leader_table, per_game
from simcore.results import LEAD_ROUNDS


def lead_frame(leaders: list[list[list[int]]], winners: list[list[int]], players: int = 3,
               variant: str | None = None) -> pl.DataFrame:
    """Broom-Service-shaped results whose ``led_rounds`` say, per game, which seats led after
    each round (``leaders[g][r]``: the seats tied at the top after round r + 1) and whose win
    shares split a game among ``winners[g]``. As in the engines, the record holds the first
    LEAD_ROUNDS rounds."""
    rows = []
    for g, (rounds, won) in enumerate(zip(leaders, winners)):
        for s in range(players):
            mask = sum(1 << r for r, top in enumerate(rounds[:LEAD_ROUNDS]) if s in top)
            win = 1 / len(won) if s in won else 0.0
            rows.append({"game": g, "seat": s, "policy": f"p{s}", "score": 30 + 10 * win,
                         "pts_towers": 0, "rank": 1 if s in won else 2, "win": win,
                         "n_players": players, "decisions": 50, "rounds": len(rounds),
                         "led_rounds": mask})
    df = pl.DataFrame(rows).with_columns(pl.col("win").cast(pl.Float32),
                                         pl.col("led_rounds").cast(pl.Int64))
    return df if variant is None else df.with_columns(variant=pl.lit(variant))


def test_a_planted_number_of_lead_changes_is_counted_exactly():
    A, B, C = 0, 1, 2
    games = [
        [[A], [A, B], [B], [B], [C], [A, C], [A]],   # B takes it through a tie, C, A back: 3
        [[A, B], [A, B], [B]],                        # the first to lead alone: no change
        [[A], [B], [A], [B]],                         # 3
        [[A, B, C]] * 5,                              # always tied: 0
        [[C], [A, B], [C]],                           # a tie between others, C again: 0
    ]
    t = designer_metrics(lead_frame(games, [[0]] * 5))
    assert t["lead_changes"][0] == pytest.approx((3 + 0 + 3 + 0 + 0) / 5)
    per, _ = per_game(lead_frame(games, [[0]] * 5), [])
    assert per.sort("game")["lead_changes"].to_list() == [3, 0, 3, 0, 0]


def test_lead_changes_of_random_planted_histories():
    """Histories built from k changes of the lone leader, with tie rounds (holding the old and
    the new leader, or others) in between, count exactly k."""
    rng = np.random.default_rng(4)
    leaders, planted = [], []
    for _ in range(300):
        k = int(rng.integers(0, 6))
        seq = [int(rng.integers(0, 4))]
        for _ in range(k):
            seq.append(int(rng.choice([s for s in range(4) if s != seq[-1]])))
        rounds: list[list[int]] = [[0, 1, 2, 3]] * int(rng.integers(0, 2))
        for i, lone in enumerate(seq):
            if i and rng.random() < 0.5:
                rounds.append(sorted({seq[i - 1], lone, int(rng.integers(0, 4))}))
            rounds += [[lone]] * int(rng.integers(1, 4))
        leaders.append(rounds)
        planted.append(k)
    df = lead_frame(leaders, [[0]] * len(leaders), players=4)
    per, _ = per_game(df, [])
    assert per.sort("game")["lead_changes"].to_list() == planted
    t = designer_metrics(df)
    assert t["lead_changes"][0] == pytest.approx(np.mean(planted))
    assert t["lead_changes_low"][0] < np.mean(planted) < t["lead_changes_high"][0]


def test_lead_changes_reads_lone_leaders_only():
    unique = np.array([[0, -1, 1, 1, -1, 0], [-1, -1, 2, -1, 2, 2], [-1] * 6])
    assert lead_changes(unique).tolist() == [2, 0, 0]


def test_the_leader_after_round_1_always_winning_gives_100_percent():
    rng = np.random.default_rng(1)
    leaders, winners = [], []
    for _ in range(400):
        first = int(rng.integers(0, 3))
        later = [[int(rng.integers(0, 3))] for _ in range(4)]
        leaders.append([[first]] + later)
        winners.append([first])
    t = designer_metrics(lead_frame(leaders, winners))
    assert t["leader_wins_r1"][0] == 1.0 and t["leader_wins_r1_high"][0] == pytest.approx(1.0)
    assert 0.98 < t["leader_wins_r1_low"][0] < 1.0      # Wilson: 400 games, not a certainty
    assert t["leader_wins_r1_games"][0] == 400
    # later leaders were drawn at random: about a third win
    assert 0.2 < t["leader_wins_r3"][0] < 0.45


def test_tied_leaders_share_as_the_win_is_shared():
    # game 0: seats 0 and 1 tied at the top after round 1, seat 0 wins alone -> (1 + 0) / 2;
    # game 1: the same leaders, seats 0 and 2 share the win -> (1/2 + 0) / 2; after round 2
    # seat 0 leads alone: 1 in game 0, its half of the win in game 1; round 3: game 0 only
    leaders = [[[0, 1], [0], [2]], [[0, 1], [0]]]
    winners = [[0], [0, 2]]
    t = designer_metrics(lead_frame(leaders, winners))
    assert t["leader_wins_r1"][0] == pytest.approx((0.5 + 0.25) / 2)
    assert t["leader_wins_r2"][0] == pytest.approx((1.0 + 0.5) / 2)
    assert t["leader_wins_r3"][0] == 0.0 and t["leader_wins_r3_games"][0] == 1
    rows = leader_table(t)
    assert rows["round"].to_list() == [1, 2, 3] and rows["games"].to_list() == [2, 2, 1]


def test_per_variant_groups_count_each_game_once_over_seatings():
    a = lead_frame([[[0], [1]]] * 10, [[1]] * 10, variant="A")
    b = lead_frame([[[0], [0]]] * 10, [[0]] * 10, variant="B")
    two = pl.concat([a.with_columns(seating=pl.lit(s)) for s in ("x", "y")]
                    + [b.with_columns(seating=pl.lit("x"))])
    t = designer_metrics(two).sort("variant")
    assert t["games"].to_list() == [10, 10]
    assert t["lead_changes"].to_list() == [1.0, 0.0]
    assert t["leader_wins_r1"].to_list() == [0.0, 1.0]


def test_games_longer_than_the_record_are_counted_over_its_rounds_and_flagged():
    long = [[[0], [1]] * 40]                 # 80 rounds: 63 recorded, 62 changes among them
    df = lead_frame(long + [[[0], [1]]], [[1], [1]], players=2).with_columns(
        rounds=pl.when(pl.col("game") == 0).then(80).otherwise(2))
    per, _ = per_game(df, [])
    assert per.sort("game")["lead_changes"].to_list() == [62, 1]
    t = designer_metrics(df)
    assert t["lead_truncated"][0] == 0.5 and t["leader_wins_r63_games"][0] == 1


@pytest.mark.parametrize("game", ["bloomsim", "rapinsim"])
def test_end_to_end_both_games(game):
    import importlib
    mod = importlib.import_module(game)
    df = mod.simulate(["greedy", "careful", "greedy"], 600, 3, progress=False)
    t = designer_metrics(df)
    assert t["games"].to_list() == [600]
    assert 0 < t["lead_changes"][0] < t["rounds"][0]
    rows = leader_table(t)
    assert rows["round"][0] == 1 and rows["games"][0] == 600
    # a game is decided more surely the later one looks: the last full round beats the first
    full = rows.filter(pl.col("games") == 600)
    assert full["leader_wins"][-1] > max(full["leader_wins"][0], 1 / 3)
    some = rows.filter(pl.col("games") >= 2)   # a t(C - 1) interval needs 2 game indices
    assert (some["leader_wins_low"] <= some["leader_wins"]).all()
    assert rows.filter(pl.col("games") == 1)["leader_wins_low"].is_nan().all()


@pytest.mark.parametrize("game,change", [("bloomsim", {"enchanted_penalty": 5}),
                                         ("rapinsim", {"actions_per_turn": 3})])
def test_the_diff_pairs_the_lead_metrics_and_event_impacts(game, change):
    from analyses.diff import diff
    t = diff(game, None, change, ["greedy", "careful"], 3, 150, seed=1)
    groups = set(t.filter(pl.col("metric") == "game")["group"])
    assert {"rounds", "lead_changes", "leader_wins_r1", "leader_wins_r5"} <= groups
    lead = t.filter(pl.col("group") == "lead_changes").row(0, named=True)
    assert lead["games"] == 150 and lead["ci_low"] <= lead["diff"] <= lead["ci_high"]
    assert not lead["percent"] and t.filter(pl.col("group") == "leader_wins_r1")["percent"][0]
    impacts = t.filter(pl.col("metric").str.contains(" impact on "))
    assert impacts.height > 0 and impacts["games"].min() == 150
    assert t.filter(pl.col("metric") == "cyclic share").is_empty()   # two policies: no cycle
