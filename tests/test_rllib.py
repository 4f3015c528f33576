"""The Ray RLlib path (``dicearena.agents.training.rllib``, the ``rllib`` extra) on every game of the suite:
multi-agent PPO on the new API
stack with one shared masked policy trains >= 2 iterations locally, writes checkpoints, resumes from them, and a
checkpoint plays legal actions as an agent in a tournament. Tiny batches: each game costs a few seconds after one
shared ``ray.init``. Deterministic assertions only (nothing here asserts learning)."""

from __future__ import annotations

import json
import os
import pickle
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

import dicearena.envs  # noqa: E402, F401  (registers the suite's games)
from dicearena.agents import make_agent  # noqa: E402
from dicearena.agents.base import Agent  # noqa: E402
from dicearena.agents.random_agent import RandomAgent  # noqa: E402
from dicearena.agents.rllib_agent import RLlibAgent  # noqa: E402
from dicearena.agents.rllib_checkpoints import CARD, CheckpointError, checkpoints_newest_first, read_weights  # noqa: E402
from dicearena.agents.training.rllib import check_recipe, main, train  # noqa: E402
from dicearena.envs.common.config import ConfigError  # noqa: E402
from dicearena.envs.common.contract import GAMES  # noqa: E402

SUITE = sorted(g for g, spec in GAMES.items() if spec.engine.__name__.startswith("dicearena.envs."))  # not Pig
BATCH = 64  # env steps per iteration


@pytest.fixture(scope="module")
def ray_local() -> Any:
    """One local Ray instance for the module (``address="local"``: a stale cluster file cannot hijack it), on the
    loopback address: a single-machine instance needs no other (Ray's switch for machines without multi-node
    clusters; otherwise it binds to the machine's network address)."""
    from ray._private import ray_constants

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False, raising=False)
        ray.init(address="local", num_cpus=2, include_dashboard=False)
        assert all(node["NodeManagerAddress"] == "127.0.0.1" for node in ray.nodes())
        yield ray
        ray.shutdown()


def _recipe(game: str, out: Path, iterations: int = 2, **ppo: Any) -> dict[str, Any]:
    return {"name": f"test_{game}", "game": game, "config": {"num_players": 2},
            "module": {"hiddens": [32]},
            "ppo": {"train_batch_size": BATCH, "minibatch_size": 32, "num_epochs": 1, "rollout_fragment_length": BATCH,
                    **ppo},
            "training": {"iterations": iterations, "checkpoint_every": 1, "keep_checkpoints": 2,
                         "output_dir": str(out), "seed": 0}}  # fmt: skip


class LegalityProbe(Agent):
    """Plays ``inner``'s actions, checking each against its mask and counting the decisions."""

    def __init__(self, inner: Agent) -> None:
        self.inner, self.name, self.decisions = inner, inner.name, 0
        self.observation_space = inner.observation_space

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        actions = self.inner.act_batch(observations, action_masks)
        assert action_masks[np.arange(len(actions)), actions].all(), "an illegal action"
        self.decisions += len(actions)
        return actions


@pytest.fixture(scope="module")
def runs(ray_local: Any) -> dict[str, Path]:
    """game -> its run, trained 2 iterations then resumed to 3 (by ``_trained``, once per module, on first use)."""
    return {}


def _trained(runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, game: str,
             capsys: pytest.CaptureFixture[str] | None = None) -> Path:  # fmt: skip
    """The run of ``game`` in ``runs``, trained now if it is not there yet (checking what training printed)."""
    from pettingzoo.utils.env_logger import EnvLogger

    if game not in runs:
        out = tmp_path_factory.mktemp(f"rllib_{game}")
        EnvLogger.mqueue.clear()
        assert train(check_recipe(_recipe(game, out)), progress=False) == 0
        assert not [m for m in EnvLogger.mqueue if "Illegal move" in m]  # the masked policy never played one
        assert [it for it, _ in checkpoints_newest_first(out / "checkpoints")] == [2, 1]
        if capsys is not None:
            capsys.readouterr()
        assert train(check_recipe(_recipe(game, out, iterations=3)), progress=False) == 0  # resumes
        if capsys is not None:
            said = capsys.readouterr().out
            assert "resuming from iter_000002 (2 iterations" in said and "training.iterations: 2 -> 3" in said
        runs[game] = out
    return runs[game]


