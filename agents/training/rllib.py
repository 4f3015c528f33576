"""Self-play PPO on Ray RLlib for any registered game, from a YAML recipe: ``python -m dicearena.agents.training.rllib
RECIPE``.

Why: SB3 (``train.py``) trains on one machine; RLlib scales the same self-play out to a Ray cluster by changing two
recipe keys (``ray.address``, ``ray.num_env_runners``). What runs, for every game alike:

- the game's PettingZoo AEC env through RLlib's ``PettingZooEnv`` (``dicearena.agents.training.rllib_env``: the
  observation renamed to ``observations`` beside ``action_mask``), on RLlib's new API stack (RLModule, Learner,
  EnvRunner);
- multi-agent PPO with ONE shared module (``shared``) playing every seat: ``policy_mapping_fn`` maps every agent
  to it, so the policy plays against itself (self-play);
- action masking in the module (``dicearena.agents.rllib_module``): illegal actions are never sampled;
- checkpoints to ``<output_dir>/checkpoints/iter_<n>`` every ``checkpoint_every`` iterations, at the end and on
  Ctrl-C / SIGTERM (atomic, the newest ``keep_checkpoints`` kept, each card recording the sha256 of every file:
  ``dicearena.agents.rllib_checkpoints``). Running the same command again resumes from the newest checkpoint whose
  files all match its card (a checkpoint that does not is skipped, naming the file; when none is left, an error
  rather than a fresh start over them), with edited PPO and cluster values applied (the game, its config, the
  network and the seed are refused by name: the checkpoint is made of them); a run that has reached its iterations
  or time limit stays done. ``--fresh`` starts over.
- ``ray.address`` is ``"local"``, ``"auto"`` or ``"<host>:<port>"``; one where nothing answers within
  ``CONNECT_TIMEOUT_S`` seconds is an ``error:`` line before anything is written (``ray.init`` alone retries for
  minutes).

A saved checkpoint plays as an agent without Ray (``dicearena.agents.rllib_agent.RLlibAgent``, registry name ``rllib``).
Ray and RLlib come with the ``rllib`` extra (``pip install -e ".[rllib]"``); nothing else in the suite imports
them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import Field, field_validator, model_validator

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
    section,
)
from dicearena.agents.evaluation.recipes import resume_changes as recipe_changes
from dicearena.agents.rllib_checkpoints import (
    CheckpointError,
    checkpoints_newest_first,
    newest_loadable,
    remove_all,
    save_checkpoint,
    verified_copy,
)
from dicearena.agents.training.stop_signals import StopSignals
from dicearena.envs.common.config import ConfigError, GameConfig, validate_config
from dicearena.envs.common.config import validate_config as validated
from dicearena.envs.common.contract import GAMES, game_spec

__all__ = ["MODULE_ID", "RLlibRecipe", "algorithm_config", "check_reachable", "connect", "load_recipe", "main",
           "shared_policy", "train"]

MODULE_ID = "shared"  # the one RLModule every seat plays
FIXED_ON_RESUME = ("game", "config.", "module.", "training.seed")  # what a checkpoint is made of
IGNORED_ON_RESUME = ("training.output_dir", "name")

CONNECT_TIMEOUT_S = 10.0  # how long joining a cluster (ray.address) may wait for its head to answer
ADDRESS_FORMS = '"local", "auto" or "<host>:<port>" (a port 1..65535)'
_HOST_PORT = re.compile(r"(?P<host>[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(?P<port>[0-9]{1,5})")

Layer = Annotated[int, Field(ge=1, le=65_536)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class RaySection(GameConfig):
    address: str = Field("local", min_length=1, max_length=500, description=(
        '"local": a new Ray instance inside this process; "auto": the cluster running on this machine (ray start '
        '--head); "<host>:<port>": the head\'s GCS address (joining by it needs RAY_AUTH_MODE=token)'))  # fmt: skip
    num_cpus: int | None = Field(None, ge=1, le=4096, description='the CPUs a "local" instance may use (None: all)')
    num_env_runners: int = Field(0, ge=0, le=10_000, description="sampling workers (0: sample in the driver)")
    num_envs_per_env_runner: int = Field(1, ge=1, le=4096, description="games each sampler steps at once")
    num_cpus_per_env_runner: float = Field(1.0, ge=0.0, le=64.0, description="CPUs Ray reserves per sampler")

    @field_validator("address")
    @classmethod
    def _address_form(cls, value: str) -> str:
        if value in ("local", "auto"):
            return value
        match = _HOST_PORT.fullmatch(value)
        if match is None or not 1 <= int(match["port"]) <= 65_535:
            raise ValueError(f"'address' must be {ADDRESS_FORMS}, got {value!r}")
        return value

    @model_validator(mode="after")
    def _local_only(self) -> RaySection:
        if self.num_cpus is not None and self.address != "local":
            raise ValueError(f"'num_cpus' sizes a \"local\" Ray instance; a cluster ({self.address!r}) has its own: "
                             "remove it or set address: local")  # fmt: skip
        return self


class ModuleSection(GameConfig):
    """RLlib's default PPO networks (``DefaultModelConfig``): an MLP encoder, then the policy and value heads."""

    hiddens: list[Layer] = Field(default_factory=lambda: [256, 256], min_length=1, description="MLP hidden sizes")
    activation: Literal["tanh", "relu", "silu", "elu"] = Field("tanh", description="between hidden layers")
    vf_share_layers: bool = Field(False, description="one encoder for the policy and the value head")

    def rllib_config(self) -> dict[str, Any]:
        return {"fcnet_hiddens": list(self.hiddens), "fcnet_activation": self.activation,
                "vf_share_layers": self.vf_share_layers}  # fmt: skip


