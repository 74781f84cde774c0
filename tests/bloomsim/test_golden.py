"""Golden transcripts: three games replayed as text, compared with the files under golden/.
Run with REGEN_GOLDEN=1 to rewrite them after an intended rules change (and review the diff)."""
import os
from pathlib import Path

import pytest

import bloomsim

GOLDEN = Path(__file__).with_name("golden")
CASES = {
    "game_2p_random_greedy.txt": (["random", "greedy"], 1, 0),
    "game_4p_mixed.txt": (["random", "greedy", "careful", "cloud"], 2024, 5),
    "game_5p_mixed.txt": (["cloud", "careful", "greedy", "random", "random"], 7, 123),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_transcript(name):
    policies, seed, game = CASES[name]
    text = bloomsim.replay(policies, seed, game)
    path = GOLDEN / name
    if os.environ.get("REGEN_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"{path} missing: run with REGEN_GOLDEN=1"
    assert text == path.read_text()
