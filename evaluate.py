"""Play agents against each other from a YAML recipe: ``python evaluate.py configs/eval_easy_come_easy_go.yaml``.

A recipe names a game, its agents and its benchmarks:
- ``easy_come_easy_go``: ``turn_tasks`` (each scored exactly, by dynamic programming over every reachable
  state, as a percentage of the optimal turn) and ``full_game`` (2-player round robin in both seatings);
- ``extra``: ``solitaire`` (mean score) and ``tables`` (mixed 2-, 4-, … player tables: win rates);
- ``yay``: ``tables`` (mixed 2-, 3-, 4-player tables: win shares, mean uncrossed numbers).
Prints one table per benchmark (95% intervals), writes ``results.json``, one CSV per benchmark and
``evaluation.png``.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import AfterValidator, Field

from agents.recipes import OutputDir, RunName, Seed, load_yaml, make_output_dir
from agents.recipes import section as checked_section
from envs.common.config import ConfigError, GameConfig, validate_config


def kinds(game: str) -> tuple[str, ...]:
    """The agents that can play ``game`` (from the registry: the game's spec, and the agents of any game)."""
    from agents import agent_names

    return agent_names(game)


class AgentSpec(GameConfig):
    kind: str = Field(description="agents.make_agent name")
    kwargs: dict[str, Any] = Field(default_factory=dict, description="constructor arguments")
    path: str | None = Field(None, description="sb3: the saved model (.zip)")
    if_missing: Literal["error", "skip"] = Field("error", description="sb3: what to do when the model is absent")
    only: list[str] | None = Field(None, description="benchmarks it plays; None: every one it can")


def _no_player_count(config: dict[str, Any]) -> dict[str, Any]:
    if "num_players" in config:
        raise ValueError("'config.num_players' is set by the benchmark itself (player_counts, or 2 for full_game); "
                         "remove it")  # fmt: skip
    return config


GameKeys = Annotated[dict[str, Any], AfterValidator(_no_player_count)]


class TurnTaskSection(GameConfig):
    config: dict[str, Any] = Field(default_factory=dict, description="TurnTaskConfig keys")
    value_vectors: int = Field(200, ge=1, le=10**6)
    seed: Seed = 12345


class FullGameSection(GameConfig):
    config: GameKeys = Field(default_factory=dict, description="EasyComeEasyGoConfig keys other than num_players")
    games_per_seating: int = Field(2000, ge=1, le=10**8)
    seed: Seed = 0


class SolitaireSection(GameConfig):
    config: GameKeys = Field(default_factory=dict, description="ExtraConfig keys other than num_players")
    games: int = Field(10_000, ge=2, le=10**8)
    seed: Seed = 0


class TablesSection(GameConfig):
    config: GameKeys = Field(default_factory=dict, description="the game's config keys other than num_players")
    player_counts: list[Annotated[int, Field(ge=2, le=6)]] = Field(default_factory=lambda: [2, 4], min_length=1)
    games: int = Field(4000, ge=1, le=10**8, description="games per player count; seats drawn from the agents")
    seed: Seed = 0


class _Recipe(GameConfig):
    name: RunName
    output_dir: OutputDir
    agents: dict[str, AgentSpec] = Field(min_length=1)


class EasyComeEasyGoRecipe(_Recipe):
    game: Literal["easy_come_easy_go"]
    turn_tasks: dict[str, TurnTaskSection] = Field(default_factory=dict, description="name -> turn task")
    full_game: FullGameSection | None = None

    def benchmarks(self) -> list[str]:
        return [*self.turn_tasks, *(["full_game"] if self.full_game else [])]

    def check_game_configs(self) -> None:
        from envs.easy_come_easy_go.config import EasyComeEasyGoConfig
        from envs.easy_come_easy_go.turn_task import TurnTaskConfig

        for name, task in self.turn_tasks.items():
            checked_section(f"turn_tasks.{name}.config", TurnTaskConfig, task.config)
        if self.full_game:
            checked_section("full_game.config", EasyComeEasyGoConfig, {**self.full_game.config, "num_players": 2})


class ExtraRecipe(_Recipe):
    game: Literal["extra"]
    solitaire: SolitaireSection | None = None
    tables: TablesSection | None = None

    def benchmarks(self) -> list[str]:
        return [*(["solitaire"] if self.solitaire else []), *(["tables"] if self.tables else [])]

    def check_game_configs(self) -> None:
        from envs.extra.config import ExtraConfig

        if self.solitaire:
            checked_section("solitaire.config", ExtraConfig, {**self.solitaire.config, "num_players": 1})
        if self.tables:
            _check_tables(self.tables, ExtraConfig)


class YayRecipe(_Recipe):
    game: Literal["yay"]
    tables: TablesSection | None = None

    def benchmarks(self) -> list[str]:
        return ["tables"] if self.tables else []

    def check_game_configs(self) -> None:
        from envs.yay.config import YayConfig

        if self.tables:
            _check_tables(self.tables, YayConfig)


def _check_tables(tables: TablesSection, model: type[GameConfig]) -> None:
    for n in tables.player_counts:
        checked_section(f"tables.config (at {n} players)", model, {**tables.config, "num_players": n})


RECIPES = {"easy_come_easy_go": EasyComeEasyGoRecipe, "extra": ExtraRecipe, "yay": YayRecipe}
SECTIONS = {
    "turn_tasks": TurnTaskSection,
    "full_game": FullGameSection,
    "solitaire": SolitaireSection,
    "tables": TablesSection,
}


def load_recipe(path: Path) -> EasyComeEasyGoRecipe | ExtraRecipe | YayRecipe:
    """The recipe at ``path`` with every value checked (agents' names and arguments, the game's config keys)."""
    raw = load_yaml(path)
    game = raw.get("game")
    if game not in RECIPES:
        raise ConfigError(f"'game' must be one of {sorted(RECIPES)}, got {game!r}")
    agents = raw.get("agents")
    if isinstance(agents, dict):
        raw["agents"] = {key: _agent_spec(str(key), spec, game) for key, spec in agents.items()}
    for key, model in SECTIONS.items():
        if key == "turn_tasks" and isinstance(raw.get(key), dict):
            raw[key] = {name: checked_section(f"{key}.{name}", model, task) for name, task in raw[key].items()}
        elif isinstance(raw.get(key), dict):
            raw[key] = checked_section(key, model, raw[key])
    recipe = validate_config(RECIPES[game], raw)
    benchmarks = recipe.benchmarks()
    if not benchmarks:
        raise ConfigError(f"the recipe names no benchmark; {game} has sections {sorted(RECIPES[game].model_fields)}")
    for name, spec in recipe.agents.items():
        unknown = set(spec.only or ()) - set(benchmarks)
        if unknown:
            raise ConfigError(f"[agents.{name}] 'only' names {sorted(unknown)}; benchmarks: {benchmarks}")
    recipe.check_game_configs()
    return recipe


def _agent_spec(key: str, value: Any, game: str) -> AgentSpec:
    """One agent entry, its name and constructor arguments checked, and an sb3 model file read as data."""
    from agents import check_agent

    spec = checked_section(f"agents.{key}", AgentSpec, value)
    try:
        if spec.kind not in kinds(game):
            raise ValueError(f"'kind' must be one of {kinds(game)} for {game}, got {spec.kind!r}")
        check_agent(spec.kind, {"path": "", **spec.kwargs} if spec.kind == "sb3" else spec.kwargs, game)
        if spec.kind != "sb3" and spec.path is not None:
            raise ValueError(f"'path' is for kind sb3 (a saved model), not {spec.kind!r}")
        if spec.kind == "sb3":
            _check_model_path(spec)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"[agents.{key}] {exc}") from None
    return spec


