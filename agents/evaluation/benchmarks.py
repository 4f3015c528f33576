"""The benchmarks an evaluation recipe can run: every game's ``tables``, ``round_robin`` and ``tournament``, and a
game's own.

Why here: "play these agents against each other and report win rates with intervals" is the same for every game
(``dicearena.agents.evaluation.play.play_games`` reads the engine's final rewards), so it is written once; a game
registers any benchmark of its own and what else a table reports per seat (:func:`register_benchmarks`, from
``agents/<game>/benchmarks.py``); how its agents sit at a full table is the policy layer's
(``dicearena.agents.registry``). No game is named here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from pydantic import AfterValidator, Field, field_validator

from dicearena.agents import check_agent, observation_misfit, table_player
from dicearena.agents.base import Agent
from dicearena.agents.evaluation.play import play_games
from dicearena.agents.evaluation.recipes import Seed, section
from dicearena.agents.evaluation.stats import table_win_shares, wilson_ci, win_shares
from dicearena.agents.evaluation.tournament import tournament
from dicearena.agents.registry import game_module, table_adapter
from dicearena.agents.snapshots import PoolFileError, pool_agents, pool_names
from dicearena.envs.common.config import ConfigError, GameConfig
from dicearena.envs.common.contract import game_spec

__all__ = ["Benchmark", "OpponentSpec", "Players", "Result", "RoundRobinSection", "TablesSection", "TournamentSection",
           "VsOpponentsSection", "benchmarks_of", "exact_task_rows", "mixed_tables", "opponent_specs",
           "register_benchmarks", "round_robin", "seat_stats_of", "vs_opponents"]  # fmt: skip

# (title, plot kind: "percent" / "score" / "win_rate" / "ratings" / "pairwise" / "table", rows)
Result = tuple[str, str, list[dict[str, Any]]]
Players = Callable[[dict[str, Any]], dict[str, Agent]]  # a game config -> the agents that play it there


def _no_player_count(config: dict[str, Any]) -> dict[str, Any]:
    if "num_players" in config:
        raise ValueError("'config.num_players' is set by the benchmark itself (player_counts, or 2 for a round "
                         "robin); remove it")  # fmt: skip
    return config


GameKeys = Annotated[dict[str, Any], AfterValidator(_no_player_count)]


@dataclass(frozen=True)
class Benchmark:
    """One kind of recipe section: its model, how it runs (``run(game, name, section, players)``) and (``check``)
    the game configs it will build, checked before anything runs. ``named``: the section maps names to several
    runs; ``kinds``: the agent kinds it seats (None: every agent of the game, at a table)."""

    section: type[GameConfig]
    run: Callable[[str, str, Any, Players], list[Result]]
    check: Callable[[str, Any], None]
    named: bool = False
    kinds: tuple[str, ...] | None = None


def _check_config(game: str, where: str, config: dict[str, Any]) -> None:
    section(where, game_spec(game).config, config)


# --- a task scored exactly: each agent's value beside the optimum (a game's own benchmark builds on this)


def exact_task_rows(task: str, agents: dict[str, Agent],
                    score: Callable[[Agent, Callable[[int], None]], dict[str, Any]], steps: int,
                    ) -> list[dict[str, Any]]:  # fmt: skip
    """Each agent's row from ``score(agent, progress)`` (a dict with ``percent_of_optimum``; it calls
    ``progress(1)`` ``steps`` times, for the bar), named by the recipe's name for the agent, best first. Why here:
    every exactly scored task (Easy Come's turn, Ea$y Money's Greed stop) reports the same way; only the solver
    differs."""
    from tqdm import tqdm

    rows = []
    for name, agent in agents.items():
        with tqdm(total=steps, desc=f"{task}: {name}", leave=False) as bar:
            row = score(agent, bar.update)
        rows.append({"agent": name, **{k: v for k, v in row.items() if k != "agent"}})
    return sorted(rows, key=lambda r: -r["percent_of_optimum"])


# --- tables: mixed P-player tables, seats drawn from the agents


class TablesSection(GameConfig):
    config: GameKeys = Field(default_factory=dict, description="the game's config keys other than num_players")
    player_counts: list[Annotated[int, Field(ge=2, le=6)]] = Field(default_factory=lambda: [2, 4], min_length=1)
    games: int = Field(4000, ge=1, le=10**8, description="games per player count; seats drawn from the agents")
    seed: Seed = 0


def _check_tables(game: str, section: TablesSection) -> None:
    for n in section.player_counts:
        _check_config(game, f"tables.config (at {n} players)", {**section.config, "num_players": n})


def mixed_tables(
    game: str, agents: dict[str, Agent], num_players: int, games: int, config: dict[str, Any] | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:  # fmt: skip
    """``games`` tables of ``num_players`` seats drawn uniformly (with replacement) from ``agents``: each agent's win
    share (a k-way tie for the best final reward gives each 1/k: equals all get 1 / P), plus the game's
    ``seat_stats`` columns."""

    stats = seat_stats_of(game)
    config = {**(config or {}), "num_players": num_players}
    names, pool = list(agents), list(agents.values())
    seat_agents = np.random.default_rng(seed).integers(0, len(pool), size=(games, num_players))
    result = play_games(game, seat_agents, pool, config, seed)
    per_seat = stats(result["final_states"], num_players) if stats else {}
    return table_win_shares(names, seat_agents, result["final_rewards"], result["seconds"], per_seat)


def run_tables(game: str, name: str, section: TablesSection, players: Players) -> list[Result]:
    out = []
    for n in section.player_counts:
        seated = players({**section.config, "num_players": n})
        if len(seated) < 2:
            raise ConfigError(f"[tables] {n}-player tables need at least two agents that can play them")
        rows = mixed_tables(game, seated, n, section.games, section.config, section.seed + n)
        out.append((f"{n}-player tables (seats drawn from the agents): win share", "win_rate", rows))
    return out


# --- round robin: every ordered pair of agents, 2 players


class RoundRobinSection(GameConfig):
    config: GameKeys = Field(default_factory=dict, description="the game's config keys other than num_players")
    games_per_seating: int = Field(2000, ge=1, le=10**8)
    seed: Seed = 0


def round_robin(
    game: str, agents: dict[str, Agent], games_per_seating: int, config: dict[str, Any] | None = None, seed: int = 0,
    progress: bool = True,
) -> list[dict[str, Any]]:  # fmt: skip
    """Every ordered pair of distinct agents in the 2-player game (so both seatings): seat 0's win rate with CIs."""
    from tqdm import tqdm


    config = {**(config or {}), "num_players": 2}
    rows = []
    pairs = list(itertools.permutations(agents, 2))
    for k, (first, second) in enumerate(tqdm(pairs, desc="round robin", disable=not progress, leave=False)):
        result = play_games(game, np.tile([0, 1], (games_per_seating, 1)), [agents[first], agents[second]], config,
                            seed + k)  # fmt: skip
        wins = (result["final_rewards"] > 0).sum(axis=0)
        rate, low, high = wilson_ci(int(wins[0]), games_per_seating)
        rows.append({"seat_0": first, "seat_1": second, "games": games_per_seating, "seat_0_wins": int(wins[0]),
                     "seat_1_wins": int(wins[1]), "seat_0_win_rate": rate, "ci_low": low, "ci_high": high,
                     "truncated": int(result["truncated"].sum()),
                     "games_per_second": games_per_seating / result["seconds"]})  # fmt: skip
    return rows