class PPOSection(GameConfig):
    """RLlib PPO's training keys (new API stack); the defaults are RLlib's where they suit these games."""

    lr: float = Field(3e-4, gt=0.0, le=1.0, description="Adam step size")
    gamma: Unit = Field(0.99, description="discount factor in [0, 1]")
    gae_lambda: Unit = Field(0.95, description="GAE lambda in [0, 1] (RLlib's lambda_)")
    clip_param: float = Field(0.2, gt=0.0, le=10.0, description="PPO clip range")
    vf_clip_param: float = Field(10.0, gt=0.0, le=1e6, description="value loss clip")
    vf_loss_coeff: float = Field(0.5, ge=0.0, le=100.0, description="value loss weight")
    entropy_coeff: float = Field(0.0, ge=0.0, le=100.0, description="entropy bonus weight")
    kl_coeff: float = Field(0.2, ge=0.0, le=100.0, description="initial KL penalty weight (0: off)")
    grad_clip: float | None = Field(0.5, gt=0.0, le=1e6, description="gradient norm clip (None: off)")
    train_batch_size: int = Field(4000, ge=2, le=10**8, description="env steps per iteration (per learner)")
    minibatch_size: int = Field(128, ge=2, le=10**8, description="SGD minibatch")
    num_epochs: int = Field(4, ge=1, le=1000, description="passes over each iteration's batch")
    rollout_fragment_length: int | Literal["auto"] = Field("auto", description="steps per sampler per round")

    @field_validator("rollout_fragment_length")
    @classmethod
    def _positive(cls, value: int | str) -> int | str:
        if isinstance(value, int) and not 1 <= value <= 10**6:
            raise ValueError(f"'rollout_fragment_length' must be 'auto' or 1..1000000, got {value}")
        return value

    @model_validator(mode="after")
    def _minibatch_fits(self) -> PPOSection:
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(f"'minibatch_size' ({self.minibatch_size}) must be at most 'train_batch_size' "
                             f"({self.train_batch_size})")  # fmt: skip
        return self


class TrainingSection(GameConfig):
    iterations: int = Field(ge=1, le=10**9, description="PPO iterations in all, over reruns")
    time_limit_minutes: float | None = Field(None, gt=0, le=10**6, description="training time in all, over reruns")
    checkpoint_every: int = Field(10, ge=1, le=10**9, description="iterations between checkpoints")
    keep_checkpoints: int = Field(3, ge=1, le=10_000, description="newest checkpoints kept (older ones deleted)")
    seed: Seed = 0
    output_dir: OutputDir
    torch_threads: int = Field(1, ge=1, le=64, description="torch threads of the driver's learner")


class RLlibRecipe(GameConfig):
    imports: Imports = Field(default_factory=list, description="modules to import first (a game of your own)")
    name: RunName
    game: str = Field(description="a registered game id")
    config: dict[str, Any] = Field(default_factory=dict, description="the game's config keys")
    ray: RaySection = RaySection()
    module: ModuleSection = ModuleSection()
    ppo: PPOSection = PPOSection()
    training: TrainingSection


def load_recipe(path: Path, **training_overrides: Any) -> RLlibRecipe:
    """The recipe at ``path`` (with ``training`` overrides), every value checked, the game's config included."""
    path = recipe_path(path)
    raw = load_yaml(path)
    check_recipe_kind(raw, path, "rllib")
    import_modules(raw)
    if training_overrides and isinstance(raw.get("training"), dict):
        raw["training"] = {**raw["training"], **training_overrides}
    return check_recipe(raw)


