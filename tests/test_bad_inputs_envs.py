"""The last bad inputs of the envs (issue 21): each is refused with a one-line error naming what was wrong and what is
allowed, and changes nothing.

- Ea$y Money's data files are read only if they are regular files of at most 1 MiB (``data.MAX_FILE_BYTES``).
- A seat env whose learner seat can never decide under the config (a fixed first player, too few turns) is refused
  when built, naming ``max_turns`` and the seat; a seat that only may not decide, by chance, is still played.
- Config values that broke later: rewards that overflow float32, Ea$y Money amounts that overflow the int32 header,
  and bools or numeric strings where a number is due (no silent coercion, in any game's config).
- Seeds on the batched faces: checked as the AEC and Gymnasium faces check them (``table.check_seed``), before
  anything is reseeded.
- The wrapped PettingZoo ``env()``: the raw env's action errors before PettingZoo's wrappers, while a legal-typed
  illegal id still ends the game with -1 for the mover.
- Injected chance on the AEC face: checked as the batched and seat faces check it (``chance.given_outcome``).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dicearena.envs  # noqa: F401  (registers the games)
from dicearena.envs.common.chance import SeededChance
from dicearena.envs.common.config import MAX_REWARD, ConfigError, GameConfig, validate_config
from dicearena.envs.common.game_aec import GameAEC
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.game_seat import SeatCore, SeatEnv, SeatGames
from dicearena.envs.easy_come_easy_go.config import EasyComeEasyGoConfig
from dicearena.envs.easy_come_easy_go.turn_config import MAX_VALUE, TurnTaskConfig, UniformIntValues
from dicearena.envs.easy_money.config import MAX_KNOB, EasyMoneyConfig
from dicearena.envs.easy_money.data import FILES, MAX_FILE_BYTES, default_path
from dicearena.envs.easy_money.greed import GreedTaskConfig
from dicearena.envs.extra.config import ExtraConfig, ExtraSheet
from dicearena.envs.yay.config import YayConfig

GAMES = ["easy_come_easy_go", "easy_money", "yay", "extra"]
MODULES = {game: f"dicearena.envs.{game}_v0" for game in GAMES}
ROOT = Path(__file__).resolve().parents[1]


class First:
    """An opponent that plays the lowest legal id, and records the seeds it is reset with."""

    def __init__(self) -> None:
        self.resets: list[int] = []

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return masks.argmax(axis=1)

    def reset(self, seed: int) -> None:
        self.resets.append(seed)


# --- 5. Ea$y Money's data files: regular files of at most 1 MiB


@pytest.mark.parametrize("key", sorted(FILES))
def test_a_directory_named_as_a_data_file_is_refused_naming_the_key_and_the_limit(key: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=rf"the '{key}' file\): not a regular file .* at most {MAX_FILE_BYTES} bytes"):
        validate_config(EasyMoneyConfig, {key: str(tmp_path)})


@pytest.mark.parametrize("key", sorted(FILES))
def test_a_data_file_over_1_mib_is_refused_even_if_it_parses(key: str, tmp_path: Path) -> None:
    text = default_path(key).read_text().rstrip("\n") + "\n"
    padding = "# " + "x" * 97 + "\n"  # comments: the file stays a valid board / deck, only too large
    big = tmp_path / f"big_{key}.yaml"
    big.write_bytes((text + padding * (MAX_FILE_BYTES // len(padding) + 1)).encode())
    assert big.stat().st_size > MAX_FILE_BYTES
    with pytest.raises(ConfigError, match=rf"the '{key}' file\): larger than {MAX_FILE_BYTES} bytes; a data file"):
        validate_config(EasyMoneyConfig, {key: str(big)})
    exact = tmp_path / f"exact_{key}.yaml"  # at the limit it is read
    exact.write_bytes(text.encode() + b"#" * (MAX_FILE_BYTES - len(text.encode()) - 1) + b"\n")
    assert exact.stat().st_size == MAX_FILE_BYTES
    assert validate_config(EasyMoneyConfig, {key: str(exact)}).data() == EasyMoneyConfig().data()


@pytest.mark.skipif(not os.path.exists("/dev/zero") or not hasattr(os, "mkfifo"), reason="POSIX devices and pipes")
def test_a_device_or_a_pipe_named_as_a_data_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    """Before, ``board: /dev/zero`` read until the memory ran out and a pipe blocked forever: run in a child with a
    memory cap and a timeout, so a regression fails instead of taking the machine down."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        from dicearena.envs.common.config import ConfigError, validate_config
        from dicearena.envs.easy_money.config import EasyMoneyConfig
        for key, path in (("board", "/dev/zero"), ("wall_street", {str(fifo)!r})):
            try:
                validate_config(EasyMoneyConfig, {{key: path}})
            except ConfigError as exc:
                print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    assert "/dev/zero (the 'board' file): not a regular file" in lines[0] and str(MAX_FILE_BYTES) in lines[0]
    assert "(the 'wall_street' file): not a regular file" in lines[1]


