"""PettingZoo AEC environments over the forward model (``bloomsim.env``, ``rapinsim.env``).

Needs the ``rl`` extra (``pip install 'bloomsim[rl]'``: pettingzoo, gymnasium). Each agent
``player_<seat>`` observes a ``Dict``: ``observation`` (float32: the seat's observation, then
the option rows of the pending decision, zero-padded to the game's largest decision; the rows
describe what each action does, as a policy sees them) and ``action_mask`` (int8, 1 for each
legal option of the acting seat, all 0 for the others). Action ``i`` is option ``i``. The
rewards come at the end: each seat's share of the win (1, or 1/k for a k-way tie, else 0).
``reset(seed)`` starts game 0 of that seed; a reset without a seed plays the seed's next game,
so episodes are reproducible.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .forward import ForwardGame

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as err:     # pragma: no cover - the message is the point
    raise ImportError("the reinforcement-learning environments need the 'rl' extra: "
                      "pip install 'bloomsim[rl]' (pettingzoo, gymnasium)") from err


class ForwardEnv(AECEnv):
    """One game per episode, played through ``ForwardGame`` (``new_game(seed, game)``)."""

    def __init__(self, name: str, new_game: Callable[[int, int], ForwardGame], seed: int,
                 render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.metadata = {"name": name, "render_modes": ["ansi"], "is_parallelizable": False}
        self.render_mode = render_mode
        self._new_game, self._seed, self._game = new_game, seed, -1
        probe = new_game(seed, 0)
        eng = probe._engine
        self._obs_len, self._max, self._feat = eng.obs_len, eng.max_options, eng.n_features
        self.possible_agents = [f"player_{s}" for s in range(probe.n_players)]
        size = self._obs_len + self._max * self._feat
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self._max,), np.int8)}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._max) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options=None):
        if seed is not None:
            self._seed, self._game = seed, 0
        else:
            self._game += 1
        self.game = self._new_game(self._seed, self._game)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_act[0]]

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        out = np.zeros(self._obs_len + self._max * self._feat, np.float32)
        mask = np.zeros(self._max, np.int8)
        if not self.game.done:
            out[:self._obs_len] = self.game.observation(seat)
            if seat == self.game.to_act[0]:
                rows = self.game.options()
                out[self._obs_len:self._obs_len + rows.size] = rows.ravel()
                mask[:rows.shape[0]] = 1
        return {"observation": out, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        n = self.game.to_act[1]
        if action is None or not 0 <= int(action) < n:
            raise ValueError(f"{agent} chose {action!r}: the legal actions are 0 .. {n - 1} "
                             f"(the action mask)")
        self.game.step(int(action))
        if self.game.done:
            win = self.game.result()["win"].to_list()
            self.rewards = {a: float(win[s]) for s, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.game.to_act[0]]
        self._accumulate_rewards()

    def render(self):
        if self.render_mode == "ansi":
            return repr(self.game)
        return None

    def close(self):
        pass
