"""Search agents over a game's forward model, written once for every game: flat Monte Carlo,
determinized search (perfect-information Monte Carlo, "PIMC") and single-observer
information-set MCTS (Cowling, Powley & Whitehouse 2012, "ISMCTS").

An agent is a policy like any other (``simulate``, tournaments, the command line): by name,
``"ismcts-1000"``, ``"pimc-500"``, ``"flat-200"`` (the number is the budget in iterations,
never seconds, so a seed's game is the same on any machine), or with parameters through each
game's ``agent(algo, iterations=..., playout=..., c=...)``.

How one decision is searched. Each iteration replays the game in the forward model
(``simcore.forward``): the choices made so far, then at the searching seat's decision a
**determinization** (everything the seat cannot see resampled, consistently with what it has
seen, and new coming chance draws), then the search's own choices, in the same compiled kernel
as the batches. So a search cannot peek: the true hidden state is gone at its first choice.

- ``flat``: each legal option, in turn, followed by a playout; the option with the best mean
  win share is taken.
- ``pimc``: ``determinizations`` worlds; in each, UCT over a tree of the world's (fixed) future
  with ``iterations / determinizations`` iterations; the worlds' visits of each option are
  summed and the most visited option is taken.
- ``ismcts``: one tree over the seat's information sets, a new determinization every iteration.
  Nodes are reached by **(seat, action)** (a game's key of an option: "brave Witch", "search
  house 7", taken by the seat to act), not option indices, since the options differ between
  determinizations, and who acts next may differ too (it can hang on hidden hands): a node is
  only ever one seat's, credited with that seat's reward. A child's UCB counts the iterations
  in which it was available (availability), as in SO-ISMCTS. Every seat's decisions are in
  the tree, each valued for the seat that made it (max^n). With a ``bias``, the option the
  playout policy would take is expanded first and favoured by ``bias / (visits + 1)``
  (progressive bias); an ``adaptive`` search stops once its decision is settled.

In the tree (the iteration's first decisions) the engine hands every decision to ``step``;
once a new node is added, the seats play the ``playout`` heuristic to the end (or to the
``horizon``), and every node on the path is credited with its seat's reward: its win share
(ties split), blended with its score's place for a ``margin`` above 0 (``blend``). Iteration
seeds derive from one draw of the seat's own random stream per decision.

The tree lives in a region of the scratch game's state array (``REGION`` words, then the path,
the option keys, their children, PIMC's votes and the nodes): the engine's decision hook
reaches it without new arguments. Each game's driver (``engine/search.py``) sets up its scratch
state and runs the one loop every game shares::

    begin(reg, base, agent, max_options, seed)
    share_worlds(reg, base, sums.shape[0])     # values: [options, P] win sums; else 0 rows
    while next_iteration(reg, base):
        # restore the position, determinize with determinization_seed(reg, base), play
        credit_option(reg, base, win, sums)
        end_iteration(reg, base, win, keys, n_players)
    return decision(reg, base)
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numba import njit

from .layout import Layout
from .rng import mix64, next_u64, randint

ALGOS = ("flat", "pimc", "ismcts")
FLAT, PIMC, ISMCTS = range(3)
SEARCH_ID = -64
"""The policy id of a search seat in every engine (user policies are -1 - i, i < 8)."""
OFF, TREE, PLAYOUT = range(3)
MAX_ITERATIONS = 1 << 20

H = Layout("search region")
H_MODE = H.field("mode", meaning="OFF, TREE (the engine calls step) or PLAYOUT")
H_ALGO = H.field("algo")
H_CAP = H.field("cap", meaning="nodes the region holds")
H_NODES = H.field("nodes", meaning="nodes in use (node 0 is the root)")
H_NODE = H.field("node", meaning="where the iteration is in the tree")
H_DEPTH = H.field("depth", meaning="nodes on the iteration's path")
H_ITER = H.field("iteration")
H_RNG = H.field("rng", meaning="the expansions' random stream (uint64 bits)")
H_C = H.field("c", meaning="UCB exploration constant (float64 bits)")
H_MAXO = H.field("max_options")
H_PATH = H.field("path_at",
                 meaning="where the path starts (then keys, children, votes, nodes)")
H_TREES = H.field("trees", meaning="PIMC's worlds; 1 for the others")
H_PER_TREE = H.field("per_tree", meaning="iterations per tree")
H_TREE = H.field("tree", meaning="the tree being searched")
H_MARGIN = H.field("margin", meaning="the reward margin (float64 bits, ``blend``)")
H_SEED = H.field("seed", meaning="the decision's seed (``determinization_seed``)")
H_BIAS = H.field("bias", meaning="the prior's progressive bias (float64 bits)")
H_ADAPTIVE = H.field("adaptive", meaning="1: stop once the most visited option is settled")
H_SHARE = H.field("share", meaning="options that share each determinization (``share_worlds``)")
H_PRIOR = H.field("prior", meaning="whose pick the prior is (``PRIORS``)")
REGION = H.size

N = Layout("tree node")
N_KEY = N.field("key", meaning="the action that reaches the node")
N_ACTOR = N.field("actor", meaning="the seat that takes it")
N_VISITS = N.field("visits")
N_AVAIL = N.field("avail", meaning="iterations in which the action was available")
N_REWARD = N.field("reward", meaning="the actor's summed win shares (float64 bits)")
N_CHILD = N.field("child", meaning="first child, -1 none")
N_SIBLING = N.field("sibling", meaning="next sibling, -1 none")
N_INDEX = N.field("index", meaning="the option index it was last taken as")
N_STAMP = N.field("stamp", meaning="the last iteration its availability was counted")
NODE = N.size


@dataclass(frozen=True)
class Agent:
    """A search agent's settings; its ``name`` is what results show."""

    algo: str
    iterations: int
    playout: str
    c: float = 0.7
    determinizations: int = 8
    default_playout: str = ""
    oracle: bool = False
    horizon: int = 0
    default_horizon: int = 0
    margin: float = 0.0
    default_margin: float = 0.0
    bias: float = 0.0
    default_bias: float = 0.0
    adaptive: bool = False
    default_adaptive: bool = False
    opponents: str = "playout"
    default_opponents: str = "playout"
    prior: str = "playout"
    default_prior: str = "playout"
    own: str = "playout"

    def __post_init__(self):
        if self.algo not in ALGOS:
            raise ValueError(f"unknown search algorithm {self.algo!r}; known: {list(ALGOS)}")
        for what, v, lo in (("iterations", self.iterations, 1),
                            ("determinizations", self.determinizations, 1)):
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= MAX_ITERATIONS:
                raise ValueError(f"{what} must be an integer from {lo} to {MAX_ITERATIONS:,}, "
                                 f"got {v!r}")
        if isinstance(self.c, bool) or not isinstance(self.c, int | float) \
                or not 0 <= self.c < 100:
            raise ValueError(f"c (UCB exploration) must be a number from 0 to 100, "
                             f"got {self.c!r}")
        if isinstance(self.horizon, bool) or not isinstance(self.horizon, int) \
                or not 0 <= self.horizon <= MAX_HORIZON:
            raise ValueError(f"horizon must be an integer from 0 (play out to the end) to "
                             f"{MAX_HORIZON}, got {self.horizon!r}")
        if isinstance(self.margin, bool) or not isinstance(self.margin, int | float) \
                or not 0 <= self.margin <= 1:
            raise ValueError(f"margin must be a number from 0 (win shares only) to 1 (score "
                             f"places only), got {self.margin!r}")
        if isinstance(self.bias, bool) or not isinstance(self.bias, int | float) \
                or not 0 <= self.bias <= 100:
            raise ValueError(f"bias (the prior's progressive bias) must be a number from 0 "
                             f"(none) to 100, got {self.bias!r}")
        if not isinstance(self.adaptive, bool):
            raise ValueError(f"adaptive must be True or False, got {self.adaptive!r}")
        if self.opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {list(OPPONENTS)}, "
                             f"got {self.opponents!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {list(PRIORS)}, got {self.prior!r}")
        if self.own not in OWNS:
            raise ValueError(f"own must be one of {list(OWNS)}, got {self.own!r}")
        if self.algo == "pimc" and self.determinizations > self.iterations:
            raise ValueError(f"pimc: {self.determinizations} determinizations need at least "
                             f"as many iterations, got {self.iterations}")

    @property
    def name(self) -> str:
        extra = [f"playout={self.playout}"] if self.playout != self.default_playout else []
        if self.c != 0.7:
            extra.append(f"c={self.c:g}")
        if self.algo == "pimc" and self.determinizations != 8:
            extra.append(f"determinizations={self.determinizations}")
        if self.horizon != self.default_horizon:
            extra.append(f"horizon={self.horizon}")
        if self.margin != self.default_margin:
            extra.append(f"margin={self.margin:g}")
        if self.bias != self.default_bias:
            extra.append(f"bias={self.bias:g}")
        if self.adaptive != self.default_adaptive:
            extra.append(f"adaptive={'on' if self.adaptive else 'off'}")
        if self.opponents != self.default_opponents:
            extra.append(f"opponents={self.opponents}")
        if self.prior != self.default_prior:
            extra.append(f"prior={self.prior}")
        if self.own != "playout":
            extra.append(f"own={self.own}")
        if self.oracle:
            extra.append("oracle")
        return f"{self.algo}-{self.iterations}" + (f"[{','.join(extra)}]" if extra else "")

    @property
    def iterations_per_decision(self) -> int:
        """The iterations one decision runs (``begin``; at most, where ``adaptive``): PIMC
        splits the budget evenly over its worlds and leaves the remainder unspent, so pimc-100
        runs 96."""
        trees = self.determinizations if self.algo == "pimc" else 1
        return self.iterations // trees * trees

    def params(self, playout_ids: dict[str, int], weights) -> np.ndarray:
        """The engine's words for this agent (``AGENT_WORDS``): the playout heuristic's id
        and (float64 bits, from A_WEIGHTS) its weights (``weights``: the game's
        ``simcore.policy.Weights``; the playout may be a heuristic with other weights)."""
        h = weights.heuristic(self.playout) if self.playout in weights.defaults or \
            "[" in self.playout else None
        out = np.zeros(AGENT_WORDS, np.int64)
        out[:A_WEIGHTS] = (ALGOS.index(self.algo), self.iterations,
                           playout_ids[h.base if h else self.playout],
                           np.float64(self.c).view(np.int64), self.determinizations,
                           int(self.oracle), self.horizon,
                           np.float64(self.margin).view(np.int64),
                           np.float64(self.bias).view(np.int64), int(self.adaptive),
                           OPPONENTS.index(self.opponents), PRIORS.index(self.prior),
                           -1 if self.own == "playout" else playout_ids[self.own])
        row = np.asarray(h.weights if h else weights.other, np.float64)
        out[A_WEIGHTS:A_WEIGHTS + row.size] = row.view(np.int64)
        row = np.asarray(weights.other, np.float64)     # the own playout is no heuristic
        out[A_OWN_WEIGHTS:A_OWN_WEIGHTS + row.size] = row.view(np.int64)
        out[A_TABLE::1 + MAX_WEIGHTS] = -1      # every seat plays out as the agent's playout
        return out