def check_recipe(raw: dict[str, Any]) -> RLlibRecipe:
    """``raw`` as a recipe, or a ConfigError naming the section and key that is wrong."""

    game = raw.get("game")
    if game not in GAMES:
        raise ConfigError(f"'game' must be one of {sorted(GAMES)}, got {game!r}")
    for key, model in (("ray", RaySection), ("module", ModuleSection), ("ppo", PPOSection),
                       ("training", TrainingSection)):  # fmt: skip
        if isinstance(raw.get(key), dict):
            section(key, model, raw[key])  # the error names the section
    section("config", GAMES[game].config, raw.get("config") or {})
    return validate_config(RLlibRecipe, raw)


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the one shared module (self-play)."""
    return MODULE_ID


def algorithm_config(recipe: RLlibRecipe) -> Any:
    """RLlib's ``PPOConfig`` for the recipe: the game's env, one shared masked module, the PPO and cluster keys."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from dicearena.agents.rllib_module import MaskedPPOTorchRLModule
    from dicearena.agents.training.rllib_env import DiceArenaEnv

    ppo, cluster = recipe.ppo, recipe.ray
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=recipe.module.rllib_config())
    return (
        PPOConfig()
        # RLlib's env check steps unmasked random actions (each an illegal move, ending its game): off
        .environment(DiceArenaEnv, env_config={"game": recipe.game, "config": dict(recipe.config)},
                     disable_env_checking=True)
        .env_runners(num_env_runners=cluster.num_env_runners, num_envs_per_env_runner=cluster.num_envs_per_env_runner,
                     num_cpus_per_env_runner=cluster.num_cpus_per_env_runner,
                     rollout_fragment_length=ppo.rollout_fragment_length)
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=shared_policy, policies_to_train=[MODULE_ID])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module}))
        .training(lr=ppo.lr, gamma=ppo.gamma, lambda_=ppo.gae_lambda, clip_param=ppo.clip_param,
                  vf_clip_param=ppo.vf_clip_param, vf_loss_coeff=ppo.vf_loss_coeff, entropy_coeff=ppo.entropy_coeff,
                  kl_coeff=ppo.kl_coeff, use_kl_loss=ppo.kl_coeff > 0, grad_clip=ppo.grad_clip,
                  train_batch_size_per_learner=ppo.train_batch_size, minibatch_size=ppo.minibatch_size,
                  num_epochs=ppo.num_epochs)
        .learners(num_learners=0)  # the learner runs in the driver
        .debugging(seed=recipe.training.seed)
    )  # fmt: skip


def connect(cluster: RaySection) -> bool:
    """Ray initialised for ``cluster`` (nothing to do if it already is); True if this call started it. Joining a
    cluster waits at most about ``CONNECT_TIMEOUT_S`` for nothing and about 40 s for something that is not a Ray
    head, then a ConfigError naming the address (``ray.init`` alone retries for many minutes)."""
    import ray

    if ray.is_initialized():
        return False
    if cluster.address == "local":  # explicit: a stale cluster file would otherwise make ray.init() join that one
        ray.init(address="local", num_cpus=cluster.num_cpus, include_dashboard=False)
        return True
    target = check_reachable(cluster)
    # Ray's own budget for reaching the head's GCS is 20 tries of up to 40 s each; one try is enough once the port
    # answered (an explicit RAY_gcs_server_port_wait_time_s of the user's is kept)
    saved = os.environ.get("RAY_gcs_server_port_wait_time_s")
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", "1")
    try:
        ray.init(address=cluster.address)
    except (ConnectionError, RuntimeError) as exc:
        raise ConfigError(f"[ray] 'address' {cluster.address!r}: {target} answered but no Ray cluster joined "
                          f"({type(exc).__name__}: {exc}); give a Ray head's GCS address (ray start --head prints "
                          "it) or address: local") from None  # fmt: skip
    finally:
        if saved is None:
            os.environ.pop("RAY_gcs_server_port_wait_time_s", None)
    return True


