"""Where numba keeps compiled code: a directory keyed by the source of ``envs/`` and ``agents/``.

Why: numba's on-disk cache (``cache=True``) trusts a compiled function while the file that defines it is
unchanged, but the batched loops, the faces and the agents inline engine functions from other files. After an
engine edit (a ``git pull``, say) their cached machine code would still run the old rules. Keying the cache
directory on a hash of every source file they can inline from makes any such edit start a fresh cache.
A game kept outside the tree (the user's own module, ``register_game``) is keyed too: its generated kernels live
in a subdirectory keyed by ``outside_key`` (its engine's own file and the helpers it draws on), so an edit there
compiles them afresh as well.

The directory is ``src-<hash>`` under ``$NUMBA_CACHE_DIR`` (or ``$XDG_CACHE_HOME``/``~/.cache`` + ``/dicearena/numba``)
or, when that cannot be created and written to (a read-only or missing home: containers, CI), under the private
``<tempdir>/dicearena-numba-<uid>`` (private because numba's cache files are pickles). It is exported as
``NUMBA_CACHE_DIR`` so subprocesses (vec env workers, notebook kernels) share it. It must be checked: when numba
cannot use ``NUMBA_CACHE_DIR`` it silently caches in the tree's ``__pycache__``, keyed only by each function's own
file, which brings the old rules back; with a read-only tree too, ``cache=True`` fails at import ("no locator
available"). So if no keyed directory is usable, our functions are not cached at all (one warning; they compile
in every process). numba has no switch for that, its ``NUMBA_CACHE_LOCATOR_CLASSES`` can only choose directories,
hence the small patch in :func:`_disable_caching`.

Every directory made here holds a ``MARKER`` file, rewritten on each use; marked keys unused for ``STALE_DAYS``
are deleted. Unmarked directories are never touched (``$NUMBA_CACHE_DIR`` may hold other projects' caches).
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import inspect
import os
import shutil
import sys
import sysconfig
import tempfile
import time
import warnings
from functools import partial
from pathlib import Path
from types import ModuleType

PACKAGES = ("envs", "agents")
PREFIX = "src-"
STALE_DAYS = 14
MARKER = ".dicearena-numba-cache"
MARKER_TEXT = "numba cache of Dice Arena (envs/common/numba_cache.py), keyed by source; safe to delete\n"
_UNCACHED: set[Path] = set()  # source roots whose functions must not be cached (no usable keyed directory)


def source_key(root: Path) -> str:
    """A hash of every ``.py`` file (path and bytes) under ``root``'s PACKAGES."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return PREFIX + digest.hexdigest()[:16]