# --- 6. A learner seat that can never decide


@pytest.mark.parametrize("face", [SeatEnv, SeatGames])
def test_a_seat_env_whose_learner_seat_never_decides_is_refused_when_built(face: type) -> None:
    """Easy Come with a fixed first player: turns go round from it, so seat 3 of 4 first plays turn 4; Ea$y Money with
    no starting money and one turn: only the first player decides. Before, construction passed and every reset dealt
    a thousand games."""
    args: tuple[Any, ...] = () if face is SeatEnv else (2,)
    cases = [
        ("easy_come_easy_go", {"num_players": 4, "first_player": 0, "max_turns": 3}, 3, r"'max_turns' 3 .* seat 3"),
        ("easy_come_easy_go", {"num_players": 3, "first_player": 2, "max_turns": 1}, 0, r"'max_turns' 1 .* seat 0"),
        ("easy_money", {"num_players": 3, "first_player": 0, "max_turns": 1, "start_wads": (0, 0, 0, 0)}, 2,
         r"'max_turns' 1 .* seat 2"),
    ]  # fmt: skip
    for game, config, seat, words in cases:
        with pytest.raises(ConfigError, match=rf"seat env: the learner's seat {seat} never has a decision .*{words}"):
            face(game, *args, First(), config, learner_seat=seat)
    # reachable, if only by chance: built as before (the roll-off may pick any seat; money may come by the Lottery)
    for game, config, seat in [
        ("easy_come_easy_go", {"num_players": 4, "first_player": 0, "max_turns": 4}, 3),
        ("easy_come_easy_go", {"num_players": 4, "max_turns": 1}, 3),
        ("easy_come_easy_go", {"num_players": 4, "first_player": 3, "max_turns": 1}, 3),
        ("easy_money", {"num_players": 3, "first_player": 0, "max_turns": 2, "start_wads": (0, 0, 0, 0)}, 2),
        ("easy_money", {"num_players": 4, "first_player": 0, "max_turns": 1}, 3),
        ("yay", {"num_players": 4, "max_turns": 1}, 3),
    ]:
        face(game, *args, First(), config, learner_seat=seat)


def test_a_refused_seat_plays_as_soon_as_the_config_reaches_it() -> None:
    env = SeatEnv("easy_come_easy_go", First(), {"num_players": 4, "first_player": 0, "max_turns": 4}, learner_seat=3)
    _, info = env.reset(seed=0)
    assert info["action_mask"].any() and info["turn"] == 4 and "skipped_games" not in info


# --- 8. Config values that were accepted and broke later


@pytest.mark.parametrize("key", ["win_reward", "loss_reward"])
def test_a_reward_that_overflows_float32_is_refused_naming_the_key_and_the_bound(key: str) -> None:
    for bad in (1e39, -1e39, MAX_REWARD * 1.5):
        with pytest.raises(ConfigError, match=rf"'{key}': Input should be (greater|less) than or equal to"):
            BatchedGame("easy_come_easy_go", 1, **{key: bad})
    assert getattr(validate_config(EasyComeEasyGoConfig, {key: -MAX_REWARD}), key) == -MAX_REWARD


def test_a_turn_task_prize_value_that_overflows_float32_is_refused() -> None:
    with pytest.raises(ConfigError, match=rf"'prize_values' must be 9 numbers in 0..{MAX_VALUE}"):
        validate_config(TurnTaskConfig, {"prize_values": [1e39] * 9})
    assert validate_config(TurnTaskConfig, {"prize_values": [MAX_VALUE] * 9}).value_scale == MAX_VALUE


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("wad_values", (1, 2, 5, 2**31), rf"'wad_values' are 4 positive integers up to {MAX_KNOB}"),
        ("lucky_dice_odds", (3, 2, 1, 1, 2, 2**31), rf"'lucky_dice_odds' are 6 integers 0..{MAX_KNOB}"),
        ("lucky_dice_odds", (3, 2, 1, 1, 2, MAX_KNOB + 1), rf"'lucky_dice_odds' are 6 integers 0..{MAX_KNOB}"),
        ("start_wads", (2**31, 0, 0, 0), rf"'start_wads' are 4 counts 0..{MAX_KNOB}"),
    ],
)
def test_easy_money_amounts_that_overflow_int32_are_refused_with_a_range(key: str, value: tuple, words: str) -> None:
    """Before: a bare OverflowError from the engine's header (``wad_values`` with no wads of that colour dealt)."""
    with pytest.raises(ConfigError, match=words):
        BatchedGame("easy_money", 1, **{"start_wads": (2, 2, 2, 0), key: value})


