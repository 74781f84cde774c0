"""Analyses of simulation results: DataFrame in, DataFrame or Figure out.

Only ``tournament``, ``ladder``, ``compare``, ``counterfactual_impact``, ``luck_by_source``,
``sweep``, ``solve``, ``tune``, ``intransitivity``, ``leverage``, ``restricted``,
``robustness`` and ``skill.skill_verdicts`` play games, through a game's public
``simulate``, and ``kingmaking`` through its forward model (``new_game``); everything else
reads a results frame, LazyFrame or Parquet dataset.
"""
import simcore  # noqa: F401 - first: a Ctrl-C while the command starts is one line

from .compare import Comparison, compare
from .data import InputError, scan
from .diff import diff
from .event_impact import counterfactual_impact, event_impact, switch_offs
from .intransitivity import Intransitivity, intransitivity
from .kingmaking import Kingmaking, kingmaking
from .ladder import Ladder, ladder
from .leverage import Leverage, leverage
from .luck import Luck, luck_by_source
from .metrics import designer_metrics
from .report import report
from .restricted import Restriction, restricted
from .robust import Robustness, robustness
from .seats import seat_advantage
from .solve import solve
from .sweep import sweep
from .tournament import Tournament, tournament
from .tune import Tuned, tune
from .winrates import win_rates

__all__ = ["Comparison", "InputError", "Intransitivity", "Kingmaking", "Ladder", "Leverage",
           "Luck", "Restriction", "Robustness", "Tournament", "Tuned", "compare",
           "counterfactual_impact", "designer_metrics", "diff", "event_impact", "intransitivity",
           "kingmaking", "ladder", "leverage", "luck_by_source", "report", "restricted",
           "robustness", "scan", "seat_advantage", "solve", "sweep", "switch_offs", "tournament",
           "tune", "win_rates"]
