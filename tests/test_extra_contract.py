"""Extra!'s engine on the game contract (envs/common/contract.py): the contract's names agree with the old faces.

Why: the generic faces will drive Extra! through these functions only, so they must play exactly the games the
AEC and Parallel envs play today with the same dice, pay the same rewards, and enumerate the throw correctly.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from dicearena.agents.extra.heuristics import THROW_PROBS, THROWS
from dicearena.envs.common.chance import WORD_HIGH, SeededChance
from dicearena.envs.common.contract import CHANCE, NOBODY, PLAYING, TERMINATED
from dicearena.envs.extra import engine as E
from dicearena.envs.extra.config import ExtraConfig
from dicearena.envs.extra_v0 import parallel_env, raw_env
from tests.helpers import PlainStream

CONFIGS = [
    {"num_players": 1},
    {"num_players": 2},
    {"num_players": 3, "reward": "score"},
    {"num_players": 4, "reward": "score", "shaping": True, "children": True},
    {
        "num_players": 6,
        "sheet": {
            "minus_boxes": [1, 0, 2, 3, 12, 4, 0, 1, 2, 3, 4],
            "points": [5, 10, 0, 1000, 7, 3, 9, 11, 13, 17, 19],
            "penalty": 50,
            "extra_columns": [2, 3, 1],
        },
    },
]
GAMES_PER_CONFIG = 3  # later games continue the same chance stream in both paths


class WordDice:
    """A dice source throwing what ``SeededChance`` gives the contract functions: five words of game 0's keyed stream
    per throw (``tests.helpers.PlainStream``, stated independently), face = word % 6 (the engine's ``draw_outcome``)."""

    def __init__(self, seed: int) -> None:
        self.seed(seed)

    def seed(self, seed: int | None) -> None:
        self.stream = PlainStream(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])

    def roll(self, n: int) -> np.ndarray:
        return np.array(self.stream.words(E.NUM_DICE)[:n], dtype=np.int64) % E.NUM_FACES


class ContractGame:
    """One game played through the contract functions only, as a generic face would."""

    def __init__(self, config: ExtraConfig, seed: int) -> None:
        self.sizes = E.sizes(config)
        self.head = E.header(config)
        self.chance = SeededChance(seed)
        self.state = np.zeros(self.sizes.state, dtype=np.int32)
        self.outcome = np.zeros(self.sizes.outcome, dtype=np.int32)
        self.flags = np.zeros(self.sizes.num_players, dtype=np.int8)
        self.mask = np.zeros(self.sizes.actions, dtype=np.int8)

    def reset(self) -> None:
        E.init_state(self.state, self.head)
        self.resolve_chance()

    def resolve_chance(self) -> None:
        while E.to_act(self.state) == CHANCE:
            self.chance.outcome(E, self.state, self.outcome, self.sizes.words)
            assert E.check_outcome(self.state, self.outcome) == 0
            E.apply_outcome(self.state, self.outcome)

    def acting(self) -> list[int]:
        count = E.acting(self.state, self.flags)
        seats = np.flatnonzero(self.flags).tolist()
        assert count == len(seats)
        assert E.to_act(self.state) == (E.SIMULTANEOUS if seats else NOBODY)
        return seats

    def random_legal(self, seat: int, rng: np.random.Generator) -> int:
        E.legal_mask(self.state, seat, self.mask)
        legal = np.flatnonzero(self.mask)
        assert legal.size and all(E.is_legal(self.state, seat, a) == (self.mask[a] == 1) for a in range(E.NUM_ACTIONS))
        return int(rng.choice(legal))

    def play(self, seat: int, action: int) -> bool:
        """Record one choice; True (and the next throw made) if it resolved the round."""
        assert E.is_legal(self.state, seat, action)
        resolved = bool(E.apply_action(self.state, seat, action))
        assert resolved == (E.to_act(self.state) != E.SIMULTANEOUS)
        if resolved:
            self.round_rewards = np.zeros(self.sizes.num_players)
            E.step_rewards(self.state, self.round_rewards)
            self.resolve_chance()
        return resolved

    def final(self) -> np.ndarray:
        out = np.full(self.sizes.num_players, np.nan)
        E.rewards(self.state, out)
        return out

    def observation(self, seat: int) -> np.ndarray:
        out = np.zeros(self.sizes.observation, dtype=np.float32)
        E.observe(self.state, seat, out)
        return out


