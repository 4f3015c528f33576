"""The wheel, as a user installs it: one top-level package, every tracked file it should hold, and a working
library from a directory outside the checkout with the checkout off ``sys.path``.

Built once per session from a copy of the tracked files (what a clean clone holds), with ``pip wheel`` and no build
isolation (the environment's setuptools), installed with ``pip install --target`` into a folder of its own; the
subprocess runs with that folder on ``PYTHONPATH`` and asserts that no module it loads comes from the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"dicearena": "dicearena", "envs": "dicearena/envs", "agents": "dicearena/agents",
           "configs": "dicearena/configs", "bench": "dicearena/bench"}  # fmt: skip


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()  # fmt: skip
    return [f for f in out if (ROOT / f).is_file()]


def expected_contents() -> set[str]:
    """Where each tracked file of the package folders lands in the wheel (tests, docs and notebooks stay out)."""
    out = set()
    for path in tracked():
        top, _, rest = path.partition("/")
        if top in FOLDERS and rest:
            out.add(f"{FOLDERS[top]}/{rest}")
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for path in tracked():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, source / path)
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist),
                    str(source)], check=True, capture_output=True)  # fmt: skip
    (found,) = dist.glob("dice_arena-*.whl")
    return found


def test_the_only_top_level_package_is_dicearena(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"dicearena"}


def test_the_wheel_holds_every_tracked_package_file(wheel: Path) -> None:
    """Models of every kind, cards, boards, decks, recipes and each game's README: nothing tracked is left out, and
    nothing untracked slips in."""
    names = {n for n in zipfile.ZipFile(wheel).namelist() if not n.split("/")[0].endswith(".dist-info")}
    expected = expected_contents()
    assert expected - names == set(), "tracked files missing from the wheel"
    assert names - expected == set(), "wheel files that are not tracked"
    for kind in (".npz", ".zip", ".yaml"):
        assert any(n.startswith("dicearena/agents/models/") and n.endswith(kind) for n in names)
    for game in ("easy_come_easy_go", "extra", "yay", "easy_money"):
        assert f"dicearena/envs/{game}/README.md" in names


CHECK = r"""
import json, sys
from pathlib import Path
import numpy as np
import gymnasium, pettingzoo
import dicearena.envs
from dicearena.agents import agent_names, make_agent, table_player
from dicearena.agents.shipped import shipped
from dicearena.agents.evaluation.play import head_to_head
from dicearena.envs.common.contract import GAMES
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.game_seat import SeatEnv
from dicearena.envs.registration import GYMNASIUM_ENVS, PETTINGZOO_ENVS

report = {"agents": {}, "faces": {}}
for name, card in sorted(shipped().items()):  # every shipped agent, by name, plays a few games
    agent = make_agent(name)
    game = card["game"]
    config = {**card.get("config", {}), "num_players": 2}
    rival = table_player(game, "random", config)
    report["agents"][name] = head_to_head(game, agent, rival, config, games=4, seed=0)["games"]
for game, spec in GAMES.items():
    steps = {}
    env = pettingzoo.make("aec", spec.env_id)
    env.reset(seed=0)
    n = 0
    for agent in env.agent_iter(max_iter=20):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        n += 1
    steps["aec"] = n
    if spec.dynamics == "simultaneous":
        par = pettingzoo.make("parallel", spec.env_id)
        obs, _ = par.reset(seed=0)
        par.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()})
        steps["parallel"] = 1
    batch = BatchedGame(game, num_envs=8, seed=0)
    obs, masks, _ = batch.reset()
    for _ in range(5):
        obs, masks = batch.step(masks.argmax(-1))[:2]
    steps["batched"] = 5
    seat_id = f"dicearena/{spec.camel_name}VsOpponents-v0"
    seat = gymnasium.make(seat_id, opponents=make_agent("random", seed=0))
    obs, info = seat.reset(seed=0)
    obs, *_ = seat.step(int(np.flatnonzero(info["action_mask"])[0]) if "action_mask" in info else 0)
    steps["seat"] = 1
    report["faces"][game] = steps
for env_id, (entry, kwargs) in sorted(GYMNASIUM_ENVS.items()):
    if "VsOpponents" in env_id:
        continue
    task = gymnasium.make(env_id)
    obs, info = task.reset(seed=0)
    mask = task.unwrapped.action_masks()
    task.step(int(np.flatnonzero(mask)[0]))
    report["faces"][env_id] = {"task": 1}
report["names"] = list(agent_names())
root = sys.argv[1]
venv = sys.prefix + "/"  # the environment may live inside the checkout (.venv): its packages are not the checkout
report["from_checkout"] = sorted(m for m, mod in sys.modules.items() if (f := getattr(mod, "__file__", None) or "")
                                 and f.startswith(root) and not f.startswith(venv))
report["dicearena"] = dicearena.envs.__file__
print(json.dumps(report))
"""


def test_installed_wheel_works_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)  # fmt: skip
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "NUMBA_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", CHECK, str(ROOT) + os.sep], cwd=outside, env=env, capture_output=True,
                         text=True, timeout=1200)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["from_checkout"] == []
    assert report["dicearena"].startswith(str(site))
    cards = {p.stem for p in (ROOT / "agents" / "models").glob("*.yaml")}
    assert set(report["agents"]) == cards  # eceg_td, extra_td and yay_td (.npz) included
    assert all(games == 4 for games in report["agents"].values())
    assert {"easy_come_easy_go", "extra", "yay", "easy_money"} <= set(report["faces"])
    assert cards <= set(report["names"])
