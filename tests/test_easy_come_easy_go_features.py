"""The ``prize_features`` observation slots of Easy Come, Easy Go (issue 10): each prize's exact chance of being
secured this turn and whom it would be taken from, checked against a plain-Python brute force of the rules file."""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import dicearena.envs  # noqa: F401  (registers the games)
from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.config import ConfigError, validate_config
from dicearena.envs.common.game_aec import GameAEC, make_env
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.game_seat import SeatEnv
from dicearena.envs.easy_come_easy_go import engine as E
from dicearena.envs.easy_come_easy_go.config import EasyComeEasyGoConfig

GAME = "easy_come_easy_go"
FEATURES = 2 * E.NUM_PRIZES  # 9 chances, then 9 holder offsets


def satisfies(dice: tuple[int, ...], prize: int, four_is_two_pairs: bool) -> bool:
    """The rules file's prize table, restated (not the engine's code)."""
    counts = sorted(Counter(dice).values())
    total, top = sum(dice), counts[-1]
    return [
        top >= 3 and all(d % 2 == 0 for d in dice),
        top >= 3 and all(d % 2 == 1 for d in dice),
        total >= 17,
        total == 7,
        top == 4,
        sorted(dice) in ([0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5]),
        total == 13,
        total <= 3,
        counts == [2, 2] or (four_is_two_pairs and top == 4),
    ][prize]


@cache
def brute_chances(dice: tuple[int, ...], frozen: int, variant: bool) -> tuple[float, ...]:
    """Per prize, the best chance of satisfying it by the turn's end from this decision: 1 if the dice do now, else
    the best freeze of a non-empty part of the just-rolled dice, leaving some to re-roll, averaged over every
    ordered re-roll (freezing all that is left ends the turn empty)."""
    best = [1.0 if satisfies(dice, p, variant) else 0.0 for p in range(E.NUM_PRIZES)]
    free = [i for i in range(E.NUM_DICE) if not (frozen >> i) & 1]
    for n in range(1, len(free)):
        for keep in itertools.combinations(free, n):
            kept = frozen | sum(1 << i for i in keep)
            rolled = [i for i in free if i not in keep]
            total = [0.0] * E.NUM_PRIZES
            outcomes = list(itertools.product(range(E.NUM_FACES), repeat=len(rolled)))
            for faces in outcomes:
                new = list(dice)
                for i, f in zip(rolled, faces, strict=True):
                    new[i] = f
                for p, v in enumerate(brute_chances(tuple(new), kept, variant)):
                    total[p] += v
            best = [max(b, t / len(outcomes)) for b, t in zip(best, total, strict=True)]
    return tuple(best)


def decision_state(config: EasyComeEasyGoConfig, mover: int, dice: list[int], frozen: int, owners: list[int]):
    """The engine at ``mover``'s decision with these dice (``frozen`` kept from earlier rolls) and prize holders."""
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(config.model_copy(update={"first_player": mover})))
    state[E.OWNER : E.OWNER + E.NUM_PRIZES] = owners
    state[E.FROZEN] = frozen
    state[E.ROLLS] = bin(frozen).count("1")
    state[E.DICE : E.DICE + E.NUM_DICE] = dice
    E.apply_chance(state, np.array([dice[i] for i in range(E.NUM_DICE) if not (frozen >> i) & 1], dtype=np.int32))
    assert state[E.PHASE] == E.PHASE_DECIDE and state[E.CURRENT] == mover
    return state


def random_owners(rng: np.random.Generator, players: int, mover: int) -> list[int]:
    """Holders of the nine prizes (centre = -1), the mover holding at most two (three would have won)."""
    owners = rng.integers(-1, players, E.NUM_PRIZES)
    mine = np.flatnonzero(owners == mover)
    owners[mine[2:]] = E.CENTRE
    return owners.tolist()


def features(state: np.ndarray, seat: int, players: int) -> np.ndarray:
    out = np.zeros(E.observation_size(players, True), dtype=np.float32)
    E.observe(state, seat, out)
    return out[E.observation_size(players) :]


def test_chances_and_holders_match_a_brute_force_on_seeded_positions() -> None:
    """The float64 table to 1e-12, the float32 slots to their rounding, holders in the mover's frame."""
    rng = np.random.default_rng(10)
    for _ in range(150):
        players, variant = int(rng.integers(2, 7)), bool(rng.integers(2))
        config = EasyComeEasyGoConfig(num_players=players, four_of_a_kind_is_two_pairs=variant, prize_features=True)
        mover = int(rng.integers(players))
        dice = rng.integers(0, E.NUM_FACES, E.NUM_DICE).tolist()
        frozen = int(rng.integers(0, E.ALL_FROZEN))  # at a decision some die was just rolled
        owners = random_owners(rng, players, mover)
        state = decision_state(config, mover, dice, frozen, owners)
        expected = brute_chances(tuple(dice), frozen, variant)
        row = E.CHANCE_POSITION[frozen, E.dice_code(np.array(dice))]
        np.testing.assert_allclose(E.PRIZE_CHANCE[int(variant), row], expected, atol=1e-12)  # float64 table
        for seat in (mover, int(rng.integers(players))):  # the mover's chances, whoever observes
            got = features(state, seat, players)
            for p, owner in enumerate(owners):
                assert got[p] == pytest.approx(0.0 if owner == mover else expected[p], abs=1e-6)
                offset = 0.0 if owner in (E.CENTRE, mover) else ((owner - mover) % players) / (players - 1)
                assert got[E.NUM_PRIZES + p] == pytest.approx(offset, abs=1e-7)