def _assert_final(game: ContractGame, returns: np.ndarray, config: ExtraConfig) -> None:
    assert E.status(game.state) == TERMINATED and E.to_act(game.state) == NOBODY and game.acting() == []
    old = np.zeros(E.MAX_PLAYERS)
    E.final_rewards(game.state, config.reward_mode, old)
    np.testing.assert_allclose(game.final(), old[: config.num_players])
    np.testing.assert_allclose(returns, game.final(), atol=1e-9)  # step rewards sum to the final rewards


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_contract_play_replays_the_parallel_env(kwargs: dict[str, Any]) -> None:
    config = ExtraConfig(**kwargs)
    env = parallel_env(config, dice=WordDice(7))
    game = ContractGame(config, 7)
    rng = np.random.default_rng(1)
    for _ in range(GAMES_PER_CONFIG):
        obs, _ = env.reset()
        game.reset()
        returns = np.zeros(config.num_players)
        while E.status(game.state) == PLAYING:
            np.testing.assert_array_equal(env.engine_state, game.state)
            np.testing.assert_array_equal(game.final(), 0.0)  # rewards are final: 0 until the game is over
            seats = game.acting()
            assert [f"player_{s}" for s in seats] == env.agents
            actions = {}
            for s in seats:
                agent = f"player_{s}"
                np.testing.assert_array_equal(obs[agent]["observation"], game.observation(s))
                actions[agent] = game.random_legal(s, rng)
                np.testing.assert_array_equal(obs[agent]["action_mask"], game.mask)
            resolved = [game.play(s, actions[f"player_{s}"]) for s in seats]
            assert resolved == [False] * (len(seats) - 1) + [True]
            obs, rewards, _, _, _ = env.step(actions)
            np.testing.assert_array_equal(env.engine_state, game.state)
            paid = [rewards.get(f"player_{s}", 0.0) for s in range(config.num_players)]
            np.testing.assert_array_equal(paid, game.round_rewards)
            returns += game.round_rewards
        assert not env.agents
        _assert_final(game, returns, config)


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_contract_play_replays_the_aec_env(kwargs: dict[str, Any]) -> None:
    config = ExtraConfig(**kwargs)
    env = raw_env(config, dice=WordDice(11))
    game = ContractGame(config, 11)
    rng = np.random.default_rng(2)
    for _ in range(GAMES_PER_CONFIG):
        env.reset()
        game.reset()
        returns = np.zeros(config.num_players)
        while E.status(game.state) == PLAYING:
            np.testing.assert_array_equal(env.engine_state, game.state)
            seats = game.acting()
            assert env.agent_selection == f"player_{seats[0]}"  # the AEC asks the acting seats in seat order
            np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], game.observation(seats[0]))
            action = game.random_legal(seats[0], rng)
            np.testing.assert_array_equal(env.observe(env.agent_selection)["action_mask"], game.mask)
            resolved = game.play(seats[0], action)
            env.step(action)
            np.testing.assert_array_equal(env.engine_state, game.state)
            paid = [env.rewards.get(f"player_{s}", 0.0) for s in range(config.num_players)]
            np.testing.assert_array_equal(paid, game.round_rewards if resolved else 0.0)
            if resolved:
                returns += game.round_rewards
        while env.agents:
            env.step(None)
        _assert_final(game, returns, config)


