"""Where numba keeps compiled code: a directory keyed by the source of ``envs/`` and ``agents/``.

Why: numba's on-disk cache (``cache=True``) trusts a compiled function while the file that defines it is
unchanged, but the batched loops, the faces and the agents inline engine functions from other files. After an
engine edit (a ``git pull``, say) their cached machine code would still run the old rules. Keying the cache
directory on a hash of every source file they can inline from makes any such edit start a fresh cache.

The directory is ``$NUMBA_CACHE_DIR`` (or ``$XDG_CACHE_HOME``/``~/.cache`` + ``/dicearena/numba``) plus
``src-<hash>``; it is exported as ``NUMBA_CACHE_DIR`` so subprocesses (vec env workers, notebook kernels) share it.
Keys unused for ``STALE_DAYS`` are deleted.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

PACKAGES = ("envs", "agents")
PREFIX = "src-"
STALE_DAYS = 14


def source_key(root: Path) -> str:
    """A hash of every ``.py`` file (path and bytes) under ``root``'s PACKAGES."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return PREFIX + digest.hexdigest()[:16]


def _default_base() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dicearena" / "numba"


def configure_numba_cache(root: Path | None = None) -> Path:
    """Point numba's cache at the directory for the current source; return it. Call before anything compiles."""
    from numba.core import config

    root = root or Path(__file__).resolve().parents[2]
    key = source_key(root)
    given = os.environ.get("NUMBA_CACHE_DIR", "")
    if given and Path(given).name == key:  # already set up (a parent process did it)
        return Path(given)
    base = Path(given) if given else _default_base()
    cache_dir = base / key
    os.environ["NUMBA_CACHE_DIR"] = str(cache_dir)
    config.reload_config()
    _prune(base, keep=key)
    return cache_dir


def _prune(base: Path, keep: str) -> None:
    """Delete other keys' directories untouched for STALE_DAYS (old checkouts); never fails the import."""
    if not base.is_dir():
        return
    cutoff = time.time() - STALE_DAYS * 86400
    for old in base.glob(PREFIX + "*"):
        try:
            if old.name != keep and old.is_dir() and old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
