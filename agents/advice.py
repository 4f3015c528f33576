"""A planning agent's advice as observation features: its move and its value of every action.

Why: the strongest learners here are the ones whose observation carries per-action lookahead values (the turn
task's one-re-roll values, Extra!'s score-change slots). A game's best heuristic already computes such values for
every legal action (Extra!'s expectimax its one-throw expectations, Easy Come's heuristic its turn solver's action
values), so a learner that reads them starts where the heuristic is and only has to learn where to differ. The
game's own observation is unchanged; the advice is appended, ``2 * A`` floats for ``A`` action ids:

| slots (after the game's) | meaning |
|---|---|
| 0 .. A-1 | 1 at the action the advisor plays, else 0 |
| A .. 2A-1 | ``1 + max(-1, (value(a) - best) / advice_scale)`` for a legal action a, 0 for an illegal one |

so the advisor's best action reads 1, an action ``advice_scale`` or more below it 0 (a legal action that bad
reads like an illegal one: the mask tells them apart). A seat that does not decide has an empty mask and all
zeros. An advisor is any agent with ``advise(states, masks, seats) -> (actions (k,), values (k, A))`` (values
-inf where illegal) and ``advice_scale`` (a value gap that matters, in its units): ``extra_expectimax``,
``extra_planner``, ``extra_greedy`` and Easy Come's ``eceg_heuristic``.

``AdvisedAgent`` plays a policy on the advised observation (it reads both the observation and the engine state:
``reads_both``, see ``dicearena.envs.common.seating.choose``); ``AdvisedVecEnv`` gives a training VecEnv's learner the
same
view.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from gymnasium import spaces

from dicearena.agents.base import Agent

__all__ = ["AdvisedAgent", "advice_features", "advised_space", "check_advisor"]  # and AdvisedVecEnv (needs SB3)


def check_advisor(advisor: Any) -> None:
    """A TypeError naming what an advisor needs, unless ``advisor`` has it."""
    if not callable(getattr(advisor, "advise", None)) or not float(getattr(advisor, "advice_scale", 0)) > 0:
        name = getattr(advisor, "name", type(advisor).__name__)
        raise TypeError(f"{name} cannot advise: an advisor needs advise(states, masks, seats) -> (actions, values) "
                        "and advice_scale > 0 (extra_expectimax, extra_planner, extra_greedy and eceg_heuristic "
                        "have them)")  # fmt: skip


def advice_features(advisor: Any, states: np.ndarray, masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The advice slots (k, 2A) float32 for the decisions ``seats`` face in ``states`` under ``masks`` (k, A)."""
    masks = np.asarray(masks) != 0
    k, num_actions = masks.shape
    out = np.zeros((k, 2 * num_actions), dtype=np.float32)
    deciding = np.flatnonzero(masks.any(axis=1))
    if deciding.size == 0:
        return out
    legal = masks[deciding]
    actions, values = advisor.advise(np.asarray(states)[deciding], legal.astype(np.int8),
                                     np.broadcast_to(np.asarray(seats, dtype=np.int64), (k,))[deciding])  # fmt: skip
    values = np.where(legal, np.asarray(values, dtype=np.float64), -np.inf)
    best = values.max(axis=1, keepdims=True)
    gap = np.where(legal, 1.0 + np.maximum(-1.0, (values - best) / float(advisor.advice_scale)), 0.0)
    out[deciding, np.asarray(actions, dtype=np.int64)] = 1.0
    out[deciding, num_actions:] = gap
    return out


def advised_space(space: spaces.Box, num_actions: int) -> spaces.Box:
    """The game's observation Box with the advice slots (bounds 0..1) appended."""
    low = np.concatenate([space.low.astype(np.float32), np.zeros(2 * num_actions, dtype=np.float32)])
    high = np.concatenate([space.high.astype(np.float32), np.ones(2 * num_actions, dtype=np.float32)])
    return spaces.Box(low, high, dtype=np.float32)


