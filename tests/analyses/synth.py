"""Synthetic result frames with the schema of docs/results-schema.md and planted effects, so
that every analysis can be checked against a known truth without running an engine."""
from __future__ import annotations

import math
import types

import numpy as np
import polars as pl

BLOOM_EVENTS = ["more_or_less", "black_market", "black_distillery", "empty_handed",
                "perilous_places", "protected_places", "upper_hand", "the_works",
                "flock_together", "tenth_event"]
BLOOM_ROLES = ["forest_witch", "meadow_witch", "hill_witch", "mountain_witch", "herb_gatherer",
               "fruit_gatherer", "root_gatherer", "valley_druid", "peak_druid", "weather_fairy"]
BLOOM_TOWERS = [f"T{i:02d}" for i in range(1, 22)] + [f"S{i:02d}" for i in range(1, 7)]
BLOOM_CLOUDS = ["A03", "A05", "A12", "A14", "A15", "A16", "A20", "A24", "A26", "A30", "A34",
                "A36", "A40", "A41", "A42", "A44", "A51", "A53"]
RAPIN_ITEMS = ["lamp", "coffee", "disguise", "bicycle", "map", "whistle"]
RAPIN_TRAPS = ["alarm", "pitfall", "prank"]
RAPIN_CHARACTERS = ["lapin", "chimame", "aoyama", "inaba", "cocoa", "chiya"]


