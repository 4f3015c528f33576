"""Yay! greedy baseline: each rule of its policy on crafted positions (scripted throws), legality over many random
games, its choices pinned on recorded positions, strength against random play, and the registry and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dicearena.agents import make_agent
from dicearena.agents.evaluation.play import play_games
from dicearena.agents.yay import BEAT, YayGreedyAgent
from dicearena.envs.yay import engine as E
from dicearena.envs.yay.engine import final_standings
from dicearena.envs.yay_v0 import raw_env
from tests.yay_scripts import (
    POSITION_CASES,
    ThrowAgain,
    after_first_turns,
    block,
    decide,
    game,
    put,
    random_positions,
    sq,
    throw,
)

AGAIN = 192  # throw again on the default 8x8 sheet
AGENT = YayGreedyAgent()


def choice(env: raw_env, agent: YayGreedyAgent = AGENT) -> int:
    """The agent's action for the player to move (read off the engine state); it must be legal."""
    action = decide(agent, env)
    assert env.observe(env.agent_selection)["action_mask"][action] == 1
    return action


def test_beat_table_is_the_exact_three_dice_distribution() -> None:
    assert BEAT[2] == 1.0 and BEAT[18] == 0.0
    assert BEAT[8] == pytest.approx(160 / 216) and BEAT[10] == 0.5 and BEAT[12] == pytest.approx(56 / 216)


# --- (a) each rule of the policy


def test_a_forced_cross_off_takes_the_lowest_own_number() -> None:
    """Rule 9 (10 then 10): of own 12, 5 and 7 the 5 goes, wherever it stands."""
    env = game(throw([3, 3, 4], (3, 3)), throw([4, 4, 2], (3, 3)), throw([1, 1, 1], (3, 0)))
    after_first_turns(env)
    put(env, 0, 12, (2, 6))
    put(env, 0, 7, (0, 7))
    put(env, 0, 5, (5, 5))
    assert choice(env) != AGAIN  # a 10 is written, not thrown again; the test throws again itself
    env.step(AGAIN)
    assert env.engine_state[E.PHASE] == E.PHASE_CROSS
    action = choice(env)
    assert action == 128 + sq(5, 5)
    env.step(action)
    assert E.is_crossed(env.engine_state[E.BOARD + sq(5, 5)])


def test_equal_lowest_numbers_cross_off_the_most_exposed_one() -> None:
    """Two own 5s: the one on the edge (3 empty neighbours) stays, the open one (4) goes, though its index is higher."""
    env = game(throw([3, 3, 4], (3, 3)), throw([4, 4, 2], (3, 3)))
    after_first_turns(env)
    put(env, 0, 5, (5, 0), (5, 5))
    put(env, 0, 9, (1, 4))
    env.step(AGAIN)
    assert choice(env) == 128 + sq(5, 5)


@pytest.mark.parametrize(("num_players", "mover", "opponent"), [(2, 0, 1), (2, 1, 0), (4, 0, 3), (4, 2, 1), (4, 3, 0)])
def test_writing_prefers_the_square_that_crosses_an_opponent_number(
    num_players: int, mover: int, opponent: int
) -> None:
    """First turn, total 12: the square beside an opponent's 9 (any relative seat) beats the safe corners; an own 9
    beside a lower square tells the observer's numbers apart from the opponents' (mixed up, (3, 5) would win)."""
    env = game(throw([4, 4, 4], (3, 4)), throw([1, 1, 1], (0, 3)), num_players=num_players, starter=mover)
    assert env.agent_selection == f"player_{mover}"
    put(env, mover, 9, (3, 6))  # beside (3, 5), a touched square
    put(env, opponent, 9, (4, 6))  # beside (4, 5), a touched square
    action = choice(env)
    assert action == sq(4, 5)
    env.step(action)
    assert E.is_crossed(env.engine_state[E.BOARD + sq(4, 6)])


def test_without_a_number_to_cross_the_least_exposed_square_is_written() -> None:
    """Total 12, no opponent number near: the corner (7, 7) has 2 empty neighbours, every other touched square 3-4."""
    env = game(throw([4, 4, 4], (2, 2), parked=((4, 4), (6, 6))))
    assert choice(env) == sq(7, 7)


def test_throws_again_on_a_low_total_but_not_in_the_first_turn_nor_on_a_high_total() -> None:
    first = game(throw([1, 2, 2], (3, 3)))  # 5 in the first turn: the first throw counts
    assert choice(first) < 64
    later = game(throw([1, 2, 2], (3, 3)))
    after_first_turns(later)
    assert choice(later) == AGAIN  # 5 < 9 later on: throw again
    high = game(throw([4, 4, 4], (3, 3)))
    after_first_turns(high)
    assert choice(high) < 64  # 12: write
    edge = game(throw([3, 3, 3], (3, 3)))
    after_first_turns(edge)
    assert choice(edge) < 64 and choice(edge, YayGreedyAgent(throw_again_below=10)) == AGAIN  # the knob