CONFIGS: list[tuple[type[GameConfig], dict[str, Any]]] = [
    (EasyComeEasyGoConfig, {}), (EasyMoneyConfig, {}), (YayConfig, {}), (ExtraConfig, {}), (ExtraSheet, {}),
    (TurnTaskConfig, {}), (UniformIntValues, {"high": 5}), (GreedTaskConfig, {}),
]  # fmt: skip


def _numeric_fields(model: type[GameConfig], base: dict[str, Any]) -> list[tuple[str, Any]]:
    """Each field whose default is a number or a sequence of numbers (bools are their own fields), with it."""
    default = model(**base)
    out = []
    for name in model.model_fields:
        value = getattr(default, name)
        items = list(value) if isinstance(value, tuple | list) else [value]
        if items and all(isinstance(v, int | float) and not isinstance(v, bool) for v in items):
            out.append((name, value))
    return out


@pytest.mark.parametrize(("model", "base"), CONFIGS, ids=[m.__name__ for m, _ in CONFIGS])
def test_no_config_coerces_a_bool_or_a_numeric_string_into_a_number(model: type[GameConfig], base: dict) -> None:
    """The documented "no silent type coercion", in every config of the suite's games and tasks (Yay!'s ``die_size``
    took '1.27' and True)."""
    fields = _numeric_fields(model, base)
    assert fields
    for name, value in fields:
        if isinstance(value, tuple | list):
            bads = [type(value)([True, *value[1:]]), type(value)([str(value[0]), *value[1:]])]
        else:
            bads = [True, str(value)]
        for bad in bads:
            with pytest.raises(ConfigError, match=rf"'{name}(\.[^']+)?': "):
                validate_config(model, {**base, name: bad})
        validate_config(model, {**base, name: value})  # the default itself stays fine


def test_yay_die_size_takes_an_int_or_a_float() -> None:
    assert validate_config(YayConfig, {"die_size": 1}).die_size == 1.0
    assert validate_config(YayConfig, {"die_size": 1.27}).die_size == 1.27
    for bad in ("1.27", True):
        with pytest.raises(ConfigError, match=r"'die_size': Input should be a valid number"):
            BatchedGame("yay", 1, die_size=bad)


# --- 9. Seeds on the batched faces


