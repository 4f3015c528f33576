"""Extra! in evaluation recipes: its own ``solitaire`` benchmark (mean score), how a solitaire policy sits at a
table (its own sheet), and the mean score a table reports per seat."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field

from agents.base import Agent
from agents.benchmarks import Benchmark, GameKeys, Players, Result, _check_config
from agents.recipes import Seed
from envs.common.config import GameConfig

__all__ = ["SOLITAIRE", "seat_stats", "table_agent"]


class SolitaireSection(GameConfig):
    config: GameKeys = Field(default_factory=dict, description="ExtraConfig keys other than num_players")
    games: int = Field(10_000, ge=2, le=10**8)
    seed: Seed = 0


def _run(game: str, name: str, section: SolitaireSection, players: Players) -> list[Result]:
    from agents.extra.evaluation import solitaire_scores

    rows = solitaire_scores(players({**section.config, "num_players": 1}), section.games, section.config, section.seed)
    return [("solitaire: mean score", "score", sorted(rows, key=lambda r: -r["mean_score"]))]


SOLITAIRE = Benchmark(SolitaireSection, _run,
                      lambda game, s: _check_config(game, "solitaire.config", {**s.config, "num_players": 1}))


def table_agent(kind: str, agent: Agent, config: Any) -> Agent | None:
    """A policy trained on one sheet (solitaire) plays its own sheet at a table; any other agent as it is."""
    from agents.extra.at_table import SolitairePolicyAtTable
    from envs.extra.engine import observation_size

    space = getattr(agent, "observation_space", None)
    players = config["num_players"] if isinstance(config, dict) else config.num_players
    if kind == "sb3" and space is not None and space.shape == (observation_size(1),) and players > 1:
        return SolitairePolicyAtTable(agent)
    return agent


def seat_stats(final_states: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Each seat's final score, averaged per agent in table rows."""
    from agents.extra.evaluation import final_scores

    return {"mean_score": final_scores(final_states, num_players)}
