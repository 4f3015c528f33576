"""Train an agent from a YAML recipe: ``python train.py configs/easy_come_easy_go_turn.yaml``.

Runs are resumable: checkpoints land in ``<output_dir>/checkpoints`` every ``checkpoint_every`` steps and
on Ctrl-C or SIGTERM; running the same command again continues from the newest one (``--fresh`` starts
over). The final model is saved with a copy of its recipe and scored by its task (``agents/tasks.py``): the
turn task against the exact optimum, Extra! solitaire against the greedy agent, a seat against opponents by
win rate beside the first opponent's own.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field

from agents.tasks import TASKS
from envs.common.config import ConfigError, GameConfig, validate_config


class TaskSection(GameConfig):
    id: Literal[TASKS] = Field(description="training task (agents.tasks.TASKS)")  # type: ignore[valid-type]
    config: dict[str, Any] = Field(default_factory=dict, description="the task env's config keys")
    num_envs: int = Field(64, ge=1, le=65_536)


class AlgorithmSection(GameConfig):
    name: Literal["MaskablePPO"] = "MaskablePPO"
    policy_kwargs: dict[str, Any] = Field(default_factory=dict)
    hyperparameters: dict[str, Any] = Field(default_factory=dict, description="MaskablePPO keyword arguments")


class TrainingSection(GameConfig):
    total_timesteps: int = Field(ge=1)
    time_limit_minutes: float | None = Field(None, gt=0, description="stop early (and save) after this long")
    checkpoint_every: int = Field(100_000, ge=1, description="steps between checkpoints")
    seed: int = 0
    output_dir: str = Field(description="where checkpoints, logs and the model go")
    torch_threads: int = Field(1, ge=1, le=64)


class ScoreSection(GameConfig):
    samples: int = Field(200, ge=1, description="turn task: value vectors scored exactly; Extra!: games played")
    seed: int = 12345


class TrainRecipe(GameConfig):
    name: str
    task: TaskSection
    algorithm: AlgorithmSection = AlgorithmSection()
    training: TrainingSection
    score: ScoreSection = ScoreSection()


def load_recipe(path: Path) -> TrainRecipe:
    if not path.is_file():
        raise ConfigError(f"no such config file: {path}")
    raw = yaml.safe_load(path.read_text())
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a YAML mapping at the top level")
    return validate_config(TrainRecipe, _nested(raw))


def _nested(raw: dict[str, Any]) -> dict[str, Any]:
    """Sub-sections as section models, so strict validation reports their keys by path."""
    sections = {"task": TaskSection, "algorithm": AlgorithmSection, "training": TrainingSection, "score": ScoreSection}
    out = dict(raw)
    for key, model in sections.items():
        if isinstance(out.get(key), dict):
            try:
                out[key] = validate_config(model, out[key])
            except ConfigError as exc:
                raise ConfigError(f"[{key}] {exc}") from None
    return out


def latest_checkpoint(checkpoint_dir: Path) -> tuple[Path, int] | None:
    found = []
    for path in checkpoint_dir.glob("model_*_steps.zip"):
        match = re.fullmatch(r"model_(\d+)_steps\.zip", path.name)
        if match:
            found.append((int(match.group(1)), path))
    if not found:
        return None
    steps, path = max(found)
    return path, steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path, help="YAML recipe in configs/")
    parser.add_argument("--fresh", action="store_true", help="delete this run's checkpoints and start over")
    parser.add_argument("--total-timesteps", type=int, help="override training.total_timesteps")
    parser.add_argument("--output-dir", help="override training.output_dir")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (e.g. in CI logs)")
    args = parser.parse_args(argv)
    try:
        recipe = load_recipe(args.config)
        overrides = {}
        if args.total_timesteps is not None:
            overrides["total_timesteps"] = args.total_timesteps
        if args.output_dir is not None:
            overrides["output_dir"] = args.output_dir
        if overrides:
            training = validate_config(TrainingSection, recipe.training, **overrides)
            recipe = validate_config(TrainRecipe, recipe.model_dump() | {"training": training})
        from agents.tasks import check_task_config

        check_task_config(recipe.task.id, recipe.task.config)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return train(recipe, fresh=args.fresh, progress=not args.no_progress)


def train(recipe: TrainRecipe, fresh: bool = False, progress: bool = True) -> int:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback

    from agents.sb3_agent import SB3Agent
    from agents.tasks import make_training_env, score_trained_agent

    torch.set_num_threads(recipe.training.torch_threads)
    out = Path(recipe.training.output_dir)
    checkpoints = out / "checkpoints"
    checkpoints.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(recipe.model_dump(), sort_keys=False))

    env = make_training_env(recipe.task.id, recipe.task.config, recipe.task.num_envs, recipe.training.seed)
    if fresh:  # an old run's checkpoints would otherwise be what a later resume picks up
        stale = list(checkpoints.glob("model_*_steps.zip"))
        for path in stale:
            path.unlink()
        if stale:
            print(f"--fresh: removed {len(stale)} old checkpoints from {checkpoints}")
    resume = None if fresh else latest_checkpoint(checkpoints)
    if resume:
        path, done_steps = resume
        print(f"resuming from {path} ({done_steps:,} steps done)")
        model = MaskablePPO.load(path, env=env, tensorboard_log=str(out / "tb"))
    else:
        done_steps = 0
        try:
            model = MaskablePPO(
                "MlpPolicy",
                env,
                policy_kwargs=recipe.algorithm.policy_kwargs or None,
                tensorboard_log=str(out / "tb"),
                seed=recipe.training.seed,
                verbose=0,
                **recipe.algorithm.hyperparameters,
            )
        except TypeError as exc:
            print(f"error: [algorithm.hyperparameters] {exc}", file=sys.stderr)
            return 2

    started = time.monotonic()
    limit = recipe.training.time_limit_minutes

    class TimeLimit(BaseCallback):
        def _on_step(self) -> bool:
            return limit is None or time.monotonic() - started < 60 * limit

    def save_checkpoint() -> Path:
        path = checkpoints / f"model_{model.num_timesteps}_steps.zip"
        model.save(path)
        return path

    def on_sigterm(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous_handler = signal.signal(signal.SIGTERM, on_sigterm)
    every = max(1, recipe.training.checkpoint_every // recipe.task.num_envs)
    callbacks = CallbackList([CheckpointCallback(every, str(checkpoints), name_prefix="model"), TimeLimit()])
    remaining = recipe.training.total_timesteps - done_steps
    try:
        if remaining > 0:
            model.learn(
                total_timesteps=remaining,
                callback=callbacks,
                reset_num_timesteps=resume is None,
                tb_log_name=recipe.name,
                progress_bar=progress,
            )
    except KeyboardInterrupt:
        path = save_checkpoint()
        print(f"\ninterrupted: saved {path}; run the same command again to resume")
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
    save_checkpoint()
    minutes = (time.monotonic() - started) / 60
    model_path = out / "model.zip"
    model.save(model_path)
    print(f"trained {model.num_timesteps:,} steps in {minutes:.1f} min this run; model: {model_path}")

    agent = SB3Agent(model, deterministic=True, name="trained")
    report = score_trained_agent(recipe.task.id, agent, recipe.task.config, recipe.score.samples, recipe.score.seed)
    report["timesteps"] = int(model.num_timesteps)
    report["minutes_this_run"] = round(minutes, 2)
    (out / "score.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