def test_header_holds_every_rule_knob() -> None:
    config = ExtraConfig(**CONFIGS[-1], reward="score", shaping=True, children=True)
    head = E.header(config)
    assert head.dtype == np.int32 and head.shape == (E.HEADER_SIZE,)
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, head)
    sheet = config.sheet
    expected = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.start_game(expected, 6, 1, sheet.penalty, np.array(sheet.minus_boxes, np.int32), np.array(sheet.points, np.int32),
                 np.array(sheet.extra_columns, np.int32))  # fmt: skip
    expected[E.REWARD_MODE], expected[E.SHAPING] = E.REWARD_SCORE, 1
    np.testing.assert_array_equal(state, expected)
    # every config field, and every sheet field, reaches the header
    base = ExtraConfig()
    custom = CONFIGS[-1]["sheet"]
    changed = {
        "num_players": {"num_players": 3},
        "children": {"children": True},
        "reward": {"reward": "score"},
        "shaping": {"reward": "score", "shaping": True},
        "zero_sum": {"zero_sum": True},
        "canonical_actions": {"canonical_actions": True},
        **{f"sheet.{key}": {"sheet": {**base.sheet.model_dump(), key: value}} for key, value in custom.items()},
    }
    assert {key.split(".")[0] for key in changed} == set(ExtraConfig.model_fields)
    assert set(custom) == set(type(base.sheet).model_fields)
    for field, change in changed.items():
        assert not np.array_equal(E.header(ExtraConfig(**{**base.model_dump(), **change})), E.header(base)), field


def test_sizes_match_the_faces() -> None:
    for n in range(1, E.MAX_PLAYERS + 1):
        env = parallel_env(num_players=n)
        sizes = E.sizes(env.config)
        assert sizes.num_players == n and sizes.state == env.engine_state.shape[0]
        assert sizes.observation == env.observation_space("player_0")["observation"].shape[0]
        assert sizes.actions == env.action_space("player_0").n == E.NUM_ACTIONS
        assert sizes.outcome == sizes.words == E.NUM_DICE


def _chance_node() -> np.ndarray:
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(ExtraConfig()))
    assert E.to_act(state) == CHANCE and E.chance_words(state) == E.NUM_DICE
    return state