MAX_WEIGHTS = 8
MAX_HORIZON = 1000
MAX_SEATS = 8
(A_ALGO, A_ITER, A_PLAYOUT, A_C, A_DETS, A_ORACLE, A_HORIZON, A_MARGIN, A_BIAS, A_ADAPTIVE,
 A_OPPONENTS, A_PRIOR, A_OWN, A_WEIGHTS) = range(14)
A_OWN_WEIGHTS = A_WEIGHTS + MAX_WEIGHTS
"""The weights of the searching seat's own playout (``OWNS``)."""
A_TABLE = A_OWN_WEIGHTS + MAX_WEIGHTS
"""Then per seat the policy id it plays out with (-1: the agent's playout) and its weights."""
AGENT_WORDS = A_TABLE + MAX_SEATS * (1 + MAX_WEIGHTS)
OPPONENTS = ("playout", "table")
"""How the other seats play out: all as the agent's ``playout``, or each as the built-in
policy it plays at the table (``model_seat``; the playout where it plays another kind)."""
OWNS = ("playout", "distilled")
"""What the searching seat itself plays out with: the agent's ``playout``, or the distilled
policy (the batch's weights), whatever the others play out with."""
PRIORS = ("playout", "distilled")
"""Whose pick the tree favours (``bias``) at every seat's decision: the playout policy's, or
the distilled policy's (the batch's weights) whatever the playout."""
_SPEC = re.compile(r"^(flat|pimc|ismcts)-(\d+)(?:\[(.*)\])?$")
_WORDS = {"playout": str, "c": float, "determinizations": int, "horizon": int,
          "margin": float, "bias": float, "adaptive": {"on": True, "off": False}.get,
          "opponents": str, "prior": str, "own": str}
