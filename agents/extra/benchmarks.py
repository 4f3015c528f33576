"""Extra! in evaluation recipes: its own ``solitaire`` benchmark (mean score), how a solitaire policy sits at a
table (its own sheet), and the mean score a table reports per seat."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from dicearena.agents.evaluation.benchmarks import (
    Benchmark,
    GameKeys,
    Players,
    Result,
    _check_config,
    register_benchmarks,
)
from dicearena.agents.evaluation.recipes import Seed
from dicearena.agents.extra.evaluation import final_scores, solitaire_scores
from dicearena.envs.common.config import GameConfig

__all__ = ["SOLITAIRE", "seat_stats"]


class SolitaireSection(GameConfig):
    config: GameKeys = Field(default_factory=dict, description="ExtraConfig keys other than num_players")
    games: int = Field(10_000, ge=2, le=10**8)
    seed: Seed = 0


def _run(game: str, name: str, section: SolitaireSection, players: Players) -> list[Result]:
    rows = solitaire_scores(players({**section.config, "num_players": 1}), section.games, section.config, section.seed)
    return [("solitaire: mean score", "score", sorted(rows, key=lambda r: -r["mean_score"]))]


SOLITAIRE = Benchmark(SolitaireSection, _run,
                      lambda game, s: _check_config(game, "solitaire.config", {**s.config, "num_players": 1}))



def seat_stats(final_states: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Each seat's final score, averaged per agent in table rows."""

    return {"mean_score": final_scores(final_states, num_players)}


register_benchmarks("extra", {"solitaire": SOLITAIRE}, seat_stats=seat_stats)
