"""Train an agent from a YAML recipe: ``python train.py configs/<recipe>.yaml`` (the recipes in ``configs/``).

Runs are resumable: checkpoints land in ``<output_dir>/checkpoints`` every ``checkpoint_every`` steps and on
Ctrl-C or SIGTERM (written atomically; the newest ``keep_checkpoints`` are kept). Running the same command
again continues from the newest checkpoint that loads, with the recipe's edited hyperparameters applied
(keys that cannot change mid-run are refused by name); a run that reached its steps or its time limit stays
done. ``--fresh`` starts over. Every recipe value is checked before any work starts: a mistake is one
``error:`` line and exit code 2. The final model is saved with a copy of its recipe and scored by its task
(``agents/training/tasks.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, field_validator

from dicearena.agents.evaluation.recipes import (
    Imports,
    OutputDir,
    RunName,
    Seed,
    check_recipe_kind,
    import_modules,
    load_yaml,
    make_output_dir,
    recipe_path,
)
from dicearena.agents.evaluation.recipes import resume_changes as recipe_changes
from dicearena.agents.model_files import ModelFile, save_model
from dicearena.agents.sb3_agent import SB3Agent
from dicearena.agents.training.checkpoints import (
    checkpoints_newest_first,
    latest_checkpoint,
    newest_loadable,
    remove_all,
    save_checkpoint,
)
from dicearena.agents.training.sb3_recipe import AlgorithmSection
from dicearena.agents.training.stop_signals import StopSignals
from dicearena.agents.training.tasks import (
    all_tasks,
    check_task_config,
    make_training_env,
    prepare_training,
    score_trained_agent,
)
from dicearena.envs.common.config import ConfigError, GameConfig, validate_config

__all__ = ["TrainRecipe", "latest_checkpoint", "load_recipe", "main", "progress_callback", "train"]

# Keys a resumed run cannot change: the task, the network and the seed are what the checkpoint was made of.
FIXED_ON_RESUME = ("task.", "algorithm.name", "algorithm.policy_kwargs.", "training.seed")
IGNORED_ON_RESUME = ("training.output_dir",)


class TaskSection(GameConfig):
    id: str = Field(description="training task (dicearena.agents.training.tasks.TASKS)")
    config: dict[str, Any] = Field(default_factory=dict, description="the task env's config keys")
    num_envs: int = Field(64, ge=1, le=65_536)

    @field_validator("id")
    @classmethod
    def _known(cls, value: str) -> str:
        known = all_tasks()  # read when a recipe is checked: a game imported by the recipe adds its tasks
        if value not in known:
            raise ValueError(f"unknown task {value!r}; known tasks: {', '.join(known)}")
        return value


class TrainingSection(GameConfig):
    total_timesteps: int = Field(ge=1, le=10**12)
    time_limit_minutes: float | None = Field(None, gt=0, le=10**6, description="training time in all, over reruns")
    checkpoint_every: int = Field(100_000, ge=1, description="steps between checkpoints")
    keep_checkpoints: int = Field(3, ge=1, le=10_000, description="newest checkpoints kept (older ones deleted)")
    seed: Seed = 0
    output_dir: OutputDir
    torch_threads: int = Field(1, ge=1, le=64)


class ScoreSection(GameConfig):
    samples: int = Field(200, ge=1, le=10**7, description="turn task: value vectors scored exactly; else games")
    seed: Seed = 12345


class TrainRecipe(GameConfig):
    imports: Imports = Field(default_factory=list, description="modules to import first (a game of your own)")
    name: RunName
    task: TaskSection
    algorithm: AlgorithmSection = AlgorithmSection()
    training: TrainingSection
    score: ScoreSection = ScoreSection()


def load_recipe(path: Path, **training_overrides: Any) -> TrainRecipe:
    """The recipe at ``path`` (with ``training`` overrides), every value checked, the task's config included."""

    raw = load_yaml(path)
    check_recipe_kind(raw, path, "train")
    import_modules(raw)
    if training_overrides and isinstance(raw.get("training"), dict):
        raw["training"] = {**raw["training"], **training_overrides}
    recipe = validate_config(TrainRecipe, raw)
    check_task_config(recipe.task.id, recipe.task.config)
    return recipe


def resume_changes(previous: TrainRecipe, recipe: TrainRecipe) -> list[str]:
    """The edited values a resumed run applies ("key: old -> new"); a ConfigError for keys it cannot change."""
    return recipe_changes(previous.model_dump(), recipe.model_dump(), recipe.training.output_dir, IGNORED_ON_RESUME,
                          FIXED_ON_RESUME, "they shape the saved model")  # fmt: skip


def prepare_output(recipe: TrainRecipe) -> Path:
    """Create the run's folders, or a ConfigError when ``output_dir`` cannot hold them."""
    out = make_output_dir(recipe.training.output_dir, "training.output_dir")
    make_output_dir(out / "checkpoints", "training.output_dir")
    return out