def outside_sources(module: ModuleType, root: Path | None = None) -> list[Path]:
    """The source files that compiled code generated for ``module`` (a game's engine: its kernels,
    ``dicearena.envs.common.kernels``) can take code from and that ``source_key`` does not cover.

    That is ``module``'s own file unless it lies in ``root``'s PACKAGES (a game kept in the user's own module), and,
    followed recursively, those of the modules whose functions, classes or submodules it holds (the helpers it
    imports, which numba links into its callers): outside the PACKAGES, and outside the standard library and
    installed packages unless they belong to ``module``'s own top-level package. Empty for the suite's engines.
    """
    root = (root or Path(__file__).resolve().parents[2]).resolve()
    covered = [root / package for package in PACKAGES]
    paths = sysconfig.get_paths()
    installed = {Path(paths[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    top = module.__name__.partition(".")[0]
    seen: set[str] = set()
    found: list[Path] = []
    todo = [module]
    while todo:
        current = todo.pop()
        if current.__name__ in seen:
            continue
        seen.add(current.__name__)
        file = getattr(current, "__file__", None)
        if not isinstance(file, str) or not file.endswith(".py"):
            continue
        path = Path(file).resolve()
        if any(path.is_relative_to(c) for c in covered):
            continue
        own = current is module or current.__name__.partition(".")[0] == top
        if not own and any(path.is_relative_to(i) for i in installed):
            continue
        found.append(path)
        for value in list(vars(current).values()):
            if isinstance(value, ModuleType):
                todo.append(value)
                continue
            try:
                name = getattr(getattr(value, "py_func", value), "__module__", None)  # a numba dispatcher: its function
            except Exception:  # an object whose attribute lookup fails: it brings no code
                continue
            if isinstance(name, str) and name not in seen and isinstance(sys.modules.get(name), ModuleType):
                todo.append(sys.modules[name])
    return sorted(set(found))


def outside_key(module: ModuleType, root: Path | None = None) -> str:
    """A hash of ``outside_sources(module)`` (paths and bytes), or ``""`` if there are none: what keys a game's
    generated kernels beside the keyed cache directory, so an edit to an engine kept outside the tree (or to a
    helper of its) compiles them afresh instead of running the old rules from numba's cache."""
    sources = outside_sources(module, root)
    if not sources:
        return ""
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _home_base(given: str) -> Path:
    if given:
        return Path(given)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dicearena" / "numba"


def _temp_base() -> Path:
    """``<tempdir>/dicearena-numba-<uid>``, refused unless it is ours alone (the temp dir is shared)."""
    owner = os.getuid() if hasattr(os, "getuid") else getpass.getuser()
    base = Path(tempfile.gettempdir()) / f"dicearena-numba-{owner}"
    base.mkdir(mode=0o700, exist_ok=True)
    st = base.lstat()  # a symlink is refused too: its mode is 0o777
    if hasattr(os, "getuid") and (st.st_uid != owner or st.st_mode & 0o022):
        raise PermissionError(f"{base} is not private")
    return base


def _usable(cache_dir: Path) -> bool:
    """Create ``cache_dir`` and a new file in it, as numba will; that file replaces the marker (now fresh)."""
    probe = cache_dir / f"{MARKER}.{os.getpid()}"
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        probe.write_text(MARKER_TEXT)
        probe.replace(cache_dir / MARKER)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)
        return False


def configure_numba_cache(root: Path | None = None) -> Path | None:
    """Point numba's cache at the directory for the current source; return it, or None if caching is off.

    Call before anything compiles.
    """
    from numba.core import config

    root = root or Path(__file__).resolve().parents[2]
    key = source_key(root)
    given = os.environ.get("NUMBA_CACHE_DIR", "")
    if given and Path(given).name == key:  # already set up (a parent process did it)
        return Path(given)
    tried = []
    for find_base in (partial(_home_base, given), _temp_base):
        try:
            base = find_base()
        except (OSError, RuntimeError) as error:  # RuntimeError: no home directory at all
            tried.append(str(error))
            continue
        if _usable(base / key):
            os.environ["NUMBA_CACHE_DIR"] = str(base / key)
            config.reload_config()
            _prune(base, keep=key)
            return base / key
        tried.append(f"{base / key} is not writable")
    _disable_caching(root, "; ".join(tried))
    return None


def _disable_caching(root: Path, why: str) -> None:
    """Leave the functions under ``root`` on numba's ``NullCache`` (a dispatcher's cache until ``enable_caching``).

    A guarded patch: it wraps numba's own ``Dispatcher.enable_caching`` (which ``@njit(cache=True)`` calls), once,
    and skips it only for files under the roots in ``_UNCACHED``; everything else caches as numba decides.
    """
    from numba.core.dispatcher import Dispatcher

    _UNCACHED.add(root.resolve())
    original = getattr(Dispatcher, "enable_caching", None)
    if original is not None and not hasattr(original, "_dicearena_original"):
        def enable_caching(self) -> None:
            source = Path(inspect.getfile(self.py_func)).resolve()
            if not any(source.is_relative_to(uncached) for uncached in _UNCACHED):
                original(self)

        enable_caching._dicearena_original = original
        Dispatcher.enable_caching = enable_caching
    warnings.warn(
        f"numba cache is off for {root}: no keyed cache directory is writable ({why}); set NUMBA_CACHE_DIR "
        "to a writable directory to cache compiled functions between runs",
        RuntimeWarning,
        stacklevel=3,
    )


def _prune(base: Path, keep: str) -> None:
    """Delete our other keys' directories unused for STALE_DAYS (old checkouts); never fails the import."""
    cutoff = time.time() - STALE_DAYS * 86400
    for old in base.glob(PREFIX + "*"):
        try:
            if old.name != keep and (old / MARKER).is_file() and (old / MARKER).stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