"""The settings an agent's name may carry (``Agent.name``), and how each is read back."""


def is_agent_spec(p) -> bool:
    return isinstance(p, Agent) or (isinstance(p, str) and bool(_SPEC.match(p)))


def make_agent(algo: str, iterations: int, *, playout, playouts, default: str,
               weights=None, c: float = 0.7, determinizations: int = 8,
               oracle: bool = False, horizon: int | None = None,
               default_horizon: int | None = None, margin: float | None = None,
               default_margin: float = 0.0, bias: float | None = None,
               default_bias: float = 0.0, adaptive: bool | None = None,
               default_adaptive: bool = False, opponents: str | None = None,
               default_opponents: str = "playout", prior: str | None = None,
               default_prior: str = "playout", own: str = "playout") -> Agent:
    """An ``Agent`` whose playout is one of ``playouts`` (a game's built-in policies) or,
    given the game's ``weights``, a heuristic with other weights (its name, or the object).
    ``default_horizon``: the game's usual playout horizon in rounds; None where the game's
    playouts always run to the end (then only ``horizon`` 0 is accepted); ``default_margin``,
    ``default_bias``, ``default_adaptive``, ``default_opponents`` and ``default_prior`` the
    game's usual ``margin``, ``bias``, ``adaptive``, ``opponents`` and ``prior``."""
    playout = default if playout is None else getattr(playout, "name", playout)
    if weights is not None and isinstance(playout, str) and "[" in playout:
        weights.heuristic(playout)      # a bad weight is named here
    elif playout not in playouts:
        raise ValueError(f"unknown playout policy {playout!r}; built-in policies: "
                         f"{sorted(playouts)}")
    if not isinstance(oracle, bool):
        raise ValueError(f"oracle must be True or False, got {oracle!r}")
    if own != "playout" and own in OWNS and own not in playouts:
        raise ValueError(f"own={own!r}: this game has no {own} policy to play out with")
    usual = default_horizon or 0
    horizon = usual if horizon is None else horizon
    if default_horizon is None and horizon != 0:
        raise ValueError(f"horizon={horizon!r}: this game's playouts always run to the end "
                         f"of the game (horizon 0)")
    margin = default_margin if margin is None else margin
    bias = default_bias if bias is None else bias
    adaptive = default_adaptive if adaptive is None else adaptive
    opponents = default_opponents if opponents is None else opponents
    prior = default_prior if prior is None else prior
    return Agent(algo, iterations, playout, c, determinizations, default, oracle, horizon,
                 usual, margin, default_margin, bias, default_bias, adaptive,
                 default_adaptive, opponents, default_opponents, prior, default_prior, own)


