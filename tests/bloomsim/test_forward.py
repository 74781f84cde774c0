"""The forward model (``bloomsim.new_game``): stepping a game is the batch engine's game, and
``determinize`` resamples exactly what the acting seat cannot see."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency

import bloomsim
from bloomsim import api
from bloomsim.forward import new_game
from bloomsim.policies import LEAD, POLICIES, SELECT
from bloomsim.rules import default_rules
from bloom_helpers import every_round
from simcore.forward import positions
from simcore.rng import root_key

RULES = default_rules()
VARIANTS = {"default": RULES,
            "lead_holder": RULES.replace(next_start_player="lead_holder", events_used=7),
            "hand3": RULES.replace(hand_size=3, enchanted_penalty=4),
            "pawns": RULES.replace(pawn_start="choose")}


def _same_game(fwd, batch):
    cols = [c for c in batch.columns if c != "policy"]
    assert fwd.select(cols).equals(batch.select(cols))


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**40), game=st.integers(0, 10**6), players=st.integers(2, 5),
       policy=st.sampled_from(sorted(POLICIES)), variant=st.sampled_from(sorted(VARIANTS)))
def test_stepping_with_a_policy_is_the_batch_engines_game(seed, game, players, policy, variant):
    rules = VARIANTS[variant]
    g = new_game(players, seed, game, rules=rules).play(POLICIES[policy])
    assert g.done and g.current is None
    batch = bloomsim.simulate([policy] * players, 1, seed, rules=rules, first_game=game)
    _same_game(g.result(), batch)


def test_replaying_the_batch_log_reaches_the_same_end():
    sp = api.seat_policies(["greedy", "random", "cloud"], RULES)
    b = api.play_compiled(RULES, sp, root_key(11), 5, 1, log=True)
    g = new_game(3, 11, 5)
    for seat, kind, n, choice in b.logs[0]:
        d = g.current
        assert (d.seat, bloomsim.policies.KIND_NAMES[kind], d.n) == (
            seat, d.kind, n)
        g.step(choice)
    assert g.done
    assert g.result()["score"].to_list() == b.seat_out[0, 0].tolist()


def test_a_new_game_describes_its_first_decision():
    g = new_game(4, 3)
    d = g.current
    assert (d.seat, d.kind) == (0, "select")
    assert d.options == tuple(f"select {r}" for r in RULES.role_ids)
    assert g.options().shape == (len(RULES.role_ids), bloomsim.policies.N_FEATURES)
    obs = g.observation(0)
    assert obs[bloomsim.policies.O_SEAT] == 0 and obs[bloomsim.policies.O_PLAYERS] == 4
    d = new_game(4, 3, rules=VARIANTS["pawns"]).current      # each pawn picks its castle
    assert (d.seat, d.kind) == (0, "start")
    assert d.options == tuple(f"start at {c}" for c in RULES.board["castles"])


def test_copy_is_independent_and_step_returns_the_game():
    g = new_game(3, 5)
    twin = g.copy()
    assert g.step(0) is g
    assert twin.history == () and g.history == (0,)
    twin.step(1)
    assert g.state()["seat.hand"][0] != twin.state()["seat.hand"][0]


def test_bad_input_is_named():
    g = new_game(2, 1)
    n = g.current.n
    for bad in (n, -1, 1.0, True, "0"):
        with pytest.raises(ValueError, match="option must be an integer"):
            g.step(bad)
    with pytest.raises(ValueError, match="not over"):
        g.result()
    with pytest.raises(ValueError, match="seat must be"):
        g.observation(2)
    with pytest.raises(ValueError, match="own decisions"):
        g.determinize(1, 0)
    with pytest.raises(ValueError, match="2 to 5 players"):
        new_game(6, 1)
    with pytest.raises(ValueError, match="n_players"):
        new_game(1, 1)
    g.play(POLICIES["random"])
    with pytest.raises(ValueError, match="over"):
        g.step(0)
    with pytest.raises(ValueError, match="over"):
        g.determinize(0, 1)


def _to_lead(seed, game, round_, turn, players=4):
    """A game of random play stopped at its ``turn``-th lead of round ``round_`` (None if the
    round has fewer)."""
    rng = np.random.default_rng([seed, game])
    g = new_game(players, seed, game)
    leads = 0
    while not g.done:
        h = g._at
        rnd = int(h.obs[h.seat][bloomsim.policies.O_ROUND])
        if rnd > round_:
            return None
        if rnd == round_ and h.kind == LEAD:
            if leads == turn:
                return g
            leads += 1
        g.step(int(rng.integers(h.n)))
    return None


def test_determinize_keeps_what_the_seat_sees_and_resamples_the_rest():
    g = _to_lead(1, 0, 2, 2)
    seat = g.current.seat
    before, obs, opts = g.state(), g.observation(seat), g.options()
    d = g.determinize(seat, 7)
    after = d.state()
    assert np.array_equal(d.observation(seat), obs) and np.array_equal(d.options(), opts)
    assert d.current == g.current
    assert after["seat.hand"][seat] == before["seat.hand"][seat]
    assert np.array_equal(after["seat.hand_size"], before["seat.hand_size"])
    assert np.array_equal(after["seat.score"], before["seat.score"])
    played = int(np.bitwise_or.reduce(before["seat.played"]))
    for p in range(g.n_players):
        assert after["seat.hand"][p] & played == 0
    rnd = int(before["round"][0])
    assert np.array_equal(after["event_deck"][:rnd], before["event_deck"][:rnd])
    assert sorted(after["event_deck"]) == sorted(before["event_deck"])
    assert sorted(after["enchanted_deck"]) == sorted(before["enchanted_deck"])
    # the same seed resamples the same way; another seed (almost surely) not
    assert np.array_equal(g.determinize(seat, 7).state()["seat.hand"], after["seat.hand"])
    others = [np.array_equal(g.determinize(seat, s).state()["seat.hand"], after["seat.hand"])
              for s in range(8, 14)]
    assert not all(others)
    # the determinized game is a game: it plays on to a legal end
    d.play(POLICIES["random"])
    assert d.done and len(d.result()) == g.n_players


def test_determinized_hands_and_events_follow_the_true_distribution():
    """Under random play the true hidden state is uniform over what the seat cannot exclude;
    over many positions the resampled hands and next events must match the true ones."""
    R, E = len(RULES.role_ids), len(RULES.event_ids)
    roles = np.zeros((2, R), np.int64)
    events = np.zeros((2, E), np.int64)
    for game in range(250):
        g = _to_lead(2, game, 3, 1)
        if g is None:
            continue
        seat = g.current.seat
        for row, s in enumerate((g.state(), g.determinize(seat, game).state())):
            for p in range(g.n_players):
                if p != seat:
                    roles[row] += [(int(s["seat.hand"][p]) >> r) & 1 for r in range(R)]
            events[row, s["event_deck"][int(s["round"][0])]] += 1
    assert roles.sum() > 1000
    keep = roles.sum(axis=0) > 0
    assert chi2_contingency(roles[:, keep]).pvalue > 1e-3
    keep = events.sum(axis=0) > 0
    assert chi2_contingency(events[:, keep]).pvalue > 1e-3


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_test_passes():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test
    env = bloomsim.env(3, seed=4)
    api_test(env, num_cycles=400)
    env.reset(seed=4)
    rewards = {}
    while env.agents:        # a whole game by the action masks: the rewards are the win shares
        obs, reward, term, trunc, info = env.last()
        if term:
            rewards[env.agent_selection] = reward
        env.step(None if term else int(np.flatnonzero(obs["action_mask"])[0]))
    assert len(rewards) == 3 and sum(rewards.values()) == pytest.approx(1.0)


def test_to_act_is_current_without_the_descriptions():
    g = new_game(3, 8)
    assert g.to_act == (g.current.seat, g.current.n)
    g.play("random")
    assert g.to_act is None


def test_a_hidden_hand_holds_only_roles_the_seat_cannot_rule_out():
    """At every decision of random play, mid-turn ones included, each other seat's true hand
    lies within what ``determinize`` may deal it (unplayed roles, and the led role while the
    seat's chance to follow is still to come), and every dealt hand is full and within it, of
    the true size unless the size is a secret still (a More or Less? hand chosen before):
    otherwise a search would sample worlds that cannot be."""
    rng = np.random.default_rng(3)
    checked = 0
    for game in range(6):
        g = bloomsim.new_game(3 + game % 3, 17, game)
        while not g.done:
            seat, n = g.to_act
            if rng.random() < 0.15:
                st, d = g.state(), g.determinize(seat, int(rng.integers(1 << 30))).state()
                players = len(st["seat.hand"])
                lead, r = int(st["leader"][0]), int(st["turn_role"][0])
                answered = (int(st["answered"][0]) - lead) % players
                for p in range(players):
                    if p == seat:
                        continue
                    may = ~int(st["played"][0]) & 0x3FF
                    if r >= 0 and (p - lead) % players > answered:
                        may |= 1 << r
                    for v in (st, d):
                        hand = int(v["seat.hand"][p])
                        assert hand & ~may == 0
                        assert bin(hand).count("1") == v["seat.hand_size"][p]
                    if not (st["selecting"][0] and p < seat):   # a secret size (More or Less?)
                        assert d["seat.hand_size"][p] == st["seat.hand_size"][p]
                    checked += 1
            g.step(int(rng.integers(n)))
    assert checked > 100


def test_the_black_market_choice_names_the_card_and_the_event():
    g = bloomsim.new_game(3, 5, rules=every_round("black_market"))
    rng = np.random.default_rng(1)
    while g.current.kind != "alternative":
        g.step(int(rng.integers(g.current.n)))
    card, event = g.current.options
    assert card.endswith(" cowardly (the card)") and card.split()[0] in default_rules().role_ids
    assert event.startswith("event black_market_")


@pytest.fixture(scope="module")
def sampled():
    """Decisions of 12 real games, 10 each (``simcore.forward.positions``)."""
    return positions("bloomsim", 4, ["greedy", "careful", "cloud", "random"], 12, 10, 2)


def test_options_that_reach_one_state_have_the_same_values(sampled):
    """Common random numbers: each playout of every option starts from the same
    determinization with the same draws, so two options that reach the same state (a lead
    where bravery changes nothing) are worth exactly the same."""
    pairs = 0
    for p in sampled:
        if p.current.kind not in ("lead", "charm"):
            continue
        after = [None if q.done else q.state()
                 for q in (p.copy().step(i) for i in range(p.to_act[1]))]
        v = None
        for i, j in zip(*np.triu_indices(len(after), 1)):
            a, b = after[i], after[j]
            if a is not None and b is not None and all(np.array_equal(a[k], b[k]) for k in a):
                v = p.values(3, 8) if v is None else v
                assert np.array_equal(v[i], v[j])
                pairs += 1
    assert pairs >= 3


def test_options_that_end_the_game_are_worth_its_result():
    """At a game's last decision every option ends it (Broom Service scores only what all
    see): its value is the finished game's win shares, every playout alike."""
    pols = ["greedy", "careful", "cloud", "random"]
    for g, log in enumerate(bloomsim.decision_logs(pols, 6, 4)):
        p = new_game(4, 4, g).after(log[:np.flatnonzero(log[:, 2] >= 2)[-1], 3])
        ends = [p.copy().step(i) for i in range(p.to_act[1])]
        assert all(q.done for q in ends)
        want = [q.result().sort("seat")["win"].to_list() for q in ends]
        assert np.allclose(p.values(9, 4), want)


