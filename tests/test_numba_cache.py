"""Compiled code never outlives a source edit: numba's cache directory is keyed by the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dicearena.envs.common.numba_cache import PREFIX, source_key

MARKER = ".dicearena-numba-cache"  # the on-disk name (directories made by earlier runs carry it): not imported
_OFF = "numba cache is off"

# The fake tree's folder is envs/ like ours (the key hashes that folder); it is loaded as a package of its own, by
# path, so the real dicearena.envs (which configures the real cache on import) is never imported here.
_RUN = """
import importlib, sys, tempfile
sys.path.insert(0, {root!r})
tempfile.tempdir = {tempdir!r}  # None: the usual search ($TMPDIR, /tmp, ...)
cache = importlib.import_module("envs.common.numba_cache")  # the fake tree's copy
print(cache.configure_numba_cache(__import__("pathlib").Path({root!r})))
print(importlib.import_module("envs.user").doubled(1))
"""


def _tree(root: Path, value: int) -> None:
    """A two-file package in the shape of ours: a cached function in one file inlining a rule from another."""
    package = root / "envs"
    (package / "common").mkdir(parents=True, exist_ok=True)
    here = Path(__file__).resolve().parents[1] / "envs" / "common" / "numba_cache.py"
    (package / "__init__.py").write_text("")
    (package / "common" / "__init__.py").write_text("")
    (package / "common" / "numba_cache.py").write_text(here.read_text())
    (package / "rule.py").write_text(
        f"from numba import njit\n\n\n@njit(cache=True, inline='always')\ndef value():\n    return {value}\n"
    )
    (package / "user.py").write_text(
        "from numba import njit\n\nfrom envs.rule import value\n\n\n"
        "@njit(cache=True)\ndef doubled(x):\n    return 2 * value() * x\n"
    )


def _start(root: Path, env: dict[str, str], tempdir: Path | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_") and k != "XDG_CACHE_HOME"}
    script = _RUN.format(root=str(root), tempdir=str(tempdir) if tempdir else None)
    out = subprocess.run([sys.executable, "-c", script], env=base | env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out


def _run(root: Path, cache: Path) -> list[str]:
    return _start(root, {"NUMBA_CACHE_DIR": str(cache)}).stdout.split()


def _unwritable(tmp_path: Path, name: str) -> Path:
    """A path nobody can create, root included: it lies under a regular file."""
    blocker = tmp_path / "afile"
    blocker.write_text("")
    return blocker / name


def test_an_edit_to_an_inlined_rule_reaches_cached_callers(tmp_path: Path) -> None:
    root, cache = tmp_path / "repo", tmp_path / "cache"
    _tree(root, 3)
    first_dir, first = _run(root, cache)
    assert first == "6" and Path(first_dir).parent == cache and Path(first_dir).name.startswith(PREFIX)
    assert list(Path(first_dir).rglob("*.nbi"))  # compiled code was cached there
    assert _run(root, cache) == [first_dir, "6"]  # unchanged source: same directory
    _tree(root, 5)  # only the inlined rule changes, not the caller's file
    second_dir, second = _run(root, cache)
    assert second == "10" and second_dir != first_dir


def test_key_follows_every_source_file(tmp_path: Path) -> None:
    _tree(tmp_path, 1)
    key = source_key(tmp_path)
    assert key.startswith(PREFIX) and source_key(tmp_path) == key
    (tmp_path / "envs" / "notes.txt").write_text("not source")
    assert source_key(tmp_path) == key
    (tmp_path / "envs" / "rule.py").write_text((tmp_path / "envs" / "rule.py").read_text() + "\n")
    assert source_key(tmp_path) != key


def test_a_child_process_keeps_the_directory_its_parent_set_up(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _tree(root, 2)
    chosen, _ = _run(root, tmp_path / "cache")
    assert _run(root, Path(chosen)) == [chosen, "4"]  # NUMBA_CACHE_DIR is already the keyed dir: no nesting


@pytest.mark.parametrize("xdg", [False, True])
def test_without_numba_cache_dir_the_keys_live_in_the_user_cache(tmp_path: Path, xdg: bool) -> None:
    root, home, xdg_cache = tmp_path / "repo", tmp_path / "home", tmp_path / "xdg"
    _tree(root, 1)
    env = {"HOME": str(home)} | ({"XDG_CACHE_HOME": str(xdg_cache)} if xdg else {})
    chosen, value = _start(root, env).stdout.split()
    assert Path(chosen).parent == (xdg_cache if xdg else home / ".cache") / "dicearena" / "numba" and value == "2"


def test_an_unwritable_home_falls_back_to_a_keyed_temp_dir_not_pycache(tmp_path: Path) -> None:
    # Without it numba caches in the tree's __pycache__, keyed only by the caller's file: the edit is missed.
    root, tmp = tmp_path / "repo", tmp_path / "tmp"
    tmp.mkdir()
    env = {"HOME": str(_unwritable(tmp_path, "home")), "TMPDIR": str(tmp)}
    _tree(root, 3)
    first = _start(root, env)
    _tree(root, 5)
    second = _start(root, env)
    (first_dir, first_value), (second_dir, second_value) = first.stdout.split(), second.stdout.split()
    assert (first_value, second_value) == ("6", "10")  # the edit reached the cached caller
    assert _OFF not in first.stderr + second.stderr
    for chosen in (Path(first_dir), Path(second_dir)):
        assert chosen.parent.parent == tmp and chosen.parent.name.startswith("dicearena-numba-")
        assert chosen.name.startswith(PREFIX) and (chosen / MARKER).is_file() and list(chosen.rglob("*.nbi"))
    assert first_dir != second_dir and not list(root.rglob("*.nbi"))


@pytest.mark.parametrize("tree_writable", [True, False])
def test_with_no_writable_cache_dir_nothing_is_cached_and_edits_are_seen(tmp_path: Path, tree_writable: bool) -> None:
    # $HOME and the temp dir are unwritable; numba's own fallback (__pycache__) is either stale or, in a read-only
    # tree (simulated: __pycache__ cannot be a directory), raises "no locator available" at import.
    root = tmp_path / "repo"
    env = {"HOME": str(_unwritable(tmp_path, "home"))}
    _tree(root, 3)
    if not tree_writable:
        (root / "envs" / "__pycache__").write_text("")
    runs = []
    for value in (3, 5):
        _tree(root, value)
        runs.append(_start(root, env, tempdir=_unwritable(tmp_path, "tmp")))
    assert [run.stdout.split()[-1] for run in runs] == ["6", "10"]  # imported, ran, and saw the edit
    assert [run.stdout.split()[0] for run in runs] == ["None", "None"]  # no cache directory
    assert [run.stderr.count(_OFF) for run in runs] == [1, 1], runs[0].stderr  # one warning says so
    assert not list(root.rglob("*.nbi"))  # and numba did not fall back to __pycache__


def test_cleanup_removes_only_old_directories_it_marked(tmp_path: Path) -> None:
    root, cache = tmp_path / "repo", tmp_path / "cache"
    _tree(root, 1)
    foreign, ours = cache / (PREFIX + "someone-else"), cache / (PREFIX + "old-checkout")
    for old in (foreign, ours):
        old.mkdir(parents=True)
        (old / "data").write_text("")
    (ours / MARKER).write_text("")
    month_ago = time.time() - 30 * 86400
    for path in (foreign, foreign / "data", ours / MARKER, ours / "data", ours):
        os.utime(path, (month_ago, month_ago))
    current, _ = _run(root, cache)
    assert foreign.is_dir() and not ours.exists()
    assert Path(current).is_dir() and (Path(current) / MARKER).is_file()
