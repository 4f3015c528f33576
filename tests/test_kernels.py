"""The generated kernels (dicearena.envs.common.kernels) and the generic classic modules
(dicearena.envs.common.classic)."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dicearena.envs  # noqa: F401  (configures numba's cache)
from dicearena.envs import extra_v0, yay_v0
from dicearena.envs.common import kernels
from dicearena.envs.common.contract import game_spec
from dicearena.envs.common.dice import ScriptedDice
from dicearena.envs.common.game_aec import GameAEC
from dicearena.envs.extra import engine as extra_engine
from dicearena.envs.yay import engine as yay_engine
from examples.pig import pig_game

ROOT = Path(__file__).resolve().parents[1]


def test_each_engine_gets_the_loops_its_functions_call_for() -> None:
    pig = kernels.kernel_source(pig_game)
    assert "E.shaping_potentials" in pig and "L.act_range(" in pig and "L.act_joint_range" not in pig
    extra = kernels.kernel_source(extra_engine)
    assert "L.act_joint_range(" in extra and "L.encode_joint_all_game(" in extra and "L.record_one(" in extra
    assert "E.observe_scratch(" in extra and "E.observe_scratch(" not in pig
    assert "parallel=True" in pig and pig.count("parallel=True") == 2  # the two drivers; the range kernels are serial
    yay = kernels.kernel_source(yay_engine, cache=False)
    assert "CACHE = False" in yay and "E.shaping_potentials" in yay
    for text in (pig, extra, yay):
        compile(text, "<kernels>", "exec")
        assert all(f"def {name}(" in text for name in kernels.KERNEL_NAMES)


def test_a_kernel_file_is_rewritten_only_when_its_text_changes(tmp_path: Path) -> None:
    path = tmp_path / "k.py"
    kernels._write_if_changed(path, "x = 1\n")
    os.utime(path, (1_000_000, 1_000_000))
    kernels._write_if_changed(path, "x = 1\n")
    assert path.stat().st_mtime == 1_000_000  # numba's cache index trusts the mtime: an unchanged file keeps it
    kernels._write_if_changed(path, "x = 2\n")
    assert path.read_text() == "x = 2\n" and path.stat().st_mtime != 1_000_000


def test_kernels_load_without_a_cache_directory(tmp_path: Path) -> None:
    """No writable NUMBA_CACHE_DIR: the kernels still load (uncached) and play."""
    code = (
        "import os, numpy as np; import dicearena.envs; os.environ['NUMBA_CACHE_DIR'] = '/proc/no-such-dir'\n"
        "from dicearena.envs.common.game_batch import BatchedGame\n"
        "b = BatchedGame('easy_come_easy_go', 4, seed=0); obs = b.reset(0)[0]; print(obs.shape)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(4, 73)"


def test_classic_envs_take_the_games_dice_and_copy() -> None:
    env = extra_v0.raw_env(num_players=1, dice=ScriptedDice([[1, 2, 3, 4, 5]] * 3))
    env.reset()
    assert env.dice is not None and list(env.infos["player_0"]["dice"]) == [2, 3, 4, 5, 6]  # faces 0..5 show as pips
    twin = pickle.loads(pickle.dumps(env))
    assert type(twin) is extra_v0.raw_env and np.array_equal(twin.state(), env.state())
    assert np.array_equal(copy.deepcopy(env).state(), env.state())
    assert isinstance(extra_v0.parallel_env(), extra_v0.parallel_env)
    assert yay_v0.raw_env.__module__ == "dicearena.envs.yay_v0"


def test_dice_needs_a_game_dice_interface_and_excludes_chance() -> None:
    with pytest.raises(TypeError, match="takes no dice="):
        GameAEC(game_spec("pig"), dice=ScriptedDice([[1]]))
    with pytest.raises(ValueError, match="not both"):
        GameAEC(game_spec("extra"), chance=object(), dice=ScriptedDice([[1, 1, 1, 1, 1]]))


def test_row_views_alias_their_parent_rows() -> None:
    from numba import njit

    from dicearena.envs.common.rows import row

    @njit
    def bump(a, b):
        r = row(a, b)
        r[:] += 1
        return r.shape[0]

    @njit
    def inner(a, b, s):
        row(row(a, b), s)[:] = 7

    states = np.zeros((3, 5), dtype=np.int32)
    assert bump(states, 1) == 5
    assert states.tolist() == [[0] * 5, [1] * 5, [0] * 5]
    cube = np.zeros((2, 3, 4), dtype=np.float32)
    inner(cube, 1, 2)
    assert cube[1, 2].tolist() == [7] * 4 and cube.sum() == 28


def test_faces_unpickle_in_a_fresh_process(tmp_path: Path) -> None:
    """A pickled face keeps its spec's id and module; a fresh interpreter finds the spec (engine modules do not
    register their game: envs does) and the generated kernels again."""
    from dicearena.envs.common.game_batch import BatchedGame
    from dicearena.envs.easy_money.greed_task import GreedStopEnv

    table = GameAEC("yay")
    table.reset(seed=1)
    batch = BatchedGame("easy_money", 3, seed=0)
    batch.reset()
    task = GreedStopEnv()
    task.reset(seed=0)
    path = tmp_path / "faces.pkl"
    path.write_bytes(pickle.dumps((table, batch, task)))
    code = (f"import pickle; t, b, g = pickle.loads(open({str(path)!r}, 'rb').read()); "
            "print(t.state().sum(), b.states.sum(), g.state().sum())")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(table.state().sum()), str(batch.states.sum()), str(task.state().sum())]
