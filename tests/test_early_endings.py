"""Games that end before some seat's first decision, in every face.

In Pig to 2 an opponent who holds at once wins on its first roll (unless it rolls a 1) before the learner seated
after it has decided anything; with a turn limit of 1 a first roll of 1 ends the game before anybody has. The
behaviour, face by face:

- AEC env: the seat that never decided still gets its last() with the game's reward and termination; a game that
  ends before *anybody* decided (at reset) is skipped, the next dealt, and the reset's infos list it.
- Parallel env: the same reset (Duel, a tiny simultaneous game whose first throw can misfire).
- Batched engine: not seat-centred, an early end is an ordinary end (every seat's final reward); its reset deals
  past a game that ended before any decision, so the AEC and Parallel envs reset to the game a 1-game batch plays;
  a step reports one end per game, and deals past a restart that ends before anybody decides.
- Seat env and seat vec env: a game that ends before the learner's first decision holds no step of the learner's;
  it is skipped (the next dealt from the same stream) and recorded in ``skipped_games`` (``reset`` info, or the
  info of the step whose auto-reset dealt it, and ``reset_infos``), with the learner's reward in it, which no step
  pays.
"""

from __future__ import annotations

import numpy as np
import pytest

import dicearena.envs  # noqa: F401  (configures numba's cache)
import examples.pig.pig_game  # noqa: F401  (registers "pig")
from dicearena.envs.common import game_seat, game_table
from dicearena.envs.common.chance import ScriptedChance
from dicearena.envs.common.game_aec import GameAEC
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.game_parallel import GameParallel
from dicearena.envs.common.game_seat import SeatEnv, SeatGames
from tests.duel_game import DUEL

ROLL, HOLD = 0, 1
ONE, THREE, FOUR, FIVE = [0], [2], [3], [4]  # Pig's chance outcomes: the face index (0 is a 1)


