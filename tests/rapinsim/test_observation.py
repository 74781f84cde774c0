"""Every public fact of a Lapin position reaches the observation, and nothing else does beyond
the seat's own knowledge (rules, "Knowledge"): the facts are derived here from the full state
(``ForwardGame.state()``), independently of the engines' ``observe``."""
from collections import defaultdict

import numpy as np
import pytest

from rapinsim import new_game
from rapinsim import policies as P
from rapinsim.rules import MAX_BROWN, RING10, load_rules

RULES = load_rules()
# the spec's ring of 10 with the rules that change what is public: markers that can leave, the
# disguise shown when found, a whistle that holds Rize, two turns skipped per pitfall
OTHER = load_rules(RING10).replace(time_markers_permanent=False, disguise="reaction",
                                   whistle_steps=0, pitfall_skips=2)
ITEM, TREASURE = 1, 0


def public_facts(game):
    """The public table of the game's pending position, read off the full state: what every
    seat at the table knows, as a nested tuple (rules, "Knowledge")."""
    v, p = game.state(), game.n_players
    acting, actions, searched, held_rize, walk_left = (int(x) for x in v["turn"])
    turn = (acting, actions if acting >= 0 else 0, searched if acting >= 0 else 0, held_rize,
            walk_left)
    seats = []
    for q in range(p):
        mine = v["held"][q]
        treasures = mine & (v["tile_kind"] == TREASURE)
        seats.append((int(v["positions"][q]), int(v["characters"][q]), int(treasures.sum()),
                      int(v["tile_brown"][treasures].sum()),
                      int(v["tile_white"][treasures].sum()),
                      int(v["tile_chest"][treasures].sum()),
                      int((mine & (v["tile_kind"] == ITEM)).sum()), int(v["skips"][q]),
                      int(v["skill_used"][q]), int(v["disguised"][q]), int(v["letters"][q]),
                      int(v["letter_pending"][q]),
                      tuple(np.bincount(v["tile_brown"][treasures], minlength=MAX_BROWN + 1))))
    houses = []
    for h, t in enumerate(v["board"]):
        if t < 0 or v["rize"][0] < 0:                # (before the deal the board is unset)
            houses.append(("empty",))
        elif v["face_up"][h] or v["returned"][t]:    # face up, or seen coming back
            houses.append((int(v["face_up"][h]), known(v, t), looked(v, t)))
        else:
            houses.append((0, "unknown", looked(v, t)))
    bag = tuple(known(v, t) for t in v["bag"])
    return (p, int(v["rize"][0]), int(v["dawn"][0]), int(v["turns"][0]), turn, bag,
            tuple(int(m) for m in v["marked"]), tuple(seats), tuple(houses))


def looked(v, t):
    """Who has looked at tile t (a look is played in the open: everyone sees which house)."""
    return tuple(q for q in range(len(v["seen"])) if v["seen"][q][t])


def known(v, t):
    """What everyone knows tile t is: an item (no more), or which treasure."""
    if v["tile_kind"][t] == ITEM:
        return ("item",)
    return ("treasure", int(v["tile_brown"][t]), int(v["tile_white"][t]),
            int(v["tile_chest"][t]))


def tile_read(obs, code, brown, white):
    """A tile's ``known`` read off the observation's three fields."""
    c = int(obs[code])
    if c < 0:
        return "unknown"
    if c == ITEM:
        return ("item",)
    return ("treasure", int(obs[brown]), int(obs[white]), int(c == P.CHEST_TILE))


def own_knowledge(game, s):
    """What seat s alone knows that the observation carries: its items of each kind (the
    tiles it has looked at reach a policy through the option rows)."""
    return tuple(int(x) for x in game.state()["items"][s])


