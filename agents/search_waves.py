"""The search agent's slow path: leaves valued outside the compiled loops, a wave at a time.

Why waves: a rollout policy that is an ``Agent`` (a network, a heuristic) or a value function runs in Python and is
fastest on a batch, so every tree of the batch walks to one leaf (compiled), the leaves are valued together (one
batch per rollout step, or one call of the value function), and the values are backed up (compiled); repeated
``simulations`` times. The trees live between the calls in ``new_trees``' arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dicearena.agents.search_loops import new_trees
from dicearena.envs.common.game_state import Game
from dicearena.envs.common.seating import choose

if TYPE_CHECKING:
    from dicearena.agents.search import SearchAgent

__all__ = ["agent_rollouts", "search_in_waves"]

TREE_MEMORY = 512 * 2**20  # bytes of trees held at once: a larger batch is searched in groups


def search_in_waves(agent: SearchAgent, game: Game, roots: np.ndarray, seats: np.ndarray,
                    rngs: np.ndarray) -> np.ndarray:  # fmt: skip
    """The action of ``seats[b]`` at ``roots[b]`` for every b, by ``agent.budget`` with ``agent.evaluator``."""
    from dicearena.agents.search import _sizes, search_kernels_for

    kernels = search_kernels_for(game.spec.engine)
    budget, sizes, knobs = agent.budget, _sizes(game), agent.budget.knobs(game)
    players, state_size = game.num_players(), game.sizes.state
    nodes = budget.simulations + 2
    per_tree = nodes * (4 * state_size + 8 * 3 * players + 4 * players + 40)
    group = max(1, min(len(roots), TREE_MEMORY // per_tree))
    out = np.full(len(roots), -1, dtype=np.int64)
    can_enumerate = game.max_chance_outcomes() > 0
    for lo in range(0, len(roots), group):
        part = slice(lo, min(lo + group, len(roots)))
        n = part.stop - part.start
        trees = new_trees(n, nodes, state_size, players)
        part_rngs = rngs[part].copy()
        kernels.wave_start(trees, roots[part], part_rngs, knobs, sizes, can_enumerate)
        leaves = np.zeros((n, state_size), dtype=np.int32)
        terminal = np.zeros(n, dtype=np.bool_)
        values = np.zeros((n, players), dtype=np.float64)
        for _ in range(budget.simulations):
            kernels.wave_select(trees, part_rngs, leaves, terminal, values, budget.depth or 2**30, knobs, sizes,
                                can_enumerate)  # fmt: skip
            open_leaves = np.flatnonzero(~terminal)
            if open_leaves.size:
                values[open_leaves] = _evaluate(agent, game, kernels, leaves[open_leaves])
            kernels.wave_backup(trees, values, knobs)
        kernels.wave_actions(trees, np.ascontiguousarray(seats[part]), out[part], game.num_distinct_actions())
    return out


def _evaluate(agent: SearchAgent, game: Game, kernels: Any, leaves: np.ndarray) -> np.ndarray:
    if callable(agent.evaluator) and not hasattr(agent.evaluator, "act_batch"):
        values = np.asarray(agent.evaluator(leaves.copy()), dtype=np.float64)
        if values.shape != (len(leaves), game.num_players()):
            raise ValueError(f"search agent: the value function must return one value per seat, shape "
                             f"({len(leaves)}, {game.num_players()}) for {len(leaves)} leaf states; got "
                             f"{values.shape}")  # fmt: skip
        return values
    return agent_rollouts(game, kernels, agent.evaluator, leaves, agent.rng)


def agent_rollouts(game: Game, kernels: Any, policy: Any, leaves: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Every leaf played to its end by ``policy`` at every seat, chance drawn from ``rng``; final rewards (k, P)."""
    states = leaves.copy()
    k, sizes = len(states), game.sizes
    width = sizes.num_players if game.simultaneous else 1
    done = np.zeros(k, dtype=np.int8)
    seats = np.zeros(k, dtype=np.int64)
    obs = np.zeros((k, width, sizes.observation), dtype=np.float32)
    masks = np.zeros((k, width, sizes.actions), dtype=np.int8)
    streams = rng.integers(0, np.iinfo(np.int64).max, size=k, dtype=np.int64).astype(np.uint64)
    from dicearena.agents.search import _sizes

    shape = _sizes(game)
    while True:
        kernels.rollout_advance(states, done, streams, obs, masks, seats, shape)
        live = np.flatnonzero(done == 0)
        if not live.size:
            break
        actions = np.full((k, width), -1, dtype=np.int64)
        if not game.simultaneous:
            actions[live, 0] = choose(policy, obs[live, 0], masks[live, 0], states[live], seats[live])
        else:
            for seat in range(width):
                rows = live[masks[live, seat].any(axis=1)]
                if rows.size:
                    actions[rows, seat] = choose(policy, obs[rows, seat], masks[rows, seat], states[rows], seat)
        kernels.rollout_apply(states, done, seats, actions)
    values = np.zeros((k, sizes.num_players), dtype=np.float64)
    kernels.final_rewards(states, values)
    return values
