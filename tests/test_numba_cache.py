"""Compiled code never outlives a source edit: numba's cache directory is keyed by the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from envs.common.numba_cache import PREFIX, source_key

_RUN = """
import sys
sys.path.insert(0, {root!r})
from envs.common.numba_cache import configure_numba_cache
print(configure_numba_cache(__import__("pathlib").Path({root!r})))
from envs.user import doubled
print(doubled(1))
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


def _run(root: Path, cache: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["NUMBA_CACHE_DIR"] = str(cache)
    out = subprocess.run(
        [sys.executable, "-c", _RUN.format(root=str(root))], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


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
