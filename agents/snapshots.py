"""A self-play run's kept snapshots, read back as agents (a tournament's entrants, a resumed pool).

Why in the policy layer: loading a trained model to play it is what policies do; the training layer writes these
files (``dicearena.agents.training.self_play``) and the evaluation layer seats them, so both import this.

What is trusted: nothing in a pool's listing. ``pool.json`` (and a checkpoint's record of its pool) may only
name files ``snapshot_<12 digits>.zip`` inside the run's own ``pool`` folder, so no entry reaches a file
elsewhere; the snapshots are read as data (``dicearena.agents.model_files``), never unpickled.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dicearena.agents import table_player
from dicearena.agents.advice import AdvisedAgent
from dicearena.agents.base import Agent
from dicearena.agents.model_files import ModelFileError
from dicearena.agents.sb3_agent import SB3Agent

__all__ = ["MANIFEST", "SNAPSHOT_FILE", "PoolFileError", "checked_entries", "pool_agents", "pool_names",
           "read_manifest", "with_advice"]  # fmt: skip

MANIFEST = "pool.json"  # the list of a run's kept snapshots, in <output_dir>/pool
SNAPSHOT_FILE = re.compile(r"snapshot_\d{12}\.zip")  # the only file names a pool entry may give


class PoolFileError(ValueError):
    """A pool's ``pool.json`` is missing or unreadable; the message names the file."""


def with_advice(game: str, agent: Agent, advisor: str | None, game_config: dict[str, Any]) -> Agent:
    """``agent`` reading ``advisor``'s advice as it was trained to (itself when it had no advisor)."""

    if advisor is None:
        return agent
    return AdvisedAgent(agent, table_player(game, advisor, game_config), getattr(agent, "name", None))


def checked_entries(raw: Any, where: str, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """The well-formed entries of a pool listing (``{"file", "steps"}``, the file a snapshot name); each one
    left out is named with the reason."""
    if not isinstance(raw, list):
        say(f"skipping the pool listed in {where}: a list of snapshot entries was expected, not {type(raw).__name__}")
        return []
    entries = []
    for entry in raw:
        file = entry.get("file") if isinstance(entry, dict) else None
        steps = entry.get("steps") if isinstance(entry, dict) else None
        if not (isinstance(file, str) and SNAPSHOT_FILE.fullmatch(file)):
            say(f"skipping pool entry {entry!r} in {where}: only files named snapshot_<12 digits>.zip in the run's "
                "pool folder can be listed")  # fmt: skip
        elif not (isinstance(steps, int) and not isinstance(steps, bool) and steps >= 0):
            say(f"skipping pool entry {file} in {where}: its steps must be an integer >= 0, got {steps!r}")
        else:
            entries.append({"file": file, "steps": steps})
    return entries


def read_manifest(folder: Path, say: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """The checked entries of ``folder/pool.json``; a PoolFileError when it is missing or not a pool listing."""
    manifest = folder / MANIFEST
    if not manifest.is_file():
        raise PoolFileError(f"no self-play pool here: {manifest} is missing")
    try:
        listing = json.loads(manifest.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PoolFileError(f"{manifest} is not a readable JSON pool listing ({exc})") from None
    if not isinstance(listing, dict) or "snapshots" not in listing:
        raise PoolFileError(f"{manifest} is not a pool listing (an object with a 'snapshots' list)")
    return checked_entries(listing["snapshots"], str(manifest), say)


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)


def pool_names(run: str | Path) -> list[str]:
    """The snapshot names of the self-play run at ``run`` (from its manifest; no model is loaded)."""
    return [f"snapshot_{e['steps']}" for e in read_manifest(Path(run) / "pool", _warn)]


def pool_agents(run: str | Path, names: Sequence[str] | None = None) -> dict[str, Agent]:
    """A self-play run's kept snapshots as agents (``snapshot_<steps>`` -> SB3Agent), e.g. tournament entrants;
    a snapshot that does not load is left out with a warning naming it."""
    folder = Path(run) / "pool"
    agents: dict[str, Agent] = {}
    for entry in read_manifest(folder, _warn):
        name = f"snapshot_{entry['steps']}"
        try:
            agents[name] = SB3Agent.load(folder / entry["file"], name=name)
        except ModelFileError as exc:
            _warn(f"skipping {name}: {exc}")
    recipe = Path(run) / "config.yaml"
    if recipe.is_file():  # an advised run's snapshots read their advisor's advice
        import yaml

        task = yaml.safe_load(recipe.read_text())["task"]
        if task["id"].endswith("_selfplay"):
            game, config = task["id"].removesuffix("_selfplay"), task.get("config") or {}
            agents = {n: with_advice(game, a, config.get("advisor"), config.get("game") or {})
                      for n, a in agents.items()}  # fmt: skip
    if names is None:
        return agents
    missing = [n for n in names if n not in agents]
    if missing:
        raise ValueError(f"{run} has no loadable snapshot named {missing}; it has {sorted(agents)}")
    return {n: agents[n] for n in names}