def _check_model_path(spec: AgentSpec) -> None:
    from agents.model_files import read_model_file

    if spec.path is None:
        raise ValueError("kind sb3 needs 'path' (the saved model)")
    if "path" in spec.kwargs:
        raise ValueError("give the model as 'path', not in 'kwargs'")
    if Path(spec.path).exists():
        read_model_file(spec.path)  # ModelFileError (a ValueError) says what is wrong with the file
    elif spec.if_missing == "error":
        raise ValueError(f"no model at {spec.path}; train it first or set if_missing: skip")


def build_agent(name: str, spec: AgentSpec, benchmark: str, can_play: tuple[str, ...]):
    """The agent for one benchmark, or None when it does not play it (or an optional model is absent)."""
    from agents import make_agent

    if spec.kind not in can_play or (spec.only is not None and benchmark not in spec.only):
        return None
    if spec.kind == "sb3":
        if spec.path is None:
            raise ConfigError(f"[agents.{name}] kind sb3 needs 'path' (the saved model)")
        if not Path(spec.path).exists():
            if spec.if_missing == "skip":
                print(f"note: skipping agent {name!r} on {benchmark}: no model at {spec.path} (train it first)")
                return None
            raise ConfigError(f"[agents.{name}] no model at {spec.path}; train it first or set if_missing: skip")
        agent = make_agent("sb3", path=spec.path, **spec.kwargs)
    else:
        agent = make_agent(spec.kind, **spec.kwargs)
    agent.name = name
    return agent


