"""Play agents against each other from a YAML recipe: ``python evaluate.py configs/eval_easy_come_easy_go.yaml``.

Two benchmarks, each optional in the recipe:
- the turn task, scored exactly (dynamic programming over every reachable state) as a percentage of the
  optimal turn's expected value, averaged over a fixed set of sampled prize-value vectors;
- the full game in every seating (round robin over ordered pairs), win rates with 95% Wilson intervals.
Prints tables, writes ``results.json``, ``turn_task.csv``, ``full_game.csv`` and ``evaluation.png``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import Field

from envs.common.config import ConfigError, GameConfig, validate_config


class AgentSpec(GameConfig):
    kind: Literal["random", "myopic", "exact", "heuristic", "sb3"]
    kwargs: dict[str, Any] = Field(default_factory=dict, description="constructor arguments")
    path: str | None = Field(None, description="sb3: the saved model (.zip)")
    if_missing: Literal["error", "skip"] = Field("error", description="sb3: what to do when the model is absent")
    only: list[str] | None = Field(None, description="benchmarks it plays (turn task names, 'full_game'); None: all")


class TurnTaskSection(GameConfig):
    config: dict[str, Any] = Field(default_factory=dict, description="TurnTaskConfig keys")
    value_vectors: int = Field(200, ge=1)
    seed: int = 12345


class FullGameSection(GameConfig):
    config: dict[str, Any] = Field(default_factory=dict, description="EasyComeEasyGoConfig keys (2 players)")
    games_per_seating: int = Field(2000, ge=1)
    seed: int = 0


class EvalRecipe(GameConfig):
    name: str
    game: Literal["easy_come_easy_go"] = "easy_come_easy_go"
    output_dir: str
    agents: dict[str, AgentSpec] = Field(min_length=1)
    turn_tasks: dict[str, TurnTaskSection] = Field(default_factory=dict, description="name -> turn task")
    full_game: FullGameSection | None = None


TURN_KINDS = ("random", "myopic", "exact", "sb3")  # agents that can play the turn task
GAME_KINDS = ("random", "myopic", "exact", "heuristic", "sb3")


def load_recipe(path: Path) -> EvalRecipe:
    if not path.is_file():
        raise ConfigError(f"no such config file: {path}")
    raw = yaml.safe_load(path.read_text())
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a YAML mapping at the top level")
    raw = dict(raw)
    try:
        raw["agents"] = {name: validate_config(AgentSpec, spec) for name, spec in dict(raw.get("agents") or {}).items()}
    except ConfigError as exc:
        raise ConfigError(f"[agents] {exc}") from None
    try:
        raw["turn_tasks"] = {
            name: validate_config(TurnTaskSection, task) for name, task in dict(raw.get("turn_tasks") or {}).items()
        }
        if isinstance(raw.get("full_game"), dict):
            raw["full_game"] = validate_config(FullGameSection, raw["full_game"])
    except ConfigError as exc:
        raise ConfigError(f"[turn_tasks/full_game] {exc}") from None
    recipe = validate_config(EvalRecipe, raw)
    benchmarks = {*recipe.turn_tasks, "full_game"}
    for name, spec in recipe.agents.items():
        unknown = set(spec.only or ()) - benchmarks
        if unknown:
            raise ConfigError(f"[agents.{name}] 'only' names {sorted(unknown)}; benchmarks: {sorted(benchmarks)}")
    return recipe


def build_agent(name: str, spec: AgentSpec, benchmark: str):
    """The agent for one benchmark, or None when it does not play it (or an optional model is absent)."""
    from agents import make_agent
    from agents.easy_come_easy_go.in_game import TurnPolicyInGame

    face = "game" if benchmark == "full_game" else "turn"
    if (face == "turn" and spec.kind not in TURN_KINDS) or (spec.only is not None and benchmark not in spec.only):
        return None
    if spec.kind == "sb3":
        if spec.path is None:
            raise ConfigError(f"[agents.{name}] kind sb3 needs 'path' (the saved model)")
        if not Path(spec.path).exists():
            if spec.if_missing == "skip":
                print(f"note: skipping agent {name!r}: no model at {spec.path} (train it with train.py first)")
                return None
            raise ConfigError(f"[agents.{name}] no model at {spec.path}; train it first or set if_missing: skip")
        agent = make_agent("sb3", path=spec.path, **spec.kwargs)
    else:
        agent = make_agent(spec.kind, **spec.kwargs)
    if face == "game" and spec.kind == "exact":
        agent = TurnPolicyInGame(agent, valuation=any_prize_not_mine)  # the optimal turn for "any prize"
    elif face == "game" and spec.kind == "sb3":
        agent = TurnPolicyInGame(agent)  # the trained turn policy chasing the heuristic's position values
    agent.name = name
    return agent


def any_prize_not_mine(view) -> np.ndarray:
    """Every prize the mover does not hold is worth 1."""
    return (view.owners != 0).astype(np.float64)


def run_turn_task(recipe: EvalRecipe) -> list[dict[str, Any]]:
    from tqdm import tqdm

    from agents.evaluation import sample_value_vectors, score_turn_policy

    rows = []
    for task, section in recipe.turn_tasks.items():
        for name, spec in recipe.agents.items():
            agent = build_agent(name, spec, task)
            if agent is None:
                continue
            total = len(sample_value_vectors(section.config, section.value_vectors, section.seed))
            with tqdm(total=total, desc=f"{task}: {name}", leave=False) as bar:
                row = score_turn_policy(agent, section.config, section.value_vectors, section.seed, bar.update)
            rows.append({"task": task, **row, "agent": name})
    return rows


def run_full_game(recipe: EvalRecipe) -> list[dict[str, Any]]:
    from agents.evaluation import round_robin

    section = recipe.full_game
    players = {}
    for name, spec in recipe.agents.items():
        agent = build_agent(name, spec, "full_game")
        if agent is not None:
            players[name] = agent
    if len(players) < 2:
        raise ConfigError("[full_game] needs at least two agents that can play the full game")
    return round_robin(players, section.games_per_seating, section.config, section.seed, progress=True)


def print_tables(turn_rows: list[dict[str, Any]], game_rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=120)
    if turn_rows:
        table = Table(title="Turn tasks: exact expected value per turn (mean over value vectors ± 95% CI)")
        for col in ("task", "agent", "mean value", "optimal", "% of optimum", "vectors", "seconds"):
            table.add_column(col, justify="left" if col in ("task", "agent") else "right")
        for r in sorted(turn_rows, key=lambda r: (r["task"], -r["percent_of_optimum"])):
            table.add_row(
                r["task"],
                r["agent"],
                f"{r['mean_value']:.4f} ± {r['mean_value_ci95']:.4f}",
                f"{r['mean_optimal_value']:.4f}",
                f"{r['percent_of_optimum']:.2f}",
                str(r["value_vectors"]),
                f"{r['seconds']:.1f}",
            )
        console.print(table)
    if game_rows:
        table = Table(title="Full game (2 players): win rate of each agent over all its games, both seatings")
        for col in ("agent", "win rate", "95% CI", "games", "games/s"):
            table.add_column(col, justify="right" if col != "agent" else "left")
        for r in overall_win_rates(game_rows):
            table.add_row(
                r["agent"], f"{r['win_rate']:.3f}", f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]", str(r["games"]),
                f"{r['games_per_second']:,.0f}",
            )  # fmt: skip
        console.print(table)
        table = Table(title="Full game, by seating: seat 0's win rate")
        for col in ("seat 0", "seat 1", "seat 0 wins", "95% CI", "truncated", "games/s"):
            table.add_column(col)
        for r in game_rows:
            table.add_row(
                r["seat_0"], r["seat_1"], f"{r['seat_0_win_rate']:.3f}", f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
                str(r["truncated"]), f"{r['games_per_second']:,.0f}",
            )  # fmt: skip
        console.print(table)


def overall_win_rates(game_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each agent's wins over all its games (both seats, every opponent), with a Wilson interval."""
    from agents.stats import wilson_ci

    wins: dict[str, float] = {}
    games: dict[str, int] = {}
    seconds: dict[str, float] = {}
    for r in game_rows:
        n = r["games"]
        for seat, won in ((r["seat_0"], r["seat_0_wins"]), (r["seat_1"], r["seat_1_wins"])):
            wins[seat] = wins.get(seat, 0) + won
            games[seat] = games.get(seat, 0) + n
            seconds[seat] = seconds.get(seat, 0.0) + n / r["games_per_second"]
    out = []
    for agent in wins:
        rate, low, high = wilson_ci(wins[agent], games[agent])
        out.append(
            {
                "agent": agent,
                "win_rate": rate,
                "ci_low": low,
                "ci_high": high,
                "games": games[agent],
                "games_per_second": games[agent] / seconds[agent],
            }
        )
    return sorted(out, key=lambda r: -r["win_rate"])


