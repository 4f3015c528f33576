"""A self-play run's kept snapshots, read back as agents (a tournament's entrants, a resumed pool).

Why in the policy layer: loading a trained model to play it is what policies do; the training layer writes these
files (``dicearena.agents.training.self_play``) and the evaluation layer seats them, so both import this.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dicearena.agents import table_player
from dicearena.agents.advice import AdvisedAgent
from dicearena.agents.base import Agent
from dicearena.agents.sb3_agent import SB3Agent

__all__ = ["MANIFEST", "pool_agents", "pool_names", "with_advice"]

MANIFEST = "pool.json"  # the list of a run's kept snapshots, in <output_dir>/pool


def with_advice(game: str, agent: Agent, advisor: str | None, game_config: dict[str, Any]) -> Agent:
    """``agent`` reading ``advisor``'s advice as it was trained to (itself when it had no advisor)."""

    if advisor is None:
        return agent
    return AdvisedAgent(agent, table_player(game, advisor, game_config), getattr(agent, "name", None))


def _manifest(run: str | Path) -> list[dict[str, Any]]:
    """The kept snapshots' entries of the self-play run at ``run`` (``steps``, ``file``)."""
    manifest = Path(run) / "pool" / MANIFEST
    if not manifest.is_file():
        raise FileNotFoundError(f"{run} has no self-play pool ({manifest} is missing)")
    return json.loads(manifest.read_text())["snapshots"]


def pool_names(run: str | Path) -> list[str]:
    """The snapshot names of the self-play run at ``run`` (from its manifest; no model is loaded)."""
    return [f"snapshot_{e['steps']}" for e in _manifest(run)]


def pool_agents(run: str | Path, names: Sequence[str] | None = None) -> dict[str, Agent]:
    """A self-play run's kept snapshots as agents (``snapshot_<steps>`` -> SB3Agent), e.g. tournament entrants."""
    folder = Path(run) / "pool"
    entries = _manifest(run)
    agents = {f"snapshot_{e['steps']}": SB3Agent.load(folder / e["file"], name=f"snapshot_{e['steps']}")
              for e in entries}  # fmt: skip
    recipe = Path(run) / "config.yaml"
    if recipe.is_file():  # an advised run's snapshots read their advisor's advice
        import yaml

        task = yaml.safe_load(recipe.read_text())["task"]
        if task["id"].endswith("_selfplay"):
            game, config = task["id"].removesuffix("_selfplay"), task.get("config") or {}
            agents = {n: with_advice(game, a, config.get("advisor"), config.get("game") or {})
                      for n, a in agents.items()}  # fmt: skip
    return agents if names is None else {n: agents[n] for n in names}
