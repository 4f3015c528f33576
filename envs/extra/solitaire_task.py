"""The solitaire task: one player plays Extra! alone; reward = final score / 100, at the end (or, with
``shaping``, each step's score change / 100: the same sum, a denser signal for training).

The natural single-agent benchmark of the game (rules/extra.md, "Task environments"). Two faces over the same
engine: ``ExtraSolitaireEnv`` (one Gymnasium env, injectable dice, built on the PettingZoo faces' table so
errors and infos read the same) and ``ExtraSolitaireGames`` (N games stepped in the batched engine's numba
loops, behind SB3's ``VecEnv`` protocol; ``ExtraSolitaireVecEnv`` is its SB3 ``VecEnv`` twin, importing
stable-baselines3 when first used). All give ``action_masks()`` so sb3-contrib's ``MaskablePPO`` trains with no glue.

Observation: the engine's observation for one player (``observation_size(1)`` = 125 floats; layout in
README.md). Chance: one generator seeded by ``reset(seed)``; a 1-game vec env replays the single env.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pydantic import Field

from envs.common.batching import LegalDiscrete
from envs.common.config import GameConfig, validate_config
from envs.common.dice import DiceSource
from envs.common.vec_games import BatchedTaskGames, sb3_names

from . import engine as E
from .batched import ExtraBatchCore, final_scores
from .config import ExtraConfig, ExtraSheet
from .table import ExtraTable

__all__ = ["ExtraSolitaireEnv", "ExtraSolitaireGames", "SolitaireConfig"]

AGENT = "player_0"


class SolitaireConfig(GameConfig):
    """The solitaire task's knobs (one player and reward = score / 100 are fixed by the task; ``shaping`` only
    spreads that reward over the steps)."""

    children: bool = Field(False, description="a new EXTRA number's first box is checked only when it recurs")
    shaping: bool = Field(
        False, description="reward each step's change of the score / 100 instead of the final score / 100 at the end"
    )
    sheet: ExtraSheet = Field(default_factory=ExtraSheet, description="the score pad layout")

    def game_config(self) -> ExtraConfig:
        return ExtraConfig(
            num_players=1, reward="score", children=self.children, shaping=self.shaping, sheet=self.sheet
        )


def _spaces(config: ExtraConfig) -> spaces.Box:
    bound = E.observation_bound(config.sheet.penalty, config.sheet.points)
    return spaces.Box(-bound, bound, (E.observation_size(1),), np.float32)


class ExtraSolitaireEnv(ExtraTable, gymnasium.Env):
    """Extra! solitaire as a Gymnasium env: ``Discrete(45)`` masked actions, reward = final score / 100
    (at the end; with ``shaping`` spread over the steps as score changes / 100).

    ``info["action_mask"]`` / ``action_masks()`` give the legal actions; ``info`` also has ``score``, ``round``,
    ``dice``, ``extra_numbers``. ``dice`` (e.g. ``ScriptedDice``, one ``roll(5)`` per throw) replaces the
    seeded dice. Render modes ``"ansi"`` and ``"rgb_array"`` (the PettingZoo faces' views).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        config: SolitaireConfig | dict[str, Any] | None = None,
        dice: DiceSource | None = None,
        render_mode: str | None = None,
        **config_overrides: Any,
    ) -> None:
        self.task_config = validate_config(SolitaireConfig, config, **config_overrides)
        self._injected = dice is not None
        self._setup(self.task_config.game_config(), dice, render_mode)
        self.observation_space = _spaces(self.config)
        self.action_space = LegalDiscrete(E.NUM_ACTIONS, self._mask, env=self)
        self._over = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """A new game; ``seed`` reseeds the dice so it and every later unseeded reset are reproducible."""
        super().reset(seed=seed)
        if not self._injected:
            self.dice.rng = self.np_random  # one stream, reseeded by seed (Gymnasium's np_random)
        self.action_space.game_started(seed)  # reproducible action_space.sample() rollouts too
        self._new_game(seed if self._injected else None)
        self.agents = [AGENT]
        self._over = False
        return self._observe(), self._task_info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if not self._has_reset:
            raise RuntimeError("Extra! solitaire: step() before reset(): call reset() to start a game")
        if self._over:
            raise RuntimeError("Extra! solitaire: the game is over: call reset() for a new one")
        action = self._coerce_action(action)
        try:
            self._check_legal(AGENT, action)
        except ValueError as exc:
            raise ValueError(f"Extra! solitaire, seat {AGENT}: {exc}") from None
        self._play(0, action)
        self._over = self._game_over()
        reward = self._step_reward(0, self._over)
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, self._over, False, self._task_info()

    def action_masks(self) -> np.ndarray:
        """Legal actions as bools (sb3-contrib MaskablePPO convention); all False once the game is over."""
        return self._mask().astype(bool)

    def _mask(self) -> np.ndarray:
        mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
        E.legal_mask(self.engine_state, 0, mask)
        return mask

    def _observe(self) -> np.ndarray:
        return self.observe(AGENT)["observation"]

    def _task_info(self) -> dict[str, Any]:
        info = self._info(0)
        info["action_mask"] = self._mask()
        return info


class ExtraSolitaireGames(BatchedTaskGames):
    """N solitaire games stepped together in numba (the batched engine); finished games restart at once.

    SB3 conventions: ``step`` -> obs (N, 125), rewards (N,) (final score / 100 when a game ends, else 0; with
    ``shaping`` each step's score change / 100),
    dones (N,), infos (for finished games ``terminal_observation``, ``score`` and ``episode``);
    ``action_masks()`` -> (N, 45) bool, and ``env_method("action_masks")`` gives the per-game rows
    sb3-contrib's ``MaskablePPO`` stacks.
    """

    def __init__(
        self,
        num_envs: int,
        config: SolitaireConfig | dict[str, Any] | None = None,
        seed: int | None = None,
        **config_overrides: Any,
    ) -> None:
        self.config = validate_config(SolitaireConfig, config, **config_overrides)
        core = ExtraBatchCore(num_envs, self.config.game_config(), seed)
        self._init_core(core, _spaces(core.config), spaces.Discrete(E.NUM_ACTIONS))

    def step_async(self, actions: np.ndarray) -> None:
        """Actions (N,) or (N, 1) (one seat)."""
        actions = np.asarray(actions)
        super().step_async(actions[:, 0] if actions.shape == (self.num_envs, 1) else actions)

    def _obs(self) -> np.ndarray:
        return self._core.obs[:, 0]

    def _masks(self) -> np.ndarray:
        return self._core.masks[:, 0]

    def _final_infos(self, ended: np.ndarray) -> list[dict[str, Any]]:
        return [{"score": int(score)} for score in final_scores(self._core.final_states[ended], 1)[:, 0]]


__getattr__ = sb3_names(__name__, ExtraSolitaireGames)  # ExtraSolitaireVecEnv
