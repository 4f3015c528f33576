"""Stress: the three batched engines over 10^5+ games each, with short turn limits and adversarial legal policies.

Why: a game that ends in an unusual place (inside a chance event, at the first decision, every step) must be
recorded and restarted like any other, or the whole batch stops. Each run checks, every step, that every game
that must act has a legal action and that the games reported ended are exactly the ones the engine restarted
(read off the states: within a game a progress key only grows), and that the requested number of games ended.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.easy_come_easy_go import engine as EC
from dicearena.envs.extra import engine as EX
from dicearena.envs.yay import engine as YE

B = 4096
GAMES = 6 * B  # per case; each engine runs 8 or 9 cases: about 2 * 10^5 games per engine

Policy = Callable[[np.ndarray, np.random.Generator], np.ndarray]


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return sample_masked(masks, rng)


def throw_again(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Yay!: throw again whenever allowed (the last action id), so many turns end inside a throw."""
    actions = sample_masked(masks, rng)
    actions[masks[:, -1] != 0] = masks.shape[1] - 1
    return actions


_SINGLE_FREEZES = np.array([EC.FREEZE_OFFSET + (1 << i) for i in range(EC.NUM_DICE)])


def freeze_one(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Easy Come: freeze exactly one die (a random one still free) whenever legal: four decisions per turn, no
    prize ever taken, so every game runs to its turn limit."""
    single = masks[:, _SINGLE_FREEZES].astype(np.int8)
    choice = sample_masked(single, rng)
    actions = sample_masked(masks, rng)
    return np.where(choice >= 0, _SINGLE_FREEZES[np.maximum(choice, 0)], actions)


def lowest_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.where(masks.any(axis=1), masks.argmax(axis=1), -1)


def highest_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    last = masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)
    return np.where(masks.any(axis=1), last, -1)


def _count_ended(step: Callable[[], tuple[np.ndarray, np.ndarray]], games: int, max_steps: int) -> tuple[int, int]:
    """Call ``step`` (-> reported ended indices, restarted indices seen in the states) until ``games`` games ended;
    return (games ended, steps)."""
    ended = 0
    for steps in range(1, max_steps + 1):
        reported, restarted = step()
        np.testing.assert_array_equal(reported, restarted)
        ended += reported.size
        if ended >= games:
            return ended, steps
    raise AssertionError(f"only {ended} of {games} games ended in {max_steps} steps")


@pytest.mark.parametrize("max_turns", [1, 2, 5, 20])
@pytest.mark.parametrize("policy", [random_legal, throw_again], ids=["random", "throw_again"])
def test_batched_yay_survives_short_games_and_ends_inside_throws(max_turns: int, policy: Policy) -> None:
    batch = BatchedGame("yay", B, max_turns=max_turns, seed=max_turns, copy=False)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(max_turns)
    squares = YE.BOARD + np.arange(64)
    in_throws = 0

    def step() -> tuple[np.ndarray, np.ndarray]:
        nonlocal masks, in_throws
        assert masks.any(axis=1).all()
        _, masks, _, terminated, truncated, info = batch.step(policy(masks, rng))
        final = info["final_state"]
        cut = truncated[info["ended"]]
        assert (cut == (final[:, YE.TRUNCATED] == 1)).all() and (final[cut, YE.TURN] == max_turns).all()
        assert all(YE.line_filled(state) for state in final[~cut])
        assert (terminated | truncated).sum() == info["ended"].size
        in_throws += int(np.isin(final[:, YE.LAST_EVENT], (YE.EVENT_NOT_HIGHER, YE.EVENT_ALL_FILLED)).sum())
        fresh = (batch.states[:, squares] == YE.EMPTY).all(axis=1)  # squares are never emptied within a game
        return info["ended"], np.flatnonzero(fresh)

    # a turn is at most 16 throws (each strictly higher) plus a cross-off; games need start rolls, no decisions
    ended, _ = _count_ended(step, GAMES, max_steps=17 * max_turns * (GAMES // B + 1))
    assert ended >= GAMES
    if policy is throw_again and max_turns > 2:  # (the two players' first turns are one throw and a write each)
        assert in_throws > 0


@pytest.mark.parametrize("max_turns", [1, 2, 5, 20])
@pytest.mark.parametrize("policy", [random_legal, freeze_one], ids=["random", "freeze_one"])
def test_easy_come_batched_engine_survives_short_games(max_turns: int, policy: Policy) -> None:
    batch = BatchedGame("easy_come_easy_go", B, num_players=3, max_turns=max_turns, seed=max_turns, copy=False)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(max_turns)

    def progress() -> np.ndarray:
        return batch.states[:, EC.TURN].astype(np.int64) * 8 + batch.states[:, EC.ROLLS]

    def step() -> tuple[np.ndarray, np.ndarray]:
        nonlocal masks
        assert masks.any(axis=1).all()
        before = progress()
        _, masks, _, terminated, truncated, info = batch.step(policy(masks, rng))
        final = info["final_state"]
        assert (truncated[info["ended"]] == (final[:, EC.WINNER] < 0)).all()
        assert (final[truncated[info["ended"]], EC.TURN] == max_turns).all()
        assert (terminated | truncated).sum() == info["ended"].size
        return info["ended"], np.flatnonzero(progress() <= before)  # (turn, roll) grows at every step of a game

    # every decision collects (ending the turn) or freezes one die or more: a turn is at most 4 decisions
    ended, steps = _count_ended(step, GAMES, max_steps=4 * max_turns * (GAMES // B + 1))
    if policy is freeze_one:  # exactly 4 decisions per turn: all B games end together every 4 * max_turns steps
        assert steps % (4 * max_turns) == 0 and ended == B * steps // (4 * max_turns)


@pytest.mark.parametrize("num_players", [1, 2, 4])
@pytest.mark.parametrize("policy", [random_legal, lowest_legal, highest_legal], ids=["random", "lowest", "highest"])
def test_extra_batched_engine_survives_many_games(num_players: int, policy: Policy) -> None:
    """Extra! has no turn limit (every game ends when every seat has filled an EXTRA column): seat counts and
    policies that fill one column fast (the lowest id) or spread over the columns (the highest) instead."""
    batch = BatchedGame("extra", B, num_players=num_players, seed=num_players, copy=False)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(num_players)
    done_slots = EX.PLAYERS + np.arange(num_players) * EX.PLAYER_SIZE + EX.P_DONE

    def step() -> tuple[np.ndarray, np.ndarray]:
        nonlocal masks
        acting = masks.any(axis=2)
        assert acting.any(axis=1).all()  # every game waits for someone
        np.testing.assert_array_equal(acting, batch.states[:, done_slots] == 0)  # exactly the seats still playing
        before = batch.states[:, EX.ROUND].copy()
        actions = policy(masks.reshape(-1, EX.NUM_ACTIONS), rng).reshape(B, num_players)
        _, masks, _, _, _, info = batch.step(actions)
        assert (info["final_state"][:, EX.PHASE] == EX.PHASE_OVER).all()
        return info["ended"], np.flatnonzero(batch.states[:, EX.ROUND] <= before)  # a new game is at round 1

    _count_ended(step, GAMES, max_steps=2000)