def plan_resume(recipe: TrainRecipe, out: Path, fresh: bool) -> ModelFile | None:
    """The checkpoint to resume from (None: start fresh), after checking the recipe may resume it."""
    if fresh:
        return None
    checkpoint = newest_loadable(out / "checkpoints")
    if checkpoint is None:
        if checkpoints_newest_first(out / "checkpoints"):  # starting over would prune them, and clear a pool
            raise ConfigError(f"none of the checkpoints in {out / 'checkpoints'} loads (each is named above); add "
                              "--fresh to start over")  # fmt: skip
        return None
    try:
        previous = validate_config(TrainRecipe, load_yaml(out / "config.yaml"))
    except ConfigError as exc:
        raise ConfigError(f"cannot compare with the run in {out} ({exc}); add --fresh to start over") from None
    for change in resume_changes(previous, recipe):
        print(f"resume: applying the edited value {change}")
    return checkpoint


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="a YAML recipe file, or the name of a bundled recipe (configs/)")
    parser.add_argument("--fresh", action="store_true", help="delete this run's checkpoints and start over")
    parser.add_argument("--total-timesteps", type=int, help="override training.total_timesteps")
    parser.add_argument("--output-dir", help="override training.output_dir")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (e.g. in CI logs)")
    args = parser.parse_args(argv)
    overrides = {k: v for k, v in (("total_timesteps", args.total_timesteps), ("output_dir", args.output_dir))
                 if v is not None}  # fmt: skip
    try:
        recipe = load_recipe(recipe_path(args.config), **overrides)
        out = prepare_output(recipe)
        resume = plan_resume(recipe, out, args.fresh)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return train(recipe, fresh=args.fresh, progress=not args.no_progress, resume=resume)
    except OSError as exc:  # a full disk, a checkpoint's name taken by a folder: the saved checkpoints stay whole
        print(f"error: could not write the run's files in {recipe.training.output_dir}: {exc}; fix that and run the "
              "same command again to resume", file=sys.stderr)  # fmt: skip
        return 1


def _restore(model: Any, checkpoint: ModelFile) -> None:
    """Weights, optimizer state and step counts from ``checkpoint`` into a model built from the recipe."""
    model.policy.load_state_dict(checkpoint.state_dict, strict=True)
    if checkpoint.optimizer_state is not None:
        model.policy.optimizer.load_state_dict(checkpoint.optimizer_state)
    model.num_timesteps = checkpoint.num_timesteps
    updates = checkpoint.data.get("_n_updates", 0)
    model._n_updates = int(updates) if isinstance(updates, int) else 0


def progress_callback(total: int, done: int, desc: str, time_left: Callable[[], float] | None = None,
                      clock: Callable[[], float] = time.monotonic, disable: bool = False, file: Any = None) -> Any:
    """An SB3 callback showing a tqdm bar over the whole run: ``done`` of ``total`` steps at the start (a resumed
    run's restored count), then the model's step count, never more than ``total`` (the last rollout overshoots).
    The time left is the steps left at this run's average speed (a rollout-and-update cycle makes the momentary
    speed swing), or the time limit's remainder (``time_left``, seconds) when that comes first.

    Why not SB3's ``progress_bar=True``: on a resumed run it counts from 0 against a total that ignores the
    restored steps, so it runs past its total, and its early speed estimate gives hours for a minute's run."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class Bar(tqdm):
        """tqdm with the steps written with thousands separators and our own estimate of the time left."""

        @property
        def format_dict(self) -> dict[str, Any]:
            info = super().format_dict
            ran = clock() - started
            rate = (self.n - done) / ran if ran > 0 and self.n > done else None
            left = (total - self.n) / rate if rate else None
            limit = time_left() if time_left is not None else None
            if limit is not None and (left is None or limit < left):
                left_text = f"{tqdm.format_interval(max(limit, 0.0))} (time limit)"
            else:
                left_text = "?" if left is None else tqdm.format_interval(left)
            speed = "?" if rate is None else f"{rate:,.0f}"
            info.update(steps=f"{self.n:,}", total_steps=f"{total:,}", ran=tqdm.format_interval(ran),
                        left=left_text, speed=speed)  # fmt: skip
            return info

    started = clock()
    bar = Bar(total=total, initial=min(done, total), desc=desc, disable=disable, file=file, leave=True,
              bar_format="{desc}: {percentage:3.0f}%|{bar}| {steps}/{total_steps} steps [{ran}<{left}, {speed} "
              "steps/s{postfix}]")  # fmt: skip

    class Progress(BaseCallback):
        """Moves ``bar`` to the model's step count after every vectorised step; closes it when training ends."""

        def __init__(self) -> None:
            super().__init__()
            self.bar = bar

        def advance_to(self, steps: int) -> None:
            steps = min(int(steps), total)
            if steps > bar.n:
                bar.update(steps - bar.n)

        def _on_step(self) -> bool:
            self.advance_to(self.num_timesteps)
            return True

        def _on_training_end(self) -> None:
            self.close()

        def close(self) -> None:
            bar.close()

    return Progress()


