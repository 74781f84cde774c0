"""simcore.jitcache: a package's cached kernels are dropped when any of its sources (or
simcore's) changed, and kept otherwise."""
import os
from pathlib import Path

import numba

from simcore import jitcache

ROOT = Path(jitcache.__file__).resolve().parents[1]


def _cached(where, stems=("a", "b")):
    for s in stems:
        (where / f"{s}.kernel-3.py311.nbi").write_text("index")
        (where / f"{s}.kernel-3.py311.1.nbc").write_text("code")
    (where / "other.kernel-3.py311.nbi").write_text("another module's")


def _left(where):
    return sorted(f.name for f in where.iterdir() if f.suffix in (".nbi", ".nbc"))


def test_kernels_kept_until_a_source_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "b.py").write_text("y = 2\n")
    where = jitcache.cache_dir(pkg / "a.py")
    assert where is not None and where.is_relative_to(tmp_path / "cache")
    _cached(where)
    jitcache.forget_stale(pkg)              # no fingerprint yet: nothing can be trusted
    assert _left(where) == ["other.kernel-3.py311.nbi"]
    _cached(where)
    jitcache.forget_stale(pkg)              # same sources: the cache stays
    assert len(_left(where)) == 5
    (pkg / "b.py").write_text("y = 3\n")    # a callee's file changed: a's kernels go too
    jitcache.forget_stale(pkg)
    assert _left(where) == ["other.kernel-3.py311.nbi"]


def test_a_change_in_simcore_drops_the_package_kernels(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    pkg, shared = tmp_path / "pkg", tmp_path / "shared"
    pkg.mkdir()
    shared.mkdir()
    (pkg / "a.py").write_text("x = 1\n")
    (shared / "rng.py").write_text("z = 1\n")
    monkeypatch.setattr(jitcache, "SHARED", shared)
    where = jitcache.cache_dir(pkg / "a.py")
    jitcache.forget_stale(pkg)
    _cached(where, ("a",))
    jitcache.forget_stale(pkg)
    assert len(_left(where)) == 3
    (shared / "rng.py").write_text("z = 2\n")
    jitcache.forget_stale(pkg)
    assert _left(where) == ["other.kernel-3.py311.nbi"]



def test_a_new_interpreter_keeps_a_fresh_cache(tmp_path):
    """The stamp must not depend on the process (string hashes are salted per process): else
    every new interpreter would drop the cache and compile everything again."""
    import os
    import subprocess
    import sys
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text("x = 1\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    code = f"from simcore import jitcache; jitcache.forget_stale({str(pkg)!r})"
    check = "from simcore import jitcache; from pathlib import Path; " \
            f"print(jitcache.cache_dir(Path({str(pkg / 'a.py')!r})))"
    where = None
    for seed in range(1, 9):
        subprocess.run([sys.executable, "-c", code], env=dict(env, PYTHONHASHSEED=str(seed)),
                       check=True)
        if where is None:
            from pathlib import Path
            where = Path(subprocess.run([sys.executable, "-c", check], env=env, check=True,
                                        capture_output=True, text=True).stdout.strip())
            _cached(where, ("a",))
        else:
            assert len(_left(where)) == 3, f"hash seed {seed} dropped the cache"


def _tiny_package(root, value):
    """A package with one cached kernel that checks its cache as the engines do."""
    pkg = root / "tinykernels"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text(
        "from pathlib import Path\n\nimport numba\n\nfrom simcore.jitcache import forget_stale\n"
        "\nforget_stale(Path(__file__).parent)\n\n\n@numba.njit(cache=True)\ndef f(x):\n"
        f"    return x + {value}\n\n\nf(1)\n")
    return pkg


def test_a_package_compiled_aside_is_cached_for_the_next_import(tmp_path, monkeypatch):
    """``compile_aside`` fills the cache in another process; ``needs_compile`` then says the
    import will load, not compile, until a source changes."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(ROOT)]))
    monkeypatch.delenv(jitcache.ASIDE, raising=False)
    pkg = _tiny_package(tmp_path, 1)
    assert jitcache.needs_compile(pkg)
    proc = jitcache.compile_aside("tinykernels")
    assert proc is not None and proc.wait() == 0
    assert not jitcache.needs_compile(pkg)
    assert jitcache.compile_aside("tinykernels") is None     # nothing left to compile
    _tiny_package(tmp_path, 2)                                # its cache is now stale
    assert jitcache.needs_compile(pkg)
    monkeypatch.setenv(jitcache.ASIDE, "tinykernels")
    assert jitcache.compile_aside("tinykernels") is None     # never from an aside process
