"""The conformance suite: every registered contract game passes the same checks, with no per-game copy.

Games register themselves by being imported (``dicearena.envs.common.contract.register_game``);
``examples/pig/pig_game.py``
is a
whole game defined inside the test suite, the proof that a game needs its own file and nothing else. Tasks (one-player
games a game's task envs serve, ``register_task``) register when their module is imported; they get every check of
the faces that serve them (the batched engine and the single-seat envs), not the PettingZoo ones.
"""

from __future__ import annotations

import copy
import importlib
import pickle
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

import dicearena.envs  # noqa: F401  (registers the suite's games)
import examples.pig.pig_game  # noqa: F401  (registers "pig")
from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.batching import ThreadChoice, max_threads
from dicearena.envs.common.chance import ScriptedChance, SeededChance
from dicearena.envs.common.contract import GAMES, NOBODY, SIMULTANEOUS, TASK_GAMES
from dicearena.envs.common.game_aec import GameAEC, make_env
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.game_parallel import GameParallel
from dicearena.envs.common.game_seat import SeatCore, SeatEnv, SeatGames

for _spec in list(GAMES.values()):  # a game's task envs register its tasks
    for _entry in _spec.gym_envs.values():
        importlib.import_module(_entry.split(":")[0])

GAME_IDS = sorted(GAMES)
SIMULTANEOUS_IDS = [g for g in GAME_IDS if GAMES[g].dynamics == "simultaneous"]
TASK_IDS = sorted(TASK_GAMES)
ENGINE_IDS = GAME_IDS + TASK_IDS  # every engine on the contract: its batched and single-seat faces


class Broken(SeededChance):
    """The seeded stream until ``fail`` is set, then a source that raises (the dice fell off the table)."""

    fail = False

    def outcome(self, engine, state, out, words):
        if self.fail:
            raise OSError("the dice fell off the table")
        return super().outcome(engine, state, out, words)


def random_actions(batch: BatchedGame, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action for every deciding seat: (B,), or (B, P) in a simultaneous game (-1 where a seat
    does not decide)."""
    if not batch.simultaneous:
        return sample_masked(masks, rng)
    flat = masks.reshape(-1, masks.shape[-1])
    deciding = flat.any(axis=1)
    out = np.full(flat.shape[0], -1, dtype=np.int64)
    out[deciding] = sample_masked(flat[deciding], rng)
    return out.reshape(masks.shape[:2])


def limited(game: str) -> dict[str, int]:
    """A short game's config override, where the game has a turn limit."""
    spec = GAMES.get(game) or TASK_GAMES[game]
    return {"max_turns": 10} if "max_turns" in spec.config.model_fields else {}


def random_episode(env: GameAEC, rng: np.random.Generator, seed: int | None) -> list[tuple]:
    """One game with random legal moves: every (agent, observation, mask, reward, done) along the way."""
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated, truncated))
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(sample_masked(obs["action_mask"][None], rng)[0]))
    return trace


@pytest.mark.parametrize("game", GAME_IDS)
def test_pettingzoo_api_seed_and_render_tests(game: str) -> None:
    api_test(make_env(game), num_cycles=300)
    seed_test(lambda render_mode=None: make_env(game, render_mode=render_mode), num_cycles=300)
    render_test(lambda render_mode=None: make_env(game, render_mode=render_mode))