def check_reachable(cluster: RaySection, timeout: float = CONNECT_TIMEOUT_S) -> str:
    """The ``host:port`` that ``cluster.address`` joins, once something there accepts a connection within
    ``timeout`` seconds; a ConfigError naming the address otherwise (nothing to check for ``"local"``)."""
    if cluster.address == "local":
        return "local"
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # a Ray without it: "auto" is left to ray.init, an address is probed as given
        if cluster.address == "auto":
            return "auto"
        canonicalize_bootstrap_address = str
    try:  # what ray.init joins: "auto" read from RAY_ADDRESS or `ray start`'s file, localhost as the node's address
        target = canonicalize_bootstrap_address(cluster.address)
    except (ConnectionError, ValueError, OSError) as exc:
        reason = str(exc).rstrip(".")
        raise ConfigError(f"[ray] 'address' {cluster.address!r}: {reason}; start a cluster (ray start --head) or set "
                          "address: local") from None  # fmt: skip
    if target is None:
        raise ConfigError(f"[ray] 'address' {cluster.address!r}: no running Ray cluster found; start one (ray start "
                          "--head) or set address: local")  # fmt: skip
    host, _, port = target.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except (OSError, ValueError) as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise ConfigError(f"[ray] 'address' {cluster.address!r}: nothing answers at {target} ({reason}, waited up "
                          f"to {timeout:g} s); give the head's GCS address (ray start --head prints it; "
                          f"{ADDRESS_FORMS}) or address: local") from None  # fmt: skip
    return target


def resume_changes(previous: dict[str, Any], recipe: RLlibRecipe) -> list[str]:
    """The edited values a resumed run applies ("key: old -> new"); a ConfigError for keys it cannot change."""
    return recipe_changes(previous, recipe.model_dump(), recipe.training.output_dir, IGNORED_ON_RESUME,
                          FIXED_ON_RESUME, "the checkpoints are made of them")  # fmt: skip


def plan_resume(recipe: RLlibRecipe, out: Path, fresh: bool) -> tuple[Path, dict[str, Any]] | None:
    """``(checkpoint, card)`` to resume from (None: start fresh), after checking the recipe may resume it. Only a
    checkpoint whose files all match its card's digests is resumed (``dicearena.agents.rllib_checkpoints``); when
    there are checkpoints but none does, a ConfigError: starting over would overwrite them."""
    if fresh:
        return None
    folder = out / "checkpoints"
    found = newest_loadable(folder, verify=True)
    if found is None:
        if checkpoints_newest_first(folder):
            raise ConfigError(f"no checkpoint in {folder} can be resumed (each is named above with the reason); add "
                              "--fresh to delete them and start over, or move them away")  # fmt: skip
        return None
    try:
        previous = load_yaml(out / "config.yaml")
    except ConfigError as exc:
        raise ConfigError(f"cannot compare with the run in {out} ({exc}); add --fresh to start over") from None
    for change in resume_changes(previous, recipe):
        print(f"resume: applying the edited value {change}")
    return found


def _card(recipe: RLlibRecipe, iteration: int, env_steps: int, seconds: float) -> dict[str, Any]:
    """What a checkpoint records beside RLlib's files (what RLlibAgent rebuilds the policy from)."""
    import ray

    spec = game_spec(recipe.game)
    sizes = spec.sizes(validated(spec.config, recipe.config))
    return {"game": recipe.game, "config": dict(recipe.config), "module_id": MODULE_ID,
            "model_config": recipe.module.rllib_config(), "observation_size": sizes.observation,
            "actions": sizes.actions, "num_players": sizes.num_players, "iteration": iteration,
            "env_steps": env_steps, "training_seconds": round(seconds, 3), "recipe": recipe.name,
            "ray_version": ray.__version__}  # fmt: skip


@dataclass
class _Run:
    """Where a run stands: iterations and env steps done, training seconds before this process and when it began."""

    iteration: int = 0
    env_steps: int = 0
    before: float = 0.0
    started: float = field(default_factory=time.monotonic)
    rllib_iteration: int = 0  # RLlib's own count (restored with its state): the card records it as a cross-check

    def seconds(self) -> float:
        return self.before + time.monotonic() - self.started


