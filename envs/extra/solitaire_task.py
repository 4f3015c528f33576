"""The solitaire task: one player plays Extra! alone; reward = final score / 100, at the end (or, with
``shaping``, each step's score change / 100: the same sum, a denser signal for training).

The natural single-agent benchmark of the game (rules/extra.md, "Task environments"): Extra! itself with one player
and the score reward, registered as a task (``SOLITAIRE``: the game's spec with the task's config) and served by the
generic one-seat envs (``envs.common.game_seat``) with no opponents. ``ExtraSolitaireEnv`` is one Gymnasium env
(injectable ``dice=``, infos with the sheet); ``ExtraSolitaireGames`` N games in one batched engine behind SB3's
``VecEnv`` protocol (``ExtraSolitaireVecEnv``: its SB3 twin, importing stable-baselines3 when first used). Both give
``action_masks()`` so sb3-contrib's ``MaskablePPO`` trains with no glue. Observation: the engine's for one player
(``observation_size(1)`` = 125 floats; layout in README.md). Chance: one generator seeded by ``reset(seed)``; a
1-game vec env replays the single env.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import Field

from envs.common.config import GameConfig
from envs.common.contract import register_task
from envs.common.game_seat import SeatEnv, SeatGames
from envs.common.vec_games import sb3_names

from . import engine as E
from .config import ExtraConfig, ExtraSheet
from .game import EXTRA

__all__ = ["SOLITAIRE", "ExtraSolitaireEnv", "ExtraSolitaireGames", "SolitaireConfig"]


class SolitaireConfig(GameConfig):
    """The solitaire task's knobs (one player and reward = score / 100 are fixed by the task; ``shaping`` only
    spreads that reward over the steps). The engine reads it as it reads an ``ExtraConfig``."""

    children: bool = Field(False, description="a new EXTRA number's first box is checked only when it recurs")
    shaping: bool = Field(
        False, description="reward each step's change of the score / 100 instead of the final score / 100 at the end"
    )
    sheet: ExtraSheet = Field(default_factory=ExtraSheet, description="the score pad layout")

    @property
    def num_players(self) -> int:
        return 1

    @property
    def reward_mode(self) -> int:
        return E.REWARD_SCORE

    def game_config(self) -> ExtraConfig:
        """The same game as an ``ExtraConfig`` (for the game's own faces and agents)."""
        return ExtraConfig(num_players=1, reward="score", children=self.children, shaping=self.shaping,
                           sheet=self.sheet)  # fmt: skip


SOLITAIRE = register_task(
    replace(EXTRA, id="extra_solitaire", config=SolitaireConfig, agents={}, tasks={}, benchmarks={}, gym_envs={},
            classic=None, table_agent=None, seat_stats=None, bench_targets={}),
    __name__,
)  # fmt: skip


class ExtraSolitaireEnv(SeatEnv):
    """Extra! solitaire as a Gymnasium env: ``Discrete(45)`` masked actions, reward = final score / 100
    (at the end; with ``shaping`` spread over the steps as score changes / 100).

    ``info["action_mask"]`` / ``action_masks()`` give the legal actions; ``info`` also has ``round``, ``dice``,
    ``score``, ``extra_numbers``, ``finished`` and ``last_action`` (at the end: of the final sheet, with the seat
    env's ``final_rewards`` and ``final_state``). ``dice`` (e.g. ``ScriptedDice``, one ``roll(5)`` per throw)
    replaces the seeded dice. Render modes ``"ansi"`` and ``"rgb_array"``.
    """

    def __init__(self, config: SolitaireConfig | dict[str, Any] | None = None, dice: Any = None,
                 render_mode: str | None = None, **config_overrides: Any) -> None:  # fmt: skip
        super().__init__(SOLITAIRE, config=config, dice=dice, render_mode=render_mode, **config_overrides)


class ExtraSolitaireGames(SeatGames):
    """N solitaire games in one batched engine; finished games restart at once.

    SB3 conventions: ``step`` -> obs (N, 125), rewards (N,) (final score / 100 when a game ends, else 0; with
    ``shaping`` each step's score change / 100), dones (N,), infos (for finished games ``terminal_observation``,
    ``score`` and the rest of the final sheet, ``final_state`` and ``episode``); ``action_masks()`` -> (N, 45) bool,
    and ``env_method("action_masks")`` gives the per-game rows sb3-contrib's ``MaskablePPO`` stacks.
    """

    def __init__(self, num_envs: int, config: SolitaireConfig | dict[str, Any] | None = None, seed: int | None = None,
                 **config_overrides: Any) -> None:  # fmt: skip
        super().__init__(SOLITAIRE, num_envs, None, config, seed=seed, **config_overrides)


__getattr__ = sb3_names(__name__, ExtraSolitaireGames)  # ExtraSolitaireVecEnv