def agent_maker(playouts, default: str, weights=None, horizon: int | None = None,
                margin: float = 0.0, *, bias: float = 0.0, adaptive: bool = False,
                opponents: str = "playout", prior: str = "playout",
                strong: str = "ismcts-1000", strong_games: int = 1000):
    """A game's ``agent(...)``: its playout policies are ``playouts`` (and heuristics with
    other ``weights``), ``default`` the usual; ``horizon`` the usual playout horizon in rounds
    (None: the game has none, playouts run to the end); ``margin``, ``bias`` and ``adaptive``
    the usual reward margin, prior bias and budget, ``opponents`` how the other seats play
    out, ``prior`` whose pick the tree favours. ``strong`` (``agent.strong``): the
    cheapest agent measured to beat the game's best heuristic, the search rung of the balance
    report, played there on ``strong_games`` games (``agent.strong_games``) with every seat
    searching."""
    def agent(algo: str, iterations: int, *, playout: str | None = None, c: float = 0.7,
              determinizations: int = 8, oracle: bool = False,
              horizon: int | None = None, margin: float | None = None,
              bias: float | None = None, adaptive: bool | None = None,
              opponents: str | None = None, prior: str | None = None,
              own: str = "playout") -> Agent:
        """A search agent (``simcore.search``): ``algo`` one of ``flat``, ``pimc``,
        ``ismcts``; ``iterations`` its budget per decision; ``playout`` the built-in policy
        every seat plays out with; ``c`` the UCB exploration; ``determinizations`` PIMC's
        worlds; ``horizon`` how many rounds an iteration plays, the decision's round
        included, before the game is scored as if it ended there (0: to the end of the
        game). ``margin``: how much of an iteration's reward is the seat's score place
        (``blend``) rather than its win share. ``bias``: the weight of the prior in the
        tree (the option the ``prior`` would take is tried first and favoured by
        ``bias / (visits + 1)``; 0: none); ``prior``: ``"playout"``, the playout policy's
        pick, or ``"distilled"``, the distilled policy's, whatever the playout.
        ``adaptive``: stop a decision's search once no other option can overtake the most
        visited one in the iterations left (the budget is a most). ``opponents``:
        ``"playout"``, every seat plays out with ``playout``, or ``"table"``, each other
        seat with the built-in policy it plays at the table (known to everyone there, as in
        a tournament; the playout where it plays a user policy or searches, and wherever
        the table is unknown, as in ``ForwardGame.search``). ``own``: what the searching
        seat itself plays out with, ``"playout"`` or ``"distilled"`` (the others as
        ``opponents`` says).
        ``oracle`` (never a default: it measures what hidden information is worth) searches
        the true position, seeing the other seats' hidden cards and tiles and how the decks
        lie; only the coming draws are new. Usable wherever a policy is:
        ``"ismcts-1000"`` is ``agent("ismcts", 1000)``."""
        return make_agent(algo, iterations, playout=playout, playouts=playouts,
                          default=default, weights=weights, c=c,
                          determinizations=determinizations, oracle=oracle, horizon=horizon,
                          default_horizon=agent.horizon, margin=margin,
                          default_margin=agent.margin, bias=bias, default_bias=agent.bias,
                          adaptive=adaptive, default_adaptive=agent.adaptive,
                          opponents=opponents, default_opponents=agent.opponents,
                          prior=prior, default_prior=agent.prior, own=own)
    agent.horizon, agent.margin, agent.bias, agent.adaptive = horizon, margin, bias, adaptive
    agent.opponents, agent.prior = opponents, prior
    agent.strong, agent.strong_games = strong, strong_games
    agent.playout = default
    agent.parse = lambda spec: parse_agent(spec, playouts, default, horizon, margin, bias,
                                           adaptive, opponents, weights, prior)
    agent.parse.__doc__ = "A name such as ``\"ismcts-1000\"`` as this game's ``Agent``."
    agent.__doc__ += f" The default playout is {default!r}" + (
        "; playouts run to the end of the game." if horizon is None else
        f", the default horizon {horizon} ({'to the end' if horizon == 0 else 'rounds'}).") + \
        f" The default margin is {margin:g}, the default bias {bias:g}, adaptive " \
        f"{'on' if adaptive else 'off'}, opponents {opponents!r} and prior {prior!r} by default."
    return agent