def _players(recipe, benchmark: str, can_play: tuple[str, ...], wrap=None) -> dict[str, Any]:
    players = {}
    for name, spec in recipe.agents.items():
        agent = build_agent(name, spec, benchmark, can_play)
        if agent is not None:
            players[name] = wrap(agent, spec) if wrap else agent
    return players


# --- Benchmarks: each returns (title, kind, rows); kind "percent" / "score" / "win_rate" picks the plot.


def run_easy_come_easy_go(recipe: EasyComeEasyGoRecipe) -> list[tuple[str, str, list[dict[str, Any]]]]:
    from tqdm import tqdm

    from agents.easy_come_easy_go.evaluation import round_robin, sample_value_vectors, score_turn_policy
    from agents.easy_come_easy_go.in_game import TurnPolicyInGame, any_prize_not_mine

    out = []
    for task, section in recipe.turn_tasks.items():
        rows = []
        for name, agent in _players(recipe, task, ("random", "eceg_myopic", "eceg_exact", "sb3")).items():
            total = len(sample_value_vectors(section.config, section.value_vectors, section.seed))
            with tqdm(total=total, desc=f"{task}: {name}", leave=False) as bar:
                row = score_turn_policy(agent, section.config, section.value_vectors, section.seed, bar.update)
            rows.append({**row, "agent": name})
        rows.sort(key=lambda r: -r["percent_of_optimum"])
        out.append((f"turn task {task}: exact expected value per turn", "percent", rows))
    if recipe.full_game:
        section = recipe.full_game

        def in_game(agent, spec: AgentSpec):
            if spec.kind == "eceg_exact":  # the optimal turn for "any prize I do not hold"
                return TurnPolicyInGame(agent, valuation=any_prize_not_mine)
            if spec.kind == "sb3":  # the trained turn policy chasing the heuristic's position values
                return TurnPolicyInGame(agent)
            return agent

        players = _players(recipe, "full_game", kinds("easy_come_easy_go"), in_game)
        if len(players) < 2:
            raise ConfigError("[full_game] needs at least two agents that can play the full game")
        by_seating = round_robin(players, section.games_per_seating, section.config, section.seed, progress=True)
        out.append(("full game, 2 players, both seatings: win rate", "win_rate", overall_win_rates(by_seating)))
        out.append(("full game by seating: seat 0's win rate", "table", by_seating))
    return out


def run_extra(recipe: ExtraRecipe) -> list[tuple[str, str, list[dict[str, Any]]]]:
    from agents.extra.evaluation import mixed_table_win_rates, solitaire_scores

    out = []
    if recipe.solitaire:
        section = recipe.solitaire
        players = _players(recipe, "solitaire", kinds("extra"))
        rows = solitaire_scores(players, section.games, section.config, section.seed)
        out.append(("solitaire: mean score", "score", sorted(rows, key=lambda r: -r["mean_score"])))
    if recipe.tables:
        from agents.extra.at_table import SolitairePolicyAtTable

        section = recipe.tables
        players = _players(  # a trained solitaire policy plays its own sheet at the table
            recipe, "tables", kinds("extra"), lambda a, spec: SolitairePolicyAtTable(a) if spec.kind == "sb3" else a
        )
        if len(players) < 2:
            raise ConfigError("[tables] needs at least two agents")
        for n in section.player_counts:
            rows = mixed_table_win_rates(players, n, section.games, section.config, section.seed + n)
            out.append((f"{n}-player tables (seats drawn from the agents): win share", "win_rate", rows))
    return out


