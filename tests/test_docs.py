"""What the README and the docs say of the project must be true of it: it stands alone, and a
figure quoted beside a command is what that command does."""
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_names_no_path_outside_the_project():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.findall(r"`\.\./[^`]*`", text)


def test_the_measured_sweep_s_game_count_is_what_its_arguments_play():
    from analyses.cli import _parser, _variants
    from analyses.sweep import plan
    text = " ".join((ROOT / "docs" / "workbench.md").read_text(encoding="utf-8").split())
    command, games = re.search(r"Measured: `python -m analyses (sweep [^`]*)` \([^)]*?"
                               r"([\d,]+) games\)", text).groups()
    args = _parser().parse_args(shlex.split(command))
    tasks = plan(args.game, _variants(args.vary, args.rules), args.policy, args.players,
                 args.games, args.seed, args.chunk)
    assert sum(t.n for t in tasks) == int(games.replace(",", ""))


def test_the_solver_prints_what_its_docs_show(capsys):
    from analyses.cli import main
    text = (ROOT / "docs" / "workbench.md").read_text(encoding="utf-8")
    part = text[text.index("## The target solver"):]
    command = re.search(r"```bash\npython -m analyses (solve .*?)\n```", part, re.S).group(1)
    small = re.search(r"With `(--start-games \d+ --max-games \d+)`\s+added", part).group(1)
    shown = re.search(r"```text\n(.*?)```", part, re.S).group(1)
    # the same results on any scheduler (docs/workbench.md): no Dask cluster in a test
    args = shlex.split(command.replace("\\\n", " ").replace("--scheduler local",
                                                             "--scheduler inprocess"))
    assert main(args + small.split()) == 0
    assert capsys.readouterr().out == shown


def test_the_rules_docs_hold_the_provenance_data_s_tables():
    """docs/GAME-rules.md's table is ``python -m simcore.provenance``'s, from the data."""
    from simcore import games, provenance
    for name in ("bloomsim", "rapinsim"):
        text = (ROOT / "docs" / f"{name}-rules.md").read_text(encoding="utf-8")
        assert provenance.in_doc(text) == provenance.table(provenance.load(games.get(name))), \
            f"regenerate: python -m simcore.provenance {name} docs/{name}-rules.md"