@pytest.mark.parametrize("game", SIMULTANEOUS_IDS)
def test_pettingzoo_parallel_api_and_seed_tests(game: str) -> None:
    parallel_api_test(GameParallel(game), num_cycles=300)
    parallel_seed_test(lambda: GameParallel(game), num_cycles=300)


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_seed_fixes_twenty_episodes_and_unseeded_resets_continue_the_stream(game: str) -> None:
    runs = []
    for _ in range(2):
        env, rng = GameAEC(game), np.random.default_rng(1)
        runs.append([random_episode(env, rng, 7 if k == 0 else None) for k in range(20)])
    assert runs[0] == runs[1]
    assert runs[0][0] != runs[0][1]  # later episodes are new games, not replays


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_batched_engine_at_b_1_replays_the_aec_game(game: str) -> None:
    """Move for move (a simultaneous round: the AEC env's seat-by-seat choices are the batch's one joint step)."""
    env, batch = GameAEC(game), BatchedGame(game, 1, seed=5)
    env.reset(seed=5)
    obs, masks, info = batch.reset()
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 20:
        if batch.simultaneous:
            assert info["to_act"][0] == SIMULTANEOUS
            actions = random_actions(batch, masks, rng)
            for seat in np.flatnonzero(info["acting"][0]):
                agent = env.agent_selection
                assert agent == env.possible_agents[seat]
                o = env.observe(agent)
                np.testing.assert_array_equal(o["observation"], obs[0, seat])
                np.testing.assert_array_equal(o["action_mask"], masks[0, seat])
                env.step(int(actions[0, seat]))
        else:
            agent = env.agent_selection
            o = env.observe(agent)
            assert info["to_act"][0] == env.possible_agents.index(agent)
            np.testing.assert_array_equal(o["observation"], obs[0])
            np.testing.assert_array_equal(o["action_mask"], masks[0])
            actions = sample_masked(masks, rng)
            env.step(int(actions[0]))
        obs, masks, rewards, terminated, truncated, info = batch.step(actions)
        assert [env.rewards[a] for a in env.possible_agents] == rewards[0].tolist()
        done = all(env.terminations.values()) or all(env.truncations.values())
        assert done == bool(terminated[0] or truncated[0])
        if done:
            ended += 1
            np.testing.assert_array_equal(info["final_state"][0], env.state())
            env.reset()


def play_batch(batch: BatchedGame, steps: int, picker_seed: int = 0, game: int | None = None) -> list[tuple]:
    """``steps`` random steps from ``reset()``: every step's observations, masks, rewards, ends and final states
    (of game ``game`` only, if given; its actions then come from the picker alone, whatever the batch size)."""
    rng = np.random.default_rng(picker_seed)
    obs, masks, info = batch.reset()
    trace = []
    for _ in range(steps):
        if game is None:
            actions = random_actions(batch, masks, rng)
        else:
            actions = np.zeros((batch.num_envs, *masks.shape[1:-1]), dtype=np.int64)
            for b in range(batch.num_envs):  # every game a legal action; game ``game``'s from the picker
                actions[b] = random_actions(batch, masks[b : b + 1], rng if b == game else np.random.default_rng(b))[0]
        obs, masks, rewards, terminated, truncated, info = batch.step(actions)
        rows = slice(None) if game is None else slice(game, game + 1)
        ended = info["ended"] if game is None else info["ended"][info["ended"] == game]
        position = np.searchsorted(info["ended"], ended)
        trace.append((obs[rows].tobytes(), masks[rows].tobytes(), rewards[rows].tobytes(), terminated[rows].tobytes(),
                      truncated[rows].tobytes(), info["final_state"][position].tobytes(),
                      batch.states[rows].tobytes()))  # fmt: skip
    return trace


@pytest.mark.parametrize("game", ENGINE_IDS)
def test_threads_play_the_same_games_and_each_game_has_its_own_stream(game: str) -> None:
    """``threads`` changes nothing but speed (each game draws its own keyed stream), and a game's history does not
    depend on the other games: game 3 of 16 plays the same game as game 3 of 8 given the same actions."""
    one = play_batch(BatchedGame(game, 16, seed=4, threads=1, **limited(game)), 60)
    threaded = BatchedGame(game, 16, seed=4, threads=2, **limited(game))
    threaded.thread_choice = ThreadChoice("parallel")  # every step on the threads, whatever the clock says
    assert play_batch(threaded, 60) == one
    alone, among = (play_batch(BatchedGame(game, n, seed=4, **limited(game)), 60, 9, game=3) for n in (8, 16))
    assert alone == among
    assert len({step[-1] for step in one}) > 1  # the games moved