def train(recipe: TrainRecipe, fresh: bool = False, progress: bool = True, resume: ModelFile | None = None) -> int:
    import torch
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList


    torch.set_num_threads(recipe.training.torch_threads)
    out = prepare_output(recipe)
    checkpoints = out / "checkpoints"
    if fresh and (removed := remove_all(checkpoints)):  # a later resume would otherwise pick an old run's up
        print(f"--fresh: removed {removed} old checkpoints from {checkpoints}")
    (out / "config.yaml").write_text(yaml.safe_dump(recipe.model_dump(), sort_keys=False))
    env = make_training_env(recipe.task.id, recipe.task.config, recipe.task.num_envs, recipe.training.seed)
    model = recipe.algorithm.build(env, recipe.training.seed, str(out / "tb"))
    trained_before = 0.0
    if resume is not None:
        _restore(model, resume)
        trained_before = float(resume.metadata.get("training_seconds", 0.0))
        print(f"resuming from {resume.path.name} ({model.num_timesteps:,} steps, {trained_before / 60:.1f} min done)")

    started = time.monotonic()
    training = recipe.training
    limit = None if training.time_limit_minutes is None else 60 * training.time_limit_minutes

    def seconds() -> float:
        return trained_before + time.monotonic() - started

    task_callbacks = prepare_training(recipe.task.id, recipe.task.config, env, model, out, resume, seconds)

    stops = StopSignals()

    def checkpoint(stoppable: bool = True) -> Path:
        """A checkpoint with what the task's callbacks keep in it (self-play: its pool); a stop signal that came
        while it was written takes effect once it is whole (``stoppable``)."""
        metadata: dict[str, Any] = {}
        for callback in task_callbacks:
            metadata.update(getattr(callback, "checkpoint_metadata", dict)())
        with stops.held():
            path = save_checkpoint(model, checkpoints, seconds(), training.keep_checkpoints, metadata)
        for callback in task_callbacks:
            getattr(callback, "after_checkpoint", lambda: None)()
        if stoppable:
            stops.stop_if_asked()
        return path

    class Checkpoints(BaseCallback):
        """A checkpoint every ``checkpoint_every`` steps; stop once the time limit (over all reruns) is used."""

        def _on_training_start(self) -> None:
            self.next = (self.num_timesteps // training.checkpoint_every + 1) * training.checkpoint_every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                checkpoint()
                self.next = (self.num_timesteps // training.checkpoint_every + 1) * training.checkpoint_every
            return limit is None or seconds() < limit

    remaining = training.total_timesteps - model.num_timesteps
    if remaining <= 0 or (limit is not None and trained_before >= limit):
        print(f"this run is already done ({model.num_timesteps:,} steps, {trained_before / 60:.1f} min); "
              "raise total_timesteps or time_limit_minutes to train on, or add --fresh")  # fmt: skip
    else:
        time_left = None if limit is None else lambda: limit - seconds()
        bar = progress_callback(training.total_timesteps, model.num_timesteps, recipe.name, time_left,
                                disable=not progress)  # fmt: skip
        with stops:  # Ctrl-C or SIGTERM: stop and save (not inside a checkpoint's write: ``StopSignals``)
            try:
                model.learn(
                    total_timesteps=remaining,
                    # a step's snapshot is in its checkpoint; the bar last, so it shows the step the others saw
                    callback=CallbackList([*task_callbacks, Checkpoints(), bar]),
                    reset_num_timesteps=resume is None,
                    tb_log_name=recipe.name,
                )
                bar.close()
                checkpoint()
            except KeyboardInterrupt:
                bar.close()
                path = checkpoint(stoppable=False)
                print(f"\ninterrupted: saved {path}; run the same command again to resume")
                return 130
            finally:
                bar.close()
    minutes = (time.monotonic() - started) / 60
    model_path = save_model(model, out / "model.zip", {"training_seconds": seconds()})
    print(f"trained {model.num_timesteps:,} steps in {minutes:.1f} min this run; model: {model_path}")

    agent = SB3Agent(model, deterministic=True, name="trained")
    report = score_trained_agent(recipe.task.id, agent, recipe.task.config, recipe.score.samples, recipe.score.seed)
    report["timesteps"] = int(model.num_timesteps)
    report["minutes_this_run"] = round(minutes, 2)
    report["minutes_in_all"] = round(seconds() / 60, 2)
    (out / "score.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