@pytest.mark.parametrize("playout", ["cloud", "careful"])
def test_a_playout_from_a_hands_first_pick_picks_the_rest_of_that_hand(playout):
    """A search's tree can end at any pick of a hand; its playout then picks the rest of the
    hand as the playout policy picks a whole hand. So at a hand's first pick, every role of
    the hand the policy would pick, taken first, leads to the same hand and state: the same
    values."""
    pol = POLICIES[playout]
    checked = 0
    for g, log in enumerate(bloomsim.decision_logs([playout] * 4, 8, 21)):
        starts = [k for k in range(len(log)) if log[k, 1] == SELECT
                  and (k == 0 or log[k - 1, 1] != SELECT or log[k - 1, 0] != log[k, 0])]
        for k in starts[::5]:
            p = new_game(4, 21, g).after(log[:k, 3])
            seat = p.current.seat
            if p.observation(seat)[bloomsim.policies.O_HAND] != 0:
                continue
            hand, q = [], p.copy()
            while not q.done and q.current.seat == seat and q.current.kind == "select":
                c = pol(SELECT, q.observation(seat), q.options(), q.current.n,
                        q.streams()[seat:seat + 1].copy())
                if q.current.options[c].startswith("select "):
                    hand.append(q.current.options[c])
                q.step(c)
            firsts = [i for i, d in enumerate(p.current.options) if d in hand]
            v = p.values(5, 3, playout=playout)
            assert len(firsts) >= 2
            for i in firsts[1:]:
                assert np.array_equal(v[i], v[firsts[0]]), (g, k, hand)
            checked += 1
    assert checked >= 6
