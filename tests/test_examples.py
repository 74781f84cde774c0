"""The example scripts a user copies from must run as shipped: each plays its user policy against
the built-in ones and prints the table naming it."""
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("script, policy", [("bloomsim_user_policy.py", "lightning_hunter"),
                                            ("rapinsim_user_policy.py", "cautious")])
def test_example_runs_and_reports_its_policy(script, policy):
    proc = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert policy in proc.stdout


def test_the_evasion_measurement_runs_and_prints_both_boards():
    """docs/rapinsim-rules.md ("The default town") quotes this script's tables."""
    proc = subprocess.run([sys.executable, str(EXAMPLES / "rapinsim_evasion.py"), "--games",
                           "200"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "default town" in proc.stdout and "ring of 10" in proc.stdout
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ") and "±" in line]
    assert len(rows) == 10
