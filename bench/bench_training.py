"""Time to quality on the decision tasks (issue 25): the exact % of the optimum against wall-clock training seconds.

Usage: ``python bench/bench_training.py [turn] [turn_values] [greed] [--minutes M] [--every S] [--before F]``
(default: ``turn`` and ``greed``; ``dicearena bench-training``). Each task trains its bundled recipe
(``configs/easy_come_easy_go_turn.yaml``, ``..._turn_values.yaml``, ``easy_money_greed.yaml``; ``--recipe`` another)
for its time budget, the same model and env ``dicearena train`` builds, and every ``--every`` seconds of training
pauses the clock and scores the policy exactly (the task's own scorer: a dynamic programme, no sampling). Scoring
is not counted as training time. It prints the curve, the split of training time between the environment, policy
inference in the rollouts, the gradient steps and the rest (buffers, callbacks), and writes the curves as JSON and
a plot (``--plot``).

Why a bench of its own: for a researcher trying ideas on these tasks, seconds to a quality level decide how many
ideas fit in a day; the curve is steep early and slow late, so the number at one time says little.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dicearena.bench._common import parser, pin

__all__ = ["TASKS", "BenchTask", "main", "train_curve"]


@dataclass(frozen=True)
class BenchTask:
    recipe: str  # a bundled recipe's name
    seconds: float  # the training budget the target is set for
    target: float  # % of the optimum the issue asks for within ``seconds``


TASKS = {
    "turn": BenchTask("easy_come_easy_go_turn", 300.0, 99.5),
    "turn_values": BenchTask("easy_come_easy_go_turn_values", 1800.0, 98.5),
    "greed": BenchTask("easy_money_greed", 120.0, 99.9),
}


class Stopwatch:
    """Seconds spent in named parts; ``wrap`` times an object's method in place (the model's own objects)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {"environment": 0.0, "inference": 0.0, "gradient": 0.0}

    def wrap(self, owner: Any, method: str, part: str) -> None:
        inner = getattr(owner, method)

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - started

        setattr(owner, method, timed)

    def split(self, total: float) -> dict[str, float]:
        """Shares of ``total`` training seconds: environment and inference inside the rollouts, gradient steps,
        and the rest (the rollout buffer, observation copies, callbacks)."""
        s = self.seconds
        other = max(0.0, total - s["gradient"] - s["environment"] - s["inference"])
        return {"environment": s["environment"] / total, "inference": s["inference"] / total,
                "gradient": s["gradient"] / total, "other": other / total}  # fmt: skip


def train_curve(recipe_name: str, seconds: float, every: float, vectors: int | None = None,
                report: Callable[[dict[str, float]], None] = lambda point: None) -> dict[str, Any]:  # fmt: skip
    """Train ``recipe_name`` for ``seconds`` of training time, scoring exactly every ``every`` seconds (clock
    paused). Returns the curve (seconds, steps, % of the optimum) and the time split."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    from dicearena.agents.evaluation.recipes import recipe_path
    from dicearena.agents.sb3_agent import SB3Agent
    from dicearena.agents.training.tasks import make_training_env, score_trained_agent
    from dicearena.agents.training.train import load_recipe

    recipe = load_recipe(recipe_path(recipe_name))
    torch.set_num_threads(recipe.training.torch_threads)
    warm_up(recipe.task.id, recipe.task.config, recipe.training.seed)
    env = make_training_env(recipe.task.id, recipe.task.config, recipe.task.num_envs, recipe.training.seed)
    model = recipe.algorithm.build(env, recipe.training.seed, None)
    samples = vectors or recipe.score.samples
    watch = Stopwatch()
    watch.wrap(model.env, "step_wait", "environment")
    watch.wrap(model.policy, "forward", "inference")
    watch.wrap(model, "train", "gradient")
    points: list[dict[str, float]] = []
    paused = [0.0]
    started = time.perf_counter()

    def clock() -> float:
        return time.perf_counter() - started - paused[0]

    def score() -> None:
        stop = time.perf_counter()
        agent = SB3Agent(model, deterministic=True, name="training")
        result = score_trained_agent(recipe.task.id, agent, recipe.task.config, samples, recipe.score.seed)
        point = {"seconds": round(clock(), 2), "steps": int(model.num_timesteps),
                 "percent": float(result["percent_of_optimum"])}  # fmt: skip
        points.append(point)
        report(point)
        paused[0] += time.perf_counter() - stop

    class Scorer(BaseCallback):
        """Scores at the end of the first rollout past each ``every`` mark; stops at the budget."""

        def _on_training_start(self) -> None:
            self.next = every

        def _on_rollout_end(self) -> None:
            if clock() >= self.next:
                score()
                self.next = (clock() // every + 1) * every

        def _on_step(self) -> bool:
            return clock() < seconds

    model.learn(total_timesteps=recipe.training.total_timesteps, callback=Scorer())
    trained = clock()
    if not points or points[-1]["steps"] != model.num_timesteps:  # the last rollout may have been scored already
        score()
    return {"recipe": recipe_name, "budget_seconds": seconds, "trained_seconds": round(trained, 1),
            "steps": int(model.num_timesteps), "steps_per_second": round(model.num_timesteps / trained),
            "vectors": samples, "split": watch.split(trained), "curve": points}  # fmt: skip


def warm_up(task_id: str, config: dict[str, Any], seed: int) -> None:
    """Step a small copy of the task's env, so compiling its kernels (after an edit, numba recompiles) is not counted
    as training time; the run's own env is built after, untouched, so its seed plays as in ``dicearena train``."""
    import numpy as np

    from dicearena.agents.random_agent import sample_masked
    from dicearena.agents.training.tasks import make_training_env

    env = make_training_env(task_id, config, 2, seed)
    env.reset()
    env.step(sample_masked(np.asarray(env.action_masks()), np.random.default_rng(seed)))
    env.close()