def ranks_and_wins(score: np.ndarray, tiebreak: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank 1 = best by (score, tiebreak); k tied winners share 1/k (as simcore.results)."""
    better = ((score[:, None, :] > score[:, :, None])
              | ((score[:, None, :] == score[:, :, None])
                 & (tiebreak[:, None, :] > tiebreak[:, :, None])))
    rank = 1 + better.sum(axis=2)
    best = rank == 1
    return rank.astype(np.int8), (best / best.sum(axis=1, keepdims=True)).astype(np.float32)


def _frame(policies, seat_cols: dict, game_cols: dict, start: int = 0) -> pl.DataFrame:
    n_games, players = next(iter(seat_cols.values())).shape
    cols = {"game": np.repeat(np.arange(start, start + n_games, dtype=np.int64), players),
            "seat": np.tile(np.arange(players, dtype=np.int8), n_games)}
    df = pl.DataFrame(cols).with_columns(
        policy=pl.Series(np.tile(np.array(policies, dtype=object), n_games),
                         dtype=pl.String).cast(pl.Categorical))
    return df.with_columns(
        [pl.Series(k, v.reshape(-1)) for k, v in seat_cols.items()]
        + [pl.Series(k, np.repeat(v, players)) for k, v in game_cols.items()])


def bloom_frame(n_games: int, policies=("random",) * 4, seed: int = 0,
                event_bonus: dict[str, int] | None = None, policy_bonus: dict | None = None,
                seat_bonus: tuple[float, ...] | None = None, start: int = 0,
                events_only: bool = False) -> pl.DataFrame:
    """Broom-Service-shaped results. Scores are noise plus planted effects:
    ``event_bonus[e]`` points to seat 0 in games where event ``e`` is drawn,
    ``policy_bonus[p]`` points to every seat playing ``p``, ``seat_bonus[s]`` points to seat s.
    ``events_only``: no enchanted roles, deliveries or charmed clouds (a smaller frame, for
    tests that replicate it many times)."""
    rng = np.random.default_rng(seed)
    players = len(policies)
    score = rng.normal(40, 8, (n_games, players))
    game_cols: dict[str, np.ndarray] = {}
    drawn = np.argsort(rng.random((n_games, len(BLOOM_EVENTS))), axis=1)[:, :7]
    for k, e in enumerate(BLOOM_EVENTS):
        hit = (drawn == k)
        rnd = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 0).astype(np.int8)
        game_cols[f"event_{e}"] = rnd
        if event_bonus and e in event_bonus:
            score[:, 0] += np.where(rnd > 0, event_bonus[e], 0)
    for r in [] if events_only else BLOOM_ROLES:
        bits = rng.random((n_games, 7)) < 0.1   # enchanted in about half of the games
        game_cols[f"enchanted_{r}"] = (bits * (1 << np.arange(7))).sum(axis=1).astype(np.uint8)
    for t in [] if events_only else BLOOM_TOWERS:
        game_cols[f"deliveries_{t}"] = rng.poisson(1.5, n_games).astype(np.int16)
    for a in [] if events_only else BLOOM_CLOUDS:
        game_cols[f"charmed_{a}"] = rng.integers(0, 8, n_games).astype(np.int8)
    if policy_bonus:
        for s, p in enumerate(policies):
            score[:, s] += policy_bonus.get(p, 0)
    if seat_bonus:
        score += np.asarray(seat_bonus)[None, :]
    score = np.round(score).astype(np.int16)
    left = rng.integers(0, 5, (n_games, players)).astype(np.int16)
    rank, win = ranks_and_wins(score, left)
    seat_cols = {"score": score, "rank": rank, "win": win, "resources_left": left,
                 "pts_towers": (score - 10).astype(np.int16),
                 "deliveries": rng.integers(0, 12, (n_games, players)).astype(np.int16),
                 "pawn_end_a": rng.integers(0, 42, (n_games, players)).astype(np.int8),
                 "pawn_end_b": rng.integers(0, 42, (n_games, players)).astype(np.int8)}
    game_cols = {"n_players": np.full(n_games, players, np.int8),
                 "decisions": np.full(n_games, 100, np.int32), **game_cols}
    return _frame(policies, seat_cols, game_cols, start)


def rapin_frame(n_games: int, policies=("random",) * 4, seed: int = 0,
                item_bonus: dict[str, float] | None = None, start: int = 0) -> pl.DataFrame:
    """Lapin-shaped results; ``item_bonus[i]`` treasures to each seat that used item ``i``."""
    rng = np.random.default_rng(seed)
    players = len(policies)
    treasures = rng.poisson(3, (n_games, players)).astype(np.float64)
    seat_cols: dict[str, np.ndarray] = {}
    for i in RAPIN_ITEMS:
        used = (rng.random((n_games, players)) < 0.3).astype(np.int8)
        seat_cols[f"item_{i}"] = used
        if item_bonus and i in item_bonus:
            treasures += used * item_bonus[i]
    for t in RAPIN_TRAPS:
        seat_cols[f"trap_{t}"] = (rng.random((n_games, players)) < 0.2).astype(np.int8)
    treasures = treasures.astype(np.int8)
    rabbits = (treasures * 2 + rng.integers(0, 3, (n_games, players))).astype(np.int16)
    rank, win = ranks_and_wins(treasures, rabbits)
    chars = np.argsort(rng.random((n_games, len(RAPIN_CHARACTERS))), axis=1)[:, :players]
    seat_cols = {"treasures": treasures, "rabbits": rabbits, "rank": rank, "win": win,
                 "found": rng.poisson(0.5, (n_games, players)).astype(np.int16), **seat_cols}
    game_cols = {"n_players": np.full(n_games, players, np.int8),
                 "decisions": np.full(n_games, 60, np.int32),
                 "turns": rng.integers(20, 80, n_games).astype(np.int16),
                 "stalled": rng.random(n_games) < 0.01,
                 "dawn": rng.random(n_games) < 0.9,
                 "rize_start": np.where(rng.random(n_games) < 0.5, 2, 7).astype(np.int8)}
    for k in range(1, 11):
        game_cols[f"searches_d{k}"] = rng.poisson(3, n_games).astype(np.int16)
        game_cols[f"found_d{k}"] = rng.poisson(0.3, n_games).astype(np.int16)
    df = _frame(policies, seat_cols, game_cols, start)
    return df.with_columns(character=pl.Series(
        np.array(RAPIN_CHARACTERS, dtype=object)[chars.reshape(-1)],
        dtype=pl.String).cast(pl.Categorical))


class Clustered:
    """Tournament-shaped results of ``reps`` independent replicates at once, with known truth.

    Every seating of ``analyses.tournament`` (every line-up of ``strengths``' policies at
    ``players`` seats, every rotation) is played on the same ``clusters`` game indices, and
    each index shares its chance between its seatings the way the engines' decks do: luck per
    seat position (``shared`` standard deviations), luck of how the seat's hand suits each
    policy (``suits``: a policy in that seat gets it in every seating), a game-level thing
    present in about half the indices (an event card) and a per-seat attribute dealt without
    replacement from ``attributes`` values (a Lapin character); each seating adds its own
    noise (sd 1). Score = luck + policy strength + ``seat_bonus`` + ``thing_bonus`` to the
    seats of policy 0 in games with the thing + ``attribute_bonus`` to a seat holding
    attribute 0 + noise; the highest score wins. Scores are independent normal with one
    variance around their means within a seating, so every true win probability is a
    one-dimensional integral (``win_probability``).
    """

    def __init__(self, reps: int, clusters: int, strengths=(0.0, 0.0, 0.0), players: int = 3,
                 seat_bonus=None, thing_bonus: float = 0.0, attribute_bonus: float = 0.0,
                 shared: float = 1.0, suits: float = 2.0, attributes: int = 6, seed: int = 0):
        from analyses.tournament import lineups, rotations
        names = [f"p{i}" for i in range(len(strengths))]
        self.seatings = np.array([[names.index(p) for p in r] for lu in lineups(names, players)
                                  for r in rotations(lu)])
        self.names, self.players, self.sd = names, players, np.hypot(shared, suits)
        self.strengths = np.asarray(strengths, dtype=np.float64)
        self.seat_bonus = np.zeros(players) if seat_bonus is None else np.asarray(seat_bonus)
        self.thing_bonus, self.attribute_bonus = thing_bonus, attribute_bonus
        rng = np.random.default_rng(seed)
        n_s = len(self.seatings)
        self.thing = rng.random((reps, clusters)) < 0.5
        self.attribute = np.argsort(rng.random((reps, clusters, attributes)),
                                    axis=-1)[..., :players]
        luck = shared * rng.normal(size=(reps, clusters, 1, players))
        suit = suits * rng.normal(size=(reps, clusters, players, len(names)))  # [.., seat, pol]
        luck = luck + suit[:, :, np.arange(players)[None, :], self.seatings]
        mean = self.strengths[self.seatings] + self.seat_bonus[None, :]       # [S, P]
        mean = mean + thing_bonus * (self.seatings == 0) * self.thing[..., None, None]
        mean = mean + attribute_bonus * (self.attribute == 0)[:, :, None, :]
        self.score = luck + mean + rng.normal(size=(reps, clusters, n_s, players))
        best = self.score.argmax(axis=-1)
        self.win = (best[..., None] == np.arange(players)).astype(np.float64)

    def win_probability(self, extra=None) -> np.ndarray:
        """True probability [S, P] that each seat of each seating wins (``extra``: points
        added to the means [S, P])."""
        mean = self.strengths[self.seatings] + self.seat_bonus[None, :]
        if extra is not None:
            mean = mean + extra
        sd = np.hypot(self.sd, 1.0)
        z = np.linspace(-9, 9, 1801)
        gap = (mean[:, :, None] - mean[:, None, :]) / sd                  # [S, P, Q]
        cdf = 0.5 * np.vectorize(math.erfc)(-(z + gap[..., None]) / math.sqrt(2))
        cdf[:, np.arange(self.players), np.arange(self.players)] = 1.0
        pdf = np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
        return np.trapezoid(pdf * cdf.prod(axis=2), z, axis=-1)

    def policy_sums(self, k: int, values: np.ndarray) -> np.ndarray:
        """Per replicate and cluster: the sum of ``values`` [R, C, S, P] over the seats of
        policy ``k``, and their count: [R, C, 2]."""
        mask = self.seatings == k
        y = (values * mask).sum(axis=(-1, -2))
        return np.stack([y, np.full(y.shape, float(mask.sum()))], axis=-1)

    def frame(self, rep: int, game: str = "bloomsim") -> pl.DataFrame:
        """Replicate ``rep`` as a results frame (every seating stacked, ``seating`` column):
        bloomsim-shaped with the thing as ``event_x``, or rapinsim-shaped with the attribute
        as ``character`` (``c0`` .. ``c5``)."""
        c, n_s, p = self.score.shape[1], len(self.seatings), self.players
        shape = (c, n_s, p)
        score = self.score[rep]
        order = (-score).argsort(axis=-1).argsort(axis=-1) + 1
        seat_pol = np.broadcast_to(self.seatings, shape)
        label = np.array(["|".join(self.names[i] for i in s) for s in self.seatings],
                         dtype=object)
        df = pl.DataFrame({
            "game": np.broadcast_to(np.arange(c)[:, None, None], shape).reshape(-1),
            "seating": np.broadcast_to(label[None, :, None], shape).reshape(-1),
            "seat": np.broadcast_to(np.arange(p, dtype=np.int8), shape).reshape(-1),
            "policy": np.array(self.names, dtype=object)[seat_pol.reshape(-1)],
            "rank": order.reshape(-1).astype(np.int8),
            "win": self.win[rep].reshape(-1).astype(np.float32),
            "n_players": np.full(score.size, p, np.int8)})
        if game == "bloomsim":
            return df.with_columns(
                score=pl.Series(score.reshape(-1)), pts_towers=pl.Series(score.reshape(-1)),
                event_x=pl.Series(np.broadcast_to(self.thing[rep][:, None, None],
                                                  shape).reshape(-1).astype(np.int8)))
        attr = np.broadcast_to(self.attribute[rep][:, None, :], shape).reshape(-1)
        return df.with_columns(treasures=pl.Series(score.reshape(-1)),
                               character=pl.Series([f"c{a}" for a in attr]))


def duel_frame(logits: np.ndarray, clusters: int, seed: int = 0, shared=(0.5, 0.5)
               ) -> pl.DataFrame:
    """Two-player tournament-shaped results with a planted head-to-head truth: policy ``pi``
    finishes ahead of ``pj`` with probability exactly sigmoid(``logits[i, j]``) (skew-symmetric,
    so any mix of a ranking and a cycle can be planted). Every pair is played in both seat
    orders (``analyses.tournament``'s seatings) on the same ``clusters`` game indices, and
    the indices share their chance as the engines' decks do: each outcome is a uniform
    U = Phi(a Z_game + b Z_game,pair + c E_seating) with (a, b) = ``shared`` (c fills the
    variance to 1), so the seatings of an index are correlated but every marginal is exact."""
    from scipy.stats import norm

    from analyses.tournament import lineups, rotations
    k = logits.shape[0]
    names = [f"p{i}" for i in range(k)]
    seatings = [r for lu in lineups(names, 2) for r in rotations(lu)]
    rng = np.random.default_rng(seed)
    a, b = shared
    z_game = rng.normal(size=(clusters, 1))
    z_pair = {lu: rng.normal(size=(clusters, 1)) for lu in lineups(names, 2)}
    frames = []
    for s in seatings:
        i, j = sorted(names.index(p) for p in s)
        u = norm.cdf(a * z_game + b * z_pair[(names[i], names[j])]
                     + math.sqrt(1 - a * a - b * b) * rng.normal(size=(clusters, 1)))[:, 0]
        low_ahead = u < 1 / (1 + np.exp(-logits[i, j]))
        first_ahead = low_ahead == (names.index(s[0]) == i)
        rank = np.stack([np.where(first_ahead, 1, 2), np.where(first_ahead, 2, 1)], axis=1)
        frames.append(pl.DataFrame({
            "game": np.repeat(np.arange(clusters, dtype=np.int64), 2),
            "seating": "|".join(s), "seat": np.tile(np.arange(2, dtype=np.int8), clusters),
            "policy": np.tile(np.array(s, dtype=object), clusters),
            "rank": rank.reshape(-1).astype(np.int8),
            "win": (rank.reshape(-1) == 1).astype(np.float32),
            "n_players": np.full(2 * clusters, 2, np.int8)}))
    return pl.concat(frames)


def gumbel_game(strength: dict[str, float], seat_bonus=(0.0, 0.0, 0.0, 0.0)):
    """A game whose score is a policy's strength + its seat's bonus + a Gumbel draw that
    depends on (seed, game index, seat, policy) only, so the seatings of a game index share
    much of their luck (common random numbers, as the engines' decks do). The winner is the
    highest score: a Plackett-Luce model, so the truth is exact: one A against P-1 B at seat
    s wins with probability w_A c_s / (w_A c_s + w_B sum of the other c_t) (w = e^strength,
    c = e^bonus), and with no seat bonus A finishes ahead of B with probability
    w_A / (w_A + w_B), a Bradley-Terry model of Elo rating 400 log10 w."""
    names = list(strength)

    def simulate(policies, n_games, seed, *, rules=None, progress=None, threads=None,
                 first_game=0):
        players = len(policies)
        luck = np.random.default_rng([seed, 7]).gumbel(size=(first_game + n_games, 6,
                                                             len(names)))[first_game:]
        luck = luck[:, np.arange(players), [names.index(p) for p in policies]]
        score = luck + np.array([strength[p] for p in policies]) + np.array(
            seat_bonus[:players])
        rank = 1 + np.argsort(np.argsort(-score, axis=1), axis=1)
        return pl.DataFrame({
            "game": np.repeat(np.arange(first_game, first_game + n_games, dtype=np.int64),
                              players),
            "seat": np.tile(np.arange(players, dtype=np.int8), n_games),
            "policy": np.tile(np.array(policies, dtype=object), n_games).astype(str),
            "rank": rank.reshape(-1).astype(np.int8),
            "win": (rank == 1).reshape(-1).astype(np.float32),
            "score": score.reshape(-1),
            "n_players": np.full(n_games * players, players, np.int8)})
    return types.SimpleNamespace(__name__="gumbel", simulate=simulate, POLICIES=dict(strength))


def true_cell(strength, bonus, a, b, players):
    w, c = math.exp(strength[a]), np.exp(np.array(bonus[:players]))
    return float(np.mean([w * c[s] / (w * c[s] + math.exp(strength[b]) * (c.sum() - c[s]))
                          for s in range(players)]))
