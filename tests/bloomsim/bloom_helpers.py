"""Helpers for the bloomsim tests: names to indices, hand-built positions."""
from bloomsim import reference as R
from bloomsim.rules import default_rules


def area(name):
    return default_rules().area_ids.index(name)


def role(name):
    return default_rules().role_ids.index(name)


def event(name):
    return default_rules().event_ids.index(name)


def tower(name):
    return default_rules().tower_ids.index(name)


def set_clouds(g, **tiles):
    """Only these clouds on the board: area name -> tile index (a list of tiles: one on each
    of that many of the area's cloud spaces, in rules order)."""
    g.clouds = {}
    for name, ts in tiles.items():
        spaces = [i for i, a in enumerate(g.cloud_space_area) if a == area(name)]
        ts = ts if isinstance(ts, list) else [ts]
        assert len(ts) <= len(spaces), f"{name} has {len(spaces)} cloud space(s)"
        g.clouds.update(zip(spaces, ts))


def with_cloud_spaces(rules, *names):
    """The rules with one more cloud space on each named area."""
    board = rules.to_dict()["board"]
    board["cloud_spaces"] += list(names)
    return rules.replace(board=board)


def position(n_players=3, seed=1, rules=None, **fields):
    """A game after setup, with every seat's policy scripted to fail if asked, and some fields
    replaced (e.g. potions=[[0, 0, 1], ...])."""
    g = R.new_game(rules, n_players=n_players, seed=seed)
    g.policies = [R.scripted([]) for _ in range(n_players)]
    g.clouds = {}
    for k, v in fields.items():
        setattr(g, k, v)
    return g


def every_round(kind: str):
    """The default rules with event card ``kind`` in force in every round."""
    rules = default_rules()
    card = next(e for e in rules.to_dict()["events"] if e["id"] == kind)
    deck = [dict(card, id=f"{kind}_{k}", kind=kind) for k in range(rules.rounds)]
    return rules.replace(events=deck, events_used=rules.rounds)
