"""Yay! for one learning seat against fixed opponents (``envs/common/opponents.py``).

Observation: the full game's (the learner's seat first), at every learner decision; the opponents' turns are
played inside ``step`` in batches, in the batched engine's numba loops. Reward: +1 / -1 when the game ends (a
shared win is +1; 0 after ``max_turns``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from envs.common.config import validate_config
from envs.common.opponents import SingleGameEnv, TurnOpponentsGames
from envs.common.vec_games import sb3_names

from . import engine as E
from .batched import YayBatchCore, final_outcomes, final_standings
from .config import YayConfig

__all__ = ["YayVsOpponentsEnv", "YayVsOpponentsGames"]


class YayVsOpponentsGames(TurnOpponentsGames):
    """N games of Yay!, the learner at ``learner_seat`` (default 0), every other seat played by ``opponents`` (one
    policy for all, or one per other seat in seat order). SB3 ``VecEnv`` protocol with ``action_masks()``
    (``YayVsOpponentsVecEnv``: its SB3 twin); ended games'
    infos add ``won`` (a shared win counts), ``tied`` (the win was shared), ``standings`` (uncrossed numbers and
    their sum per seat) and ``turns``.
    """

    _current_slot = E.CURRENT

    def __init__(
        self,
        num_envs: int,
        opponents: Any = None,
        config: YayConfig | dict[str, Any] | None = None,
        learner_seat: int = 0,
        seed: int | None = None,
        **config_overrides: Any,
    ) -> None:
        self.config = cfg = validate_config(YayConfig, config, **config_overrides)
        core = YayBatchCore(num_envs, cfg, seed)
        observation_space = spaces.Box(0.0, 1.0, (core.obs_dim,), np.float32)
        self._init_opponents(
            core, opponents, cfg.num_players, learner_seat, observation_space, spaces.Discrete(core.num_actions)
        )

    def _final_infos(self, ended: np.ndarray) -> list[dict[str, Any]]:
        final = self._core.final_states[ended]
        n = self.config.num_players
        return [
            {
                "won": bool(outcome[self.learner_seat] > 0),
                "tied": bool(outcome[self.learner_seat] > 0 and (outcome > 0).sum() > 1),
                "standings": [tuple(s) for s in table.tolist()],
                "turns": int(state[E.TURN]),
            }
            for outcome, table, state in zip(final_outcomes(final, n), final_standings(final, n), final, strict=True)
        ]


class YayVsOpponentsEnv(SingleGameEnv):
    """One game against ``opponents`` as a Gymnasium env (``dicearena/YayVsOpponents-v0``)."""

    def __init__(
        self,
        opponents: Any = None,
        config: YayConfig | dict[str, Any] | None = None,
        learner_seat: int = 0,
        **config_overrides: Any,
    ) -> None:
        super().__init__(YayVsOpponentsGames(1, opponents, config, learner_seat=learner_seat, **config_overrides))


__getattr__ = sb3_names(__name__, YayVsOpponentsGames)  # YayVsOpponentsVecEnv
