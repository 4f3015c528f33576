"""Playing a fixed list of seatings of any contract game through its batched engine: the one evaluation loop.

Why one loop: every benchmark (mixed tables, round robins, tournaments) is "play these G seatings, read each
game's final rewards". Slots (``dicearena.agents.evaluation.slots``) keep the counted games exactly the scheduled ones,
whichever end first, and every agent acts once per step on all the games where its seat is to move (batched inference).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from dicearena.agents import observation_misfit
from dicearena.agents.base import Agent
from dicearena.agents.evaluation.slots import GameSlots
from dicearena.agents.evaluation.stats import wilson_ci, win_shares
from dicearena.envs.common.config import validate_config
from dicearena.envs.common.contract import game_spec
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.seating import choose

__all__ = ["compile_seconds", "head_to_head", "play_games"]


@contextmanager
def compile_seconds() -> Iterator[list[float]]:
    """``[seconds]`` numba spent compiling, or loading compiled code from its cache, inside the block (filled in
    when the block ends). Why: a games-per-second figure must not count a one-off compilation, which can take
    longer than the games themselves; numba times it exactly (its ``numba:compiler_lock`` events, nested calls
    counted once), so nothing is played twice to warm up."""
    from numba.core import event

    spent = [0.0]
    listener = event.TimingListener()
    try:
        with event.install_listener("numba:compiler_lock", listener):
            yield spent
    finally:
        spent[0] = listener.duration if listener.done else 0.0


def play_games(
    game: Any, seat_agents: np.ndarray, pool: Sequence[Agent], config: Any = None, seed: int = 0,
    batch_size: int = 1024, threads: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Play ``len(seat_agents)`` games of ``game``; ``seat_agents[g, s]`` = index into ``pool`` of game g's seat s.

    Returns ``final_rewards`` (G, P: the engine's final reward per seat), ``truncated`` (G,), ``final_states``
    (G, S), ``seconds`` (playing, less any compiling: what a games-per-second figure divides by) and
    ``compile_seconds`` (numba compiling the engine and the agents on first use). ``threads``: the engine's
    (default ``None``, every core; the games are the same for any count).
    """

    seat_agents = np.asarray(seat_agents, dtype=np.int64)
    if seat_agents.ndim != 2 or seat_agents.size == 0:
        raise ValueError(f"seat_agents must be a non-empty (games, players) array, got shape {seat_agents.shape}")
    if seat_agents.min() < 0 or seat_agents.max() >= len(pool):
        raise ValueError(f"seat_agents holds indices into a pool of {len(pool)} agents, got {seat_agents.max()}")
    num_games, num_players = seat_agents.shape
    batch = min(batch_size, num_games)
    engine = BatchedGame(game, batch, config, seed=seed, copy=False, threads=threads,
                         **_players(game, config, num_players))  # fmt: skip
    table = engine.config.model_dump()
    for i in np.unique(seat_agents):  # an agent that cannot read this table's observations, named before any game
        misfit = observation_misfit(pool[i], engine.spec.id, table)
        if misfit is not None:
            raise ValueError(f"play_games: pool[{i}] cannot sit at this table: {misfit}")
    for i, agent in enumerate(pool):
        agent.reset(seed=seed + 1000 * (i + 1))
    obs, masks, info = engine.reset(seed=seed)
    slots = GameSlots(num_games, batch)
    final_rewards = np.zeros((num_games, num_players), dtype=np.float64)
    truncated = np.zeros(num_games, dtype=bool)
    final_states = np.zeros((num_games, engine.sizes.state), dtype=np.int32)
    with compile_seconds() as compiling:
        started = time.perf_counter()
        _play(engine, batch, pool, seat_agents, slots, (obs, masks, info), final_rewards, final_states, truncated)
        elapsed = time.perf_counter() - started
    return {"final_rewards": final_rewards, "truncated": truncated, "final_states": final_states,
            "seconds": max(elapsed - compiling[0], 1e-9), "compile_seconds": compiling[0]}  # fmt: skip


def _play(engine: BatchedGame, batch: int, pool: Sequence[Agent], seat_agents: np.ndarray, slots: GameSlots,
          first: tuple[np.ndarray, np.ndarray, dict[str, Any]], final_rewards: np.ndarray, final_states: np.ndarray,
          truncated: np.ndarray) -> None:  # fmt: skip
    """The loop of :func:`play_games` from the reset's ``first`` (observations, masks, info): every scheduled game
    to its end, results written into the arrays given."""
    obs, masks, info = first
    num_players = seat_agents.shape[1]
    simultaneous = engine.simultaneous
    while not slots.finished:
        counted = slots.counted()  # spare slots wait instead of playing games nobody counts
        rows, seats = np.nonzero(info["acting"] & counted[:, None])  # every decision due now: (game, seat)
        owners = slots.seatings(seat_agents)[rows, seats]
        actions = np.zeros((batch, num_players) if simultaneous else batch, dtype=np.int64)
        for i, agent in enumerate(pool):
            mine = owners == i
            if mine.any():
                r, s = rows[mine], seats[mine]
                view = (obs[r, s], masks[r, s]) if simultaneous else (obs[r], masks[r])
                chosen = choose(agent, *view, engine.states[r], s)
                if simultaneous:
                    actions[r, s] = chosen
                else:
                    actions[r] = chosen
        obs, masks, _, _, step_truncated, info = engine.step(actions, counted)
        for k, slot in enumerate(info["ended"].tolist()):
            g = slots.end(slot)
            if g >= 0:
                final_rewards[g] = info["final_rewards"][k]
                final_states[g] = info["final_state"][k]
                truncated[g] = step_truncated[slot]


def _players(game: Any, config: Any, num_players: int) -> dict[str, int]:
    """``num_players`` as a config override unless the config already says so."""
    given = config.get("num_players") if isinstance(config, dict) else getattr(config, "num_players", None)
    if given is not None and given != num_players:
        raise ValueError(f"seat_agents has {num_players} seats but the config says num_players={given}")
    return {} if given is not None else {"num_players": num_players}


def head_to_head(
    game: str, agent: Agent, reference: Agent, config: dict[str, Any], games: int, seed: int
) -> dict[str, Any]:
    """``agent`` against ``reference`` at every other seat, the agent's seat rotated game by game (so in 2-player
    games the seatings alternate): its win share (a k-way tie for the top gives 1/k) with a 95% Wilson interval."""
    players = int(validate_config(game_spec(game).config, config).num_players)
    learner = np.arange(games) % players
    seat_agents = np.ones((games, players), dtype=np.int64)
    seat_agents[np.arange(games), learner] = 0
    result = play_games(game, seat_agents, [agent, reference], config, seed)
    shares, best = win_shares(result["final_rewards"])
    share, tied = shares[np.arange(games), learner], best.sum(axis=1) > 1
    rate, low, high = wilson_ci(float(share.sum()), games)
    return {"win_rate": rate, "ci95": [low, high], "games": games, "tie_rate": float(tied.mean()),
            "games_per_second": games / result["seconds"]}  # fmt: skip
