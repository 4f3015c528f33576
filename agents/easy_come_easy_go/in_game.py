"""Play the full game with a turn-task policy: each turn becomes a turn task priced by the position.

A policy trained (or solved) on the value-conditioned turn task is exactly a full-game player once
someone says what each prize is worth right now; the position valuation of the full-game heuristic
does that. The full-game mask still applies (a prize the mover holds stays uncollectable).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.base import Agent
from envs.easy_come_easy_go import engine as eng
from envs.easy_come_easy_go.turn_encoding import TURN_OBS_SIZE, encode_turn_positions

from .heuristics import FullGameHeuristicAgent, GameView, decode_dice, decode_game

__all__ = ["TurnPolicyInGame", "any_prize_not_mine"]


class TurnPolicyInGame(Agent):
    def __init__(
        self,
        turn_agent: Agent,
        valuation: Callable[[GameView], np.ndarray] | None = None,
        value_scale: float = 3.0,
        four_of_a_kind_is_two_pairs: bool = False,
    ) -> None:
        """``value_scale``: the turn task's scale the policy was trained with (3 for values in {0..3})."""
        if not value_scale > 0:
            raise ValueError(f"value_scale must be > 0, got {value_scale}")
        self.turn_agent = turn_agent
        self.valuation = valuation or FullGameHeuristicAgent().position_values
        self.value_scale = float(value_scale)
        self.variant = int(four_of_a_kind_is_two_pairs)
        self.name = f"{turn_agent.name}@game"

    def reset(self, seed: int | None = None) -> None:
        self.turn_agent.reset(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.atleast_2d(np.asarray(observations))
        masks = np.atleast_2d(np.asarray(action_masks))
        view = decode_dice(obs)
        values = np.clip(self.valuation(decode_game(obs)) / self.value_scale, 0.0, 1.0).astype(np.float32)
        turn_obs = np.empty((obs.shape[0], TURN_OBS_SIZE), dtype=np.float32)
        turn_masks = np.empty((obs.shape[0], eng.NUM_ACTIONS), dtype=np.int8)
        encode_turn_positions(view.dice, view.frozen, view.roll, values, self.variant, turn_obs, turn_masks)
        return self.turn_agent.act_batch(turn_obs, (turn_masks != 0) & (masks != 0))


def any_prize_not_mine(view: GameView) -> np.ndarray:
    """The plain valuation: every prize the mover does not hold is worth 1."""
    return (view.owners != 0).astype(np.float64)
