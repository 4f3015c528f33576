"""The solitaire task: one player plays Extra! alone; reward = final score / 100, at the end (or, with
``shaping``, each step's score change / 100: the same sum, a denser signal for training).

The natural single-agent benchmark of the game (rules/extra.md, "Task environments"): the generic one-seat envs
(``envs.common.game_seat``) with one player and no opponents, the task's config translated to the game's.
``ExtraSolitaireEnv`` is one Gymnasium env (injectable dice, infos with the sheet); ``ExtraSolitaireGames`` N
games in one batched engine behind SB3's ``VecEnv`` protocol (``ExtraSolitaireVecEnv``: its SB3 twin, importing
stable-baselines3 when first used). Both give ``action_masks()`` so sb3-contrib's ``MaskablePPO`` trains with no
glue. Observation: the engine's for one player (``observation_size(1)`` = 125 floats; layout in README.md).
Chance: one generator seeded by ``reset(seed)``; a 1-game vec env replays the single env.
"""

from __future__ import annotations

import copy
import weakref
from typing import Any

import gymnasium
import numpy as np
from pydantic import Field

from envs.common.config import GameConfig, validate_config
from envs.common.dice import DiceSource
from envs.common.game_batch import BatchedGame
from envs.common.game_seat import SeatEnv, SeatGames
from envs.common.table import check_faces, check_seed, dice_source, reseed
from envs.common.vec_games import StepReturn, sb3_names

from . import engine as E
from .config import ExtraConfig, ExtraSheet
from .game import EXTRA

__all__ = ["ExtraSolitaireEnv", "ExtraSolitaireGames", "SolitaireConfig"]


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


class _Throws:
    """The single env's chance stream (its batch's ``rng``): a seeded generator's words, or injected dice, whose
    faces are the words (the engine's ``draw_outcome`` takes word mod 6).

    The generic env restarts an ended game at once, but nobody plays that game before ``reset()``, which starts
    another: so a restarted game's first throw is not drawn (``reset`` draws it). The stream is then the 1-game vec
    env's, whose restarted game is its next one, and a script is not spent on a throw nobody sees.
    """

    def __init__(self, dice: DiceSource | None, batch: BatchedGame) -> None:
        self.dice, self._trusted = None, True
        if dice is not None:
            self.dice, self._trusted = dice_source(dice, E.NUM_FACES, E.NUM_DICE, EXTRA.title)
        self.rng = np.random.default_rng()
        self._batch = weakref.ref(batch)  # not a strong one: the batch's snapshots deep-copy its rng, not itself
        self.resetting = False

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_batch": self._batch()}  # pickled with its batch (pickle keeps the cycle)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._batch = weakref.ref(state["_batch"])

    def __deepcopy__(self, memo: dict[int, Any]) -> _Throws:
        """A copy reading the copied batch if the batch is being copied too (a copied env), else this one's (a
        snapshot of the stream)."""
        twin = copy.copy(self)
        memo[id(self)] = twin
        twin.dice, twin.rng = copy.deepcopy(self.dice, memo), copy.deepcopy(self.rng, memo)
        batch = self._batch()
        twin._batch = weakref.ref(memo.get(id(batch), batch))
        return twin

    def seed(self, seed: int | None) -> None:
        """Reseed (``None``: continue the stream); injected dice: a seedable source is reseeded, a script not."""
        if self.dice is not None:
            reseed(self.dice, seed)
        elif check_seed(seed) is not None:
            self.rng = np.random.default_rng(seed)

    def integers(self, low: int, high: int, size: tuple[int, int], dtype: Any) -> np.ndarray:
        if not self.resetting and self._batch().states[0, E.ROUND] == 0:
            return np.zeros(size, dtype=dtype)  # the restarted game's first throw: reset() draws it
        if self.dice is None:
            return self.rng.integers(low, high, size=size, dtype=dtype)
        rolled = self.dice.roll(E.NUM_DICE)
        faces = rolled if self._trusted else check_faces(rolled, E.NUM_DICE, E.NUM_FACES)
        return np.asarray(faces, dtype=dtype).reshape(size)


