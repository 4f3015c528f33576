"""The solitaire task: Extra! alone, reward = final score / 100 (with ``shaping``: each step's score change / 100,
the same sum): the game with one player and the score reward (``SolitaireConfig``), registered as a task, on the
generic one-seat envs; ``ExtraSolitaireVecEnv`` is the SB3 twin of ``ExtraSolitaireGames``."""

from __future__ import annotations

from dataclasses import replace

from dicearena.envs.common.contract import register_task
from dicearena.envs.common.task_envs import task_envs
from dicearena.envs.common.vec_twins import sb3_names

from .config import SolitaireConfig
from .game import EXTRA

__all__ = ["SOLITAIRE", "ExtraSolitaireEnv", "ExtraSolitaireGames", "SolitaireConfig"]


SOLITAIRE = register_task(
    replace(EXTRA, id="extra_solitaire", config=SolitaireConfig, gym_envs={},
            classic=None, bench_targets={}),
    __name__,
)  # fmt: skip


ExtraSolitaireEnv, ExtraSolitaireGames = task_envs(
    SOLITAIRE, __name__, "ExtraSolitaire",
    """Extra! solitaire as a Gymnasium env: ``Discrete(45)`` masked actions, reward = final score / 100 (at the
    end; with ``shaping`` spread over the steps as score changes / 100). ``info`` has ``action_mask``, ``round``,
    ``dice``, ``score``, ``extra_numbers``, ``finished`` and ``last_action`` (at the end: of the final sheet, with
    ``final_rewards`` and ``final_state``). ``dice`` (e.g. ``ScriptedDice``, one ``roll(5)`` per throw) replaces
    the seeded dice. Render modes ``"ansi"`` and ``"rgb_array"``.""",
    """N solitaire games in one batched engine behind SB3's ``VecEnv`` protocol, finished games restarting: obs
    (N, 125), ``action_masks()`` (N, 45); a finished game's info has ``terminal_observation``, ``score`` and the
    rest of the final sheet, ``final_state`` and ``episode``.""",
)
__getattr__ = sb3_names(__name__, ExtraSolitaireGames)  # ExtraSolitaireVecEnv
