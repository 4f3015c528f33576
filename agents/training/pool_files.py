"""A self-play pool on disk, kept one unit with the run's checkpoints.

Why: the kept snapshots are part of what a checkpoint resumes. Each checkpoint records the pool it was saved
with (``POOL_KEY`` in its readable metadata); a resume restores exactly that pool, and a snapshot file is deleted
only when neither the live pool nor any kept checkpoint lists it. So a resume from any checkpoint, after a kill
or past a damaged newest one, finds the files it needs, and the files of the abandoned steps after it are cleared
before those snapshots are taken again. ``pool.json`` mirrors the live pool for readers (tournaments); a resume
does not trust it (``dicearena.agents.snapshots`` says what a listing may name).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dicearena.agents.model_files import ModelFile, read_metadata, replace_atomically
from dicearena.agents.snapshots import MANIFEST, SNAPSHOT_FILE, PoolFileError, checked_entries, read_manifest
from dicearena.agents.training.checkpoints import checkpoints_newest_first

__all__ = ["POOL_KEY", "cut_curve", "listed_by_checkpoints", "pool_at_checkpoint", "remove_unlisted",
           "write_manifest"]  # fmt: skip

POOL_KEY = "selfplay_pool"  # a checkpoint's record of its pool: [{"file", "steps"}, ...], oldest first


def write_manifest(folder: Path, entries: list[dict[str, Any]]) -> None:
    """``pool.json`` listing ``entries``, replaced atomically."""
    text = json.dumps({"snapshots": entries}, indent=2)
    replace_atomically(folder / MANIFEST, lambda tmp: tmp.write_text(text))


def listed_by_checkpoints(checkpoints: Path) -> set[str]:
    """The snapshot files that a kept checkpoint's pool lists (a checkpoint whose record is unreadable lists none:
    it cannot be resumed)."""
    listed: set[str] = set()
    for _, path in checkpoints_newest_first(checkpoints):
        metadata = read_metadata(path) or {}
        entries = checked_entries(metadata.get(POOL_KEY, []), path.name, lambda _: None)
        listed.update(e["file"] for e in entries)
    return listed


def remove_unlisted(folder: Path, keep: set[str]) -> list[str]:
    """Delete the snapshot files in ``folder`` not in ``keep`` and the temp files of killed saves; return their
    names. Only snapshot-named files in the pool folder itself are ever touched."""
    gone = [p for p in folder.glob("snapshot_*.zip") if SNAPSHOT_FILE.fullmatch(p.name) and p.name not in keep]
    gone += list(folder.glob(".snapshot_*.tmp"))
    for path in gone:
        path.unlink(missing_ok=True)
    return [p.name for p in gone]


def pool_at_checkpoint(checkpoint: ModelFile, folder: Path, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """The pool ``checkpoint`` was saved with; a checkpoint from before pools were recorded gets the listed
    snapshots taken by its steps."""
    recorded = checkpoint.metadata.get(POOL_KEY)
    if recorded is not None:
        return checked_entries(recorded, checkpoint.path.name, say)
    try:
        listed = read_manifest(folder, say)
    except PoolFileError as exc:
        say(f"self-play: starting with an empty pool: {exc}")
        return []
    return [e for e in listed if e["steps"] <= checkpoint.num_timesteps]


def cut_curve(curve: Path, steps: int) -> int:
    """Drop the learning-curve points past ``steps`` (a resume from an older checkpoint draws them again);
    return how many went."""
    if not curve.is_file():
        return 0
    with curve.open(newline="") as handle:
        rows = list(csv.reader(handle))
    kept = rows[:1] + [r for r in rows[1:] if r and r[0].isdigit() and int(r[0]) <= steps]
    if len(kept) == len(rows):
        return 0
    def write(tmp: Path) -> None:
        with tmp.open("w", newline="") as handle:
            csv.writer(handle).writerows(kept)

    replace_atomically(curve, write)
    return len(rows) - len(kept)