@pytest.mark.parametrize("bad", [0, max_threads() + 1, "2", 1.5, True])
def test_a_bad_thread_count_is_a_clear_error(bad: Any) -> None:
    with pytest.raises((TypeError, ValueError), match=f"threads must be .*1..{max_threads()}"):
        BatchedGame("pig", 4, threads=bad)
    batch = BatchedGame("pig", 4, threads=1)
    with pytest.raises((TypeError, ValueError), match="threads must be"):
        batch.threads = bad
    assert batch.threads == 1


@pytest.mark.parametrize("game", ENGINE_IDS)
def test_masks_are_never_empty_for_the_player_to_act_and_every_game_ends(game: str) -> None:
    batch = BatchedGame(game, 512, seed=3, **limited(game))
    obs, masks, info = batch.reset()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(2000):
        acting = info["acting"]
        assert acting.any(axis=1).all()  # some seat decides in every game
        if batch.simultaneous:
            np.testing.assert_array_equal(masks.any(axis=2), acting)  # a mask exactly for the deciding seats
        else:
            assert (info["to_act"] >= 0).all() and masks.any(axis=1).all()
        obs, masks, rewards, terminated, truncated, info = batch.step(random_actions(batch, masks, rng))
        ended += info["ended"].size
        np.testing.assert_array_equal(terminated | truncated, np.isin(np.arange(512), info["ended"]))
    assert ended > 2000


def _snapshot(env: GameAEC) -> tuple:
    saved = env.save_state()
    return (saved["engine_state"].tobytes(), repr({k: v for k, v in saved.items() if k != "engine_state"}))


@pytest.mark.parametrize("game", GAME_IDS)
def test_every_bad_input_is_a_clear_error_that_changes_nothing(game: str) -> None:
    fresh = GameAEC(game)
    for call, words in ((lambda: fresh.step(0), "before reset"), (lambda: fresh.observe("player_0"), "before reset"),
                        (lambda: fresh.last(), "before reset"), (lambda: fresh.state(), "before reset")):  # fmt: skip
        with pytest.raises(RuntimeError, match=words):
            call()
    env = GameAEC(game)
    env.reset(seed=0)
    before = _snapshot(env)
    n = env.sizes.actions
    for bad, error, words in [(1.0, TypeError, "must be an int"), ("0", TypeError, "must be an int"),
                              (True, TypeError, "bool"), (np.array([0, 1]), TypeError, "shape"),
                              (n, ValueError, "out of range"), (-1, ValueError, "out of range")]:  # fmt: skip
        with pytest.raises(error, match=words):
            env.step(bad)
        assert _snapshot(env) == before
    mask = env.observe(env.agent_selection)["action_mask"]
    if (mask == 0).any():
        illegal = int(np.flatnonzero(mask == 0)[0])
        with pytest.raises(ValueError, match=rf"illegal action {illegal} .*Legal action ids"):
            env.step(illegal)
        assert _snapshot(env) == before
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    with pytest.raises(TypeError, match="seed"):
        env.reset(seed="7")
    with pytest.raises(ValueError, match="render_mode"):
        GameAEC(game, render_mode="wrong")


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_failing_or_lying_chance_source_changes_nothing(game: str) -> None:
    source = Broken(0)
    env = GameAEC(game, chance=source)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(50):  # until a move leads into a chance event
        before = _snapshot(env)
        mask = env.observe(env.agent_selection)["action_mask"]
        action = int(sample_masked(mask[None], rng)[0])
        probe = env.clone()
        probe.chance.fail = True
        try:
            probe.step(action)
        except RuntimeError as exc:
            assert "chance source failed" in str(exc) and "unchanged" in str(exc)
            assert _snapshot(probe) == before
            break
        env.step(action)
        if not env.agents or any(env.terminations.values()) or any(env.truncations.values()):
            env.reset()
    else:
        pytest.fail("no move led into a chance event")
    bad = np.full(env.sizes.outcome, 10**6, dtype=np.int32)
    lying = GameAEC(game, chance=ScriptedChance([bad] * 10))
    with pytest.raises(ValueError, match="refused"):
        lying.reset(seed=0)


