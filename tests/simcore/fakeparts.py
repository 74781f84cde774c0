"""A fake game for the runner's tests: chunk ``start, n`` is ``n`` games of two seats whose
columns are computed from the game index, so any game out of place shows."""
import numpy as np

from simcore.results import frame


def play(start, n):
    return n


def build(start, n):
    g = np.arange(start, start + n)
    return frame(start, ["x", "y"], {"v": np.stack([g, 2 * g], axis=1),
                                     "rank": np.stack([g % 2 + 1, 2 - g % 2], axis=1),
                                     "win": np.stack([g % 2 == 0, g % 2 == 1], axis=1)},
                 {"n_players": np.full(n, 2)})