def walled_in(faces: list[int], later: bool) -> raw_env:
    """The four squares around (3, 3)-(4, 4) are the only empty touched ones, every way in guarded by an opponent
    18 except (4, 5), which holds an own 10: writing is impossible, blocking is the choice."""
    env = game(throw(faces, (3, 3)))
    if later:
        after_first_turns(env)
    block(env, (0, 0), (0, 1), (1, 0), (1, 1), (6, 6), (6, 7), (7, 6), (7, 7))
    put(env, 1, 18, (2, 3), (2, 4), (3, 2), (4, 2), (5, 3), (5, 4), (3, 5))
    put(env, 0, 10, (4, 5))
    return env


@pytest.mark.parametrize(("faces", "later"), [([4, 4, 4], False), ([1, 2, 3], False), ([4, 4, 4], True)])
def test_blocks_the_square_beside_own_numbers(faces: list[int], later: bool) -> None:
    """(4, 4) is beside the own 10: blocking it shuts the way to cross it (the other three squares come first)."""
    env = walled_in(faces, later)
    mask = env.observe("player_0")["action_mask"]
    assert not mask[:64].any() and mask[64 + sq(3, 3)]
    assert choice(env) == 64 + sq(4, 4)


def test_when_only_blocking_throws_again_if_the_next_throw_likely_beats_this_one() -> None:
    assert choice(walled_in([1, 2, 3], later=True)) == AGAIN  # P(beat 6) = 0.95
    assert choice(walled_in([3, 3, 4], later=True)) == AGAIN  # P(beat 10) = 0.5 exactly
    assert choice(walled_in([3, 4, 4], later=True)) == 64 + sq(4, 4)  # P(beat 11) = 0.375


# --- (b) legality, and the batch agrees with one row at a time


def play(agents: list, seed: int, record: list | None = None, **config: object) -> dict[str, float]:
    """One raw AEC game (an illegal action would raise); greedy decisions checked against the mask and recorded."""
    env = raw_env(**config)
    env.reset(seed=seed)
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        seat = env.possible_agents.index(env.agent_selection)
        agent = agents[seat]
        mask = env.observe(env.agent_selection)["action_mask"]
        action = decide(agent, env)
        if isinstance(agent, YayGreedyAgent):
            assert mask[action] == 1
            if record is not None:
                record.append((env.state(), mask, seat, action))
        env.step(action)
    return env.rewards