class Holder:
    """Holds whenever it may (in Pig to 2, any first roll but a 1 wins at once)."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.full(len(observations), HOLD, dtype=np.int64)


def test_aec_a_seat_that_never_decided_gets_the_games_end() -> None:
    env = GameAEC("pig", target=2, chance=ScriptedChance([THREE]))
    env.reset()
    seen = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        seen.append((agent, reward, terminated, truncated, obs["action_mask"].tolist()))
        env.step(None if terminated or truncated else HOLD)
    assert seen == [("player_0", 0.0, False, False, [1, 1]),  # its roll of 3: it holds and wins
                    ("player_0", 1.0, True, False, [0, 0]),
                    ("player_1", -1.0, True, False, [0, 0])]  # fmt: skip  (never decided, still told it lost)
    assert env.agents == []


def test_aec_reset_skips_a_game_that_ended_before_anybodys_decision() -> None:
    env = GameAEC("pig", max_turns=1, chance=ScriptedChance([ONE, FIVE]))  # a 1: the only turn is over
    env.reset()
    assert env.agent_selection == "player_0" and not any(env.terminations.values())
    assert env.observe("player_0")["action_mask"].tolist() == [1, 1]  # the second game: a 5, player_0 decides
    for agent in env.agents:
        (skipped,) = env.infos[agent]["skipped_games"]
        assert skipped["truncated"] and skipped["reward"] == 0.0 and skipped["final_rewards"].tolist() == [0, 0]
    env.step(HOLD)
    assert all("skipped_games" not in info for info in env.infos.values())  # reported by the reset only


def test_aec_and_parallel_resets_deal_the_game_a_one_game_batch_deals() -> None:
    skipped = {"pig": 0, "duel": 0}
    for seed in range(40):
        for env, config in ((GameAEC("pig", max_turns=1), {"max_turns": 1}), (GameParallel(DUEL), {})):
            batch = BatchedGame(env.spec, 1, seed=seed, **config)
            batch.reset()
            reset = env.reset(seed=seed)
            infos = env.infos if reset is None else reset[1]
            np.testing.assert_array_equal(env.state(), batch.states[0])
            skipped[env.spec.id] += len(infos["player_0"].get("skipped_games", []))
    assert min(skipped.values()) > 0  # some of those seeds' first games ended at their first roll


def test_parallel_reset_skips_misfires() -> None:
    env = GameParallel(DUEL, chance=ScriptedChance([ONE, ONE, FOUR, THREE, FIVE, FIVE]))
    observations, infos = env.reset()
    assert env.agents == ["player_0", "player_1"]
    assert all(o["action_mask"].tolist() == [1, 1] for o in observations.values())
    for info in infos.values():
        assert len(info["skipped_games"]) == 2 and all(g["final_rewards"].tolist() == [0, 0]
                                                      for g in info["skipped_games"])  # fmt: skip
    for _ in range(3):
        observations, rewards, terminations, *_ = env.step({"player_0": 1, "player_1": 0})
    assert rewards == {"player_0": 1.0, "player_1": -1.0} and all(terminations.values())


def test_aec_reset_gives_up_when_nobody_ever_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game_table, "MAX_SKIPPED", 5)
    env = GameParallel(DUEL, chance=ScriptedChance([ONE] * 10))
    with pytest.raises(RuntimeError, match="over 5 games in a row ended before anybody's first decision"):
        env.reset()


def test_batched_an_early_end_is_an_ordinary_end() -> None:
    batch = BatchedGame("pig", 1, target=2)
    batch.chance = ScriptedChance([THREE, ONE, FIVE])
    batch.reset()
    _, _, rewards, terminated, _, info = batch.step(np.array([HOLD]))
    assert terminated[0] and rewards[0].tolist() == [1.0, -1.0] and info["final_rewards"].tolist() == [[1.0, -1.0]]
    assert info["to_act"].tolist() == [1]  # the restart: player_0 rolled a 1, player_1 decides on a 5


def test_batched_reports_one_end_per_step_and_deals_past_a_restart_that_ends_at_once() -> None:
    """Pig with one turn: holding on a 3 ends the game (truncated, 3 points held); its restart rolls a 1, which ends
    that game too before anybody decides. The step reports the first game (its final state keeps the 3 points) and
    deals past the second, unreported and unpaid, as a seat env skips a game."""
    batch = BatchedGame("pig", 1, target=30, max_turns=1)
    batch.chance = ScriptedChance([THREE, ONE, FIVE])
    batch.reset()
    _, _, rewards, terminated, truncated, info = batch.step(np.array([HOLD]))
    scores = examples.pig.pig_game.SCORES
    assert truncated[0] and not terminated[0] and rewards[0].tolist() == [0.0, 0.0]
    assert info["final_state"][0, scores : scores + 2].tolist() == [3, 0]  # the game that ended, not its restart's
    assert info["to_act"].tolist() == [0]  # the next game waits for player_0's decision on a 5


def test_batched_compiled_loop_keeps_the_first_end_of_a_step() -> None:
    """The same rule in the compiled loops (seeded chance): every game holds its first roll and ends; about one
    restart in six rolls a 1 and ends at once. Each reported final state is the game that was held."""
    batch = BatchedGame("pig", 512, seed=11, target=30, max_turns=1)
    batch.reset()
    scores = examples.pig.pig_game.SCORES
    for _ in range(3):
        _, _, _, _, truncated, info = batch.step(np.full(512, HOLD))
        assert truncated.all() and info["final_state"].shape[0] == 512
        assert (info["final_state"][:, scores] >= 2).all()  # the held roll (2..6), never a restart's empty sheet
        assert (info["to_act"] == 0).all()


def test_seat_env_reset_deals_until_the_learner_decides() -> None:
    chance = ScriptedChance([THREE, FOUR, ONE, FIVE])  # two games player_0 wins, then a 1 hands player_1 the dice
    env = SeatEnv("pig", opponents=Holder(), learner_seat=1, target=2, chance=chance)
    obs, info = env.reset()
    assert info["action_mask"].tolist() == [1, 1] and env.action_masks().all()
    assert len(info["skipped_games"]) == 2
    for game in info["skipped_games"]:
        assert not game["won"] and game["final_rewards"].tolist() == [1.0, -1.0] and game["learner_seat"] == 1
        assert game["episode"] == {"r": -1.0, "l": 0} and game["terminal_observation"].shape == obs.shape
    obs, reward, terminated, truncated, info = env.step(HOLD)  # its 5 wins
    assert (reward, terminated, truncated, info["won"]) == (1.0, True, False, True)  # no reward of the skipped
    env.core.batch.chance = ScriptedChance([ONE, FIVE])
    _, info = env.reset()
    assert "skipped_games" not in info  # none skipped this time


def test_seat_env_with_skips_passes_gymnasiums_checker() -> None:
    from gymnasium.utils.env_checker import check_env

    env = SeatEnv("pig", opponents=Holder(), learner_seat=1, target=2)
    check_env(env, skip_render_check=True)
    skips = [len(env.reset(seed=seed)[1].get("skipped_games", [])) for seed in range(20)]
    assert sum(skips) > 0


def test_seat_vec_env_auto_resets_past_skipped_games() -> None:
    games = SeatGames("pig", 8, Holder(), learner_seat=1, seed=3, target=2, threads=1)
    obs = games.reset()
    skipped = sum(len(info.get("skipped_games", [])) for info in games.reset_infos)
    ended = 0
    for _ in range(30):
        masks = games.action_masks()
        assert masks.any(axis=1).all()  # every game waits for a decision of the learner's
        obs, rewards, dones, infos = games.step(np.full(8, HOLD))  # the learner holds its first roll: it wins
        assert dones.all() and (rewards == 1.0).all()  # the skipped games' -1 is paid in no step
        for i, info in enumerate(infos):
            ended += 1
            assert info["episode"]["l"] == 1 and info["won"]
            for game in info.get("skipped_games", []):
                assert game["episode"] == {"r": -1.0, "l": 0} and not game["won"]
                skipped += 1
            assert games.reset_infos[i].get("skipped_games") is info.get("skipped_games")  # SB3's place for them
    assert ended == 240 and skipped > 240  # the holder wins 5 in 6 of its first rolls


def test_single_and_vec_seat_envs_skip_the_same_games() -> None:
    env = SeatEnv("pig", opponents=Holder(), learner_seat=1, target=2)
    vec = SeatGames("pig", 1, Holder(), learner_seat=1, seed=11, target=2)
    obs, info = env.reset(seed=11)
    vobs = vec.reset()
    skipped, vskipped = [info.get("skipped_games", [])], [vec.reset_infos[0].get("skipped_games", [])]
    rng = np.random.default_rng(0)
    for _ in range(40):
        np.testing.assert_array_equal(vobs[0], obs)
        action = int(rng.integers(2))
        obs, reward, terminated, truncated, info = env.step(action)
        vobs, vrewards, vdones, vinfos = vec.step(np.array([action]))
        assert (float(vrewards[0]), bool(vdones[0])) == (reward, terminated or truncated)
        if vdones[0]:
            obs, info = env.reset()
            skipped.append(info.get("skipped_games", []))
            vskipped.append(vinfos[0].get("skipped_games", []))
    assert [[g["final_state"].tolist() for g in s] for s in skipped] == [
        [g["final_state"].tolist() for g in s] for s in vskipped]  # fmt: skip
    assert sum(map(len, skipped)) > 0


def test_a_seat_with_no_decision_at_all_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game_seat, "MAX_SKIPPED", 20)
    games = SeatGames("pig", 2, Holder(), learner_seat=1, seed=0, max_turns=1)  # player_1 never gets a turn
    with pytest.raises(RuntimeError, match=r"over 20 games in a row .* before the learner \(seat 1\)"):
        games.reset()


class Alternating:
    """A seating (``seating.Seating``) that swaps the learner between seats 0 and 1 for every game dealt."""

    def __init__(self, opponent: object) -> None:
        self.policies, self.dealt = [opponent], 0

    def seat(self, games: np.ndarray, seats: np.ndarray, assignment: np.ndarray) -> None:
        for g in games.tolist():
            seats[g], self.dealt = self.dealt % 2, self.dealt + 1
            assignment[g] = 0
            assignment[g, seats[g]] = -1


def test_a_skipped_game_is_seated_anew_like_any_new_game() -> None:
    seating = Alternating(Holder())
    games = SeatGames("pig", 4, None, target=2, seed=5, seating=seating)
    games.reset()
    seats = []
    for _ in range(20):
        assert games.action_masks().any(axis=1).all()
        _, rewards, dones, infos = games.step(np.full(4, HOLD))
        assert dones.all() and (rewards == 1.0).all()
        seats += [g["learner_seat"] for info in infos for g in info.get("skipped_games", [])]
    assert set(seats) == {0, 1} and seating.dealt > 80  # every game dealt, skipped ones too, was seated
