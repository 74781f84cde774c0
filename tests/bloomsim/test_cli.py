"""The command line: a win-rate table with n and 95% Wilson intervals; one-line errors, exit 2."""
import re

import pytest

from bloomsim.cli import main


def test_simulate_prints_win_table(capsys):
    assert main(["simulate", "--policy", "random", "--policy", "greedy", "--games", "200",
                 "--seed", "3", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "policy" in out and "95% Wilson" in out
    assert any(line.startswith("greedy") and " 200 " in line for line in out.splitlines())


def test_replay_and_rules(capsys):
    assert main(["replay", "--policy", "random", "--policy", "cloud", "--seed", "1"]) == 0
    assert capsys.readouterr().out.startswith("Broom Service, seed 1, game 0")
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "tags: seed" in out and "enchanted_reshuffle" in out
    # the seed readings' options, each value with its provenance tag
    assert '"next_start_player": "last_brave"' in out and '"perilous_places": "lose"' in out
    assert re.search(r'next_start_player +"last_brave" +\[seed\] last_brave; option '
                     r'lead_holder', out)
    assert re.search(r'enchanted_reshuffle +"all_roles" +\[seed\]', out)
    assert re.search(r'empty_handed +"pay_nothing" +\[seed\]', out)
    assert "  events.empty_handed [invention]" in out


@pytest.mark.parametrize("argv,match", [
    (["simulate", "--policy", "random", "--games", "5"], "2 to 5 players"),
    (["simulate", "--policy", "random", "--policy", "nope"], "unknown policy 'nope'"),
    (["simulate", "--policy", "random", "--policy", "random", "--rules", "/no/such.json"],
     "does not exist"),
    (["simulate", "--games", "x"], "invalid int value"),
])
def test_errors_are_one_line_with_exit_code_2(argv, match, capsys):
    with pytest.raises(SystemExit) as e:
        raise SystemExit(main(argv))
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert match in err and len(err.splitlines()) == 1
