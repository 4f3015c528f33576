"""An RLlib run's checkpoints: atomic, bounded in number, resumed from the newest that checks out, read as data.

Why: the same guarantees as ``dicearena.agents.training.checkpoints`` gives SB3 runs (a kill during a save costs at
most that checkpoint; the folder keeps only the newest ``keep``; a time-limited run that is done stays done), for
RLlib's checkpoint directories. Each is ``<output_dir>/checkpoints/iter_<iterations>``, written by
``Algorithm.save_to_path`` into a temp folder that is renamed once whole, with our card ``dice_arena.json`` in it
(game, config, network, iterations, env steps, training seconds, and the sha256 of every other file in the folder).

What is trusted, and what is checked:

- An agent (``RLlibAgent``) reads only the card (JSON) and the policy's weights (a pickle that may name numpy arrays
  and nothing else), both as data: loading a checkpoint runs no code stored in it, and needs no Ray.
- Resuming a run hands the checkpoint to RLlib's ``restore_from_path``, which unpickles every state file in it, and
  unpickling can run code. So resume first checks the checkpoint against its card: every file must be listed there
  with the sha256 recorded when the save wrote it, and nothing else may be in the folder (no unlisted file, no
  link). A checkpoint that fails is skipped like a damaged one, naming the file, and the next older one is tried;
  a checkpoint whose card lists no digests (saved by an older version) is never resumed. RLlib then restores from a
  private copy made of exactly the checked bytes, so a file swapped after the check is not read either.
- The card itself is the root of that trust: the digests show that the files are the ones the save wrote, not who
  wrote the card. Whoever can write a run's folder can write a card that lists their own files, so resume a run
  only from a folder that you (or people you trust to run code on your machine) can write; ``--fresh`` deletes its
  checkpoints without reading them.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CARD", "DIGESTS", "CheckpointError", "checkpoints_newest_first", "file_digests", "newest_loadable", "prune",
           "read_card", "read_weights", "remove_all", "resolve", "save_checkpoint", "verified_copy", "verify_files",
           "weights_file"]  # fmt: skip

CARD = "dice_arena.json"
FORMAT = "dice-arena-rllib/1"
CARD_KEYS = ("format", "game", "config", "module_id", "model_config", "observation_size", "actions", "iteration",
             "env_steps", "training_seconds")  # fmt: skip
DIGESTS = "files"  # the card's key: every other file of the checkpoint (relative path) -> its sha256
_NAME = re.compile(r"iter_(\d+)")
_TMP = ".iter_*.tmp"
# what a module_state.pkl may name: an OrderedDict of numpy arrays (numpy 1 and 2 spell them differently)
_ALLOWED = {("collections", "OrderedDict"), ("numpy", "dtype"), ("numpy", "ndarray"),
            ("numpy._core.numeric", "_frombuffer"), ("numpy.core.numeric", "_frombuffer"),
            ("numpy._core.multiarray", "_reconstruct"), ("numpy.core.multiarray", "_reconstruct"),
            ("numpy._core.multiarray", "scalar"), ("numpy.core.multiarray", "scalar")}  # fmt: skip


class CheckpointError(ValueError):
    """A checkpoint folder that is missing, incomplete or not ours; the message says which file and why."""


def checkpoints_newest_first(folder: Path) -> list[tuple[int, Path]]:
    """``(iterations, path)`` of every checkpoint folder in ``folder``, most iterations first."""
    if not folder.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in folder.iterdir() if (m := _NAME.fullmatch(p.name)) and p.is_dir()]
    return sorted(found, reverse=True)


def read_card(path: Path) -> dict[str, Any]:
    """The card of the checkpoint at ``path``, its keys checked."""
    card_path = Path(path) / CARD
    if not card_path.is_file():
        raise CheckpointError(f"{path} is not a Dice Arena RLlib checkpoint: {CARD} is missing (python -m "
                              "dicearena.agents.training.rllib writes it beside RLlib's files)")  # fmt: skip
    try:
        card = json.loads(card_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{card_path}: not readable JSON ({exc})") from None
    missing = [k for k in CARD_KEYS if not isinstance(card, dict) or k not in card]
    if missing:
        raise CheckpointError(f"{card_path}: missing keys {missing}")
    if card["format"] != FORMAT:
        raise CheckpointError(f"{card_path}: format {card['format']!r}; this version reads {FORMAT!r}")
    return card


def weights_file(path: Path, module_id: str) -> Path:
    """Where RLlib keeps the weights of module ``module_id`` inside a checkpoint."""
    return Path(path) / "learner_group" / "learner" / "rl_module" / module_id / "module_state.pkl"


class _ArraysOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise CheckpointError(f"the weights file names {module}.{name}; only numpy arrays are read")
        return super().find_class(module, name)


def read_weights(path: Path, module_id: str) -> dict[str, np.ndarray]:
    """The weights of ``module_id`` (parameter name -> array) from the checkpoint at ``path``, read as data."""
    file = weights_file(path, module_id)
    if not file.is_file():
        raise CheckpointError(f"{path}: no weights for module {module_id!r} ({file} is missing)")
    try:
        with file.open("rb") as f:
            state = _ArraysOnly(f).load()
    except CheckpointError as exc:
        raise CheckpointError(f"{file}: {exc}") from None
    except (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError) as exc:
        raise CheckpointError(f"{file}: unreadable ({type(exc).__name__}: {exc})") from None
    if not isinstance(state, dict) or not all(isinstance(v, np.ndarray) for v in state.values()):
        raise CheckpointError(f"{file}: expected a mapping of parameter names to arrays")
    return dict(state)


def _files(path: Path) -> list[str]:
    """Every file in the checkpoint at ``path`` but its card (paths relative to it, ``/``-separated, sorted); a
    CheckpointError naming a link or anything else that is not a plain file or folder."""
    found = []
    for root, folders, files in os.walk(path):  # links to folders are listed, not followed
        for name in sorted(folders + files):
            item = Path(root) / name
            relative = item.relative_to(path).as_posix()
            if item.is_symlink():
                raise CheckpointError(f"{relative} is a symbolic link; a checkpoint holds plain files and folders only")
            if name in files:
                if not item.is_file():
                    raise CheckpointError(f"{relative} is not a plain file; a checkpoint holds plain files only")
                if relative != CARD:
                    found.append(relative)
    return sorted(found)


def _sha256(file: Path) -> str:
    with file.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def file_digests(path: Path) -> dict[str, str]:
    """The sha256 of every file in the checkpoint at ``path`` but its card (what the card records as ``files``)."""
    return {relative: _sha256(Path(path) / relative) for relative in _files(Path(path))}


def _listed(card: dict[str, Any]) -> dict[str, str]:
    """The card's file digests, checked for shape; a CheckpointError when it records none."""
    listed = card.get(DIGESTS)
    if not isinstance(listed, dict) or not listed or not all(
        isinstance(k, str) and isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) for k, v in listed.items()
    ):  # fmt: skip
        raise CheckpointError(f"its card ({CARD}) records no sha256 for its files (saved by an older version, or not "
                              "by dicearena), so it cannot be checked and is not resumed")  # fmt: skip
    return listed