@pytest.mark.parametrize("game", GAME_IDS)
def test_infos_are_per_agent_and_the_end_is_consistent(game: str) -> None:
    env = GameAEC(game)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    while not all(env.terminations[a] or env.truncations[a] for a in env.agents):
        infos = list(env.infos.values())
        assert len({id(i) for i in infos}) == len(infos)  # not one shared dict
        env.step(int(sample_masked(env.observe(env.agent_selection)["action_mask"][None], rng)[0]))
    for agent in env.agents:
        assert env.infos[agent]["to_act"] == NOBODY
        assert not env.observe(agent)["action_mask"].any()  # nobody acts after the end
    assert env.state().shape == env.state_space.shape


@pytest.mark.parametrize("game", GAME_IDS)
def test_copies_continue_the_same_game(game: str) -> None:
    env = GameAEC(game)
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    for copied in (copy.deepcopy(env), pickle.loads(pickle.dumps(env)), env.clone()):
        np.testing.assert_array_equal(copied.state(), env.state())
        assert copied.last()[0]["observation"].tobytes() == env.last()[0]["observation"].tobytes()
        rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
        assert random_episode_from_here(copied, rng_a) == random_episode_from_here(env.clone(), rng_b)
    saved = env.save_state()
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    env.restore_state(saved)
    np.testing.assert_array_equal(env.state(), saved["engine_state"])


def random_episode_from_here(env: GameAEC, rng: np.random.Generator) -> list[bytes]:
    trace = []
    for _ in env.agent_iter(max_iter=200):
        obs, _, terminated, truncated, _ = env.last()
        trace.append(obs["observation"].tobytes())
        env.step(None if terminated or truncated else int(sample_masked(obs["action_mask"][None], rng)[0]))
    return trace


