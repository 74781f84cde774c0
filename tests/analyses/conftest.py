import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def bloom_board() -> dict:
    """The default board as plain data, read from the rules data file (no engine needed)."""
    return json.loads((ROOT / "bloomsim" / "data" / "rules.json").read_text())["board"]


@pytest.fixture(scope="session")
def town_board() -> dict:
    b = json.loads((ROOT / "rapinsim" / "data" / "rules.json").read_text())["board"]
    return {"districts": b["districts"], "route": b["route"], "extra_edges": b["extra_edges"]}
