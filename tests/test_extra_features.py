"""Extra!: score-change slots zero at illegal ids (always), and the ``canonical_actions`` option (one legal id per
distinct resulting sheet). Engine values are checked against plain-Python rules and brute force on seeded
positions: every legal action applied to a one-player copy of the seat's sheet."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

from dicearena.agents import make_agent
from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.config import ConfigError, validate_config
from dicearena.envs.common.game_aec import GameAEC, make_env
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.game_parallel import GameParallel
from dicearena.envs.extra import engine as E
from dicearena.envs.extra.config import ExtraConfig, SolitaireConfig
from dicearena.envs.extra.solitaire_task import ExtraSolitaireEnv

SMALL_ROWS = {"minus_boxes": [0] * 11, "extra_columns": [30, 30, 30]}  # rows fill after 6 checks: full rows met
CONFIGS = [
    {"num_players": 2},
    {"num_players": 3, "children": True},
    {"num_players": 2, "sheet": SMALL_ROWS},
]


# --- plain-Python rules (independent of the engine's tables and bit tricks)


def py_pairings(fifth: int) -> list[tuple[int, int, int, int]]:
    a, b, c, d = (i for i in range(E.NUM_DICE) if i != fifth)
    return [(a, b, c, d), (a, c, b, d), (a, d, b, c)]


def py_legal(dice: list[int], numbers: list[int]) -> set[int]:
    """The rules' legal ids (rules/extra.md, "A round" 3 and "Actions"), written from scratch."""
    written = [n for n in numbers if n]
    held = any(n in dice for n in written)
    legal = set()
    for e, value in enumerate(dice):
        if value in written:
            columns = [numbers.index(value)]
        elif len(written) < E.NUM_COLUMNS:
            columns = [j for j in range(E.NUM_COLUMNS) if numbers[j] == 0]
        else:
            columns = [] if held else [0]
        legal |= {9 * e + 3 * p + c for p in range(E.NUM_PAIRINGS) for c in columns}
    return legal


def py_row_score(checks: int, minus: int, points: int, penalty: int) -> int:
    if checks == 0:
        return 0
    return -penalty if checks <= minus else points * (checks - minus - 1)


def py_gain(state: np.ndarray, seat: int, action: int) -> int:
    """Score change of the action's two pairs, one check at a time, a full row taking nothing."""
    e, p, _ = E.decode_action(action)
    a, b, c, d = py_pairings(e)[p]
    dice = [int(v) for v in state[E.DICE : E.DICE + E.NUM_DICE]]
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    rows = [int(v) for v in state[base + E.P_ROWS : base + E.P_ROWS + E.NUM_ROWS]]
    minus = [int(v) for v in state[E.MINUS : E.MINUS + E.NUM_ROWS]]
    points = [int(v) for v in state[E.POINTS : E.POINTS + E.NUM_ROWS]]
    gain = 0
    for total in (dice[a] + dice[b], dice[c] + dice[d]):
        r = total - E.MIN_SUM
        old = rows[r]
        rows[r] = min(old + 1, minus[r] + 1 + E.NUM_FACTORS)
        gain += py_row_score(rows[r], minus[r], points[r], int(state[E.PENALTY]))
        gain -= py_row_score(old, minus[r], points[r], int(state[E.PENALTY]))
    return gain


def seat_view(state: np.ndarray, seat: int) -> tuple[list[int], list[int]]:
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    dice = [int(v) for v in state[E.DICE : E.DICE + E.NUM_DICE]]
    return dice, [int(v) for v in state[base + E.P_NUMBER : base + E.P_NUMBER + E.NUM_COLUMNS]]


def sheet_after(state: np.ndarray, seat: int, action: int) -> tuple[int, ...]:
    """The seat's sheet (rows, EXTRA numbers, checks, finished) after ``action``, by the engine on a one-player
    copy, so the choice resolves at once whatever the other seats do."""
    solo = np.zeros(E.STATE_SIZE, dtype=np.int32)
    solo[: E.PLAYERS] = state[: E.PLAYERS]
    solo[E.NUM_PLAYERS] = 1
    base = E.PLAYERS + seat * E.PLAYER_SIZE
    solo[E.PLAYERS : E.PLAYERS + E.PLAYER_SIZE] = state[base : base + E.PLAYER_SIZE]
    solo[E.PLAYERS + E.P_PENDING] = -1
    assert E.apply_action(solo, 0, action) == 1
    return tuple(int(v) for v in solo[E.PLAYERS : E.PLAYERS + E.P_DONE + 1])


def mask_of(state: np.ndarray, seat: int, canonical: int) -> np.ndarray:
    copy = state.copy()
    copy[E.CANONICAL] = canonical
    mask = np.full(E.NUM_ACTIONS, 7, dtype=np.int8)
    E.legal_mask(copy, seat, mask)
    return mask


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    flat = masks.reshape(-1, masks.shape[-1])
    deciding = flat.any(axis=1)
    out = np.full(flat.shape[0], -1, dtype=np.int64)
    out[deciding] = sample_masked(flat[deciding], rng)
    return out.reshape(masks.shape[:2])


