"""Scripted Yay! positions for the rules and agent tests: dice put on chosen squares, numbers written by hand."""

from __future__ import annotations

from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.agents.random_agent import RandomAgent, sample_masked
from dicearena.envs.yay import engine as E
from dicearena.envs.yay.chance import ScriptedThrows, SeededThrows, corners_at
from dicearena.envs.yay_v0 import raw_env

FAR = ((0, 0), (6, 6))  # two dice parked in opposite corners, away from the action in the middle


def sq(r: int, c: int, cols: int = 8) -> int:
    return r * cols + c


def throw(faces: list[int], at: tuple[int, int], parked: tuple = FAR) -> tuple[list[int], np.ndarray]:
    """Faces and a landing with one die's lower corner on square ``at`` and the other two parked."""
    return faces, corners_at(at, *parked)


def game(*throws: tuple, starter: int = 0, **config: Any) -> raw_env:
    """A game where ``starter`` starts (start rolls 18 against 3s) and then throws the scripted ``throws``."""
    starts = [[6, 6, 6] if seat == starter else [1, 1, 1] for seat in range(config.get("num_players", 2))]
    env = raw_env(dice=ScriptedThrows([*starts, *throws]), **config)
    env.reset()
    return env


def put(env: raw_env, seat: int, value: int, *squares: tuple[int, int]) -> None:
    for r, c in squares:
        env.engine_state[E.BOARD + sq(r, c)] = E.number_code(seat, value)
    E.refresh(env.engine_state)  # a hand edit: the kept bitboards follow the sheet


def block(env: raw_env, *squares: tuple[int, int]) -> None:
    for r, c in squares:
        env.engine_state[E.BOARD + sq(r, c)] = E.BLOCKED
    E.refresh(env.engine_state)


def legal(env: raw_env) -> set[int]:
    return set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist())


def after_first_turns(env: raw_env) -> None:
    env.engine_state[E.FIRST_DONE : E.FIRST_DONE + E.MAX_PLAYERS] = 1


class ThrowAgain(Agent):
    """A legal policy that throws again whenever it may (with probability ``p``), else plays a random legal action:
    it ends many turns inside a throw (a re-throw not higher, with nothing to cross off, or rule 5)."""

    name = "throw_again"

    def __init__(self, p: float = 1.0, seed: int = 0) -> None:
        self.p = p
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.ascontiguousarray(action_masks, dtype=np.int8)
        picks = sample_masked(masks, self.rng)
        again = (masks[:, -1] != 0) & (self.rng.random(len(masks)) < self.p)
        picks[again] = masks.shape[1] - 1
        return picks


def decide(agent: Agent, env: raw_env) -> int:
    """``agent``'s action for the AEC player to move: a planning agent reads the engine state, others the
    observation (the PettingZoo calls of README.md)."""
    seen = env.observe(env.agent_selection)
    seat = env.possible_agents.index(env.agent_selection)
    if agent.reads_state:
        return agent.act(seen["observation"], seen["action_mask"], state=env.state(), seat=seat)
    return agent.act(seen["observation"], seen["action_mask"])


# Random-play positions the agents' choices are pinned on (tests/test_yay_agents.py, test_yay_lookahead.py): the
# game's config and the seed of its one game.
POSITION_CASES = [({}, 11), ({"num_players": 4}, 12),
                  ({"num_players": 3, "rows": 5, "cols": 7, "end_when": "row_and_column"}, 13),
                  ({"rows": 4, "cols": 9, "die_size": 1.0, "max_turns": 30}, 14)]  # fmt: skip


def random_positions(config: dict[str, Any], seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every decision of one seeded AEC game of uniformly random play: (engine states, masks, seats to move).

    The throws are ``SeededThrows``' (the env's stream before it became the generic AEC env), so the games the
    agents' choices were recorded on stay the same."""
    env = raw_env(dice=SeededThrows(), **config)
    env.reset(seed=seed)
    player = RandomAgent(seed=seed)
    states, masks, seats = [], [], []
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        seen = env.observe(env.agent_selection)
        states.append(env.state())
        masks.append(seen["action_mask"])
        seats.append(env.possible_agents.index(env.agent_selection))
        env.step(player.act(seen["observation"], seen["action_mask"]))
    return np.stack(states), np.stack(masks), np.array(seats, dtype=np.int64)
