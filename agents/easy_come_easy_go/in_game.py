"""Play the full game with a turn-task policy: each turn becomes a turn task priced by the position.

A policy trained (or solved) on the value-conditioned turn task is exactly a full-game player once
someone says what each prize is worth right now; the position valuation of the full-game heuristic
does that. The adapter plans on the engine state (``reads_state``): the dice, frozen dice, roll and prize
holders come from the engine's slots, the turn-task observation is built by the turn encoding, and the
wrapped policy sees only that (observation, mask), as it did in training. The full-game mask still applies
(a prize the mover holds stays uncollectable).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.envs.easy_come_easy_go import engine as eng
from dicearena.envs.easy_come_easy_go.turn_engine import TURN_OBS_SIZE, encode_turn_positions

from .heuristics import FullGameHeuristicAgent, any_prize_not_mine, decision_positions

__all__ = ["TurnPolicyInGame", "any_prize_not_mine"]


class TurnPolicyInGame(Agent):
    reads_state = True

    def __init__(
        self,
        turn_agent: Agent,
        valuation: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
        value_scale: float = 3.0,
        four_of_a_kind_is_two_pairs: bool = False,
    ) -> None:
        """``valuation(states, seats) -> (B, 9)`` prices the prizes (default: the full-game heuristic's position
        values); ``value_scale``: the turn task's scale the policy was trained with (3 for values in {0..3})."""
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
        raise ValueError(f"{self.name} plans on the engine state: call act_states(states, masks, seats), or "
                         "act(obs, mask, state=env.state(), seat=)")  # fmt: skip

    def act_states(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        pos = decision_positions(self.name, states, action_masks, seats)
        masks = np.atleast_2d(np.asarray(action_masks))
        values = np.clip(self.valuation(np.atleast_2d(states), pos.seats) / self.value_scale, 0.0, 1.0)
        n = masks.shape[0]
        turn_obs = np.empty((n, TURN_OBS_SIZE), dtype=np.float32)
        turn_masks = np.empty((n, eng.NUM_ACTIONS), dtype=np.int8)
        encode_turn_positions(pos.dice, pos.frozen, pos.rolls, values.astype(np.float32), self.variant, turn_obs,
                              turn_masks)  # fmt: skip
        return self.turn_agent.act_batch(turn_obs, (turn_masks != 0) & (masks != 0))


def table_agent(kind: str, agent: Agent, config: Any) -> Agent | None:
    """``agent`` as it plays the full game under ``config``: a turn-task agent through ``TurnPolicyInGame``."""
    if kind == "eceg_exact_turn":  # the optimal turn for "any prize I do not hold"
        return TurnPolicyInGame(agent, valuation=any_prize_not_mine)
    space = getattr(agent, "observation_space", None)
    if kind == "sb3" and space is not None and space.shape == (TURN_OBS_SIZE,):
        return TurnPolicyInGame(agent)  # a trained turn policy chasing the heuristic's position values
    return agent