def train(recipe: RLlibRecipe, fresh: bool = False, progress: bool = True) -> int:
    """Train (or resume) the recipe's run; 0 when done, 130 when interrupted (a checkpoint saved)."""
    import ray
    import torch

    if not ray.is_initialized():  # a wrong ray.address fails now, before anything is written or deleted
        check_reachable(recipe.ray)
    out = make_output_dir(recipe.training.output_dir, "training.output_dir")
    checkpoints = make_output_dir(out / "checkpoints", "training.output_dir")
    if fresh and (removed := remove_all(checkpoints)):
        print(f"--fresh: removed {removed} old checkpoints from {checkpoints}")
    resume = plan_resume(recipe, out, fresh)
    (out / "config.yaml").write_text(yaml.safe_dump(recipe.model_dump(), sort_keys=False))
    card = {} if resume is None else resume[1]
    run = _Run(int(card.get("iteration", 0)), int(card.get("env_steps", 0)), float(card.get("training_seconds", 0.0)),
               rllib_iteration=int(card.get("rllib_iteration", card.get("iteration", 0))))  # fmt: skip
    training = recipe.training
    limit = None if training.time_limit_minutes is None else 60 * training.time_limit_minutes
    if run.iteration >= training.iterations or (limit is not None and run.before >= limit):
        print(f"this run is already done ({run.iteration} iterations, {run.env_steps:,} env steps, "
              f"{run.before / 60:.1f} min); raise training.iterations or time_limit_minutes to train on, or add "
              "--fresh")  # fmt: skip
        return 0
    torch.set_num_threads(training.torch_threads)
    started_ray = connect(recipe.ray)
    try:
        algo = algorithm_config(recipe).build_algo()
        try:
            if resume is not None:
                _restore(algo, *resume)
                print(f"resuming from {resume[0].name} ({run.iteration} iterations, {run.env_steps:,} env steps, "
                      f"{run.before / 60:.1f} min done)")  # fmt: skip
            code, path = _train_loop(algo, recipe, run, checkpoints, limit, progress)
        finally:
            algo.stop()
    finally:
        if started_ray:
            ray.shutdown()
    if code == 0:
        report = {"iterations": run.iteration, "env_steps": run.env_steps,
                  "minutes_in_all": round(run.seconds() / 60, 2), "checkpoint": str(path)}  # fmt: skip
        (out / "summary.json").write_text(json.dumps(report, indent=2))
        print(json.dumps(report, indent=2))
    return code


def _restore(algo: Any, path: Path, card: dict[str, Any]) -> None:
    """RLlib's state restored from a private copy of the checkpoint at ``path``, every file checked against ``card``
    as it is copied (``restore_from_path`` unpickles them all)."""
    try:
        with verified_copy(path, card) as copy:
            algo.restore_from_path(str(copy))
    except CheckpointError as exc:
        raise ConfigError(f"cannot resume from {path}: {exc}") from None


def _train_loop(
    algo: Any, recipe: RLlibRecipe, run: _Run, checkpoints: Path, limit: float | None, progress: bool
) -> tuple[int, Path]:  # fmt: skip
    """PPO iterations until ``training.iterations`` or the time limit, with checkpoints; Ctrl-C / SIGTERM save one
    and return 130."""
    from tqdm import tqdm

    training = recipe.training

    stops = StopSignals()

    def checkpoint(stoppable: bool = True) -> Path:
        card = {**_card(recipe, run.iteration, run.env_steps, run.seconds()), "rllib_iteration": run.rllib_iteration}
        with stops.held():
            path = save_checkpoint(algo, checkpoints, card, training.keep_checkpoints)
        if stoppable:
            stops.stop_if_asked()
        return path

    with stops:  # Ctrl-C or SIGTERM: stop and save (not inside a checkpoint's write: ``StopSignals``)
        try:
            saved = None
            with tqdm(total=training.iterations, initial=run.iteration, desc=recipe.name, unit="it",
                      disable=not progress, leave=False) as bar:  # fmt: skip
                while run.iteration < training.iterations and (limit is None or run.seconds() < limit):
                    result = algo.train()
                    run.iteration += 1
                    run.env_steps += int(result["env_runners"].get("num_env_steps_sampled", 0))
                    run.rllib_iteration = int(result.get("training_iteration", 0))
                    bar.set_postfix_str(f"{run.env_steps:,} env steps, {run.env_steps / run.seconds():,.0f}/s")
                    bar.update(1)
                    saved = checkpoint() if run.iteration % training.checkpoint_every == 0 else None
            return 0, saved or checkpoint()
        except KeyboardInterrupt:
            path = checkpoint(stoppable=False)
            print(f"\ninterrupted: saved {path}; run the same command again to resume")
            return 130, path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="a YAML recipe file, or the name of a bundled one (configs/rllib_<game>.yaml)")
    parser.add_argument("--fresh", action="store_true", help="delete this run's checkpoints and start over")
    parser.add_argument("--iterations", type=int, help="override training.iterations")
    parser.add_argument("--output-dir", help="override training.output_dir")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (e.g. in CI logs)")
    args = parser.parse_args(argv)
    overrides = {k: v for k, v in (("iterations", args.iterations), ("output_dir", args.output_dir)) if v is not None}
    try:
        recipe = load_recipe(args.config, **overrides)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return train(recipe, fresh=args.fresh, progress=not args.no_progress)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a full disk, a checkpoint's name taken by a file: the saved checkpoints stay whole
        print(f"error: could not write the run's files in {recipe.training.output_dir}: {exc}; fix that and run the "
              "same command again to resume", file=sys.stderr)  # fmt: skip
        return 1


if __name__ == "__main__":
    sys.exit(main())
