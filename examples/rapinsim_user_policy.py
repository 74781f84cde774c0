"""A user policy written in a script, playing the Lapin treasure hunt against the built-ins.

    python examples/rapinsim_user_policy.py
    rapinsim simulate --policy examples/rapinsim_user_policy.py:cautious random greedy \
        --games 20000 --seed 1
"""
import rapinsim
from rapinsim.policies import (
    ACTION,
    DISGUISE,
    F_KNOWN,
    F_RIZE,
    F_TILE,
    F_VALUE,
    F_WHAT,
    HOUSE,
    O_PASS,
    O_SEARCH,
    O_STEP,
    O_YES,
)
from simcore.rng import randint


@rapinsim.policy("cautious")
def cautious(kind, obs, opts, n_opts, rng):
    """Search a known treasure, else an unknown tile, never where Rize steps next; otherwise
    step somewhere Rize is not about to enter; always use a disguise when found (with the rules
    option disguise = "reaction"; by default the disguise is an action it does not take)."""
    if kind == DISGUISE:
        for i in range(n_opts):
            if opts[i, F_WHAT] == O_YES:
                return i
    if kind == HOUSE or kind == ACTION:
        best, arg = -1e9, randint(rng, 0, n_opts)
        for i in range(n_opts):
            o = opts[i]
            s = -1e9
            if kind == HOUSE or o[F_WHAT] == O_SEARCH:
                s = 5.0 + o[F_VALUE] if o[F_KNOWN] and o[F_TILE] == 0 else (
                    -10.0 if o[F_KNOWN] and o[F_TILE] == 2 else 2.0)
            elif o[F_WHAT] == O_STEP:
                s = 1.0
            elif o[F_WHAT] == O_PASS:
                s = 0.0
            if kind == ACTION and o[F_RIZE] == 1:
                s -= 20.0
            if s > best:
                best, arg = s, i
        return arg
    return randint(rng, 0, n_opts)


if __name__ == "__main__":
    from simcore.games import get
    from simcore.summary import simulate_summary

    df = rapinsim.simulate([cautious, "careful", "greedy", "random"], 20_000, seed=1)
    print(simulate_summary(get("rapinsim"), df))