class AdvisedAgent(Agent):
    """``policy`` (an observation policy trained on advised observations) playing with ``advisor``'s advice."""

    reads_both = True  # act_observed(observations, masks, states, seats)

    def __init__(self, policy: Any, advisor: Any, name: str | None = None) -> None:
        check_advisor(advisor)
        self.policy, self.advisor = policy, advisor
        self.name = name or getattr(policy, "name", "advised")

    @property
    def observation_space(self) -> spaces.Box | None:
        """The game's observations this agent reads (its policy's, less the advice slots)."""
        space = getattr(self.policy, "observation_space", None)
        actions = getattr(getattr(getattr(self.policy, "policy", None), "action_space", None), "n", None)
        if space is None or actions is None:
            return None
        return spaces.Box(space.low[: -2 * int(actions)], space.high[: -2 * int(actions)], dtype=np.float32)

    def act_observed(self, observations: np.ndarray, action_masks: np.ndarray, states: np.ndarray,
                     seats: Any) -> np.ndarray:  # fmt: skip
        features = advice_features(self.advisor, states, action_masks, seats)
        obs = np.concatenate([np.asarray(observations, dtype=np.float32), features], axis=1)
        return self.policy.act_batch(obs, action_masks)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise TypeError(f"{self.name} reads its advisor's ({self.advisor.name}) advice on the engine state as well as "
                        "the observation: call act_observed(observations, masks, states, seats), or in PettingZoo "
                        "act(obs, mask, state=env.state(), seat=<seat to act>)")  # fmt: skip

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None,
            seat: int | None = None) -> int:  # fmt: skip
        if state is None or seat is None:
            raise ValueError(f"{self.name} reads its advisor's advice on the engine state: pass state=env.state() and "
                             "seat= to act()")  # fmt: skip
        mask = np.asarray(action_mask)[None]
        if not mask.any():
            raise ValueError(f"{self.name}: the action mask is empty; there is no legal action to choose")
        return int(self.act_observed(np.asarray(observation)[None], mask, np.asarray(state)[None],
                                     np.array([seat], dtype=np.int64))[0])  # fmt: skip

    def reset(self, seed: int | None = None) -> None:
        for part in (self.policy, self.advisor):
            if callable(getattr(part, "reset", None)):
                part.reset(seed)


@cache
def _advised_vec_env() -> type:
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class AdvisedVecEnv(VecEnvWrapper):
        """A seat VecEnv (``engine_states``, ``learner_seats``) whose learner observations carry ``advisor``'s
        advice; a terminal observation gets zeros (nobody decides there)."""

        def __init__(self, venv: Any, advisor: Any) -> None:
            check_advisor(advisor)
            self.advisor = advisor
            num_actions = int(venv.action_space.n)
            super().__init__(venv, observation_space=advised_space(venv.observation_space, num_actions))
            self._zeros = np.zeros(2 * num_actions, dtype=np.float32)

        def _advised(self, obs: np.ndarray) -> np.ndarray:
            venv = self.venv
            features = advice_features(self.advisor, venv.engine_states, venv.action_masks(), venv.learner_seats)
            return np.concatenate([obs.astype(np.float32, copy=False), features], axis=1)

        def reset(self) -> np.ndarray:
            return self._advised(self.venv.reset())

        def step_wait(self) -> Any:
            obs, rewards, dones, infos = self.venv.step_wait()
            for i in np.flatnonzero(dones).tolist():
                terminal = infos[i].get("terminal_observation")
                if terminal is not None:
                    infos[i]["terminal_observation"] = np.concatenate([terminal.astype(np.float32), self._zeros])
            return self._advised(obs), rewards, dones, infos

        def action_masks(self) -> np.ndarray:
            return self.venv.action_masks()

    return AdvisedVecEnv


def __getattr__(name: str) -> Any:
    if name == "AdvisedVecEnv":  # SB3 is the train extra's: imported when asked for
        return _advised_vec_env()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
