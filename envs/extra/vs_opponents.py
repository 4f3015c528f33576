"""Extra! for one learning seat against fixed opponents (``envs/common/opponents.py``).

Every seat still playing decides on the same throw: the learner's action and the opponents' (computed from
their own observations of that throw) make one round. Once the learner has finished, the others play the game
out inside the same ``step``. Observation: the full game's (``observation_size(P)``, the learner's sheet first).
Reward: the config's (default ``"win"``: +1 to every top score, -1 to the rest at the end; ``"score"``: the
learner's score / 100 when it finishes, or with ``shaping`` each round's change).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from envs.common.config import ConfigError, validate_config
from envs.common.opponents import OpponentsGames, SingleGameEnv
from envs.common.vec_games import sb3_names

from . import engine as E
from .batched import ExtraBatchCore, final_scores, final_winners
from .config import ExtraConfig

__all__ = ["ExtraVsOpponentsEnv", "ExtraVsOpponentsGames"]


class ExtraVsOpponentsGames(OpponentsGames):
    """N games of 2-6 players, the learner at ``learner_seat`` (default 0), every other seat played by
    ``opponents`` (one policy for all, or one per other seat in seat order). SB3 ``VecEnv`` protocol with
    ``action_masks()`` (``ExtraVsOpponentsVecEnv``: its SB3 twin); ended games' infos add ``won`` (a top score,
    ties included), ``tied`` (the top score was shared), ``scores`` (every seat's) and ``rounds``.
    """

    def __init__(
        self,
        num_envs: int,
        opponents: Any = None,
        config: ExtraConfig | dict[str, Any] | None = None,
        learner_seat: int = 0,
        seed: int | None = None,
        **config_overrides: Any,
    ) -> None:
        self.config = cfg = validate_config(ExtraConfig, config, **config_overrides)
        if cfg.num_players < 2:
            raise ConfigError("num_players must be 2..6 against opponents (solitaire: dicearena/ExtraSolitaire-v0)")
        core = ExtraBatchCore(num_envs, cfg, seed)
        bound = E.observation_bound(cfg.sheet.penalty, cfg.sheet.points)
        observation_space = spaces.Box(-bound, bound, (E.observation_size(cfg.num_players),), np.float32)
        self._actions_buffer = np.full((core.num_envs, cfg.num_players), -1, dtype=np.int64)
        self._init_opponents(
            core, opponents, cfg.num_players, learner_seat, observation_space, spaces.Discrete(E.NUM_ACTIONS)
        )

    def _to_act(self) -> np.ndarray:
        return self._core.masks[:, self.learner_seat].any(axis=1)

    def _play(self, learner_actions: np.ndarray | None, active: np.ndarray) -> np.ndarray:
        core = self._core
        actions = self._actions_buffer
        actions[:] = -1  # seats that do not act send -1
        if learner_actions is not None:
            actions[:, self.learner_seat] = learner_actions
        for seat, policy in self.opponents.items():
            rows = np.flatnonzero(active & core.masks[:, seat].any(axis=1))
            if rows.size:
                actions[rows, seat] = policy.act_batch(core.obs[rows, seat], core.masks[rows, seat])
        return core.step(actions, active)

    def _obs(self) -> np.ndarray:
        return self._core.obs[:, self.learner_seat]

    def _masks(self) -> np.ndarray:
        return self._core.masks[:, self.learner_seat]

    def _final_infos(self, ended: np.ndarray) -> list[dict[str, Any]]:
        final = self._core.final_states[ended]
        n = self.config.num_players
        return [
            {
                "won": bool(won[self.learner_seat]),
                "tied": bool(won.sum() > 1),
                "scores": row.tolist(),
                "rounds": int(rounds),
            }
            for won, row, rounds in zip(final_winners(final, n), final_scores(final, n), final[:, E.ROUND], strict=True)
        ]


class ExtraVsOpponentsEnv(SingleGameEnv):
    """One game against ``opponents`` as a Gymnasium env (``dicearena/ExtraVsOpponents-v0``)."""

    def __init__(
        self,
        opponents: Any = None,
        config: ExtraConfig | dict[str, Any] | None = None,
        learner_seat: int = 0,
        **config_overrides: Any,
    ) -> None:
        super().__init__(ExtraVsOpponentsGames(1, opponents, config, learner_seat=learner_seat, **config_overrides))


__getattr__ = sb3_names(__name__, ExtraVsOpponentsGames)  # ExtraVsOpponentsVecEnv
