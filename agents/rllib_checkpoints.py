"""An RLlib run's checkpoints: atomic, bounded in number, resumed from the newest that loads, read as data.

Why: the same guarantees as ``dicearena.agents.training.checkpoints`` gives SB3 runs (a kill during a save costs at
most that
checkpoint; the folder keeps only the newest ``keep``; a time-limited run that is done stays done), for RLlib's
checkpoint directories. Each is ``<output_dir>/checkpoints/iter_<iterations>``, written by
``Algorithm.save_to_path`` into a temp folder that is renamed once whole, with our card ``dice_arena.json`` in it
(game, config, network, iterations, env steps, training seconds). The card and the policy's weights are read as
data (JSON, and a pickle of numpy arrays that may name no other class), so an agent loads a checkpoint without
running code stored in it and without Ray.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CARD", "CheckpointError", "checkpoints_newest_first", "newest_loadable", "prune", "read_card",
           "read_weights", "remove_all", "resolve", "save_checkpoint", "weights_file"]  # fmt: skip

CARD = "dice_arena.json"
FORMAT = "dice-arena-rllib/1"
CARD_KEYS = ("format", "game", "config", "module_id", "model_config", "observation_size", "actions", "iteration",
             "env_steps", "training_seconds")  # fmt: skip
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


def _check_whole(path: Path) -> dict[str, Any]:
    """The card of ``path`` once its RLlib metadata and weights read back too."""
    card = read_card(path)
    if not (path / "rllib_checkpoint.json").is_file():
        raise CheckpointError(f"{path}: RLlib's rllib_checkpoint.json is missing")
    read_weights(path, card["module_id"])
    return card


def newest_loadable(folder: Path, say: Callable[[str], None] = print) -> tuple[Path, dict[str, Any]] | None:
    """``(path, card)`` of the newest checkpoint in ``folder`` that reads back whole; each skipped one is named."""
    for _, path in checkpoints_newest_first(folder):
        try:
            return path, _check_whole(path)
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
    (tmp / CARD).write_text(json.dumps({"format": FORMAT, **card}, indent=2))
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