def verify_files(path: Path, card: dict[str, Any]) -> None:
    """Check that the checkpoint at ``path`` holds exactly the files its ``card`` lists, each with the recorded
    sha256; a CheckpointError naming the first file that is unlisted, missing or changed."""
    listed, present = _listed(card), _files(Path(path))
    unlisted = [relative for relative in present if relative not in listed]
    if unlisted:
        raise CheckpointError(f"{unlisted[0]} is not listed in its card ({CARD}); resume reads only the files the "
                              "save wrote and recorded there")  # fmt: skip
    for relative in sorted(listed):
        if relative not in present:
            raise CheckpointError(f"{relative}, listed in its card ({CARD}), is missing")
        if _sha256(Path(path) / relative) != listed[relative]:
            raise CheckpointError(f"{relative} does not match the sha256 its card ({CARD}) recorded when it was "
                                  "saved; resume reads only the files the save wrote")  # fmt: skip


@contextmanager
def verified_copy(path: Path, card: dict[str, Any]) -> Iterator[Path]:
    """A private temporary copy of the checkpoint at ``path`` made of exactly the bytes checked against ``card``
    (deleted on exit): what RLlib restores from, so no file changed after the check is read."""
    verify_files(path, card)
    listed = _listed(card)
    copy = Path(tempfile.mkdtemp(prefix="dicearena-resume-"))  # readable by this user only
    try:
        for relative, digest in sorted(listed.items()):
            target = copy / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            sha = hashlib.sha256()
            with (Path(path) / relative).open("rb") as source, target.open("xb") as out:
                while chunk := source.read(1 << 20):
                    sha.update(chunk)
                    out.write(chunk)
            if sha.hexdigest() != digest:
                raise CheckpointError(f"{relative} changed while it was copied for resuming; it no longer matches "
                                      f"the sha256 its card ({CARD}) recorded")  # fmt: skip
        yield copy
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def _check_whole(path: Path, verify: bool = False) -> dict[str, Any]:
    """The card of ``path`` once its RLlib metadata and weights read back too (and, with ``verify``, every file
    matches the card's digests)."""
    card = read_card(path)
    if not (path / "rllib_checkpoint.json").is_file():
        raise CheckpointError(f"{path}: RLlib's rllib_checkpoint.json is missing")
    if verify:
        verify_files(path, card)
    read_weights(path, card["module_id"])
    return card


