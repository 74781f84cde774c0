"""Helpers for the rapinsim scenario tests: scripted policies and chance, hand-built positions
of the reference engine (districts and houses 0-based: house = 3 * d + k)."""
from rapinsim import reference as ref
from rapinsim.policies import F_WHAT, O_PASS, O_STOP
from rapinsim.rules import MAX_PLAYERS, N_CHANCE, RING10, load_rules
from simcore.rng import PyRng

RULES = load_rules(RING10)   # positions on the specification's ring of 10 districts


class Script:
    """A policy that answers from a list of wishes: a dict of feature values the chosen row
    must match (first match wins) or an int index. Records (kind, n_opts) of each call."""

    def __init__(self, *wishes):
        self.wishes, self.calls = list(wishes), []

    def __call__(self, kind, obs, opts, n, rng):
        self.calls.append((kind, n))
        if not self.wishes:
            rows = [i for i in range(n) if opts[i, F_WHAT] in (O_PASS, O_STOP)]
            return rows[0] if rows else 0
        w = self.wishes.pop(0)
        if isinstance(w, int):
            return w
        for i in range(n):
            if all(opts[i, f] == v for f, v in w.items()):
                return i
        raise AssertionError(f"no option matches {w} in {opts[:n]}")


class Dice(PyRng):
    """Chance draws scripted: each randint on a chance stream returns the next value (a die
    face - 1, or the index of a random pick)."""

    def __init__(self, *values):
        super().__init__(0, 0, N_CHANCE, MAX_PLAYERS)
        self.values = list(values)

    def randint(self, k, n):
        if k >= self.seat0:
            return super().randint(k, n)
        v = self.values.pop(0)
        assert 0 <= v < n
        return v


def game(chars, *policies, rules=RULES, inaba_set=None):
    pols = list(policies) or [Script() for _ in chars]
    st = ref.new_state(rules, chars, pols, inaba_set=inaba_set)
    return st


def house(d, k=0):
    return 3 * d + k
