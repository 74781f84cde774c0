"""What the README and the docs say of the project must be true of it: it stands alone, and a
figure quoted beside a command is what that command does."""
import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_names_no_path_outside_the_project():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not re.findall(r"`\.\./[^`]*`", text)