@pytest.mark.parametrize(
    ("config", "games"),
    [({}, 30), ({"num_players": 4}, 20), ({"rows": 5, "cols": 7}, 40), ({"num_players": 3, "rows": 5, "cols": 7}, 30)],
)
def test_only_legal_actions_in_random_games(config: dict, games: int) -> None:
    """Greedy in every seat, and greedy among random players (more varied positions: cross-offs, blocks)."""
    greedy = YayGreedyAgent()
    n = config.get("num_players", 2)
    record: list = []
    for seed in range(games):
        seats = [greedy] * n if seed % 2 else [make_agent("random", seed=seed)] * n
        seats[seed % n] = greedy
        play(seats, seed, record, **config)
    states, masks, seat, actions = (np.stack(x) for x in zip(*record, strict=True))
    assert len(actions) > 10 * games
    np.testing.assert_array_equal(greedy.act_states(states, masks, seat), actions)
    squares = config.get("rows", 8) * config.get("cols", 8)
    kinds = np.bincount(actions // squares, minlength=4)
    assert (kinds[[0, 2, 3]] > 0).all(), kinds  # writes, cross-offs and throws again all happened (blocks are rare)


# Choices of the agent as it was when it decoded observation floats (before it read engine states), on every
# decision of tests/yay_scripts.py's POSITION_CASES games: planning on the state changed no decision.
OLD_CHOICES = [
    "7 6 5 22 63 22 149 8 5 162 8 8 8 33 192 33 3 192 45 33 192 181 192 52 54 52 10 192 39 17 192 32 62 192 52 10 36 "
    "43 192 43 192 43 42 43 192 20 192 192 192 192 94 82 49 39 48 42 100 91 192",
    "23 57 39 22 59 16 16 59 23 159 192 44 33 35 44 42 44 35 37 19 13 23 164 33 37 33 188 33 164 26 23 44 192 21 42 "
    "35 154 47 186 37 192 61 192 37 59 164 192 59 129 192 10 132 89 192 10 57 2 192 192 35 50 129 12 192",
    "1 7 16 21 28 105 9 11 15 73 11 105 105 9 30 9 12 15 25 29 1 4 86 0 99 9 9 105 26 17 25 105 6 15 27 105 0 80 26",
    "35 0 10 17 23 22 8 35 108 108 5 18 5 13 31 108 108 29 31 85 34 16 78 11 16 11",
]


@pytest.mark.parametrize(("case", "expected"), list(zip(POSITION_CASES, OLD_CHOICES, strict=True)))
def test_choices_on_recorded_positions_are_the_observation_agents(case: tuple, expected: str) -> None:
    """2 and 4 players on 8x8, 3 players on 5x7 ending at a full row and column, a 4x9 sheet with small dice and a
    turn limit: the batch's choices are the old agent's, one by one; so is each position played alone."""
    states, masks, seats = random_positions(*case)
    want = [int(a) for a in expected.split()]
    assert AGENT.act_states(states, masks, seats).tolist() == want
    alone = [AGENT.act(np.zeros(1), m, state=s, seat=int(p)) for s, m, p in zip(states, masks, seats, strict=True)]
    assert alone == want


# --- (c) strength


def test_beats_random_play_clearly() -> None:
    """400 two-player games, seats alternated: measured 0.98 wins (shared wins count); asserted > 0.85."""
    greedy, random_ = YayGreedyAgent(), make_agent("random", seed=0)
    wins = 0
    for seed, seat in zip(range(400), itertools.cycle((0, 1))):
        seats = [greedy, random_] if seat == 0 else [random_, greedy]
        wins += play(seats, seed)[f"player_{seat}"] > 0
    assert wins / 400 > 0.85, wins


# --- (d) registry and bad input


def test_registry_and_bad_input() -> None:
    agent = make_agent("yay_greedy", throw_again_below=8)
    assert isinstance(agent, YayGreedyAgent) and agent.name == "yay_greedy" and agent.throw_again_below == 8
    assert agent.reads_state
    env = game(throw([4, 4, 4], (3, 3)))
    eight, state = env.observe("player_0"), env.state()
    five = raw_env(rows=5, cols=7, num_players=3)  # any sheet and table: read off the state
    five.reset(seed=0)
    assert five.observe(five.agent_selection)["action_mask"][decide(agent, five)] == 1
    with pytest.raises(ValueError, match=r"plans on the engine state: pass state=env.state\(\) and seat="):
        AGENT.act(eight["observation"], eight["action_mask"])
    with pytest.raises(TypeError, match=r"plans on Yay! engine states, not observations: call act_states"):
        AGENT.act_batch(eight["observation"][None], eight["action_mask"][None])
    with pytest.raises(ValueError, match=r"state 0 is a 8x8 sheet, whose masks have 193 entries, got 106"):
        AGENT.act_states(state[None], np.ones((1, 106), dtype=np.int8), np.array([0]))
    with pytest.raises(ValueError, match="state 0 does not wait for a decision of seat 1"):
        AGENT.act_states(state[None], eight["action_mask"][None], np.array([1]))
    with pytest.raises(ValueError, match=rf"need Yay! engine states \(B, {E.STATE_SIZE}\)"):
        AGENT.act_states(state[None, :100], eight["action_mask"][None], np.array([0]))
    with pytest.raises(ValueError, match="mask is empty"):
        AGENT.act(eight["observation"], np.zeros(193, dtype=np.int8), state=state, seat=0)
    with pytest.raises(TypeError, match="bad arguments"):
        make_agent("yay_greedy", rows=5, cols=7)
    with pytest.raises(ValueError, match="'throw_again_below' must be"):
        make_agent("yay_greedy", throw_again_below=25)
    with pytest.raises(ValueError, match="weights must be finite"):
        YayGreedyAgent(risk_weight=float("nan"))
    with pytest.raises(TypeError, match="bad arguments"):
        make_agent("yay_greedy", sheet=3)


def test_evaluation_counts_games_that_end_inside_a_throw() -> None:
    """A turn limit of 5 and players who always throw again: many games end inside a throw; every one is counted."""
    seats = np.zeros((600, 2), dtype=np.int64)
    result = play_games("yay", seats, [ThrowAgain(seed=0)], {"max_turns": 5}, seed=0, batch_size=256)
    assert result["truncated"].all() and not result["final_rewards"].any()
    assert (result["final_states"][:, E.TURN] == 5).all()
    assert (final_standings(result["final_states"], 2)[..., 0].sum(axis=1) <= 5).all()  # at most one number a turn