def positions(config: dict, games: int, rounds: int, seed: int, every: int = 1) -> Iterator[tuple]:
    """(batch obs, masks, state, seat) of every deciding seat of every ``every``-th game, over seeded random play."""
    batch = BatchedGame("extra", games, seed=seed, **config)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(seed)
    for _ in range(rounds):
        for b in range(0, games, every):
            for s in np.flatnonzero(masks[b].any(axis=1)):
                yield obs[b, s], masks[b, s], batch.states[b].copy(), int(s)
        obs, masks, *_ = batch.step(random_actions(masks, rng))


# --- score-change slots follow the mask


@pytest.mark.parametrize("config", CONFIGS)
def test_gain_slots_are_the_score_change_at_legal_ids_and_zero_elsewhere(config: dict) -> None:
    """The batched encoder (``observe_all``) and the one-seat encoder both; the mask is the rules' own."""
    illegal_nonzero = 0  # illegal ids whose pairs would have moved the score: the slots the fix zeroes
    for obs, mask, state, seat in positions(config, 24, 60, seed=1, every=3):
        legal = py_legal(*seat_view(state, seat))
        assert set(np.flatnonzero(mask).tolist()) == legal
        expected = np.array([py_gain(state, seat, a) / 100 if a in legal else 0.0 for a in range(E.NUM_ACTIONS)])
        gains = obs[E.OBS_GAINS : E.OBS_GAINS + E.NUM_ACTIONS]
        np.testing.assert_allclose(gains, expected.astype(np.float32), rtol=1e-6, atol=0)
        one = np.zeros(E.observation_size(int(state[E.NUM_PLAYERS])), dtype=np.float32)
        E.encode_observation(state, seat, one)
        assert one.tobytes() == obs.tobytes()
        illegal_nonzero += sum(py_gain(state, seat, a) != 0 for a in range(E.NUM_ACTIONS) if a not in legal)
    assert illegal_nonzero > 100


def test_gain_slots_are_zero_for_a_seat_that_does_not_decide() -> None:
    batch = BatchedGame("extra", 16, num_players=3, seed=2)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(2)
    waiting = 0
    for _ in range(60):
        idle = ~masks.any(axis=2)
        assert not obs[idle][:, E.OBS_GAINS : E.OBS_GAINS + E.NUM_ACTIONS].any()
        waiting += int(idle.sum())
        obs, masks, *_ = batch.step(random_actions(masks, rng))
    assert waiting > 0


# --- canonical action form


def test_the_option_is_off_by_default_validated_and_reaches_the_state() -> None:
    assert not ExtraConfig().canonical_actions and not SolitaireConfig().canonical_actions
    assert E.header(ExtraConfig())[E.H_CANONICAL] == 0 and E.header(ExtraConfig(canonical_actions=True))[-1] == 1
    assert E.sizes(ExtraConfig(canonical_actions=True)) == E.sizes(ExtraConfig())  # the layout is unchanged
    assert SolitaireConfig(canonical_actions=True).game_config().canonical_actions
    with pytest.raises(ConfigError, match="canonical_actions"):
        validate_config(ExtraConfig, {"canonical_actions": "yes"})
    state = np.zeros(E.STATE_SIZE, dtype=np.int32)
    E.init_state(state, E.header(ExtraConfig(canonical_actions=True)))
    assert state[E.CANONICAL] == 1