def test_rulebook_example_b_hand_computed() -> None:
    """Dice 0,1,2,5 with 0 and 1 frozen: freezing the 2 leaves one roll, where a 0 gives prize 7, a 3 prize 5, a 4
    prize 3 (each 1/6; prize 3 also by freezing the 5 and rolling a 1: still one die, still 1/6); with 0,1,2 frozen
    nothing is left to re-roll and 0,1,2,5 satisfies nothing."""
    config = EasyComeEasyGoConfig(prize_features=True)
    got = features(decision_state(config, 0, [0, 1, 2, 5], 0b0011, [E.CENTRE] * 9), 0, 2)
    np.testing.assert_allclose(got[[7, 5, 3]], [1 / 6] * 3, rtol=1e-6)
    assert not features(decision_state(config, 0, [0, 1, 2, 5], 0b0111, [E.CENTRE] * 9), 0, 2).any()


def test_satisfied_now_is_1_and_held_by_the_mover_is_0() -> None:
    """Rulebook example A's final dice 2,2,2,4 satisfy prize 0; the mover holding prize 0 makes it 0, an opponent
    holding it leaves 1 and names them."""
    config = EasyComeEasyGoConfig(num_players=3, prize_features=True)
    owners = [E.CENTRE] * 9
    assert features(decision_state(config, 1, [2, 2, 2, 4], 0b0111, owners), 1, 3)[0] == 1.0
    owners[0] = 1
    assert features(decision_state(config, 1, [2, 2, 2, 4], 0b0111, owners), 1, 3)[0] == 0.0
    owners[0] = 0  # two seats after the mover (seat 1) of 3: offset 2 / 2
    got = features(decision_state(config, 1, [2, 2, 2, 4], 0b0111, owners), 2, 3)
    assert (got[0], got[E.NUM_PRIZES]) == (1.0, 1.0)


@pytest.mark.parametrize("players", range(2, 7))
def test_sizes_grow_by_18_and_the_default_is_unchanged(players: int) -> None:
    off, on = (E.sizes(EasyComeEasyGoConfig(num_players=players, prize_features=f)) for f in (False, True))
    assert off.observation == 41 + 9 * (players + 1) + 2 * players + 1  # the README's table: 73 .. 117
    assert on.observation == off.observation + FEATURES
    assert on._replace(observation=off.observation) == off
    assert E.header(EasyComeEasyGoConfig(num_players=players))[-1] == 0


def test_bad_values_are_clear_config_errors() -> None:
    for bad in ("yes", 1, None):
        with pytest.raises(ConfigError, match="prize_features"):
            validate_config(EasyComeEasyGoConfig, prize_features=bad)


def test_the_option_only_appends_and_is_zero_off_decisions() -> None:
    """The same seeded games with the option off and on: identical base observations (also the final ones of every
    seat), the appended slots in [0, 1] and zero once the game is over."""
    runs = [BatchedGame(GAME, 64, seed=3, num_players=3, max_turns=30, prize_features=f) for f in (False, True)]
    (obs_off, masks, _), (obs_on, masks_on, _) = (b.reset() for b in runs)
    rng = np.random.default_rng(3)
    base = obs_off.shape[1]
    assert obs_on.shape[1] == base + FEATURES
    for _ in range(300):
        np.testing.assert_array_equal(obs_on[:, :base], obs_off)
        np.testing.assert_array_equal(masks_on, masks)
        assert (obs_on >= 0).all() and (obs_on <= 1).all()
        actions = sample_masked(masks, rng)
        (obs_off, masks, *_, info_off), (obs_on, masks_on, *_, info_on) = (b.step(actions) for b in runs)
        final_off, final_on = info_off["final_observation"], info_on["final_observation"]
        np.testing.assert_array_equal(final_on[..., :base], final_off)
        assert not final_on[..., base:].any()


class FirstLegal:
    """A deterministic opponent: its first legal move."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return masks.argmax(axis=1)


def test_with_the_option_on_the_envs_pass_their_checkers_and_the_batch_replays_the_aec_game() -> None:
    api_test(make_env(GAME, prize_features=True, num_players=3), num_cycles=200)
    check_env(SeatEnv(GAME, FirstLegal(), num_players=2, prize_features=True, max_turns=40), skip_render_check=True)
    env, batch = GameAEC(GAME, prize_features=True, num_players=3), BatchedGame(GAME, 1, seed=5, num_players=3,
                                                                                 prize_features=True)  # fmt: skip
    env.reset(seed=5)
    obs, masks, info = batch.reset()
    rng = np.random.default_rng(0)
    for _ in range(400):
        agent = env.agent_selection
        np.testing.assert_array_equal(env.observe(agent)["observation"], obs[0])
        actions = sample_masked(masks, rng)
        env.step(int(actions[0]))
        obs, masks, rewards, terminated, truncated, info = batch.step(actions)
        if terminated[0] or truncated[0]:
            env.reset()