def _enumerate(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    outcomes = np.zeros((E.NUM_THROWS, E.NUM_DICE), dtype=np.int32)
    probs = np.zeros(E.NUM_THROWS)
    count = E.enumerate_outcomes(state, outcomes, probs)
    assert count == E.NUM_THROWS
    return outcomes, probs


def test_enumerate_outcomes_lists_every_distinct_throw_with_its_probability() -> None:
    outcomes, probs = _enumerate(_chance_node())
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    expected = list(itertools.combinations_with_replacement(range(E.NUM_FACES), E.NUM_DICE))
    assert [tuple(row) for row in outcomes.tolist()] == expected
    for row, p in zip(expected, probs, strict=True):
        ways = math.factorial(E.NUM_DICE) // math.prod(math.factorial(row.count(f)) for f in set(row))
        assert p == ways / E.NUM_FACES**E.NUM_DICE
    # the exact solvers read this enumeration (no chance model of their own)
    np.testing.assert_array_equal(THROWS, outcomes)
    np.testing.assert_array_equal(THROW_PROBS, probs)


def test_enumerate_outcomes_off_a_chance_node_and_with_short_arrays() -> None:
    state = _chance_node()
    assert E.enumerate_outcomes(state, np.zeros((251, 5), np.int32), np.zeros(252)) == -1
    assert E.enumerate_outcomes(state, np.zeros((252, 5), np.int32), np.zeros(10)) == -1
    E.apply_outcome(state, np.zeros(5, dtype=np.int32))
    assert E.to_act(state) == E.SIMULTANEOUS and E.chance_words(state) == 0
    assert E.enumerate_outcomes(state, np.zeros((252, 5), np.int32), np.zeros(252)) == 0


def test_enumerate_outcomes_matches_monte_carlo_frequencies() -> None:
    state = _chance_node()
    outcomes, probs = _enumerate(state)
    index = {tuple(row): t for t, row in enumerate(outcomes.tolist())}
    chance, out, n = SeededChance(3), np.zeros(E.NUM_DICE, dtype=np.int32), 50_000
    counts = np.zeros(E.NUM_THROWS)
    for _ in range(n):
        chance.outcome(E, state, out, E.NUM_DICE)
        counts[index[tuple(sorted(out.tolist()))]] += 1
    expected = n * probs
    assert (np.abs(counts - expected) < 5 * np.sqrt(expected * (1 - probs)) + 1).all()
    chi2 = ((counts - expected) ** 2 / expected).sum()
    dof = E.NUM_THROWS - 1
    assert chi2 < dof + 6 * math.sqrt(2 * dof)


def test_draw_outcome_is_word_mod_6() -> None:
    state = _chance_node()
    words = np.array([0, 7, 2**62 + 5, WORD_HIGH - 1, 12, 99], dtype=np.int64)
    out = np.full(E.NUM_DICE, -9, dtype=np.int32)
    E.draw_outcome(state, words, out)
    assert out.tolist() == (words[:5] % 6).tolist()
    E.apply_outcome(state, out)
    assert state[E.DICE : E.DICE + 5].tolist() == (out + 1).tolist()
    E.draw_outcome(state, words, out)  # at a decision node: no dice
    assert out.tolist() == [0] * 5


@pytest.mark.parametrize("bad", [-1, 6, 100, -(2**31)])
@pytest.mark.parametrize("position", range(E.NUM_DICE))
def test_check_outcome_rejects_bad_faces(bad: int, position: int) -> None:
    state = _chance_node()
    faces = np.array([0, 5, 3, 2, 1], dtype=np.int32)
    assert E.check_outcome(state, faces) == 0
    faces[position] = bad
    assert E.check_outcome(state, faces) == 1
    E.apply_outcome(state, np.zeros(5, dtype=np.int32))
    assert E.check_outcome(state, faces) == 0  # off a chance node there is nothing to check


def _afterstates(state: np.ndarray, faces: np.ndarray) -> set[tuple[int, ...]]:
    """Every distinct solitaire sheet (and score change) the throw ``faces`` offers, die positions left out."""
    thrown = state.copy()
    E.apply_outcome(thrown, faces)
    mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    E.legal_mask(thrown, 0, mask)
    found = set()
    for action in np.flatnonzero(mask):
        after = thrown.copy()
        E.apply_action(after, 0, int(action))
        after[E.DICE : E.DICE + E.NUM_DICE] = 0
        after[E.PLAYERS + E.P_LAST] = 0  # the action id names die positions
        found.add(tuple(after.tolist()))
    return found


@pytest.mark.parametrize("children", [False, True])
def test_die_order_does_not_matter_so_multisets_suffice(children: bool) -> None:
    """Why ``enumerate_outcomes`` lists multisets: every permutation of a throw offers the same afterstates."""
    config = ExtraConfig(num_players=1, children=children)
    game = ContractGame(config, 5)
    rng = np.random.default_rng(4)
    checked = 0
    while checked < 150:
        game.reset()
        while E.status(game.state) == PLAYING:
            pending = game.state.copy()
            pending[E.PHASE] = E.PHASE_ROLL  # the same sheet, waiting for its throw
            pending[E.ROUND] -= 1
            faces = rng.integers(0, E.NUM_FACES, size=E.NUM_DICE).astype(np.int32)
            reference = _afterstates(pending, faces)
            assert reference
            for order in rng.permuted(np.tile(np.arange(E.NUM_DICE), (3, 1)), axis=1):
                assert _afterstates(pending, faces[order]) == reference
            checked += 1
            game.play(0, game.random_legal(0, rng))
