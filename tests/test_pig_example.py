"""The "Add your own game" example (examples/pig): a game kept outside the package is first-class. Its ids exist once
it is registered, its recipes name the module to import, and it trains and evaluates like the suite's games. The
conformance suite (tests/test_conformance.py) runs it on every face."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from dicearena.agents.evaluation import evaluate
from dicearena.agents.training import train

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pig"


def _fresh(code: str, cwd: Path = ROOT) -> dict:
    """Run ``code`` in a fresh interpreter (nothing registered yet) and return the JSON it prints last."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_ids_exist_once_the_game_is_registered() -> None:
    """Registered after ``dicearena.envs`` (whose import registers the suite's ids), Pig still gets its own."""
    report = _fresh(
        "import json, gymnasium, pettingzoo, numpy as np\n"
        "import dicearena.envs\n"
        "import examples.pig.pig_game\n"
        "env = pettingzoo.make('aec', 'dicearena/pig-v0', target=10); env.reset(seed=0)\n"
        "from dicearena.agents import make_agent\n"
        "seat = gymnasium.make('dicearena/PigVsOpponents-v0', opponents=make_agent('pig_hold_at_20'))\n"
        "obs, info = seat.reset(seed=0)\n"
        "from dicearena.agents import agent_names\n"
        "from dicearena.agents.training.tasks import all_tasks\n"
        "print(json.dumps({'agents': env.possible_agents, 'mask': info['action_mask'].tolist(),\n"
        "                  'names': list(agent_names('pig')), 'tasks': [t for t in all_tasks() if 'pig' in t]}))\n"
    )
    assert report["agents"] == ["player_0", "player_1"]
    assert sum(report["mask"]) >= 1  # the seat env hands over a decision, never a finished game
    assert "pig_hold_at_20" in report["names"]
    assert report["tasks"] == ["pig_vs_opponents", "pig_selfplay"]


def _recipe(name: str, tmp_path: Path, **changes) -> Path:
    recipe = yaml.safe_load((EXAMPLE / name).read_text())
    for key, value in changes.items():
        section, _, field = key.partition(".")
        if field:
            recipe[section][field] = value
        else:
            recipe[section] = value
    path = tmp_path / name
    path.write_text(yaml.safe_dump(recipe))
    return path


def test_trains_and_evaluates_from_the_example_recipes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # recipes import their module from the current directory, as python -m does
    out = tmp_path / "run"
    recipe = _recipe("train_pig.yaml", tmp_path, **{"training.output_dir": str(out), "score.samples": 200,
                                                       "task.num_envs": 8})  # fmt: skip
    assert train.main([str(recipe), "--total-timesteps", "1024", "--no-progress"]) == 0
    assert (out / "model.zip").is_file()
    score = json.loads((out / "score.json").read_text())
    assert 0.0 <= score["win_rate"] <= 1.0
    agents = {"random": {"kind": "random", "kwargs": {"seed": 0}}, "hold20": {"kind": "pig_hold_at_20"},
              "trained": {"kind": "sb3", "path": str(out / "model.zip")}}  # fmt: skip
    evaluation = _recipe("eval_pig.yaml", tmp_path, agents=agents, output_dir=str(tmp_path / "eval"),
                         **{"tables.games": 300})  # fmt: skip
    assert evaluate.main([str(evaluation)]) == 0
    rows = json.loads((tmp_path / "eval" / "results.json").read_text())
    text = json.dumps(rows)
    assert "hold20" in text and "trained" in text


def test_a_recipe_names_a_module_that_does_not_import(tmp_path: Path, capsys) -> None:
    recipe = _recipe("eval_pig.yaml", tmp_path, imports=["examples.pig.no_such_module"])
    assert evaluate.main([str(recipe)]) == 2
    assert "'imports': cannot import 'examples.pig.no_such_module'" in capsys.readouterr().err


def test_scoring_counts_the_games_the_learner_never_got_to_play() -> None:
    """Pig to 2 points, learner seated second, an opponent holding after any roll: it wins about 5 games in 6
    before the learner's first decision. Those games count against the learner (they are the env's first games);
    counting only games the learner played would put its win rate near 5/6."""
    import examples.pig.pig_game  # noqa: F401  (registers "pig")
    from dicearena.agents.training.vs_opponents import score_vs_opponents
    from examples.pig.pig_game import HoldAt

    config = {"opponents": [{"kind": "pig_hold_at_20", "kwargs": {"threshold": 1, "target": 2}}], "learner_seat": 1,
              "game": {"num_players": 2, "target": 2}}  # fmt: skip
    result = score_vs_opponents("pig", HoldAt(threshold=1, target=2), config, games=600, seed=3)
    assert result["games"] == 600
    assert result["win_rate"] < 0.35  # (1/6) x (5/6) ~ 0.14 in expectation
    assert result["mean_return"] < -0.3