def parse_agent(spec, playouts, default: str, horizon: int | None = None,
                margin: float = 0.0, bias: float = 0.0, adaptive: bool = False,
                opponents: str = "playout", weights=None, prior: str = "playout") -> Agent:
    """``"ismcts-1000"`` as an ``Agent`` playing out with ``default`` to the game's usual
    ``horizon``, with its usual ``margin``, ``bias``, ``adaptive`` and ``opponents`` (an
    ``Agent`` as it is); a name with settings, as ``Agent.name`` writes them
    (``"ismcts-300[bias=0,horizon=0]"``), is that agent."""
    if isinstance(spec, Agent):
        return spec
    m = _SPEC.match(spec) if isinstance(spec, str) else None
    if m is None:
        raise ValueError(f"not a search agent: {spec!r} (e.g. 'ismcts-1000', 'pimc-500', "
                         f"'flat-200', 'ismcts-300[bias=0]')")
    return make_agent(m.group(1), int(m.group(2)), playouts=playouts, weights=weights,
                      default=default, default_horizon=horizon, default_margin=margin,
                      default_bias=bias, default_adaptive=adaptive,
                      default_opponents=opponents, default_prior=prior,
                      **_settings(spec, m.group(3)))


def _settings(spec: str, text: str | None) -> dict:
    """The settings in an agent's name (``_WORDS``), one-line errors naming the bad one."""
    out = {"playout": None}
    parts, depth, word = [], 0, ""
    for ch in text or "":
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            parts.append(word)
            word = ""
        else:
            word += ch
    for part in parts + ([word] if text else []):
        key, eq, value = part.partition("=")
        key = key.strip()
        if key == "oracle" and not eq:
            out["oracle"] = True
            continue
        if key not in _WORDS or not eq:
            raise ValueError(f"agent {spec!r}: unknown setting {part!r}; settings: "
                             f"{sorted(_WORDS)} as name=value, and oracle")
        try:
            read = _WORDS[key](value.strip())
        except ValueError:
            read = None
        if read is None:
            want = "on or off" if key == "adaptive" else f"a {_WORDS[key].__name__}"
            raise ValueError(f"agent {spec!r}: {key}={value!r} is not {want}")
        out[key] = read
    return out


@njit(cache=True)
def model_seat(agent, p, pid, weights):
    """Where the agent models the table (``opponents="table"``), seat ``p`` plays out with
    the built-in policy ``pid`` it plays there, with its ``weights`` (float64); a seat that
    plays no built-in policy (``pid`` < 0) plays out with the agent's playout."""
    if agent[A_OPPONENTS] and pid >= 0:
        at = A_TABLE + p * (1 + MAX_WEIGHTS)
        agent[at] = pid
        for w in range(min(weights.size, MAX_WEIGHTS)):
            agent[at + 1 + w] = np.int64(weights[w:w + 1].view(np.int64)[0])


@njit(cache=True)
def seat_playout(agent, p, seat):
    """The policy id seat ``p`` plays out with when ``seat`` searches: its own (``A_OWN``)
    for the searching seat, the table's (``model_seat``) or the agent's playout for the
    others."""
    if p == seat and agent[A_OWN] >= 0:
        return agent[A_OWN]
    pid = agent[A_TABLE + p * (1 + MAX_WEIGHTS)]
    return agent[A_PLAYOUT] if pid < 0 else pid