class ExtraSolitaireEnv(SeatEnv):
    """Extra! solitaire as a Gymnasium env: ``Discrete(45)`` masked actions, reward = final score / 100
    (at the end; with ``shaping`` spread over the steps as score changes / 100).

    ``info["action_mask"]`` / ``action_masks()`` give the legal actions; ``info`` also has ``round``, ``dice``,
    ``score``, ``extra_numbers``, ``finished`` and ``last_action`` (at the end: of the final sheet, with the seat
    env's ``final_rewards`` and ``final_state``). ``dice`` (e.g. ``ScriptedDice``, one ``roll(5)`` per throw)
    replaces the seeded dice. Render modes ``"ansi"`` and ``"rgb_array"``.
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
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        super().__init__(EXTRA, None, self.task_config.game_config())
        self.config: ExtraConfig = self.core.config
        self.render_mode = render_mode
        self.core.batch.rng = _Throws(dice, self.core.batch)
        self._final: np.ndarray | None = None

    @property
    def dice(self) -> DiceSource | None:
        """The injected dice (``None``: seeded by ``reset(seed)``)."""
        return self.core.batch.rng.dice

    @property
    def engine_state(self) -> np.ndarray:
        """The game's engine state (read-only); once it has ended, its final state until the next ``reset``."""
        return self._final if self._final is not None else self.core.batch.states[0]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """A new game; ``seed`` reseeds the dice so it and every later unseeded reset are reproducible."""
        throws = self.core.batch.rng  # read each time: a failed step's undo restores a copy
        throws.seed(seed)
        self._final = None
        throws.resetting = True
        try:
            obs, info = super().reset(options=options)  # the throws are seeded, not the batch
        finally:
            throws.resetting = False
        gymnasium.Env.reset(self, seed=seed)
        self.action_space.game_started(seed)
        return obs, self._with_sheet(info)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = super().step(action)
        if terminated or truncated:
            self._final = info["final_state"]
        return obs, reward, terminated, truncated, self._with_sheet(info)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return EXTRA.render_ansi(self.config, self.engine_state)
        if self.render_mode == "rgb_array":
            return EXTRA.render_rgb(self.config, self.engine_state)
        return None

    def _with_sheet(self, info: dict[str, Any]) -> dict[str, Any]:
        state = self.engine_state
        return {**EXTRA.info(self.config, state), **EXTRA.seat_info(self.config, state, 0), **info}


class ExtraSolitaireGames(SeatGames):
    """N solitaire games in one batched engine; finished games restart at once.

    SB3 conventions: ``step`` -> obs (N, 125), rewards (N,) (final score / 100 when a game ends, else 0; with
    ``shaping`` each step's score change / 100), dones (N,), infos (for finished games ``terminal_observation``,
    ``score``, ``final_state`` and ``episode``); ``action_masks()`` -> (N, 45) bool, and
    ``env_method("action_masks")`` gives the per-game rows sb3-contrib's ``MaskablePPO`` stacks.
    """

    def __init__(
        self,
        num_envs: int,
        config: SolitaireConfig | dict[str, Any] | None = None,
        seed: int | None = None,
        **config_overrides: Any,
    ) -> None:
        task_config = validate_config(SolitaireConfig, config, **config_overrides)
        super().__init__(EXTRA, num_envs, None, task_config.game_config(), seed=seed)
        self.config = task_config

    def step_wait(self) -> StepReturn:
        obs, rewards, dones, infos = super().step_wait()
        for i in np.flatnonzero(dones):
            infos[i]["score"] = int(E.score(infos[i]["final_state"], 0))
        return obs, rewards, dones, infos


__getattr__ = sb3_names(__name__, ExtraSolitaireGames)  # ExtraSolitaireVecEnv