def newest_loadable(
    folder: Path, say: Callable[[str], None] = print, verify: bool = False
) -> tuple[Path, dict[str, Any]] | None:  # fmt: skip
    """``(path, card)`` of the newest checkpoint in ``folder`` that reads back whole (with ``verify``: whose files
    all match its card's digests, what resuming needs); each skipped one is named."""
    for _, path in checkpoints_newest_first(folder):
        try:
            return path, _check_whole(path, verify)
        except CheckpointError as exc:
            say(f"skipping checkpoint {path.name}: {exc}")
    return None


def resolve(path: str | Path) -> Path:
    """A checkpoint folder, or a run's ``output_dir`` (then its newest checkpoint that loads)."""
    p = Path(path)
    if (p / CARD).is_file():
        return p
    if (p / "checkpoints").is_dir():
        found = newest_loadable(p / "checkpoints", say=lambda _: None)
        if found is not None:
            return found[0]
        raise CheckpointError(f"{p / 'checkpoints'} holds no checkpoint that loads; train first (python -m "
                              "dicearena.agents.training.rllib <recipe>)")  # fmt: skip
    if not p.exists():
        raise FileNotFoundError(f"no RLlib checkpoint at {p}: give a checkpoint folder (.../checkpoints/iter_<n>) "
                                "or a run's output_dir")  # fmt: skip
    raise CheckpointError(f"{p} is neither a checkpoint (no {CARD}) nor a run's output_dir (no checkpoints/)")


def save_checkpoint(algo: Any, folder: Path, card: dict[str, Any], keep: int) -> Path:
    """``algo`` saved as ``folder/iter_<card["iteration"]>`` with ``card``, atomically; then keep the newest
    ``keep``."""
    final = folder / f"iter_{card['iteration']:06d}"
    tmp = folder / f".iter_{card['iteration']:06d}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    digests = file_digests(tmp)  # what resume checks every file against before RLlib unpickles any
    (tmp / CARD).write_text(json.dumps({"format": FORMAT, **card, DIGESTS: digests}, indent=2))
    if final.exists():  # the same iteration saved again (a rerun that was already done)
        shutil.rmtree(final)
    os.replace(tmp, final)
    prune(folder, keep)
    return final


def prune(folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` checkpoints (and temp folders a killed save left); return what went."""
    gone = [path for _, path in checkpoints_newest_first(folder)[keep:]] + list(folder.glob(_TMP))
    for path in gone:
        shutil.rmtree(path, ignore_errors=True)
    return gone


def remove_all(folder: Path) -> int:
    """Delete every checkpoint (``--fresh``); return how many there were."""
    return len(prune(folder, 0)) if folder.is_dir() else 0