@pytest.mark.parametrize("game", GAMES)
def test_the_batched_engine_names_a_bad_seed_and_changes_nothing(game: str) -> None:
    for bad, error, words in ((-1, ValueError, "-1"), (1.5, TypeError, "float 1.5"), (True, TypeError, "bool True")):
        with pytest.raises(error, match=rf"^seed must be a non-negative int or None, got {words}$"):
            BatchedGame(game, 2, seed=bad)
    batch = BatchedGame(game, 2, seed=0)
    batch.reset(seed=3)
    before = batch.snapshot()
    for bad, error in ((-1, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="^seed must be"):
            batch.reset(seed=bad)
        for key, value in before.items():
            np.testing.assert_array_equal(getattr(batch, key), value, err_msg=key)


def test_the_vec_env_seed_names_the_argument_and_quotes_only_what_was_passed() -> None:
    games = SeatGames("easy_come_easy_go", 2, First(), seed=0)
    games.seed(5)
    for bad, error, words in ((-1, ValueError, "got -1$"), (1.5, TypeError, "got float 1.5$"),
                              (True, TypeError, "got bool True$")):  # fmt: skip
        with pytest.raises(error, match=rf"^seed must be a non-negative int or None, {words}"):
            games.seed(bad)
        assert games._seeds == [5, 6]
    assert games.seed(np.int64(7)) == [7, 8]


def test_a_failed_seat_reset_reseeds_nobody() -> None:
    """Before: the opponents were reseeded (with seed + 1, so 1.5 was quoted as 2.5) before the seed was refused."""
    opponent = First()
    core = SeatCore("easy_come_easy_go", 2, opponent, seed=0)
    core.reset(4)
    assert opponent.resets == [5]
    states, streams = core.batch.states.copy(), core.batch._streams.copy()
    for bad, error in ((-1, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="^seed must be a non-negative int or None"):
            core.reset(bad)
    assert opponent.resets == [5]
    np.testing.assert_array_equal(core.batch.states, states)
    np.testing.assert_array_equal(core.batch._streams, streams)


def test_the_sb3_seat_vec_env_names_a_bad_seed() -> None:
    pytest.importorskip("stable_baselines3")
    from dicearena.envs.common.game_seat import SeatVecEnv

    vec = SeatVecEnv("yay", 2, First(), seed=0)
    for bad, error in ((-1, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="^seed must be a non-negative int or None"):
            vec.seed(bad)


# --- 10. The wrapped PettingZoo env()


def _snapshot(env: Any) -> tuple:
    raw = env.unwrapped
    return (raw.engine_state.tobytes(), raw.agent_selection, list(raw.agents), dict(raw.rewards),
            dict(raw.terminations), dict(raw.truncations))  # fmt: skip


def _started(game: str) -> Any:
    env = importlib.import_module(MODULES[game]).env()
    env.reset(seed=0)
    return env


@pytest.mark.parametrize("game", GAMES)
def test_the_wrapped_env_gives_the_raw_envs_action_errors(game: str) -> None:
    env = _started(game)
    n = env.action_space(env.agent_selection).n
    before = _snapshot(env)
    for bad, error, words in [(True, TypeError, r"^action must be an int 0\.\.\d+, got a bool"),
                              (np.True_, TypeError, "got a bool"), ("1", TypeError, "^action must be an int .* str"),
                              (1.0, TypeError, "^action must be an int .* float"),
                              (n, ValueError, rf"^action {n} is out"), (-1, ValueError, r"^action -1 is out of range"),
                              (np.uint64(n + 5), ValueError, rf"^action {n + 5} is out of range")]:  # fmt: skip
        with pytest.raises(error, match=words):
            env.step(bad)
        assert _snapshot(env) == before


@pytest.mark.parametrize("game", GAMES)
def test_the_wrapped_env_takes_a_legal_id_of_any_numpy_integer_type(game: str) -> None:
    for kind in (np.uint64, np.uint8, np.int32, int):
        env, plain = _started(game), _started(game)
        for _ in range(3):
            agent = env.agent_selection
            legal = int(np.flatnonzero(env.observe(agent)["action_mask"])[-1])
            env.step(kind(legal))
            plain.step(legal)
            assert _snapshot(env) == _snapshot(plain)
            assert not env.unwrapped.terminations[agent]


@pytest.mark.parametrize("game", GAMES)
def test_a_legal_typed_illegal_id_still_ends_the_wrapped_game_with_minus_one(game: str) -> None:
    env = _started(game)
    for _ in range(20):  # until the mover has an illegal id
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        if not mask.all():
            break
        env.step(int(np.flatnonzero(mask)[0]))
    else:
        pytest.fail("every id stayed legal")
    env.step(np.uint64(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    env.step(None)  # a finished agent's step passes


# --- 11. Injected chance on the AEC face


class FloatOnce(SeededChance):
    """The seeded outcomes, the first one as floats (x + 0.25: truncated, the same outcome); then the seeded ones."""

    trusted = False
    sent = False

    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int) -> np.ndarray:
        outcome = super().outcome(engine, state, out, words)
        if self.sent:
            return outcome
        self.sent = True
        return outcome.astype(np.float64) + 0.25


class Nothing(SeededChance):
    trusted = False

    def outcome(self, engine: Any, state: np.ndarray, out: np.ndarray, words: int) -> None:
        return None


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("source", [FloatOnce, Nothing])
def test_the_aec_env_checks_an_injected_outcome_as_the_batched_and_seat_faces_do(game: str, source: type) -> None:
    words = r"a chance outcome is \d+ int32 values, got (float64|object) of shape \(\d*,?\); the game is unchanged"
    env = GameAEC(game)
    env.reset(seed=1)
    before = env.engine_state.copy()
    env.chance = source(0)
    with pytest.raises(ValueError, match=words):
        env.reset(seed=0)
    np.testing.assert_array_equal(env.engine_state, before)
    batch = BatchedGame(game, 1, seed=0)
    batch.chance = source(0)
    with pytest.raises(ValueError, match=words):
        batch.reset(seed=0)
    seat = SeatEnv(game, First(), chance=source(0))
    with pytest.raises(ValueError, match=words):
        seat.reset(seed=0)
