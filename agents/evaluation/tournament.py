"""Rated tournaments for any contract game: rotated seatings, openskill ratings, Bradley–Terry Elo, pairwise win rates.

Why: a round robin's win rates compare agents only pair by pair and only at 2 players; a rating puts every entrant
(heuristics, trained models, a self-play run's snapshots) on one scale, at any table size, with its uncertainty.

- Seatings: every set of ``num_players`` distinct entrants, in each of its ``num_players`` cyclic rotations, so
  every entrant sits in every seat equally often (at 2 players: every ordered pair, both seatings).
- Ratings: openskill's Plackett–Luce model (ranks from the final rewards, higher is better, ties share a rank),
  with ``tau = 0`` because the entrants are fixed policies whose skill does not drift: sigma then shrinks with the
  games as a posterior's does. The games are rated in a seeded random order, so no seating's block comes last.
- Bradley–Terry: the maximum-likelihood strengths of every pairwise result (at bigger tables, each pair of seats of
  a game; a tie is half a win each), by Hunter's MM iterations, on the Elo scale (mean 0) with standard errors from
  the Fisher information. At more than 2 players the pairs of one game are not independent, so those errors (and the
  pairwise intervals) are somewhat too narrow.
- Engine: one ``dicearena.agents.evaluation.play.play_games`` call per chunk of the shuffled schedule, so each agent
acts once per step
  on all its games across every seating (batched), with a progress bar over the chunks. The same seed gives the same
  games, hence the same ratings.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.agents.evaluation.play import compile_seconds, play_games
from dicearena.agents.evaluation.stats import Z95, wilson_ci

__all__ = ["Tournament", "bradley_terry", "openskill_ratings", "pairwise_wins", "ranks_of", "seatings",
           "tournament"]  # fmt: skip

ELO = 400 / math.log(10)  # Elo points per unit of log-strength
CHUNK = 8192  # games per play_games call: the progress bar's step, big enough that agents act on large batches


def seatings(num_agents: int, num_players: int, games_per_seating: int) -> np.ndarray:
    """(G, P) indices into the entrants: each ``num_players``-subset in all its cyclic rotations, each
    ``games_per_seating`` times (so every entrant takes every seat equally often)."""
    if num_agents < num_players:
        raise ValueError(f"{num_players}-player tables need at least {num_players} entrants, got {num_agents}")
    tables = [np.roll(subset, -k) for subset in itertools.combinations(range(num_agents), num_players)
              for k in range(num_players)]  # fmt: skip
    return np.repeat(np.array(tables, dtype=np.int64), games_per_seating, axis=0)


def ranks_of(final_rewards: np.ndarray) -> np.ndarray:
    """(G, P) competition ranks, 0 = best: how many seats of the game got a strictly higher final reward."""
    rewards = np.asarray(final_rewards, dtype=np.float64)
    return (rewards[:, None, :] > rewards[:, :, None]).sum(axis=2)


def pairwise_wins(seat_agents: np.ndarray, ranks: np.ndarray, num_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """(wins, meetings), both (N, N): ``wins[i, j]`` = the times i finished ahead of j at one table (a tie counts
    half), ``meetings[i, j]`` = the times they sat at one table."""
    wins = np.zeros((num_agents, num_agents))
    meetings = np.zeros((num_agents, num_agents))
    for s, t in itertools.permutations(range(seat_agents.shape[1]), 2):
        a, b = seat_agents[:, s], seat_agents[:, t]
        score = (ranks[:, s] < ranks[:, t]) + 0.5 * (ranks[:, s] == ranks[:, t])
        np.add.at(wins, (a, b), score)
        np.add.at(meetings, (a, b), 1.0)
    return wins, meetings


def bradley_terry(
    wins: np.ndarray, meetings: np.ndarray, prior: float = 0.5, tol: float = 1e-10, max_iter: int = 100_000
) -> tuple[np.ndarray, np.ndarray]:
    """Bradley–Terry Elo ratings (mean 0) and their standard errors from pairwise ``wins`` / ``meetings``.

    ``prior`` virtual wins each way between every pair that met keep the estimate finite when an agent won (or
    lost) every game; at thousands of games it moves a rating by a fraction of a point.
    """
    met = meetings > 0
    w = wins + prior * met
    n = meetings + 2 * prior * met  # games between i and j (symmetric)
    total = w.sum(axis=1)
    theta = np.zeros(len(w))
    for _ in range(max_iter):
        p = np.exp(theta)
        new = np.log(total / (n / (p[:, None] + p[None, :])).sum(axis=1))
        new -= new.mean()
        if np.abs(new - theta).max() < tol:
            theta = new
            break
        theta = new
    p = np.exp(theta)
    q = p[:, None] / (p[:, None] + p[None, :])
    fisher = -n * q * q.T
    np.fill_diagonal(fisher, 0.0)
    np.fill_diagonal(fisher, -fisher.sum(axis=1))
    cov = np.linalg.pinv(fisher)  # the sum-zero constraint's covariance
    return ELO * theta, ELO * np.sqrt(np.maximum(np.diag(cov), 0.0))


def openskill_ratings(seat_agents: np.ndarray, ranks: np.ndarray, num_agents: int, seed: int = 0) -> np.ndarray:
    """(N, 2) openskill Plackett–Luce (mu, sigma) of each entrant after rating every game once, in a seeded
    random order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    ratings = [model.rating() for _ in range(num_agents)]
    order = np.random.default_rng(seed).permutation(len(seat_agents))
    for seats, rank in zip(seat_agents[order].tolist(), ranks[order].tolist(), strict=True):
        rated = model.rate([[ratings[a]] for a in seats], ranks=rank)
        for a, (new,) in zip(seats, rated, strict=True):
            ratings[a] = new
    return np.array([(r.mu, r.sigma) for r in ratings])


