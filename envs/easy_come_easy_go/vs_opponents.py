"""Easy Come, Easy Go for one learning seat against fixed opponents (``envs/common/opponents.py``).

Observation: the full game's (``observation_size(P)``, the learner's seat first), at every learner decision;
the opponents' turns are played inside ``step`` in batches, in the batched engine's numba loops. Reward: the
config's ``win_reward`` / ``loss_reward`` when the game ends (0 after truncation), so a return is a win or a loss.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from envs.common.config import ConfigError, validate_config
from envs.common.opponents import SingleGameEnv, TurnOpponentsGames
from envs.common.vec_games import sb3_names

from . import engine as E
from .batched import MODE_GAME, GameBatch
from .config import EasyComeEasyGoConfig

__all__ = ["EasyComeEasyGoVsOpponentsEnv", "EasyComeEasyGoVsOpponentsGames"]


class EasyComeEasyGoVsOpponentsGames(TurnOpponentsGames):
    """N full games, the learner at ``learner_seat`` (default 0), every other seat played by ``opponents`` (one
    policy for all, or one per other seat in seat order). SB3 ``VecEnv`` protocol with ``action_masks()``
    (``EasyComeEasyGoVsOpponentsVecEnv``: its SB3 twin); ended games'
    infos add ``won``, ``winner`` (-1 after truncation) and ``turns``.
    """

    _current_slot = E.CURRENT

    def __init__(
        self,
        num_envs: int,
        opponents: Any = None,
        config: EasyComeEasyGoConfig | dict[str, Any] | None = None,
        learner_seat: int = 0,
        seed: int | None = None,
        **config_overrides: Any,
    ) -> None:
        self.config = cfg = validate_config(EasyComeEasyGoConfig, config, **config_overrides)
        if cfg.max_turns < cfg.num_players:
            raise ConfigError(
                f"max_turns must be at least num_players ({cfg.num_players}) here, so that the learner plays a turn "
                f"before the game can be cut off; got {cfg.max_turns}"
            )
        core = GameBatch(
            num_envs, MODE_GAME, num_players=cfg.num_players, max_turns=cfg.max_turns,
            variant=cfg.four_of_a_kind_is_two_pairs, first_player=cfg.first_player, win=cfg.win_reward,
            loss=cfg.loss_reward, seed=seed,
        )  # fmt: skip
        observation_space = spaces.Box(0.0, 1.0, (E.observation_size(cfg.num_players),), np.float32)
        self._init_opponents(
            core, opponents, cfg.num_players, learner_seat, observation_space, spaces.Discrete(E.NUM_ACTIONS)
        )

    def _final_infos(self, ended: np.ndarray) -> list[dict[str, Any]]:
        final = self._core.final_states[ended]
        return [
            {"won": bool(winner == self.learner_seat), "winner": int(winner), "turns": int(turns)}
            for winner, turns in zip(final[:, E.WINNER], final[:, E.TURN], strict=True)
        ]


class EasyComeEasyGoVsOpponentsEnv(SingleGameEnv):
    """One game against ``opponents`` as a Gymnasium env (``dicearena/EasyComeEasyGoVsOpponents-v0``)."""

    def __init__(
        self,
        opponents: Any = None,
        config: EasyComeEasyGoConfig | dict[str, Any] | None = None,
        learner_seat: int = 0,
        **config_overrides: Any,
    ) -> None:
        super().__init__(
            EasyComeEasyGoVsOpponentsGames(1, opponents, config, learner_seat=learner_seat, **config_overrides)
        )


__getattr__ = sb3_names(__name__, EasyComeEasyGoVsOpponentsGames)  # EasyComeEasyGoVsOpponentsVecEnv