@pytest.mark.parametrize("game", ENGINE_IDS)
def test_the_batched_engine_checks_every_array_it_is_given(game: str) -> None:
    batch = BatchedGame(game, 8, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        batch.step(np.zeros(8, dtype=np.int64))
    obs, masks, _ = batch.reset()
    before = batch.states.copy()
    legal = masks.argmax(axis=-1)
    for actions, active, error, words in [
        (legal[:7], None, ValueError, "shape"), (legal.astype(float), None, TypeError, "integers"),
        (legal, np.ones(7, dtype=bool), ValueError, "active"), (legal, np.ones(8, dtype=int), ValueError, "active"),
    ]:  # fmt: skip
        with pytest.raises(error, match=words):
            batch.step(actions, active)
        np.testing.assert_array_equal(batch.states, before)
    first = masks[3, 0] if batch.simultaneous else masks[3]  # game 3's (first) deciding seat
    if (first == 0).any():
        bad = legal.copy()
        bad[3] = int(np.flatnonzero(first == 0)[0])  # a simultaneous game: every seat of game 3
        with pytest.raises(ValueError, match="game 3"):
            batch.step(bad)
        np.testing.assert_array_equal(batch.states, before)
    with pytest.raises(ValueError, match="read-only"):
        batch.states[0, 0] = 1


class _Scripted:
    """An opponent that plays its first legal move, or misbehaves on request."""

    def __init__(self, misbehave: str | None = None) -> None:
        self.misbehave = misbehave

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> Any:
        first = masks.argmax(axis=1)
        if self.misbehave == "raise":
            raise KeyError("lost my notes")
        if self.misbehave == "none":
            return None
        if self.misbehave == "short":
            return first[:-1]
        if self.misbehave == "float":
            return first.astype(float)
        if self.misbehave == "illegal":
            return np.where(masks[np.arange(len(first)), 0] == 0, 0, masks.shape[1] + 5)
        return first


def seated(game: str) -> Any:
    """The opponents of a seat env: a deterministic one for a game, none for a task (one player)."""
    return None if game in TASK_GAMES else _Scripted()


@pytest.mark.parametrize("game", ENGINE_IDS)
def test_a_seat_env_game_checks_out_with_gymnasium(game: str) -> None:
    from gymnasium.utils.env_checker import check_env

    env = SeatEnv(game, opponents=seated(game))
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    for as_given in (np.int64, np.array, lambda a: np.array([a])):  # what user code and model.predict hand over
        obs, reward, terminated, truncated, info = env.step(as_given(info["action_mask"].argmax()))
        if terminated or truncated:
            obs, info = env.reset()
    with pytest.raises(ValueError, match="out of range"):
        env.step(2**70)
    with pytest.raises(TypeError, match="int"):
        env.step(1.0)


@pytest.mark.parametrize("misbehave", ["raise", "none", "short", "float", "illegal"])
@pytest.mark.parametrize("game", GAME_IDS)
def test_a_misbehaving_opponent_undoes_the_whole_step(game: str, misbehave: str) -> None:
    opponent = _Scripted()
    core = SeatCore(game, 16, opponent, seed=1)
    obs, masks = core.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(30):  # until a learner move hands the turn to the opponent in some game
        actions = sample_masked(masks, rng)
        before = core.batch.states.copy()
        opponent.misbehave = misbehave
        try:
            core.step(actions)
        except (RuntimeError, ValueError) as exc:
            assert "opponent at seat 1" in str(exc)
            np.testing.assert_array_equal(core.batch.states, before)  # the learner's move was undone too
            assert core.batch.acting_now()[:, core.learner_seat].all()
            break
        finally:
            opponent.misbehave = None
        obs, masks = core._obs, core._masks
    else:
        pytest.fail("the opponent never had to move")
    obs, masks, rewards, dones, infos = core.step(masks.argmax(axis=1))  # the env goes on, the learner still moves
    assert masks.any(axis=1).all()


def seat_play(
    env: SeatEnv, rng: np.random.Generator, episodes: int, seed: int | None = None, reset: bool = True
) -> list[tuple]:
    """``episodes`` games of random legal moves in a single seat env (from a reset, or from where it is): every
    (observation, mask, reward, ends) along the way, and each next game's first observation."""
    trace: list[tuple] = []
    if reset:
        env.reset(seed=seed)
    for _ in range(episodes):
        done = False
        while not done:
            action = int(sample_masked(env.action_masks()[None].astype(np.int8), rng)[0])
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            trace.append((obs.tobytes(), info["action_mask"].tobytes(), reward, terminated, truncated))
        obs, info = env.reset()
        trace.append((obs.tobytes(), info["action_mask"].tobytes()))
    return trace


@pytest.mark.parametrize("game", ENGINE_IDS)
def test_a_seed_fixes_twenty_single_seat_games_and_a_one_game_vec_env_plays_them(game: str) -> None:
    runs = [seat_play(SeatEnv(game, seated(game), **limited(game)), np.random.default_rng(1), 20, 7) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0][0] != runs[0][-1]  # later games are new games
    env, vec = SeatEnv(game, seated(game), **limited(game)), SeatGames(game, 1, seated(game), seed=7, **limited(game))
    obs, info = env.reset(seed=7)
    vobs = vec.reset()
    rng, ended = np.random.default_rng(2), 0
    while ended < 20:
        np.testing.assert_array_equal(vobs[0], obs)
        np.testing.assert_array_equal(vec.action_masks()[0], info["action_mask"] != 0)
        action = sample_masked(info["action_mask"][None], rng)
        vobs, vrewards, vdones, vinfos = vec.step(action)
        obs, reward, terminated, truncated, info = env.step(int(action[0]))
        assert (vrewards[0], vdones[0]) == (np.float32(reward), terminated or truncated)
        if vdones[0]:
            ended += 1
            np.testing.assert_array_equal(vinfos[0]["terminal_observation"], obs)
            np.testing.assert_array_equal(vinfos[0]["final_state"], env.state())
            obs, info = env.reset()


class Unchecked(SeededChance):
    """The seeded stream's own outcomes, handed in as an injected source (checked, played outside the loops)."""

    trusted = False


@pytest.mark.parametrize(("game", "overrides"), [(g, limited(g)) for g in ENGINE_IDS] + [
    ("pig", {"shaping": True, "max_turns": 10}),
    ("extra", {"canonical_actions": True}),
    ("easy_money", {"greed_features": True, "max_turns": 10}),
    ("easy_come_easy_go", {"prize_features": True, "max_turns": 10})])  # fmt: skip
def test_injected_outcomes_play_as_the_compiled_chance_plays_them(game: str, overrides: dict) -> None:
    """The same games, rewards (shaped too) and ends (some at a chance event, with a turn limit) either way."""
    runs = [seat_play(SeatEnv(game, seated(game), chance=chance, **overrides), np.random.default_rng(3), 20, 5)
            for chance in (None, Unchecked())]  # fmt: skip
    assert runs[0] == runs[1]


@pytest.mark.parametrize("game", ENGINE_IDS)
def test_every_bad_input_to_a_single_seat_env_is_a_clear_error_that_changes_nothing(game: str) -> None:
    fresh = SeatEnv(game, seated(game))
    for call in (lambda: fresh.step(0), fresh.state):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    env = SeatEnv(game, seated(game))
    _, info = env.reset(seed=0)
    before, n = env.state(), env.action_space.n
    for bad, error, words in [(1.0, TypeError, "must be an int"), ("0", TypeError, "must be an int"),
                              (True, TypeError, "must be an int"), (np.array([0, 1]), TypeError, "must be an int"),
                              (n, ValueError, "out of range"), (-1, ValueError, "out of range"),
                              (2**70, ValueError, "out of range")]:  # fmt: skip
        with pytest.raises(error, match=words):
            env.step(bad)
        np.testing.assert_array_equal(env.state(), before)
    if (info["action_mask"] == 0).any():
        illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
        with pytest.raises(ValueError, match=rf"illegal action {illegal} in game 0; legal actions: \[.*\] \(.+\)"):
            env.step(illegal)  # the legal ids and the rule's words
        np.testing.assert_array_equal(env.state(), before)
    for seed, error in ((-1, ValueError), ("7", TypeError), (True, TypeError)):
        with pytest.raises(error, match="seed"):
            env.reset(seed=seed)
        np.testing.assert_array_equal(env.state(), before)
    with pytest.raises(ValueError, match="render_mode"):
        SeatEnv(game, seated(game), render_mode="wrong")
    with pytest.raises(TypeError, match="chance"):
        SeatEnv(game, seated(game), chance=object())


@pytest.mark.parametrize("game", ENGINE_IDS)
def test_a_failing_or_lying_chance_source_changes_nothing_in_a_single_seat_env(game: str) -> None:
    env = SeatEnv(game, seated(game), chance=Broken(0))
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):  # until a move leads into a chance event
        before = env.state()
        action = int(sample_masked(info["action_mask"][None], rng)[0])
        probe = copy.deepcopy(env)
        probe.chance.fail = True
        try:
            probe.step(action)
        except RuntimeError as exc:
            assert "chance source failed" in str(exc) and "unchanged" in str(exc)
            np.testing.assert_array_equal(probe.state(), before)
            probe.chance.fail = False  # and the game goes on as if nothing had happened
            np.testing.assert_array_equal(probe.step(action)[0], env.step(action)[0])
            break
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()
    else:
        pytest.fail("no move led into a chance event")
    bad = np.full(env.core.batch.sizes.outcome, 10**6, dtype=np.int32)
    lying = SeatEnv(game, seated(game), chance=ScriptedChance([bad] * 10))
    with pytest.raises(ValueError, match="refused"):
        lying.reset(seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        lying.state()  # no game was started


@pytest.mark.parametrize("game", ENGINE_IDS)
def test_copies_of_a_single_seat_env_continue_the_same_games(game: str) -> None:
    env = SeatEnv(game, seated(game), **limited(game))
    _, info = env.reset(seed=4)
    if any(env.step(int(np.flatnonzero(info["action_mask"])[0]))[2:4]):  # a one-decision episode (Greed's stop)
        env.reset()
    for copied in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        np.testing.assert_array_equal(copied.state(), env.state())
        twin = copy.deepcopy(env)
        rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
        assert seat_play(copied, rng_a, 3, reset=False) == seat_play(twin, rng_b, 3, reset=False)


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_evaluation_loop_counts_exactly_the_scheduled_games(game: str) -> None:
    from dicearena.agents import RandomAgent
    from dicearena.agents.evaluation.play import play_games

    seatings = np.array([[0, 1], [1, 0]] * 150)
    pool = [RandomAgent(), RandomAgent()]
    small = play_games(game, seatings, pool, seed=3, batch_size=64)
    assert small["final_rewards"].shape == (300, 2) and np.isin(small["final_rewards"], (-1.0, 0.0, 1.0)).all()
    decided = ~small["truncated"]
    assert (small["final_rewards"][decided].max(axis=1) == 1).all()  # every finished game has a winner (or two)
    assert (small["final_rewards"][small["truncated"]] == 0).all()
    big = play_games(game, seatings, pool, seed=3, batch_size=300)
    for result in (small, big):  # every scheduled game was played to its end and recorded (none left at zeros)
        assert result["final_states"].any(axis=1).all()


def test_shaped_rewards_telescope_to_the_final_rewards_in_every_face() -> None:
    """Pig with ``shaping``: every step pays the change of potential (the generic faces' shaping), each seat's
    return is still its final reward, and the batched engine pays what the AEC env pays, step for step."""
    env, batch = GameAEC("pig", shaping=True), BatchedGame("pig", 1, seed=5, shaping=True)
    env.reset(seed=5)
    obs, masks, info = batch.reset()
    rng = np.random.default_rng(0)
    returns, shaped_steps, ended = np.zeros(2), 0, 0
    while ended < 20:
        action = int(sample_masked(masks, rng)[0])
        env.step(action)
        obs, masks, rewards, terminated, truncated, info = batch.step(np.array([action]))
        np.testing.assert_allclose([env.rewards[a] for a in env.possible_agents], rewards[0], atol=1e-6)
        returns += rewards[0]
        shaped_steps += bool(rewards[0].any()) and not (terminated[0] or truncated[0])
        if terminated[0] or truncated[0]:
            ended += 1
            np.testing.assert_allclose(returns, info["final_rewards"][0], atol=1e-5)
            returns[:] = 0.0
            env.reset()
    assert shaped_steps > 20  # shaping paid along the way, not only at the end


def test_a_heuristic_beats_random_at_pig_through_the_generic_loop() -> None:
    from dicearena.agents import RandomAgent
    from dicearena.agents.evaluation.play import play_games
    from examples.pig.pig_game import HoldAt

    seatings = np.array([[0, 1], [1, 0]] * 500)
    result = play_games("pig", seatings, [HoldAt(), RandomAgent(seed=0)], seed=0)
    wins = (result["final_rewards"] > 0)[seatings == 0].mean()
    assert wins > 0.65  # random vs random: 0.5


@pytest.mark.parametrize("module", ["easy_come_easy_go_v0", "yay_v0", "extra_v0", "easy_money_v0"])
def test_every_classic_env_says_reset_first_and_names_a_bad_seed(module: str) -> None:
    """The suite's own faces too, generic or not: use before reset is a clear error, and so is a bad seed."""
    import importlib

    raw = importlib.import_module(f"dicearena.envs.{module}").raw_env()
    for call in (raw.last, lambda: raw.observe("player_0"), lambda: raw.step(0)):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    for seed, error in ((-1, ValueError), ("7", TypeError), (True, TypeError)):
        with pytest.raises(error, match="seed"):
            raw.reset(seed=seed)