def seconds_to(curve: list[dict[str, float]], percent: float) -> float | None:
    """The first scored time at or above ``percent`` (None: never reached)."""
    return next((p["seconds"] for p in curve if p["percent"] >= percent), None)


def plot(results: dict[str, dict[str, Any]], path: Path, before: dict[str, dict[str, Any]] | None = None) -> None:
    """The gap to the optimum (100 - %) against training seconds, log scale, with each task's target; ``before``
    (an earlier run's JSON, the same task names) drawn dashed beside it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for i, name in enumerate(sorted(set(results) | set(before or {}), key=list(TASKS).index)):
        color = f"C{i}"
        for runs, style, tag in ((results, "-", ""), (before or {}, "--", ", before")):
            if name in runs:
                curve = runs[name]["curve"]
                ax.plot([p["seconds"] for p in curve], [max(100 - p["percent"], 1e-3) for p in curve], style,
                        color=color, marker=".", label=f"{name} ({runs[name]['recipe']}{tag})")  # fmt: skip
        task = TASKS[name]
        ax.plot([task.seconds], [100 - task.target], color=color, marker="*", markersize=12, linestyle="")
    ax.set_yscale("log")
    ax.set_xlabel("training seconds (this machine; scoring not counted)")
    ax.set_ylabel("gap to the exact optimum, % (log)")
    ax.set_title("Time to quality on the decision tasks (stars: the targets)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__.split("\n\n")[0])
    p.add_argument("tasks", nargs="*", help=f"tasks, of {', '.join(TASKS)} (default: turn greed)")
    p.add_argument("--minutes", type=float, help="training budget per task (default: each task's target time)")
    p.add_argument("--every", type=float, default=15.0, help="training seconds between exact scores")
    p.add_argument("--recipe", help="train this recipe instead of the task's bundled one (one task only)")
    p.add_argument("--vectors", type=int, help="value vectors scored per point (value-conditioned turn task)")
    p.add_argument("--out", type=Path, default=Path("results/bench_training.json"), help="curves as JSON")
    p.add_argument("--plot", type=Path, default=Path("results/bench_training.png"), help="the curves' plot")
    p.add_argument("--before", type=Path, help="an earlier run's JSON, drawn dashed in the plot for comparison")
    args = p.parse_args(argv)
    names = args.tasks or ["turn", "greed"]
    if unknown := [n for n in names if n not in TASKS]:
        p.error(f"unknown task {unknown[0]!r}; the tasks are {', '.join(TASKS)}")
    if args.recipe and len(names) != 1:
        p.error("--recipe replaces one task's recipe: name exactly one task")
    if args.every <= 0 or (args.minutes is not None and args.minutes <= 0):
        p.error("--every and --minutes are positive")
    if args.before is not None and not args.before.is_file():
        p.error(f"--before {args.before}: no such file (an earlier run's --out)")
    pin(args)
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        task = TASKS[name]
        seconds = 60 * args.minutes if args.minutes else task.seconds
        recipe = args.recipe or task.recipe
        print(f"\n{name}: {recipe}, {seconds:.0f} s of training, scored exactly every {args.every:.0f} s")
        result = train_curve(recipe, seconds, args.every, args.vectors if name == "turn_values" else None,
                             lambda pt: print(f"  {pt['seconds']:7.1f} s  {pt['steps']:>11,} steps  "
                                              f"{pt['percent']:8.3f}% of the optimum", flush=True))  # fmt: skip
        reached = seconds_to(result["curve"], task.target)
        split = ", ".join(f"{k} {v:.0%}" for k, v in result["split"].items())
        verdict = f"reached at {reached:.0f} s" if reached is not None else "not reached"
        print(f"  {result['steps_per_second']:,} steps/s; time: {split}")
        print(f"  target {task.target}% within {task.seconds:.0f} s: {verdict} "
              f"(final {result['curve'][-1]['percent']:.3f}% at {result['trained_seconds']:.0f} s)")  # fmt: skip
        results[name] = result
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    before = json.loads(args.before.read_text()) if args.before else None
    plot(results, args.plot, before)
    print(f"\nwrote {args.out} and {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