@pytest.mark.parametrize("config", CONFIGS)
def test_canonical_ids_reach_the_same_sheets_each_by_its_lowest_id(config: dict) -> None:
    """Brute force: the sheets reachable with the option on == with it off; no two legal ids share a sheet, and
    each legal id is the lowest of the rules' legal ids giving its sheet. ``is_legal`` agrees with the mask."""
    lucky = full_row_merges = 0
    for _, mask, state, seat in positions({**config, "canonical_actions": True}, 24, 60, seed=3, every=3):
        legal = py_legal(*seat_view(state, seat))
        first_of: dict[tuple, int] = {}
        for a in sorted(legal):
            first_of.setdefault(sheet_after(state, seat, a), a)
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(first_of.values())
        assert [bool(E.is_legal(state, seat, a)) for a in range(E.NUM_ACTIONS)] == (mask == 1).tolist()
        np.testing.assert_array_equal(mask_of(state, seat, 0), [int(a in legal) for a in range(E.NUM_ACTIONS)])
        dice, numbers = seat_view(state, seat)
        lucky += all(numbers) and not set(numbers) & set(dice)
        by_sums = {(*sorted(_sums(dice, a)), dice[a // 9], a % 3) for a in legal}  # equal dice values only
        full_row_merges += len(by_sums) > len(first_of) and not (all(numbers) and not set(numbers) & set(dice))
    assert lucky > 0
    if config.get("sheet"):
        assert full_row_merges > 0  # pairs differing only in a full row collapsed


def _sums(dice: list[int], action: int) -> tuple[int, int]:
    e, p, _ = E.decode_action(action)
    a, b, c, d = py_pairings(e)[p]
    return dice[a] + dice[b], dice[c] + dice[d]


def test_canonical_gain_slots_follow_the_canonical_mask() -> None:
    for obs, mask, state, seat in positions({"num_players": 2, "canonical_actions": True}, 24, 50, seed=4, every=3):
        expected = [py_gain(state, seat, a) / 100 if mask[a] else 0.0 for a in range(E.NUM_ACTIONS)]
        np.testing.assert_allclose(obs[E.OBS_GAINS : E.OBS_GAINS + E.NUM_ACTIONS], np.float32(expected), rtol=1e-6)
        one = np.zeros(E.observation_size(2), dtype=np.float32)
        E.encode_observation(state, seat, one)
        assert one.tobytes() == obs.tobytes()


def legal_ids_per_decision(canonical: bool, games: int = 64, rounds: int = 40, seed: int = 5) -> tuple[float, float]:
    """Average legal ids per decision (seeded random games played with the option as given) and distinct sheets."""
    ids = sheets = decisions = 0
    for _, mask, state, seat in positions({"num_players": 2, "canonical_actions": canonical}, games, rounds, seed):
        ids += int(mask.sum())
        sheets += len({sheet_after(state, seat, a) for a in np.flatnonzero(mask)})
        decisions += 1
    return ids / decisions, sheets / decisions


def test_canonical_actions_leave_one_id_per_distinct_sheet() -> None:
    off_ids, off_sheets = legal_ids_per_decision(False)
    on_ids, on_sheets = legal_ids_per_decision(True)
    assert on_ids == on_sheets < off_ids  # on: one id per sheet
    assert off_sheets < off_ids  # off: several ids for one sheet


# --- every face gets it; agents still play legal actions


def test_pettingzoo_faces_pass_their_api_tests_with_canonical_actions() -> None:
    api_test(make_env("extra", canonical_actions=True), num_cycles=200)
    parallel_api_test(GameParallel("extra", canonical_actions=True), num_cycles=200)


def test_aec_and_seat_envs_mask_canonically_as_the_batch_does() -> None:
    env, batch = GameAEC("extra", canonical_actions=True), BatchedGame("extra", 1, seed=6, canonical_actions=True)
    env.reset(seed=6)
    obs, masks, info = batch.reset()
    rng = np.random.default_rng(6)
    for _ in range(60):
        actions = random_actions(masks, rng)
        for seat in np.flatnonzero(info["acting"][0]):
            o = env.observe(env.agent_selection)
            np.testing.assert_array_equal(o["observation"], obs[0, seat])
            np.testing.assert_array_equal(o["action_mask"], masks[0, seat])
            np.testing.assert_array_equal(masks[0, seat], mask_of(batch.states[0], int(seat), 1))
            env.step(int(actions[0, seat]))
        obs, masks, _, terminated, _, info = batch.step(actions)
        if terminated[0]:
            env.reset()
    seat_env = ExtraSolitaireEnv(canonical_actions=True)
    _, info = seat_env.reset(seed=0)
    refused = 0
    for _ in range(10):
        state = seat_env.engine_state.copy()
        np.testing.assert_array_equal(info["action_mask"], mask_of(state, 0, 1))
        for a in np.flatnonzero(mask_of(state, 0, 0) > info["action_mask"]):  # legal ids the option masks out
            with pytest.raises(ValueError, match="illegal"):
                seat_env.step(int(a))
            refused += 1
        _, _, terminated, _, info = seat_env.step(int(info["action_mask"].argmax()))
        if terminated:
            _, info = seat_env.reset()
    assert refused > 0


@pytest.mark.parametrize(("name", "every"), [("extra_greedy", 1), ("extra_planner", 1), ("extra_expectimax", 16)])
def test_agents_play_legal_canonical_actions_and_the_same_choices(name: str, every: int) -> None:
    """Each agent keeps the lowest id of its best sheet, so masking the other ids changes no choice."""
    agent = make_agent(name)
    batch = BatchedGame("extra", 32, num_players=2, seed=7, canonical_actions=True)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(7)
    checked = 0
    for step in range(30):
        if step % every == 0:
            rows, seats = np.nonzero(masks.any(axis=-1))
            states = batch.states[rows]
            chosen = agent.act_states(states, masks[rows, seats], seats)
            assert masks[rows, seats, chosen].all()
            full = np.array([mask_of(state, int(s), 0) for state, s in zip(states, seats, strict=True)])
            np.testing.assert_array_equal(agent.act_states(states, full, seats), chosen)
            checked += len(rows)
        obs, masks, *_ = batch.step(random_actions(masks, rng))
    assert checked > 0
