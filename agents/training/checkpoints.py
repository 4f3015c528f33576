"""A training run's checkpoints: atomic, bounded in number, and resumed from the newest one that loads.

Why: a kill or a full disk during a save must cost at most the checkpoint being written, and a run that saves
every few seconds must not fill the disk. Checkpoints are ``model_<steps>_steps.zip`` in one folder, written
by ``dicearena.agents.model_files.save_model`` (temp file, fsync, rename); each carries the training time so far, so a
time-limited run that is done stays done when its command is run again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dicearena.agents.model_files import ModelFile, ModelFileError, read_model_file, save_model

__all__ = ["checkpoints_newest_first", "latest_checkpoint", "newest_loadable", "prune", "remove_all", "save_checkpoint"]

_NAME = re.compile(r"model_(\d+)_steps\.zip")


def checkpoints_newest_first(folder: Path) -> list[tuple[int, Path]]:
    """``(steps, path)`` of every checkpoint in ``folder``, most steps first."""
    found = []
    for path in folder.glob("model_*_steps.zip"):
        match = _NAME.fullmatch(path.name)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found, reverse=True)


def latest_checkpoint(folder: Path) -> tuple[Path, int] | None:
    """The newest checkpoint by name (loadable or not) and its steps, or None."""
    found = checkpoints_newest_first(folder)
    return (found[0][1], found[0][0]) if found else None


def newest_loadable(folder: Path, say: Callable[[str], None] = print) -> ModelFile | None:
    """The newest checkpoint that reads back whole; each one skipped is named with the reason."""
    for _, path in checkpoints_newest_first(folder):
        try:
            return read_model_file(path)
        except ModelFileError as exc:
            say(f"skipping checkpoint {path.name}: {exc}")
    return None


def save_checkpoint(model: Any, folder: Path, training_seconds: float, keep: int,
                    metadata: dict[str, Any] | None = None) -> Path:  # fmt: skip
    """Save ``model`` as the checkpoint of its step count (with the task's ``metadata``, e.g. its self-play pool),
    then keep only the newest ``keep``."""
    entry = {**(metadata or {}), "training_seconds": training_seconds}
    path = save_model(model, folder / f"model_{model.num_timesteps}_steps.zip", entry)
    prune(folder, keep)
    return path


def prune(folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` checkpoints (and temp files a killed save left); return what went."""
    gone = [path for _, path in checkpoints_newest_first(folder)[keep:]]
    gone += [p for p in folder.glob(".model_*_steps.zip.*.tmp")]
    for path in gone:
        path.unlink(missing_ok=True)
    return gone


def remove_all(folder: Path) -> int:
    """Delete every checkpoint (``--fresh``); return how many there were."""
    return len(prune(folder, 0))
