"""Training throughput of RLlib PPO (``dicearena.agents.training.rllib``) against MaskablePPO (sb3-contrib, as
``train.py`` builds it) on
the same game, from one run.

Usage: ``python bench/bench_rllib.py [GAME] [--seconds 60] [--cpu N | --no-pin]`` (default: easy_come_easy_go; needs
the ``rllib`` and ``train`` extras). Each side trains self-play PPO of the same shape for ``--seconds`` after one
warm-up iteration (compiling and start-up do not count): the game config, network and PPO hyperparameters of
``configs/rllib_<game>.yaml`` (4,096 steps per iteration, minibatches of 512, 4 epochs, [256, 256] tanh), torch on
one thread.

- RLlib: multi-agent PPO on the new API stack, one shared masked policy on every seat, the game's PettingZoo AEC env
  through RLlib's ``PettingZooEnv``, sampled in the driver (``num_env_runners: 0``, the recipe's envs per runner).
- MaskablePPO: the ``<game>_selfplay`` task (the batched engine's seat vec env, 64 envs x 64 steps), the opponent
  seat played by the live learner (``pool.mix: {latest: 1.0}``), no snapshots or evaluation games.

A step is one decision the learner trains on, sampling and updates included: RLlib learns from every seat's
decisions; MaskablePPO from its seat's (the opponent's moves happen inside its env's step). Pinned to one core by
default, so both sides (and Ray's own processes) share one core.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from dicearena.bench._common import pin  # noqa: E402

SB3_ENVS, SB3_STEPS = 64, 64  # 4,096 steps per rollout, as the RLlib recipes' train_batch_size


def rllib_steps_per_second(recipe: Any, seconds: float) -> float:
    """RLlib PPO's env steps per second over whole iterations (sampling and learning), after one warm-up."""
    import ray
    import torch

    from dicearena.agents.training.rllib import algorithm_config, connect

    connect(recipe.ray)
    algo = algorithm_config(recipe).build_algo()
    torch.set_num_threads(1)
    algo.train()  # warm-up
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += int(algo.train()["env_runners"]["num_env_steps_sampled"])
    rate = steps / (time.perf_counter() - start)
    algo.stop()
    ray.shutdown()
    return rate


def sb3_recipe(recipe: Any) -> Any:
    """train.py's recipe for the same self-play, PPO shape and network as the RLlib ``recipe``."""
    from dicearena.agents.training import train

    ppo = recipe.ppo
    hyperparameters = {
        "learning_rate": ppo.lr, "n_steps": SB3_STEPS, "batch_size": ppo.minibatch_size, "n_epochs": ppo.num_epochs,
        "gamma": ppo.gamma, "gae_lambda": ppo.gae_lambda, "clip_range": ppo.clip_param, "ent_coef": ppo.entropy_coeff,
        "vf_coef": ppo.vf_loss_coeff, "max_grad_norm": ppo.grad_clip or 1e6,
    }  # fmt: skip
    task_config = {"game": dict(recipe.config), "learner_seat": "rotate", "pool": {"mix": {"latest": 1.0}},
                   "evaluation": {"against": ["random"], "every": 10**9, "games": 2}}  # fmt: skip
    return train.TrainRecipe.model_validate({
        "name": "bench_maskable_ppo",
        "task": {"id": f"{recipe.game}_selfplay", "num_envs": SB3_ENVS, "config": task_config},
        "algorithm": {"name": "MaskablePPO", "hyperparameters": hyperparameters,
                      "policy_kwargs": {"net_arch": list(recipe.module.hiddens), "activation_fn": "Tanh"}},
        "training": {"total_timesteps": 10**9, "output_dir": "unused", "seed": recipe.training.seed},
    })  # fmt: skip


def sb3_steps_per_second(recipe: Any, seconds: float) -> float:
    """MaskablePPO's learner steps per second over whole rollouts (sampling and updates), after one warm-up."""
    import torch

    from dicearena.agents.training.tasks import make_training_env, prepare_training

    torch.set_num_threads(1)
    sb3 = sb3_recipe(recipe)
    env = make_training_env(sb3.task.id, sb3.task.config, sb3.task.num_envs, sb3.training.seed)
    with tempfile.TemporaryDirectory() as out:
        model = sb3.algorithm.build(env, sb3.training.seed, str(Path(out) / "tb"))
        prepare_training(sb3.task.id, sb3.task.config, env, model, Path(out), False, lambda: 0.0)  # the pool's learner
        rollout = SB3_ENVS * SB3_STEPS
        model.learn(rollout)  # warm-up
        before, start = model.num_timesteps, time.perf_counter()
        while time.perf_counter() - start < seconds:
            model.learn(rollout, reset_num_timesteps=False)
        return (model.num_timesteps - before) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("game", nargs="?", default="easy_come_easy_go", help="a game with a configs/rllib_<game>.yaml")
    p.add_argument("--seconds", type=float, default=60.0, help="timed training of each side")
    p.add_argument("--cpu", type=int, default=None, help="core to pin to (default: the last allowed)")
    p.add_argument("--no-pin", action="store_true", help="do not pin the process to one core")
    args = p.parse_args(argv)
    pin(args)
    from dicearena.agents.training.rllib import load_recipe

    recipe = load_recipe(ROOT / "configs" / f"rllib_{args.game}.yaml")
    print(f"{args.game}: {args.seconds:g} s per side, config {dict(recipe.config)}")
    rates = {"MaskablePPO (sb3-contrib)": sb3_steps_per_second(recipe, args.seconds),
             "RLlib PPO (new API stack)": rllib_steps_per_second(recipe, args.seconds)}  # fmt: skip
    base = rates["MaskablePPO (sb3-contrib)"]
    print(f"{'trainer':<30}{'steps/s':>12}{'x MaskablePPO':>16}")
    for name, rate in rates.items():
        print(f"{name:<30}{rate:>12,.0f}{rate / base:>15.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
