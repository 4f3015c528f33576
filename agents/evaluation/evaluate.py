"""Play agents against each other from a YAML recipe: ``python evaluate.py configs/eval_<game>.yaml``.

A recipe names a registered game, its agents and its benchmarks: every game has ``tables`` (mixed 2-, 3-, ...
player tables, seats drawn from the agents: win shares), ``round_robin`` (2 players, every ordered pair of
agents: win rates), ``tournament`` (every rotated seating: openskill and Bradley-Terry ratings, pairwise win
rates; ``dicearena.agents.evaluation.tournament``) and ``vs_opponents`` (one seat against fixed opponents: the
``<Game>VsOpponents-v0`` task's win rate); a game may add its own (``agents/<game>/benchmarks.py``: the exactly
scored turn and Greed tasks, a solitaire score, ...). Prints one table per benchmark, titled with the game (95%
intervals; games per second leave out compiling), writes ``results.json``, one CSV per benchmark and
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
from typing import Any, Literal

import numpy as np
from pydantic import Field, create_model

from dicearena.agents import agent_names, check_agent, make_agent, observation_misfit
from dicearena.agents.evaluation.benchmarks import benchmarks_of
from dicearena.agents.evaluation.recipes import (
    Imports,
    OutputDir,
    RunName,
    check_recipe_kind,
    import_modules,
    load_yaml,
    make_output_dir,
    recipe_path,
)
from dicearena.agents.evaluation.recipes import section as checked_section
from dicearena.agents.model_files import read_model_file
from dicearena.agents.registry import table_adapter
from dicearena.envs.common.config import ConfigError, GameConfig, validate_config
from dicearena.envs.common.contract import GAMES, nearest_games

Result = tuple[str, str, list[dict[str, Any]]]


def kinds(game: str) -> tuple[str, ...]:
    """The agents that can play ``game`` (from the registry: the game's spec, and the agents of any game)."""

    return agent_names(game)


class AgentSpec(GameConfig):
    kind: str = Field(description="a dicearena.agents.make_agent name")
    kwargs: dict[str, Any] = Field(default_factory=dict, description="constructor arguments")
    path: str | None = Field(None, description="sb3: the saved model (.zip)")
    if_missing: Literal["error", "skip"] = Field("error", description="sb3: what to do when the model is absent")
    only: list[str] | None = Field(None, description="benchmarks it plays; None: every one it can")


class _Recipe(GameConfig):
    imports: Imports = Field(default_factory=list, description="modules to import first (a game of your own)")
    name: RunName
    output_dir: OutputDir
    game: str
    agents: dict[str, AgentSpec] = Field(min_length=1)

    def benchmarks(self) -> list[tuple[str, str, Any]]:
        """(section key, run name, section) of every run, in recipe order: a named section's entries one by one."""
        out = []
        for key in self.sections():
            value = getattr(self, key)
            if isinstance(value, dict):
                out += [(key, name, entry) for name, entry in value.items()]
            elif value is not None:
                out.append((key, key, value))
        return out

    @classmethod
    def sections(cls) -> list[str]:
        return [key for key in cls.model_fields if key not in _Recipe.model_fields]


def recipe_model(game: str) -> type[_Recipe]:
    """The recipe model of ``game``: the common keys and one optional section per benchmark it has."""

    fields: dict[str, Any] = {}
    for key, bench in benchmarks_of(game).items():
        kind = dict[str, bench.section] if bench.named else bench.section | None  # type: ignore[name-defined]
        fields[key] = (kind, Field(default_factory=dict) if bench.named else None)
    return create_model(f"{game}_recipe", __base__=_Recipe, **fields)


def load_recipe(path: Path) -> _Recipe:
    """The recipe at ``path`` with every value checked (agents' names and arguments, the game's config keys)."""

    raw = load_yaml(path)
    check_recipe_kind(raw, path, "evaluate")
    import_modules(raw)
    game = raw.get("game")
    if not isinstance(game, str) or game not in GAMES:
        near = nearest_games(game)
        hint = f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""
        raise ConfigError(f"'game' must be one of {sorted(GAMES)}, got {game!r}{hint}")
    benches = benchmarks_of(game)
    agents = raw.get("agents")
    if isinstance(agents, dict):
        raw["agents"] = {key: _agent_spec(str(key), spec, game) for key, spec in agents.items()}
    for key, bench in benches.items():
        if bench.named and isinstance(raw.get(key), dict):
            raw[key] = {name: checked_section(f"{key}.{name}", bench.section, s) for name, s in raw[key].items()}
        elif isinstance(raw.get(key), dict):
            raw[key] = checked_section(key, bench.section, raw[key])
    model = recipe_model(game)
    recipe = validate_config(model, raw)
    runs = recipe.benchmarks()
    if not runs:
        raise ConfigError(f"the recipe names no benchmark; {game} has sections {model.sections()}")
    names = sorted({key for key, _, _ in runs} | {name for _, name, _ in runs})
    for name, spec in recipe.agents.items():
        unknown = set(spec.only or ()) - set(names)
        if unknown:
            raise ConfigError(f"[agents.{name}] 'only' names {sorted(unknown)}; benchmarks: {names}")
    for key, _, section in runs:
        benches[key].check(game, section)
    return recipe


def _agent_spec(key: str, value: Any, game: str) -> AgentSpec:
    """One agent entry, its name and constructor arguments checked, and an sb3 model file read as data."""

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
    if spec.path is None:
        raise ValueError("kind sb3 needs 'path' (the saved model)")
    if "path" in spec.kwargs:
        raise ValueError("give the model as 'path', not in 'kwargs'")
    if Path(spec.path).exists():
        read_model_file(spec.path)  # ModelFileError (a ValueError) says what is wrong with the file
    elif spec.if_missing == "error":
        raise ValueError(f"no model at {spec.path}; train it first or set if_missing: skip")


def build_agent(name: str, spec: AgentSpec, benchmark: str, can_play: tuple[str, ...], section: str = ""):
    """The agent for one benchmark run (of recipe ``section``), or None when it does not play it (or an optional
    model is absent)."""

    if spec.kind not in can_play or (spec.only is not None and not {benchmark, section} & set(spec.only)):
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


def fits(agent: Any, game: str, config: dict[str, Any]) -> bool:
    """Whether ``agent`` can read the observations of ``game`` under ``config``; one that cannot sits out, with a
    note."""
    misfit = observation_misfit(agent, game, config)
    if misfit is not None:
        print(f"note: {misfit}: it sits out these tables")
    return misfit is None


def run(recipe: _Recipe) -> list[Result]:
    """Every benchmark the recipe names, in recipe order; each seats the agents that can play it (a game's
    ``table_agent`` adapts an agent to a full table, or leaves it out)."""

    game = recipe.game
    benches = benchmarks_of(game)
    adapt = table_adapter(game)

    def players_of(key: str, run_name: str) -> Any:
        bench = benches[key]

        def players(config: dict[str, Any]) -> dict[str, Any]:
            seated = {}
            for name, spec in recipe.agents.items():
                agent = build_agent(name, spec, run_name, bench.kinds or kinds(game), key)
                if agent is not None and adapt is not None and bench.kinds is None:
                    agent = adapt(spec.kind, agent, config)
                if agent is not None and (bench.kinds is not None or fits(agent, game, config)):
                    seated[name] = agent
            return seated

        return players

    out: list[Result] = []
    for key, run_name, section in recipe.benchmarks():
        out += benches[key].run(game, run_name, section, players_of(key, run_name))
    return out


# --- Output


def _cell(value: Any) -> str:
    if isinstance(value, float | np.floating):
        digits = 4 if abs(value) < 10 else 2 if abs(value) < 1000 else 0
        return f"{value:,.{digits}f}"
    return str(value)


def print_tables(benchmarks: list[Result], game: str | None = None) -> None:
    """One table per benchmark, each titled with ``game``'s name first (a recipe's output may sit beside another
    game's, as in ``make demo``)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(width=160)
    prefix = f"{GAMES[game].title}: " if game in GAMES else ""
    for title, _, rows in benchmarks:
        if not rows:
            continue
        table = Table(title=escape(prefix + title))
        for col in rows[0]:
            left = col in ("agent", "opponent", "seat_0", "seat_1")
            table.add_column(col.replace("_", " "), justify="left" if left else "right")
        for r in rows:
            table.add_row(*(_cell(r[c]) for c in rows[0]))
        console.print(table)


def plot(benchmarks: list[Result], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(t, k, rows) for t, k, rows in benchmarks if k != "table" and rows]
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    for ax, (name, kind, rows) in zip(axes[0], panels, strict=True):
        agents = [r["agent"] for r in rows]
        if kind == "ratings":
            plot_ratings(ax, rows)
        elif kind == "pairwise":
            plot_pairwise(fig, ax, rows)
        elif kind == "percent":
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


def plot_ratings(ax: Any, rows: list[dict[str, Any]]) -> None:
    """openskill mu with its 95% interval per agent, best first; each bar labelled with its Bradley-Terry Elo."""
    mu, err = np.array([r["mu"] for r in rows]), 1.96 * np.array([r["sigma"] for r in rows])
    ax.bar([r["agent"] for r in rows], mu, yerr=err, capsize=4, color="tab:purple")
    for k, r in enumerate(rows):
        ax.annotate(f"Elo {r['bt_elo']:+.0f}", (k, mu[k] + err[k]), textcoords="offset points", xytext=(0, 4),
                    ha="center", fontsize=7)  # fmt: skip
    ax.set_ylabel("openskill mu (95% CI)")
    low, high = min(0.0, (mu - err).min()), (mu + err).max()
    ax.set_ylim(low, high + 0.15 * (high - low))


def plot_pairwise(fig: Any, ax: Any, rows: list[dict[str, Any]]) -> None:
    """The win-rate matrix (row agent vs column opponent, in the rows' order: the ratings') as a heatmap, each cell
    with its 95% interval."""
    names = list(dict.fromkeys(r["agent"] for r in rows))
    index = {n: i for i, n in enumerate(names)}
    rates = np.full((len(names), len(names)), np.nan)
    for r in rows:
        rates[index[r["agent"]], index[r["opponent"]]] = r["win_rate"]
    image = ax.imshow(rates, cmap="RdBu", vmin=0, vmax=1)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    if len(names) <= 8:
        cells = {(r["agent"], r["opponent"]): r for r in rows}
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if (a, b) in cells:
                    c = cells[a, b]
                    ax.text(j, i, f"{c['win_rate']:.2f}\n[{c['ci_low']:.2f}, {c['ci_high']:.2f}]", ha="center",
                            va="center", fontsize=6, color="w" if abs(c["win_rate"] - 0.5) > 0.3 else "k")  # fmt: skip
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xlabel("opponent")


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", title.split(":")[0].lower()).strip("_")


def write_outputs(recipe, benchmarks: list[Result]) -> Path:
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
    plot(benchmarks, out / "evaluation.png", f"{recipe.name} ({GAMES[recipe.game].title})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="a YAML recipe file, or the name of a bundled recipe (configs/)")
    parser.add_argument("--output-dir", help="override output_dir")
    args = parser.parse_args(argv)
    try:
        recipe = load_recipe(recipe_path(args.config))
        if args.output_dir is not None:  # '' is refused by name, not ignored
            recipe = validate_config(type(recipe), recipe, output_dir=args.output_dir)
        make_output_dir(recipe.output_dir, "output_dir")
        started = time.perf_counter()
        benchmarks = run(recipe)
    except (ConfigError, FileNotFoundError) as exc:  # FileNotFoundError: a model deleted since the check
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print_tables(benchmarks, recipe.game)
    try:
        out = write_outputs(recipe, benchmarks)
    except OSError as exc:  # a full disk, a path taken by a folder
        print(f"error: could not write the results to {recipe.output_dir}: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {out}/results.json, the CSVs and evaluation.png ({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