@njit(cache=True)
def seat_weight(agent, p, w, seat):
    """Weight ``w`` (float64 bits) of the policy seat ``p`` plays out with when ``seat``
    searches (``seat_playout``)."""
    if p == seat and agent[A_OWN] >= 0:
        return agent[A_OWN_WEIGHTS + w]
    at = A_TABLE + p * (1 + MAX_WEIGHTS)
    return agent[A_WEIGHTS + w] if agent[at] < 0 else agent[at + 1 + w]


@njit(cache=True)
def _trees(agent):
    return agent[A_DETS] if agent[A_ALGO] == PIMC else 1


@njit(cache=True)
def region_words(agent, max_options):
    """Words of the region ``agent`` (``Agent.params``) searches in, at decisions of up to
    ``max_options``: the header, the path, the option keys, their children, the votes, and a
    node per iteration of a tree and the root."""
    cap = agent[A_ITER] // _trees(agent) + 1
    return REGION + (cap + 1) + 3 * max_options + cap * NODE


@njit(cache=True)
def observer(agent, seat):
    """The seat a determinization is drawn for: ``-1 - seat`` for an oracle (the true
    position, only the coming draws new)."""
    return -1 - seat if agent[A_ORACLE] else seat


# ---------------------------------------------------------------- compiled, on the region

@njit(cache=True, _nrt=False)
def _node(g, base, i):
    return g[base + H_PATH] + 1 + g[base + H_CAP] + 3 * g[base + H_MAXO] + i * NODE


@njit(cache=True, _nrt=False)
def _new_node(g, base, parent, key, actor):
    i = g[base + H_NODES]
    g[base + H_NODES] = i + 1
    at = _node(g, base, i)
    g[at + N_KEY], g[at + N_ACTOR] = key, actor
    g[at + N_VISITS] = g[at + N_AVAIL] = 0
    g.view(np.float64)[at + N_REWARD] = 0.0
    g[at + N_CHILD] = -1
    g[at + N_STAMP] = -1
    if parent >= 0:
        p = _node(g, base, parent)
        g[at + N_SIBLING] = g[p + N_CHILD]
        g[p + N_CHILD] = i
    else:
        g[at + N_SIBLING] = -1
    return i


@njit(cache=True, _nrt=False)
def begin(g, base, agent, max_options, seed):
    """A region at ``g[base:]`` (``region_words`` long) for one decision's search by
    ``agent`` (``Agent.params``); the expansions and the determinizations draw from
    ``seed``."""
    trees = _trees(agent)
    per_tree = agent[A_ITER] // trees
    cap = per_tree + 1
    g[base + H_ALGO], g[base + H_CAP], g[base + H_MAXO] = agent[A_ALGO], cap, max_options
    g[base + H_PATH] = base + REGION
    g[base + H_C], g[base + H_MARGIN] = agent[A_C], agent[A_MARGIN]
    g[base + H_BIAS], g[base + H_ADAPTIVE] = agent[A_BIAS], agent[A_ADAPTIVE]
    g[base + H_PRIOR] = agent[A_PRIOR]
    g[base + H_TREES], g[base + H_PER_TREE] = trees, per_tree
    g[base + H_TREE], g[base + H_ITER], g[base + H_SEED] = 0, -1, seed
    g[base + H_SHARE] = 0
    g.view(np.uint64)[base + H_RNG] = mix64(np.uint64(seed) ^ np.uint64(0x5EA7C4))
    votes = _votes(g, base)
    for i in range(max_options):
        g[votes + i] = 0
    _new_tree(g, base)


@njit(cache=True, _nrt=False)
def share_worlds(g, base, n):
    """Valuing ``n`` options by flat search (``ForwardGame.values``): iterations ``k n`` to
    ``k n + n - 1`` play each option once in the same determinization, with the same coming
    draws (common random numbers), so two options differ by what they do, not by their luck;
    0: a new determinization every iteration."""
    g[base + H_SHARE] = n


@njit(cache=True, _nrt=False)
def _votes(g, base):
    return g[base + H_PATH] + 1 + g[base + H_CAP] + 2 * g[base + H_MAXO]


@njit(cache=True, _nrt=False)
def _new_tree(g, base):
    g[base + H_NODES] = 0
    _new_node(g, base, -1, -1, -1)


@njit(cache=True, _nrt=False)
def next_iteration(g, base):
    """Start the next iteration (PIMC: in the next world once a world's are spent, its root
    visits added to the votes); False when the budget is spent."""
    it = g[base + H_ITER] + 1
    if g[base + H_ADAPTIVE] and g[base + H_ALGO] == ISMCTS and \
            _settled(g, base, g[base + H_PER_TREE] - it):
        return False
    if it == g[base + H_PER_TREE]:
        if g[base + H_ALGO] == PIMC:
            _add_visits(g, base)
        if g[base + H_TREE] + 1 == g[base + H_TREES]:
            return False
        g[base + H_TREE] += 1
        _new_tree(g, base)
        it = 0
    g[base + H_MODE] = TREE
    g[base + H_NODE] = 0
    g[base + H_DEPTH] = 0
    g[base + H_ITER] = it
    return True


