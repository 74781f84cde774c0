"""Malformed rules documents thrown at both games' loaders: each gives a valid ``Rules`` (that
both engines then play) or a one-line ``ValueError``; never another exception, a hang or a
crash in compiled code."""
import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import bloomsim
import rapinsim

GAMES = {"bloomsim": bloomsim, "rapinsim": rapinsim}
DEFAULTS = {g: json.loads((Path(m.__file__).parent / "data" / "rules.json").read_text())
            for g, m in GAMES.items()}

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70),
                    st.integers(-3, 12), st.floats(allow_nan=True), st.text(max_size=6),
                    st.integers(-3, 12).map(float),          # a count written 4.0
                    st.integers(-3, 12).map(str),            # or "4"
                    st.sampled_from(["A00", "A56", "castle", "water", "forest", "chest", "",
                                     "none", "green", "round", "witch"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)),
    max_leaves=12)


def paths(doc, at=()):
    """Every place in a document: a key path to each dict value and list item."""
    yield at
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) \
        if isinstance(doc, list) else ()
    for k, v in items:
        yield from paths(v, (*at, k))


PATHS = {g: [p for p in paths(d) if p] for g, d in DEFAULTS.items()}


def parent(doc, path):
    for k in path[:-1]:
        doc = doc[k]
    return doc


@st.composite
def documents(draw, game):
    doc = copy.deepcopy(DEFAULTS[game])
    grown = False
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(PATHS[game]))
        try:
            box = parent(doc, path)
            box[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue                       # an earlier change removed this place
        if not isinstance(box, (dict, list)):
            continue                       # ... or made it a string (indexable, not writable)
        how = draw(st.sampled_from(["replace", "delete", "grow", "nest", "graph"]))
        if how == "replace":
            box[path[-1]] = draw(values)
        elif how == "delete":
            del box[path[-1]]
        elif how == "grow" and not grown:  # sizes: a long list of copies of one value
            grown = True                   # (once: copies of copies grow past any file)
            box[path[-1]] = [copy.deepcopy(box[path[-1]])] * draw(
                st.sampled_from([0, 1, 2, 130, 3000]))
        elif how == "nest":                # nesting: the value wrapped many levels deep
            v = box[path[-1]]
            for _ in range(draw(st.integers(1, 40))):
                v = [v]
            box[path[-1]] = v
        else:
            graph(draw, doc, game)
    return doc


def graph(draw, doc, game):
    """Edges dropped, added or rewired: islands, no edges, unknown ends, loops."""
    if game == "bloomsim":
        board = doc.get("board")
        if not isinstance(board, dict) or not isinstance(board.get("adjacent"), list):
            return
        ids = [a.get("id") for a in board.get("areas", []) if isinstance(a, dict)] or ["A00"]
        edges = board["adjacent"]
        keep = draw(st.lists(st.integers(0, 9), min_size=len(edges), max_size=len(edges)))
        board["adjacent"] = [e for e, k in zip(edges, keep) if k] + draw(st.lists(
            st.lists(st.sampled_from([*ids, "nowhere"]), min_size=1, max_size=3), max_size=2))
    else:
        board = doc.get("board")
        if not isinstance(board, dict):
            return
        n = draw(st.integers(0, 14))
        board["route"] = draw(st.one_of(st.permutations(list(range(1, n + 1))),
                                        st.lists(st.integers(-1, 12), max_size=12)))
        board["extra_edges"] = draw(st.lists(st.lists(st.integers(-1, 12), max_size=3),
                                             max_size=3))


def load(game, doc, tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(doc))
    try:
        return GAMES[game].load_rules(path)
    except ValueError as e:
        assert "\n" not in str(e) and str(e), repr(e)
        return None


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=150, deadline=20_000,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_malformed_rules_documents_are_one_line_or_valid_and_playable(game, data,
                                                                       tmp_path_factory):
    rules = load(game, data.draw(documents(game)), tmp_path_factory.mktemp("fuzz"))
    event("refused" if rules is None else "valid")
    if rules is None:
        return
    lo = rules.players["min"] if game == "bloomsim" else rules.players_min
    try:
        fast = GAMES[game].simulate(["random"] * lo, 3, 1, rules=rules)
    except ValueError as e:                     # e.g. too few characters for the seats
        assert "\n" not in str(e)
        return
    slow = GAMES[game].simulate(["random"] * lo, 3, 1, rules=rules, engine="reference")
    assert fast.equals(slow)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("suffix, text", [
    (".json", '{"rounds": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    (".toml", "rounds = " + "[" * 100_000 + "]" * 100_000 + "\n"),
    (".json", '{"rounds": ' + "[" * 20 + "1" + "]" * 20 + "}"),
])
def test_a_deeply_nested_rules_file_is_one_line(game, suffix, text, tmp_path):
    path = tmp_path / f"deep{suffix}"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"nested more than 16 levels deep"):
        GAMES[game].load_rules(path)


DEEP = 1
for _ in range(5000):
    DEEP = [DEEP]


@pytest.mark.parametrize("make", [
    lambda: bloomsim.Rules.from_dict({**DEFAULTS["bloomsim"], "rounds": DEEP}),
    lambda: bloomsim.load_rules().replace(board=DEEP),
    lambda: rapinsim.Rules(route=DEEP),
    lambda: rapinsim.load_rules().replace(items={"lamp": DEEP}),
])
def test_deeply_nested_python_values_are_one_line(make):
    with pytest.raises(ValueError, match=r"nested more than 16 levels deep") as e:
        make()
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("path", [123, ["rules.json"], b"rules.json", {"rounds": 3}])
def test_a_rules_path_that_is_no_path_is_one_line(game, path):
    with pytest.raises(ValueError, match=r"a rules file is given by its path \(a str or "
                                         r"os.PathLike\), got "):
        GAMES[game].load_rules(path)


@pytest.mark.parametrize("game", GAMES)
def test_a_huge_rules_file_is_refused_before_parsing(game, tmp_path):
    path = tmp_path / "huge.json"
    path.write_text('{"about": "' + "x" * 2_000_000 + '"}')
    with pytest.raises(ValueError, match=r"is 2,000,013 bytes, more than the 1,000,000"):
        GAMES[game].load_rules(path)


@pytest.mark.parametrize("game", GAMES)
def test_a_rules_path_that_is_a_directory_says_so(game, tmp_path):
    with pytest.raises(ValueError, match=f"rules file '{tmp_path}' is a directory, not a file"):
        GAMES[game].load_rules(tmp_path)