@pytest.mark.parametrize("game", SUITE)
def test_trains_checkpoints_resumes_and_plays(
    game: str, runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:  # fmt: skip
    from dicearena.agents.evaluation.tournament import tournament

    out = _trained(runs, tmp_path_factory, game, capsys)
    kept = checkpoints_newest_first(out / "checkpoints")
    assert [it for it, _ in kept] == [3, 2]  # keep_checkpoints: 2, the oldest pruned
    card = json.loads((kept[0][1] / CARD).read_text())
    assert (card["game"], card["iteration"], card["env_steps"]) == (game, 3, 3 * BATCH)
    assert card["rllib_iteration"] == 3  # RLlib's own state was restored, not started afresh
    assert json.loads((out / "summary.json").read_text())["iterations"] == 3
    assert train(check_recipe(_recipe(game, out, iterations=3)), progress=False) == 0  # done stays done
    assert "already done (3 iterations" in capsys.readouterr().out

    agent = make_agent("rllib", checkpoint=str(out))  # a run's output_dir: its newest checkpoint
    assert isinstance(agent, RLlibAgent) and agent.path == kept[0][1]
    probe = LegalityProbe(agent)
    config = agent.table_config()
    t = tournament(game, {"rllib": probe, "random": RandomAgent(seed=0)}, 2, 10, config, seed=0, progress=False)
    assert t.games == 20 and probe.decisions > 0
    assert sorted(r["agent"] for r in t.ratings) == ["random", "rllib"]
    assert all(r["games"] == 20 for r in t.ratings)


def test_agent_acts_as_rllib_restores_it(runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> None:
    """The data-only loader gives the logits RLlib's own ``RLModule.from_checkpoint`` gives; greedy is repeatable."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    from dicearena.envs.common.game_aec import make_env

    out = _trained(runs, tmp_path_factory, SUITE[0])
    agent = RLlibAgent(out)
    env = make_env(agent.game, **agent.table_config())
    obs, masks = [], []
    for seed in range(8):
        env.reset(seed=seed)
        o = env.observe(env.agent_selection)
        obs.append(o["observation"])
        masks.append(o["action_mask"])
    obs_b, masks_b = np.stack(obs), np.stack(masks)
    theirs = RLModule.from_checkpoint(agent.path / "learner_group" / "learner" / "rl_module" / "shared")
    with torch.no_grad():
        batch = {Columns.OBS: {"observations": torch.as_tensor(obs_b), "action_mask": torch.as_tensor(masks_b)}}
        expected = theirs.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    np.testing.assert_allclose(agent.logits(obs_b, masks_b), expected, rtol=1e-6, atol=1e-6)
    actions = agent.act_batch(obs_b, masks_b)
    assert np.array_equal(actions, agent.act_batch(obs_b, masks_b))
    assert masks_b[np.arange(len(actions)), actions].all()
    stochastic = RLlibAgent(out, deterministic=False, seed=0)
    assert masks_b[np.arange(8), stochastic.act_batch(obs_b, masks_b)].all()


def test_entrant_of_an_evaluation_recipe(
    runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:  # fmt: skip
    """``{kind: rllib, kwargs: {checkpoint: <run>}}`` in evaluate.py's tournament section."""
    import yaml

    from dicearena.agents.evaluation import evaluate

    game = SUITE[0]
    out = _trained(runs, tmp_path_factory, game)
    recipe = {"name": "rllib_entrant", "game": game, "output_dir": str(tmp_path / "results"),
              "agents": {"bot": {"kind": "rllib", "kwargs": {"checkpoint": str(out)}},
                         "random": {"kind": "random", "kwargs": {"seed": 0}}},
              "tournament": {"config": {}, "games_per_seating": 10, "seed": 0}}  # fmt: skip
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    results = evaluate.run(evaluate.load_recipe(path))
    ratings = next(rows for _, kind, rows in results if kind == "ratings")
    assert sorted(r["agent"] for r in ratings) == ["bot", "random"]


def test_env_renames_the_observation() -> None:
    """Every game's RLlib env observes ``{"observations", "action_mask"}``, seats in order, within its spaces."""
    from dicearena.agents.training.rllib_env import DiceArenaEnv

    for game in SUITE:
        env = DiceArenaEnv({"game": game, "config": {"num_players": 3}})
        assert env.possible_agents == ["player_0", "player_1", "player_2"]
        obs, _ = env.reset(seed=0)
        (agent, o), = obs.items()
        assert set(o) == {"observations", "action_mask"} and o["observations"].dtype == np.float32
        assert o in env.observation_spaces[agent]
    with pytest.raises(ValueError, match="needs 'game'"):
        DiceArenaEnv({})


def test_module_refuses_an_unmasked_space() -> None:
    import gymnasium as gym

    from dicearena.agents.rllib_module import MaskedPPOTorchRLModule

    with pytest.raises(ValueError, match="'observations' and 'action_mask'"):
        MaskedPPOTorchRLModule(observation_space=gym.spaces.Box(0, 1, (3,)), action_space=gym.spaces.Discrete(2))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"game": "chess"}, "'game' must be one of"),
        ({"config": {"num_players": 99}}, r"\[config\].*num_players"),
        ({"ppo": {"train_batch_size": 64, "minibatch_size": 128}}, "'minibatch_size' .128. must be at most"),
        ({"ppo": {"gamma": 1.5}}, r"\[ppo\].*'gamma'"),
        ({"ppo": {"rollout_fragment_length": 0}}, "'rollout_fragment_length' must be 'auto' or 1"),
        ({"ray": {"address": "auto", "num_cpus": 2}}, "'num_cpus' sizes a \"local\" Ray instance"),
        ({"ray": {"num_env_runners": -1}}, r"\[ray\].*'num_env_runners'"),
        ({"module": {"activation": "sigmoid"}}, r"\[module\].*'activation'"),
        ({"training": {"iterations": 0, "output_dir": "x"}}, r"\[training\].*'iterations'"),
        ({"learning_rate": 0.1}, "unknown key 'learning_rate'"),
    ],
)
def test_bad_recipe_values_are_named(edit: dict[str, Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        check_recipe({**_recipe("easy_come_easy_go", tmp_path), **edit})


def test_cli_error_line_and_fixed_keys_on_resume(
    runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    import yaml

    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**_recipe("easy_come_easy_go", tmp_path), "ppo": {"lr": 2.0}}))
    assert main([str(bad), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: [ppo]") and "'lr'" in err
    game = SUITE[0]
    out = _trained(runs, tmp_path_factory, game)
    changed = _recipe(game, out, iterations=4)
    changed["module"] = {"hiddens": [64]}
    with pytest.raises(ConfigError, match=r"cannot resume .* module.hiddens: \[32\] -> \[64\].*--fresh"):
        train(check_recipe(changed), progress=False)


def test_weights_are_read_as_data(tmp_path: Path) -> None:
    """A weights file naming any class but numpy's arrays is refused, not run."""
    folder = tmp_path / "learner_group" / "learner" / "rl_module" / "shared"
    folder.mkdir(parents=True)
    (folder / "module_state.pkl").write_bytes(pickle.dumps({"w": np.zeros(2, np.float32)}))
    assert read_weights(tmp_path, "shared")["w"].shape == (2,)
    (folder / "module_state.pkl").write_bytes(pickle.dumps({"w": Path("x")}))
    with pytest.raises(CheckpointError, match="only numpy arrays are read"):
        read_weights(tmp_path, "shared")
    with pytest.raises(CheckpointError, match="neither a checkpoint"):
        RLlibAgent(tmp_path / "learner_group")
    with pytest.raises(FileNotFoundError, match="no RLlib checkpoint at"):
        RLlibAgent(tmp_path / "nothing")


def test_resume_runs_no_pickle_planted_in_a_checkpoint(
    runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A planted ``algorithm_state.pkl`` that RLlib's ``restore_from_path`` would unpickle (here: one that creates a
    file) makes resume skip that checkpoint by name and resume from the older one; the planted code never runs."""
    import shutil

    game = SUITE[0]
    out = tmp_path / "run"
    shutil.copytree(_trained(runs, tmp_path_factory, game), out)
    marker = tmp_path / "planted_code_ran"

    class Planted:
        def __reduce__(self) -> tuple[Any, ...]:
            return open, (str(marker), "w")

    newest = out / "checkpoints" / "iter_000003"
    (newest / "algorithm_state.pkl").write_bytes(pickle.dumps(Planted()))
    capsys.readouterr()
    assert train(check_recipe(_recipe(game, out, iterations=4)), progress=False) == 0
    said = capsys.readouterr().out
    assert "skipping checkpoint iter_000003: algorithm_state.pkl does not match the sha256" in said
    assert "resuming from iter_000002 (2 iterations" in said
    assert not marker.exists()
    card = json.loads((out / "checkpoints" / "iter_000004" / CARD).read_text())
    assert card["iteration"] == card["rllib_iteration"] == 4  # RLlib's own count went on from iter_000002's 2


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_during_a_checkpoint_waits_for_it(
    ray_local: Any, signum: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # fmt: skip
    """SIGTERM or Ctrl-C while a checkpoint is written: the write ends whole, then the run stops with its save
    (exit 130), as it does between iterations; a resume starts from it."""
    from dicearena.agents.training import rllib

    real_save = rllib.save_checkpoint
    saved: list[Path] = []

    def save_with_a_signal(*args: Any, **kwargs: Any) -> Path:
        if not saved:
            os.kill(os.getpid(), signum)  # Python runs the handler at once, here, inside the write
        saved.append(real_save(*args, **kwargs))
        return saved[-1]

    monkeypatch.setattr(rllib, "save_checkpoint", save_with_a_signal)
    out = tmp_path / "run"
    assert train(check_recipe(_recipe("easy_come_easy_go", out, iterations=5)), progress=False) == 130
    assert "interrupted: saved" in capsys.readouterr().out
    assert [p.name for p in saved] == ["iter_000001", "iter_000001"]  # the write the signal came in, then the stop's
    assert [it for it, _ in checkpoints_newest_first(out / "checkpoints")] == [1]
    monkeypatch.setattr(rllib, "save_checkpoint", real_save)
    assert train(check_recipe(_recipe("easy_come_easy_go", out, iterations=2)), progress=False) == 0
    assert "resuming from iter_000001" in capsys.readouterr().out