@njit(cache=True, _nrt=False)
def _settled(g, base, left):
    """Whether the root's most visited option leads every other by more than the ``left``
    iterations (so no budget left could change the decision)."""
    first = second = 0
    ch = g[_node(g, base, 0) + N_CHILD]
    while ch >= 0:
        v = g[_node(g, base, ch) + N_VISITS]
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
        ch = g[_node(g, base, ch) + N_SIBLING]
    return first - second > left


@njit(cache=True, _nrt=False)
def determinization_seed(g, base):
    """The seed of the iteration's determinization: new every iteration, one per world in
    PIMC (its world's future is fixed), one per round of the options (``share_worlds``)."""
    it = 0 if g[base + H_ALGO] == PIMC else g[base + H_ITER]
    if g[base + H_SHARE] > 0:
        it //= g[base + H_SHARE]
    return np.int64(mix64(np.uint64(g[base + H_SEED])
                          ^ mix64(np.uint64(g[base + H_TREE]) << np.uint64(32)
                                  ^ np.uint64(it)))
                    & np.uint64(0x7FFFFFFFFFFFFFFF))


@njit(cache=True, _nrt=False)
def end_iteration(g, base, win, keys, n_players):
    """Credit the iteration's path: ``win`` ([P] win shares, turned into rewards in place by
    ``blend`` with the ranking ``keys``)."""
    blend(win, keys, n_players, g.view(np.float64)[base + H_MARGIN])
    _backpropagate(g, base, win)


@njit(cache=True, _nrt=False)
def credit_option(g, base, win, sums):
    """Add the iteration's win shares ``win`` ([P], before ``end_iteration`` blends them) to
    the row of ``sums`` ([options, P], float64) of the root option it took; nothing where
    ``sums`` has no rows (a search that only decides)."""
    if sums.shape[0] == 0:
        return
    at = _node(g, base, g[g[base + H_PATH]])
    for p in range(sums.shape[1]):
        sums[g[at + N_INDEX], p] += win[p]


@njit(cache=True, _nrt=False)
def decision(g, base):
    """The option taken: the root's best (``_best_option``), or in PIMC the most voted."""
    if g[base + H_ALGO] != PIMC:
        return _best_option(g, base)
    votes = _votes(g, base)
    best = 0
    for i in range(1, g[base + H_MAXO]):
        if g[votes + i] > g[votes + best]:
            best = i
    return best


@njit(cache=True, _nrt=False)
def keys_at(g, base):
    """Where the engine writes the pending decision's option keys (``step``)."""
    return g[base + H_PATH] + 1 + g[base + H_CAP]


@njit(cache=True, _nrt=False)
def prior_policy(g, base, playout, distilled):
    """The built-in policy whose pick is the prior (``step``'s ``pick``) at a tree decision
    of a seat that plays out with ``playout``: ``distilled`` (the game's id of the distilled
    policy) under the distilled prior (``PRIORS``), else the playout; -1 where ``step``
    reads no prior (no bias), so the game may pass -1 without looking."""
    if g.view(np.float64)[base + H_BIAS] <= 0.0:
        return -1
    return distilled if g[base + H_PRIOR] == 1 else playout


