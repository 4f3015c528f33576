"""The exact Greed agents: the optimal stop rule of ``greed_solver`` in the full game and in the Greed stop task.

- :class:`GreedExactAgent` (``em_greed_exact``) plays Ea$y Money like :class:`EasyMoneyHeuristicAgent` except at
  Greed: it names the player against whom a sequence is worth the most (``sequence_value(cash)``, the optimal
  expected units; ties: the most cash, then the nearest to the left) and rolls or stops by the dynamic programme
  (``should_stop(total, named cash)``). ``sequence_value`` never falls as cash grows, so the name is the richest
  player's, as the heuristic's; the stop rule is where they differ (the heuristic's threshold loses up to 0.41
  units per sequence).
- :class:`GreedTaskExactAgent` plays the one-player Greed stop task (``envs/easy_money/greed.py``: slots ``TOTAL``
  and ``CASH``; actions ``GREED_STOP`` = 0, ``GREED_ROLL`` = 1) by the same rule. It reads the task engine's states
  (``act_states``, what ``dicearena.envs.common.seating.choose`` hands a ``reads_state`` agent) and can also decode the
  task's observations (``act_batch``: total and M are scaled by ``1 / (high + 6)``, ``high`` the top of the
  config's ``named_cash`` range, so give it that config). :class:`GreedTaskThresholdAgent` plays the heuristic's
  threshold there (a reference between random and exact).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.envs.common.config import validate_config
from dicearena.envs.easy_money import engine as E
from dicearena.envs.easy_money import greed as G

from .greed_solver import sequence_value, should_stop
from .heuristics import EasyMoneyHeuristicAgent, read_states

__all__ = ["GreedExactAgent", "GreedTaskExactAgent", "GreedTaskThresholdAgent", "exact_greed_name"]


def exact_greed_name(state: np.ndarray, seat: int, mask: np.ndarray) -> int:
    """The legal Greed name action against whom an optimal sequence is worth the most (ties: the most cash, then
    the nearest to the left)."""
    n = int(state[E.NUM_PLAYERS])
    best_key, chosen = None, -1
    for r in range(1, n):
        action = E.ACT_NAME + r - 1
        if mask[action]:
            cash = int(state[E.CASH + (seat + r) % n])
            key = (sequence_value(cash), cash)
            if best_key is None or key > best_key:
                best_key, chosen = key, action
    return chosen


class GreedExactAgent(EasyMoneyHeuristicAgent):
    """The heuristic everywhere but Greed; Greed by the exact solver (module docstring)."""

    name = "em_greed_exact"

    def act_states(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        st, masks, seat = read_states(self.name, states, action_masks, seats)
        out = super().act_states(st, masks, seat)
        phase = st[:, E.PHASE]
        for b in np.flatnonzero(phase == E.PHASE_GREED_NAME).tolist():
            out[b] = exact_greed_name(st[b], int(seat[b]), masks[b])
        for b in np.flatnonzero(phase == E.PHASE_GREED_DECIDE).tolist():
            cash = int(st[b, E.CASH + st[b, E.GREED_TARGET]])
            out[b] = E.ACT_GREED_STOP if should_stop(int(st[b, E.GREED_TOTAL]), cash) else E.ACT_GREED_ROLL
        return out


class _GreedTaskAgent(Agent):
    """Plays the Greed stop task from (total, M): ``stops(totals, cash)`` -> bool per row."""

    reads_state = True

    def __init__(self, config: Any = None) -> None:
        self.config = validate_config(G.GreedTaskConfig, config)
        self.scale = self.config.cash_range[1] + G.NUM_FACES  # the observation's 1 / scale

    def stops(self, totals: np.ndarray, cash: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _actions(self, totals: np.ndarray, cash: np.ndarray) -> np.ndarray:
        return np.where(self.stops(totals, cash), G.GREED_STOP, G.GREED_ROLL).astype(np.int64)

    def act_states(self, states: np.ndarray, action_masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
        st = np.atleast_2d(np.asarray(states))
        masks = np.atleast_2d(np.asarray(action_masks))
        if st.ndim != 2 or st.shape[1] != G.STATE_SIZE or masks.shape != (st.shape[0], 2):
            raise ValueError(f"{self.name}: need Greed task states (B, {G.STATE_SIZE}) and masks (B, 2); got "
                             f"{st.shape} and {masks.shape}")  # fmt: skip
        off = np.flatnonzero(st[:, G.PHASE] != G.P_DECIDE)
        if off.size:
            raise ValueError(f"{self.name}: Greed task state {int(off[0])} is not at a decision (phase "
                             f"{int(st[off[0], G.PHASE])})")  # fmt: skip
        return self._actions(st[:, G.TOTAL].astype(np.int64), st[:, G.CASH].astype(np.int64))

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """From the task's observations: total and M are ``round(obs * (high + 6))`` under this agent's config."""
        obs = np.atleast_2d(np.asarray(observations, dtype=np.float64))
        if obs.shape[1] != G.OBSERVATION_SIZE:
            raise ValueError(f"{self.name}: need Greed task observations (B, {G.OBSERVATION_SIZE}), got {obs.shape}")
        totals = np.rint(obs[:, 0] * self.scale).astype(np.int64)
        cash = np.rint(obs[:, 1] * self.scale).astype(np.int64)
        return self._actions(totals, cash)


class GreedTaskExactAgent(_GreedTaskAgent):
    """The Greed stop task played optimally: stop exactly when ``should_stop(total, M)``."""

    name = "em_greed_task_exact"

    def stops(self, totals: np.ndarray, cash: np.ndarray) -> np.ndarray:
        return np.array([should_stop(int(t), int(m)) for t, m in zip(totals, cash, strict=True)], dtype=bool)


class GreedTaskThresholdAgent(_GreedTaskAgent):
    """The Greed stop task by the heuristic's threshold: stop once ``total >= min(cap, M - margin)``."""

    name = "em_greed_task_threshold"

    def __init__(self, config: Any = None, greed_cap: int = 20, greed_margin: int = 4) -> None:
        super().__init__(config)
        self.greed_cap, self.greed_margin = int(greed_cap), int(greed_margin)

    def stops(self, totals: np.ndarray, cash: np.ndarray) -> np.ndarray:
        return totals >= np.minimum(self.greed_cap, cash - self.greed_margin)