def run_yay(recipe: YayRecipe) -> list[tuple[str, str, list[dict[str, Any]]]]:
    from agents.yay.evaluation import mixed_table_win_rates
    from envs.yay import engine as yay_engine
    from envs.yay.config import YayConfig

    section = recipe.tables
    players = _players(recipe, "tables", kinds("yay"))  # a policy trained at one seat sees any seat the same way
    out = []
    for n in section.player_counts:
        game = validate_config(YayConfig, section.config, num_players=n)
        size = yay_engine.observation_size(n, game.rows, game.cols)
        seated = {}
        for name, agent in players.items():  # a trained model reads one table size's observations only
            space = getattr(agent, "observation_space", None)
            if space is None or space.shape == (size,):
                seated[name] = agent
            else:
                print(f"note: {name!r} plays no {n}-player table: trained on observations of {space.shape[0]} floats, "
                      f"these have {size}")  # fmt: skip
        if len(seated) < 2:
            raise ConfigError(f"[tables] {n}-player tables need at least two agents that can play them")
        rows = mixed_table_win_rates(seated, n, section.games, section.config, section.seed + n)
        out.append((f"{n}-player tables (seats drawn from the agents): win share", "win_rate", rows))
    return out


def overall_win_rates(game_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each agent's wins over all its 2-player games (both seats, every opponent), with a Wilson interval."""
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
        out.append({"agent": agent, "win_rate": rate, "ci_low": low, "ci_high": high, "games": games[agent],
                    "games_per_second": games[agent] / seconds[agent]})  # fmt: skip
    return sorted(out, key=lambda r: -r["win_rate"])


# --- Output


def _cell(value: Any) -> str:
    if isinstance(value, float | np.floating):
        digits = 4 if abs(value) < 10 else 2 if abs(value) < 1000 else 0
        return f"{value:,.{digits}f}"
    return str(value)


def print_tables(benchmarks: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=160)
    for title, _, rows in benchmarks:
        if not rows:
            continue
        table = Table(title=title)
        for col in rows[0]:
            table.add_column(col.replace("_", " "), justify="left" if col in ("agent", "seat_0", "seat_1") else "right")
        for r in rows:
            table.add_row(*(_cell(r[c]) for c in rows[0]))
        console.print(table)


def plot(benchmarks: list[tuple[str, str, list[dict[str, Any]]]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(t, k, rows) for t, k, rows in benchmarks if k != "table" and rows]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (name, kind, rows) in zip(axes[0], panels, strict=True):
        agents = [r["agent"] for r in rows]
        if kind == "percent":
            ax.bar(agents, [r["percent_of_optimum"] for r in rows], color="tab:blue")
            ax.axhline(100, color="k", lw=0.8, ls="--")
            ax.set_ylabel("% of the exact optimum")
            ax.set_ylim(0, 110)
        elif kind == "score":
            ax.bar(agents, [r["mean_score"] for r in rows], yerr=[r["ci95"] for r in rows], capsize=4,
                   color="tab:green")  # fmt: skip
            ax.axhline(0, color="k", lw=0.8)
            ax.set_ylabel("mean score (95% CI)")
        else:
            rates = np.array([r["win_rate"] for r in rows])
            err = np.array([[r["win_rate"] - r["ci_low"], r["ci_high"] - r["win_rate"]] for r in rows]).T
            ax.bar(agents, rates, yerr=err, capsize=4, color="tab:orange")
            ax.set_ylabel("win rate (95% CI)")
            ax.set_ylim(0, 1)
        ax.set_title(name.split(":")[0], fontsize=10)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", title.split(":")[0].lower()).strip("_")


def write_outputs(recipe, benchmarks: list[tuple[str, str, list[dict[str, Any]]]]) -> Path:
    out = Path(recipe.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    for title, _, rows in benchmarks:
        if rows:
            with (out / f"{slug(title)}.csv").open("w", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
    results = {"name": recipe.name, "game": recipe.game, "benchmarks": {slug(t): rows for t, _, rows in benchmarks}}
    (out / "results.json").write_text(json.dumps(results, indent=2, default=float))
    plot(benchmarks, out / "evaluation.png", recipe.name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path, help="YAML recipe in configs/")
    parser.add_argument("--output-dir", help="override output_dir")
    args = parser.parse_args(argv)
    try:
        recipe = load_recipe(args.config)
        if args.output_dir:
            recipe = validate_config(type(recipe), recipe, output_dir=args.output_dir)
        make_output_dir(recipe.output_dir, "output_dir")
        started = time.perf_counter()
        runner = {"easy_come_easy_go": run_easy_come_easy_go, "extra": run_extra, "yay": run_yay}[recipe.game]
        benchmarks = runner(recipe)
    except (ConfigError, FileNotFoundError) as exc:  # FileNotFoundError: a model deleted since the check
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print_tables(benchmarks)
    out = write_outputs(recipe, benchmarks)
    print(f"wrote {out}/results.json, the CSVs and evaluation.png ({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