def plot(turn_rows: list[dict[str, Any]], game_rows: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [p for p in (turn_rows, game_rows) if p]
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4), squeeze=False)
    ax_iter = iter(axes[0])
    if turn_rows:
        ax = next(ax_iter)
        tasks = list(dict.fromkeys(r["task"] for r in turn_rows))
        names = list(dict.fromkeys(r["agent"] for r in turn_rows))
        width = 0.8 / len(tasks)
        for t, task in enumerate(tasks):
            scores = {r["agent"]: r["percent_of_optimum"] for r in turn_rows if r["task"] == task}
            xs = [i + t * width for i, n in enumerate(names) if n in scores]
            ax.bar(xs, [scores[n] for n in names if n in scores], width, label=task)
        ax.set_xticks([i + width * (len(tasks) - 1) / 2 for i in range(len(names))], names)
        ax.axhline(100, color="k", lw=0.8, ls="--")
        ax.set_ylabel("% of the exact optimum")
        ax.set_title("Turn tasks (exact evaluation)")
        ax.set_ylim(0, 110)
        ax.legend(loc="lower right", fontsize=8)
    if game_rows:
        ax = next(ax_iter)
        overall = overall_win_rates(game_rows)
        names = [r["agent"] for r in overall]
        rates = np.array([r["win_rate"] for r in overall])
        err = np.array(
            [[r["win_rate"] - r["ci_low"] for r in overall], [r["ci_high"] - r["win_rate"] for r in overall]]
        )
        ax.bar(names, rates, yerr=err, capsize=4, color="tab:orange")
        ax.axhline(0.5, color="k", lw=0.8, ls="--")
        ax.set_ylabel("win rate (95% CI)")
        ax.set_title("Full game, 2 players, all seatings")
        ax.set_ylim(0, 1)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    if not rows:
        return
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path, help="YAML recipe in configs/")
    parser.add_argument("--output-dir", help="override output_dir")
    args = parser.parse_args(argv)
    try:
        recipe = load_recipe(args.config)
        if args.output_dir:
            recipe = validate_config(EvalRecipe, recipe.model_dump() | {"output_dir": args.output_dir})
        if not recipe.turn_tasks and recipe.full_game is None:
            raise ConfigError("the recipe needs 'turn_tasks' and/or a 'full_game' section")
        started = time.perf_counter()
        turn_rows = run_turn_task(recipe)
        game_rows = run_full_game(recipe) if recipe.full_game else []
    except (ConfigError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = Path(recipe.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    print_tables(turn_rows, game_rows)
    write_csv(turn_rows, out / "turn_task.csv")
    write_csv(game_rows, out / "full_game.csv")
    results = {"name": recipe.name, "turn_task": turn_rows, "full_game": game_rows,
               "full_game_overall": overall_win_rates(game_rows) if game_rows else []}  # fmt: skip
    (out / "results.json").write_text(json.dumps(results, indent=2, default=float))
    plot(turn_rows, game_rows, out / "evaluation.png", recipe.name)
    print(f"wrote {out}/results.json, turn_task.csv, full_game.csv, evaluation.png "
          f"({time.perf_counter() - started:.1f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
