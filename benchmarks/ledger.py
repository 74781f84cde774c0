"""The measurement history: one JSON line per run of ``python -m benchmarks --record``.

A run's full figures go to ``--json FILE``; the ledger keeps what a reader compares across runs
(when, which commit, on what machine, each goal's figure and verdict) in a few hundred bytes, so
the history of every run fits in one small file instead of a folder of per-run files.
"""
from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT = REPO / "benchmarks" / "results" / "history.jsonl"


def default_path() -> Path | None:
    """The checkout's ledger, or None for an installed copy (nothing to append to there)."""
    return DEFAULT if (REPO / ".git").exists() and DEFAULT.parent.is_dir() else None


def entry(res: dict) -> dict:
    """The ledger line of one run's result dict."""
    m = res["machine"]
    return {"started_utc": res["started_utc"], "commit": m.get("commit"), "mode": res["mode"],
            "command": res["command"], "wall_s": round(res.get("wall_s", 0.0), 1),
            "machine": {"cpu": m.get("cpu"), "cores": m.get("cores"),
                        "numba": m.get("versions", {}).get("numba")},
            "load": [res.get("load_start"), res.get("load_end")],
            "goals": [{"goal": g["goal"], "target": g["target"], "figure": g["figure"],
                       "passed": g["passed"]} for g in res.get("goals", [])
                      if g["figure"] != "not measured"]}


def append(path: Path, res: dict) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry(res), ensure_ascii=False) + "\n")


def read(path: Path) -> list[dict]:
    """Every line of a ledger, oldest first; a malformed line names the file and line."""
    rows = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not a ledger line ({exc.msg})") from None
    return rows