def run_round_robin(game: str, name: str, section: RoundRobinSection, players: Players) -> list[Result]:
    """Seat 0's win rate in every seating, then each agent's overall."""
    seated = players({**section.config, "num_players": 2})
    if len(seated) < 2:
        raise ConfigError("[round_robin] needs at least two agents that can play the game")
    rows = round_robin(game, seated, section.games_per_seating, section.config, section.seed)
    return [("round robin, 2 players, both seatings: win rate", "win_rate", overall_win_rates(rows)),
            ("round robin by seating: seat 0's win rate", "table", rows)]  # fmt: skip


def overall_win_rates(game_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each agent's wins over all its 2-player games (both seats, every opponent), with a Wilson interval."""
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


# --- tournament: every rotated seating of the entrants, rated (dicearena.agents.evaluation.tournament)


class TournamentSection(GameConfig):
    config: GameKeys = Field(default_factory=dict, description="the game's config keys other than num_players")
    player_counts: list[Annotated[int, Field(ge=2, le=6)]] = Field(default_factory=lambda: [2], min_length=1)
    games_per_seating: int = Field(2000, ge=1, le=10**8, description="games of each rotation of each set of entrants")
    pool: str | None = Field(None, description="a self-play run's output_dir: its pool's snapshots join as entrants")
    snapshots: list[str] | None = Field(None, min_length=1, description="which of the pool's (snapshot_<steps>)")
    torch_threads: int = Field(1, ge=1, le=64, description="torch threads while playing (more oversubscribe)")
    seed: Seed = 0


def _pool_names(pool: str) -> list[str]:
    """The snapshot names of the self-play run at ``pool`` (from its manifest; no model is loaded)."""

    try:
        return pool_names(pool)
    except PoolFileError as error:
        raise ConfigError(f"[tournament] 'pool': {error}") from None


def _check_tournament(game: str, section: TournamentSection) -> None:
    for n in section.player_counts:
        _check_config(game, f"tournament.config (at {n} players)", {**section.config, "num_players": n})
    if section.snapshots is not None and section.pool is None:
        raise ConfigError("[tournament] 'snapshots' picks from a 'pool'; set 'pool' (a self-play run's output_dir)")
    if section.pool is not None:
        names = _pool_names(section.pool)
        unknown = set(section.snapshots or ()) - set(names)
        if unknown:
            raise ConfigError(f"[tournament] 'snapshots' names {sorted(unknown)}; {section.pool} has {names}")


def _entrants(game: str, section: TournamentSection, players: Players, config: dict[str, Any]) -> dict[str, Agent]:
    """The recipe's agents that can play ``config``, and the pool's snapshots that can read it."""
    entrants = players(config)
    if section.pool is None:
        return entrants
    adapt = table_adapter(game)
    for name, agent in pool_agents(section.pool, section.snapshots).items():
        if name in entrants:
            raise ConfigError(f"[tournament] the pool's {name!r} has the name of a recipe agent; rename the agent")
        seated = agent if adapt is None else adapt("sb3", agent, config)
        if seated is not None and observation_misfit(seated, game, config) is None:
            entrants[name] = seated
        else:
            print(f"note: {name!r} sits out the {config['num_players']}-player tournament: it cannot read its tables")
    return entrants


def run_tournament(game: str, name: str, section: TournamentSection, players: Players) -> list[Result]:
    """Per player count: the entrants' ratings, then the pairwise win rates."""

    out = []
    for n in section.player_counts:
        config = {**section.config, "num_players": n}
        entrants = _entrants(game, section, players, config)
        if len(entrants) < n or len(entrants) < 2:
            raise ConfigError(f"[tournament] {n}-player tables need at least {max(n, 2)} entrants that can play "
                              f"them, got {sorted(entrants)}; add agents or drop {n} from 'player_counts'")  # fmt: skip
        t = tournament(game, entrants, n, section.games_per_seating, section.config, section.seed + n,
                       torch_threads=section.torch_threads)  # fmt: skip
        print(f"{n}-player tournament: {t.games:,} games in {t.play_seconds:.1f} s "
              f"({t.games / t.play_seconds:,.0f} games/s), rated in {t.rating_seconds:.1f} s")  # fmt: skip
        out += [(f"{n}-player tournament ratings: openskill Plackett-Luce mu +- 1.96 sigma, ranked by mu - 3 sigma; "
                 "Bradley-Terry Elo", "ratings", t.ratings),
                (f"{n}-player tournament pairwise win rates: agent vs opponent, ties half, 95% Wilson", "pairwise",
                 t.pairwise)]  # fmt: skip
    return out


# --- vs_opponents: one seat against fixed opponents (every game's <Game>VsOpponents-v0 task env)


class OpponentSpec(GameConfig):
    kind: str = Field(description="a dicearena.agents.make_agent name")
    kwargs: dict[str, Any] = Field(default_factory=dict, description="constructor arguments")


def opponent_specs(value: Any) -> Any:
    """``opponents`` as a list of specs: a name, ``{kind, kwargs}``, or a list of them (one per other seat, or one
    for all), as a ``<game>_vs_opponents`` training task takes them."""
    items = value if isinstance(value, list) else [value]
    return [{"kind": item} if isinstance(item, str) else item for item in items]


class VsOpponentsSection(GameConfig):
    opponents: list[OpponentSpec] = Field(min_length=1, description="one for every other seat, or one for all")
    learner_seat: int = Field(0, ge=0, le=5, description="the seat each scored agent takes")
    game: dict[str, Any] = Field(default_factory=dict, description="the game's config keys (num_players too)")
    games: int = Field(4000, ge=1, le=10**8, description="games per scored agent")
    seed: Seed = 0

    @field_validator("opponents", mode="before")
    @classmethod
    def _names_are_specs(cls, value: Any) -> Any:
        return opponent_specs(value)


def _vs_config(game: str, where: str, s: VsOpponentsSection) -> tuple[dict[str, Any], int]:
    """The game config (checked) and its player count; a ConfigError naming what does not fit."""
    config = section(f"{where}.game", game_spec(game).config, s.game)
    players = int(config.num_players)
    if s.learner_seat >= players:
        raise ConfigError(f"[{where}] 'learner_seat' {s.learner_seat} is not a seat of {players} players (0.."
                          f"{players - 1})")  # fmt: skip
    if len(s.opponents) not in (1, players - 1):
        raise ConfigError(f"[{where}] 'opponents' has {len(s.opponents)} agents; give one for all {players - 1} "
                          f"other seats or one per seat")  # fmt: skip
    return {**s.game, "num_players": players}, players


def _check_vs_opponents(game: str, s: VsOpponentsSection, where: str = "vs_opponents") -> None:
    config, _ = _vs_config(game, where, s)
    for k, spec in enumerate(s.opponents):
        try:
            check_agent(spec.kind, spec.kwargs, game)
            opponent = table_player(game, spec.kind, config, **spec.kwargs)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"[{where}.opponents.{k}] {exc}") from None
        misfit = observation_misfit(opponent, game, config)
        if misfit is not None:
            raise ConfigError(f"[{where}.opponents.{k}] {misfit}: it cannot play these tables")