@dataclass(frozen=True)
class Tournament:
    """A tournament's tables: ``ratings`` (one row per entrant, best first), ``pairwise`` (one row per ordered pair:
    the row agent's win rate against the column agent, 95% Wilson interval), the games and the seconds spent
    playing and rating."""

    ratings: list[dict[str, Any]]
    pairwise: list[dict[str, Any]]
    games: int
    play_seconds: float
    rating_seconds: float


def tournament(
    game: str, agents: dict[str, Agent], num_players: int = 2, games_per_seating: int = 2000,
    config: dict[str, Any] | None = None, seed: int = 0, progress: bool = True, batch_size: int = 4096,
    torch_threads: int | None = 1,
) -> Tournament:  # fmt: skip
    """Play every rotated seating of ``agents`` ``games_per_seating`` times at ``num_players``-player tables of
    ``game`` (its ``config`` keys other than num_players) and rate the entrants.

    ``torch_threads``: torch's thread count while playing (None: leave it); small batches of a small network gain
    nothing from more, and on a busy machine extra threads make a model's inference several times slower."""
    names, pool = list(agents), list(agents.values())
    schedule = seatings(len(pool), num_players, games_per_seating)
    schedule = schedule[np.random.default_rng(seed).permutation(len(schedule))]  # every chunk mixes all seatings
    config = {**(config or {}), "num_players": num_players}
    started = time.perf_counter()
    with _torch_threads(torch_threads), compile_seconds() as compiling:
        rewards = _play(game, schedule, pool, config, seed, batch_size, progress)
    played = time.perf_counter()
    started += compiling[0]  # the play time leaves out numba compiling on first use (games/s is about playing)
    ranks = ranks_of(rewards)
    wins, meetings = pairwise_wins(schedule, ranks, len(names))
    rows = _rating_rows(names, schedule, ranks, bradley_terry(wins, meetings), seed)
    pairs = _pairwise_rows(names, wins, meetings, [r["agent"] for r in rows])
    return Tournament(rows, pairs, len(schedule), played - started, time.perf_counter() - played)


def _play(
    game: str, schedule: np.ndarray, pool: list[Agent], config: dict[str, Any], seed: int, batch_size: int,
    progress: bool,
) -> np.ndarray:  # fmt: skip
    """The (G, P) final rewards of the scheduled games, played ``CHUNK`` games per ``play_games`` call."""
    from tqdm import tqdm


    rewards = np.zeros(schedule.shape)
    desc = f"{config['num_players']}-player tournament"
    with tqdm(total=len(schedule), desc=desc, unit="game", disable=not progress, leave=False) as bar:
        for k, start in enumerate(range(0, len(schedule), CHUNK)):
            chunk = schedule[start : start + CHUNK]
            result = play_games(game, chunk, pool, config, seed + k, batch_size)
            rewards[start : start + len(chunk)] = result["final_rewards"]
            bar.update(len(chunk))
    return rewards


@contextlib.contextmanager
def _torch_threads(n: int | None) -> Iterator[None]:
    """torch's intra-op threads set to ``n`` inside, restored after (nothing to do if no model imported torch)."""
    torch = sys.modules.get("torch")
    if torch is None or n is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _rating_rows(
    names: list[str], schedule: np.ndarray, ranks: np.ndarray, bt: tuple[np.ndarray, np.ndarray], seed: int
) -> list[dict[str, Any]]:
    """Per entrant: openskill mu / sigma / ordinal (mu - 3 sigma, what it is ranked by), Bradley–Terry Elo (``bt``)
    with its 95% half-width, and its first-place share (a k-way tie for first gives each 1/k), Wilson interval."""
    skill = openskill_ratings(schedule, ranks, len(names), seed)
    elo, elo_se = bt
    first = ranks == 0
    share = first / first.sum(axis=1, keepdims=True)
    rows = []
    for i, name in enumerate(names):
        seats = schedule == i
        rate, low, high = wilson_ci(float(share[seats].sum()), int(seats.sum()))
        mu, sigma = (float(x) for x in skill[i])
        rows.append({"agent": name, "mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma, "bt_elo": float(elo[i]),
                     "bt_elo_ci95": float(Z95 * elo_se[i]), "win_share": rate, "ci_low": low, "ci_high": high,
                     "games": int(seats.sum())})  # fmt: skip
    rows.sort(key=lambda r: -r["ordinal"])
    return [{"rank": k + 1, **r} for k, r in enumerate(rows)]


def _pairwise_rows(names: list[str], wins: np.ndarray, meetings: np.ndarray, order: list[str]) -> list[dict[str, Any]]:
    """Every ordered pair that met, the agents in ``order`` (the ratings'): the agent's win rate against the
    opponent (ties half) with a Wilson interval."""
    rows = []
    for i, j in itertools.permutations([names.index(n) for n in order], 2):
        n = int(meetings[i, j])
        if n:
            rate, low, high = wilson_ci(float(wins[i, j]), n)
            rows.append({"agent": names[i], "opponent": names[j], "games": n, "win_rate": rate, "ci_low": low,
                         "ci_high": high})  # fmt: skip
    return rows