@njit(cache=True, _nrt=False)
def step(g, base, n, seat, pick):
    """The tree's choice among the ``n`` options whose keys are at ``keys_at``: down to an
    existing child by UCB over availability, or (the first time an action is met at this
    node) a new child, after which the iteration plays out (``H_MODE`` becomes ``PLAYOUT``).
    ``pick``: the option the prior (``PRIORS``) would take, -1 none; with a bias it is
    expanded first and its UCB gains ``bias / (visits + 1)`` (progressive bias, Chaslot et
    al. 2008), a pull that fades as the option's own mean takes over."""
    node, it = g[base + H_NODE], g[base + H_ITER]
    keys = keys_at(g, base)
    child_of = keys + g[base + H_MAXO]
    bias = g.view(np.float64)[base + H_BIAS]
    untried = 0
    for i in range(n):
        ch = g[_node(g, base, node) + N_CHILD]
        while ch >= 0 and (g[_node(g, base, ch) + N_KEY] != g[keys + i]
                           or g[_node(g, base, ch) + N_ACTOR] != seat):
            ch = g[_node(g, base, ch) + N_SIBLING]
        g[child_of + i] = ch
        if ch < 0:
            untried += 1
        else:
            at = _node(g, base, ch)
            if g[at + N_STAMP] != it:       # two options of one action count once
                g[at + N_STAMP] = it
                g[at + N_AVAIL] += 1
    rng = g[base + H_RNG:base + H_RNG + 1].view(np.uint64)
    if bias <= 0.0:
        pick = -1
    if g[base + H_ALGO] == FLAT:
        pick = it % n
    elif untried > 0:
        if pick < 0 or g[child_of + pick] >= 0:
            k = randint(rng, 0, untried)
            pick = -1
            for i in range(n):
                if g[child_of + i] < 0:
                    if k == 0:
                        pick = i
                        break
                    k -= 1
    else:
        prior, best = pick, -1.0
        pick = 0
        c = g.view(np.float64)[base + H_C]
        for i in range(n):
            at = _node(g, base, g[child_of + i])
            v = g[at + N_VISITS]
            u = g.view(np.float64)[at + N_REWARD] / v + c * np.sqrt(np.log(g[at + N_AVAIL]) / v)
            if i == prior:
                u += bias / (v + 1)
            if u > best:
                pick, best = i, u
    ch = g[child_of + pick]
    if ch < 0:
        ch = _new_node(g, base, node, g[keys + pick], seat)
        g[_node(g, base, ch) + N_AVAIL] = 1
        g[_node(g, base, ch) + N_STAMP] = it
        g[base + H_MODE] = PLAYOUT
    elif g[base + H_ALGO] == FLAT:
        g[base + H_MODE] = PLAYOUT
    g[_node(g, base, ch) + N_INDEX] = pick
    g[g[base + H_PATH] + g[base + H_DEPTH]] = ch
    g[base + H_DEPTH] += 1
    g[base + H_NODE] = ch
    return pick


@njit(cache=True, _nrt=False)
def blend(win, keys, n_players, margin):
    """An iteration's rewards, in ``win`` ([P] win shares) in place: ``1 - margin`` of each
    seat's win share plus ``margin`` of its place between the lowest and the highest ranking
    key ``keys`` (the score: 0 lowest, 1 highest, 1/2 when all tie). Win shares alone say
    little of a game cut at a horizon (or rarely won); the score's place says by how much."""
    if margin == 0.0:
        return
    lo, hi = keys[0], keys[0]
    for p in range(1, n_players):
        lo, hi = min(lo, keys[p]), max(hi, keys[p])
    for p in range(n_players):
        place = (keys[p] - lo) / (hi - lo) if hi > lo else 0.5
        win[p] = (1.0 - margin) * win[p] + margin * place


@njit(cache=True, _nrt=False)
def _backpropagate(g, base, win):
    """Credit each node on the iteration's path with its actor's win share (``win``: [P])."""
    g[_node(g, base, 0) + N_VISITS] += 1
    for d in range(g[base + H_DEPTH]):
        at = _node(g, base, g[g[base + H_PATH] + d])
        g[at + N_VISITS] += 1
        g.view(np.float64)[at + N_REWARD] += win[g[at + N_ACTOR]]
    g[base + H_MODE] = OFF


@njit(cache=True, _nrt=False)
def _best_option(g, base):
    """The root option most visited (the best mean win share breaks ties; flat search takes
    the best mean win share)."""
    flat = g[base + H_ALGO] == FLAT
    best, best_v, best_m = 0, -1.0, -1.0
    ch = g[_node(g, base, 0) + N_CHILD]
    while ch >= 0:
        at = _node(g, base, ch)
        v = g[at + N_VISITS]
        m = g.view(np.float64)[at + N_REWARD] / v if v > 0 else 0.0
        if flat:
            v, m = m, v
        if v > best_v or (v == best_v and m > best_m):
            best, best_v, best_m = g[at + N_INDEX], v, m
        ch = g[at + N_SIBLING]
    return best


@njit(cache=True, _nrt=False)
def _add_visits(g, base):
    """Add each root option's visits to the votes: PIMC sums its worlds' visits (with a few
    iterations per world, a world's single most visited option is mostly chance)."""
    votes = _votes(g, base)
    ch = g[_node(g, base, 0) + N_CHILD]
    while ch >= 0:
        at = _node(g, base, ch)
        g[votes + g[at + N_INDEX]] += g[at + N_VISITS]
        ch = g[at + N_SIBLING]


@njit(cache=True, _nrt=False)
def decision_seed(streams, k):
    """One draw of the seat's own stream ``k``: the seed of its search at this decision."""
    return np.int64(next_u64(streams, k) & np.uint64(0x7FFFFFFFFFFFFFFF))