def vs_opponents(game: str, agents: dict[str, Agent], opponents: list[Agent], config: dict[str, Any], games: int,
                 learner_seat: int = 0, seed: int = 0) -> list[dict[str, Any]]:  # fmt: skip
    """Each agent alone in ``learner_seat`` against ``opponents`` (one per other seat, or one for all) for ``games``
    games on the same seeds: its win rate (the top final reward of a game that was not cut short; a shared top
    counts as a win, as in the task env, and ``tie_rate`` says how many wins were shared), with a 95% Wilson
    interval."""
    players = int(config["num_players"])
    others = [opponents[0]] * (players - 1) if len(opponents) == 1 else list(opponents)
    seats = [learner_seat] + [s for s in range(players) if s != learner_seat]  # pool index k sits in seats[k]
    seat_agents = np.empty((games, players), dtype=np.int64)
    seat_agents[:, seats] = np.arange(players)
    rows = []
    for name, agent in agents.items():
        result = play_games(game, seat_agents, [agent, *others], config, seed)
        _, best = win_shares(result["final_rewards"])  # the top final reward wins, whatever the reward config
        won = best[:, learner_seat] & ~result["truncated"]
        tied = won & (best.sum(axis=1) > 1)
        rate, low, high = wilson_ci(int(won.sum()), games)
        rows.append({"agent": name, "win_rate": rate, "ci_low": low, "ci_high": high, "tie_rate": float(tied.mean()),
                     "games": games, "truncated": int(result["truncated"].sum()),
                     "games_per_second": games / result["seconds"]})  # fmt: skip
    return sorted(rows, key=lambda r: -r["win_rate"])