def decoded(obs, n_districts, n_houses):
    """The public facts read back off one observation (the layout in ``policies.py``)."""
    p = int(obs[P.OB_PLAYERS])
    seats = tuple(
        tuple(int(obs[f + q]) for f in (P.OB_POS, P.OB_CHARS, P.OB_TREAS, P.OB_BROWN, P.OB_WHITE,
                                         P.OB_CHEST_HELD, P.OB_NITEMS, P.OB_SKIPS))
        + (1 - int(obs[P.OB_SKILLS + q]),)
        + tuple(int(obs[f + q]) for f in (P.OB_DISGUISED, P.OB_LETTERS, P.OB_LETTER_PENDING))
        + (tuple(int(x) for x in obs[P.OB_HELD_BY_BROWN + q * (MAX_BROWN + 1):][:MAX_BROWN + 1]),)
        for q in range(p))
    houses = tuple(
        ("empty",) if obs[P.OB_HOUSE + h] < 0 else
        (int(obs[P.OB_HOUSE + h]),
         tile_read(obs, P.OB_HOUSE_TILE + h, P.OB_HOUSE_BROWN + h, P.OB_HOUSE_WHITE + h),
         tuple(q for q in range(p) if int(obs[P.OB_HOUSE_SEEN + h]) >> q & 1))
        for h in range(n_houses))
    turn = tuple(int(obs[f]) for f in (P.OB_ACTING, P.OB_ACTING_ACTIONS, P.OB_ACTING_SEARCHED,
                                       P.OB_RIZE_HELD, P.OB_WALK_LEFT))
    bag = tuple(tile_read(obs, P.OB_BAG_TILE + i, P.OB_BAG_BROWN + i, P.OB_BAG_WHITE + i)
                for i in range(int(obs[P.OB_BAG])))
    return (p, int(obs[P.OB_RIZE]), int(obs[P.OB_DAWN]), int(obs[P.OB_TURN]), turn, bag,
            tuple(int(m) for m in obs[P.OB_MARKED:P.OB_MARKED + n_districts]), seats, houses)


def positions(n_players, seeds, choice_seed, rules):
    """(game, seat, public facts, own knowledge, observation) at every decision of random games,
    for every seat. The choices come from one stream shared by all the seeds, so games of
    different seeds repeat a public history as long as their options agree (same public
    table, other hidden tiles)."""
    out = []
    for seed in seeds:
        rng = np.random.default_rng(choice_seed)
        g = new_game(n_players, seed, rules=rules)
        while not g.done and len(out) < 100_000:
            facts = public_facts(g)
            for s in range(n_players):
                out.append((seed, s, facts, own_knowledge(g, s), g.observation(s)))
            g.step(int(rng.integers(g.to_act[1])))
    return out


CASES = [(2, range(0, 6), 1, RULES), (4, range(10, 16), 2, RULES), (6, range(20, 24), 3, RULES),
         (4, range(30, 36), 4, OTHER)]


@pytest.fixture(scope="module", params=CASES,
                ids=lambda c: f"{c[0]}p" + ("" if c[3] is RULES else "-ring10"))
def seen_positions(request):
    return request.param[3], positions(*request.param)


def test_equal_observations_never_hide_different_public_facts(seen_positions):
    """Group the positions by the observing seat's observation: one observation, one public
    table (another seat's pitfall skip, skill, disguise, letter, the acting seat's actions,
    the face-up tiles... all reach it)."""
    facts_of = defaultdict(set)
    for _, s, facts, _, obs in seen_positions[1]:
        facts_of[obs.tobytes()].add(facts)
    clash = [f for f in facts_of.values() if len(f) > 1]
    assert not clash, f"{len(clash)} observations stand for several public tables"


def test_every_public_fact_reads_off_the_observation(seen_positions):
    rules, seen = seen_positions
    for seed, s, facts, _, obs in seen:
        assert decoded(obs, rules.districts, rules.n_tiles) == facts, (seed, s)


def test_same_public_table_and_own_knowledge_give_the_same_observation(seen_positions):
    """The converse: positions of different games (other hidden tiles) with the same public
    table and the same own knowledge of the seat give it the same observation, so nothing
    hidden leaks into it. The shared choice stream makes such pairs (asserted: they exist)."""
    obs_of = defaultdict(set)
    games_of = defaultdict(set)
    for seed, s, facts, own, obs in seen_positions[1]:
        obs_of[(s, facts, own)].add(obs.tobytes())
        games_of[(s, facts, own)].add(seed)
    assert sum(len(g) > 1 for g in games_of.values()) > 20
    assert all(len(o) == 1 for o in obs_of.values())
