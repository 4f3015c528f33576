"""A game defined in the user's own module is first-class: its PettingZoo and Gymnasium ids exist as soon as it
registers (also in spawned workers), and its compiled kernels follow edits to its engine, wherever the file lives."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import dicearena.envs  # noqa: F401  (configures numba's cache, registers the suite)
from dicearena.envs.common.numba_cache import outside_key, outside_sources

ROOT = Path(__file__).resolve().parents[1]
PIG = ROOT / "examples" / "pig" / "pig_game.py"


def _run(code: str, env: dict[str, str] | None = None) -> dict:
    """``code`` in a fresh interpreter at the checkout's root; its last stdout line, read as JSON."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")} | {"NUMBA_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base | (env or {}), capture_output=True,
                          text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


_REGISTER = """
import json
import gymnasium, pettingzoo
import numpy as np
import dicearena.envs
from dicearena.envs.registration import GYMNASIUM_ENVS, PETTINGZOO_ENVS

GYM, PZ = "dicearena/PigVsOpponents-v0", "dicearena/pig-v0"
before = [GYM in gymnasium.registry, PZ in pettingzoo.aec_registry, GYM in GYMNASIUM_ENVS, PZ in PETTINGZOO_ENVS]
from examples.pig.pig_game import HoldAt  # defining Pig registers it: nothing else is called

after = [GYM in gymnasium.registry, PZ in pettingzoo.aec_registry, GYM in GYMNASIUM_ENVS, PZ in PETTINGZOO_ENVS]
env = gymnasium.make(GYM, opponents=HoldAt(), learner_seat=1)
obs, info = env.reset(seed=0)
obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
aec = pettingzoo.make("aec", PZ)
aec.reset(seed=0)
moves = 0
for agent in aec.agent_iter(max_iter=40):
    o, r, term, trunc, _ = aec.last()
    aec.step(None if term or trunc else int(np.flatnonzero(o["action_mask"])[0]))
    moves += 1
vec = gymnasium.make_vec(GYM, num_envs=2, vectorization_mode="async", vector_kwargs={"context": "spawn"},
                         opponents=HoldAt())
try:
    vobs, _ = vec.reset(seed=0)
    spawned = list(vobs.shape)
finally:
    vec.close()
print(json.dumps({"before": before, "after": after, "shape": list(obs.shape), "moves": moves,
                  "game": gymnasium.spec(GYM).kwargs["game"], "spawned": spawned}))
"""


def test_registering_a_game_registers_its_ids_at_once() -> None:
    out = _run(_REGISTER)
    assert out["before"] == [False] * 4  # `import dicearena.envs` alone knows nothing of Pig
    assert out["after"] == [True] * 4  # registering it made every id, with no other call
    assert out["shape"] == [10] and out["moves"] == 40  # gymnasium.make and pettingzoo.make serve it
    # the id names the module that registered the game, so a spawned worker imports it and finds Pig
    assert out["game"] == "examples.pig.pig_game:pig" and out["spawned"] == [2, 10]


def test_a_game_reference_names_its_module() -> None:
    from dicearena.envs.common.contract import game_reference, game_spec

    pig = importlib.import_module("examples.pig.pig_game").PIG
    assert game_reference(pig) == "examples.pig.pig_game:pig"
    assert game_spec("examples.pig.pig_game:pig") is pig
    assert game_reference(game_spec("yay")) == "yay"  # the suite's games keep their plain ids


def test_the_kernel_key_follows_an_engine_and_its_helpers_outside_the_tree(tmp_path: Path, monkeypatch) -> None:
    yay = importlib.import_module("dicearena.envs.yay.engine")
    assert outside_sources(yay) == [] and outside_key(yay) == ""  # the keyed cache directory covers the suite
    pig = importlib.import_module("examples.pig.pig_game")
    assert outside_sources(pig) == [PIG.resolve()]  # numpy, numba, pydantic and dicearena itself are not its own
    (tmp_path / "my_rules.py").write_text("from numba import njit\n\n\n@njit\ndef bonus():\n    return 1\n")
    (tmp_path / "my_engine.py").write_text("from my_rules import bonus\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    engine = importlib.import_module("my_engine")
    try:
        assert outside_sources(engine) == sorted([(tmp_path / "my_engine.py").resolve(),
                                                  (tmp_path / "my_rules.py").resolve()])  # fmt: skip
        key = outside_key(engine)
        (tmp_path / "my_rules.py").write_text("from numba import njit\n\n\n@njit\ndef bonus():\n    return 2\n")
        assert outside_key(engine) not in ("", key)  # an edit to a helper it draws on changes the key too
    finally:
        sys.modules.pop("my_engine", None)
        sys.modules.pop("my_rules", None)


_PLAY = """
import json, sys
sys.path.insert(0, {folder!r})
import numpy as np
import dicearena.envs
import my_pig  # Pig, copied into a folder of the user's
from dicearena.envs.common.game_batch import BatchedGame
batch = BatchedGame("pig", 16, seed=0, target=2)  # the compiled loops pay the rewards
batch.reset()
paid = set()
for _ in range(20):
    *_, info = batch.step(np.ones(16, dtype=np.int64))  # hold: a roll of 2 or more wins at once
    paid |= set(info["final_rewards"].ravel().tolist())
print(json.dumps(sorted(paid)))
"""


def test_an_edit_to_an_engine_outside_the_tree_reaches_its_compiled_kernels(tmp_path: Path) -> None:
    """Numba caches the generated kernels, which link the engine's functions in: keyed only by the checkout's
    source, a fresh process ran the old rule after an edit to an engine kept elsewhere."""
    folder, cache = tmp_path / "mine", tmp_path / "cache"
    folder.mkdir()
    source = PIG.read_text()
    rule = "out[s] = 1.0 if s == state[CURRENT] else -1.0"
    assert source.count(rule) == 1
    env = {"NUMBA_CACHE_DIR": str(cache)}
    script = _PLAY.format(folder=str(folder))
    (folder / "my_pig.py").write_text(source)
    assert _run(script, env) == [-1.0, 1.0]
    (folder / "my_pig.py").write_text(source.replace(rule, rule.replace("1.0 if", "5.0 if")))
    assert _run(script, env) == [-1.0, 5.0]  # the edited rule is played, from the same cache directory
    kernels = sorted(p.parent.name for p in cache.glob("src-*/kernels/*/my_pig.py"))
    assert len(kernels) == 2  # one kernels module per version of the engine, each compiled and cached by numba


def test_the_kernels_of_an_engine_outside_the_tree_live_under_its_key() -> None:
    from dicearena.envs.common.kernels import kernels_for

    pig = importlib.import_module("examples.pig.pig_game")
    module = kernels_for(pig)
    assert Path(module.__file__).parent.name == outside_key(pig) != ""
    assert kernels_for(pig) is module