def run_vs_opponents(game: str, name: str, s: VsOpponentsSection, players: Players) -> list[Result]:
    config, n = _vs_config(game, f"vs_opponents.{name}", s)
    opponents = [table_player(game, spec.kind, config, **spec.kwargs) for spec in s.opponents]
    seated = players(config)
    if not seated:
        raise ConfigError(f"[vs_opponents.{name}] no agent of the recipe can play these {n}-player tables")
    against = ", ".join(spec.kind for spec in s.opponents)
    rows = vs_opponents(game, seated, opponents, config, s.games, s.learner_seat, s.seed)
    return [(f"vs_opponents {name}: win rate in seat {s.learner_seat} of {n} against {against}", "win_rate", rows)]


GENERIC = {
    "tables": Benchmark(TablesSection, run_tables, _check_tables),
    "round_robin": Benchmark(RoundRobinSection, run_round_robin,
                             lambda game, s: _check_config(game, "round_robin.config", {**s.config, "num_players": 2})),
    "tournament": Benchmark(TournamentSection, run_tournament, _check_tournament),
    "vs_opponents": Benchmark(VsOpponentsSection, run_vs_opponents, _check_vs_opponents, named=True),
}  # fmt: skip


_GAME_BENCHMARKS: dict[str, dict[str, Benchmark]] = {}
_SEAT_STATS: dict[str, Callable[[np.ndarray, int], dict[str, np.ndarray]]] = {}


def register_benchmarks(game: str, benchmarks: dict[str, Benchmark] | None = None,
                        seat_stats: Callable[[np.ndarray, int], dict[str, np.ndarray]] | None = None,
                        ) -> None:  # fmt: skip
    """``game``'s own recipe sections, and ``seat_stats(final_states, P) -> {column: (G, P)}``, what its table rows
    add per seat; called by ``agents/<game>/benchmarks.py`` (or a game's own module, outside the tree)."""
    clash = set(benchmarks or {}) & set(GENERIC)
    if clash:
        raise ValueError(f"game {game!r}: {sorted(clash)} are generic benchmarks; name the game's own otherwise")
    _GAME_BENCHMARKS[game] = dict(benchmarks or {})
    if seat_stats is not None:
        _SEAT_STATS[game] = seat_stats


def _load(game: str) -> None:
    if game not in _GAME_BENCHMARKS:
        game_module(game, "benchmarks")  # the game's own benchmarks register themselves


def seat_stats_of(game: str) -> Callable[[np.ndarray, int], dict[str, np.ndarray]] | None:
    _load(game)
    return _SEAT_STATS.get(game)


def benchmarks_of(game: str) -> dict[str, Benchmark]:
    """The sections a recipe for ``game`` may have: the generic benchmarks and the game's own."""
    _load(game)
    return {**GENERIC, **_GAME_BENCHMARKS.get(game, {})}
