"""What both games share, written once: per-game random streams, the decision protocol and
user policies, the chunked parallel runner with Parquet streaming, the result frame, progress."""
from pathlib import Path

from .interrupt import while_starting

while_starting()                      # first: Ctrl-C while a command starts is one line

from .jitcache import forget_stale

forget_stale(Path(__file__).parent)   # before any kernel loads from the cache

from .policy import POLICY_SIG, PolicyFunc, UserPolicy, policy
from .rng import PyRng, randint, root_key, uniform

__all__ = ["POLICY_SIG", "PolicyFunc", "UserPolicy", "policy", "PyRng", "randint", "uniform",
           "root_key"]
