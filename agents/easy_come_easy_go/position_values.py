"""Easy Come, Easy Go position values learned by self-play, played through the exact turn solver (``eceg_td``).

The agent that plays a table, and reading one, are the policy layer's (``position_agent``: ``PositionValueAgent``,
``load_table``); this module learns the table and writes it (``save_table``) with its card.

Training is self-play with expected backups (trial-based real-time dynamic programming, Barto, Bradtke & Singh
1995): each round plays a batch of games with both seats on the current table, then every turn-start position
the games reached, and every position up to ``depth`` turns from one (what its backup reads), gets its one-turn
Bellman backup, ``V(s) = W(s) + value of the turn solved for gains(s)``, where
``W(s) = 1 - V(the opponent's view of s)`` is handing the turn over empty. The dice of a turn are enumerated
exactly by the solver, so a backup has no sampling noise, and self-play decides which positions are worth
backing up. :func:`solve_positions` sweeps every position instead (value iteration), the yardstick the tests
and ``bench/`` compare the learned table with.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from dicearena.agents.table_files import save_arrays
from dicearena.agents.training.value_tables import command_line, score_and_card, trainer_parser
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.easy_come_easy_go import engine as eng

from .exact import _tables, solve_turns
from .position_agent import MINE, NUM_POSITIONS, PositionValueAgent, check_table, gains, position_index, position_moves

__all__ = ["backup", "save_table", "solve_positions", "train_position_values"]

AGAINST = ("eceg_heuristic", "eceg_exact_turn", "eceg_myopic", "random")  # the baselines a trained table is scored on

def backup(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """(B,) the one-turn Bellman backup of positions ``index`` under ``table``: 1 where the mover already holds
    three prizes (the win check), else the empty turn's value plus the optimal turn's expected gain."""
    index = np.asarray(index, dtype=np.int64)
    out = np.ones(index.size)
    playing = np.flatnonzero((position_moves()[0][index] == MINE).sum(axis=1) < eng.PRIZES_TO_WIN)
    if playing.size:
        hand_over, gain = gains(table, index[playing])
        out[playing] = hand_over + solve_turns(gain)[:, _tables(0).empty]
    return out


def initial_table() -> np.ndarray:
    """Every position 0.5, except the won ones (the mover holds three prizes): 1."""
    table = np.full(NUM_POSITIONS, 0.5)
    table[(position_moves()[0] == MINE).sum(axis=1) >= eng.PRIZES_TO_WIN] = 1.0
    return table


def solve_positions(tolerance: float = 1e-10, max_sweeps: int = 500) -> np.ndarray:
    """The exact table (value iteration over every position until no value moves by ``tolerance``)."""
    table = initial_table()
    for _ in range(max_sweeps):
        new = backup(table, np.arange(NUM_POSITIONS))
        change = float(np.abs(new - table).max())
        table = new
        if change < tolerance:
            return table
    raise RuntimeError(f"value iteration did not settle within {max_sweeps} sweeps (last change {change:.3g})")


def save_table(path: str | Path, table: np.ndarray, meta: dict[str, Any]) -> None:
    """``table`` (as float32) and ``meta`` in an .npz of plain arrays (``dicearena.agents.table_files``), what
    ``position_agent.load_table`` reads."""
    save_arrays(path, {"table": check_table(table).astype(np.float32)}, meta)


def _turn_starts(states: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Position indices of the rows that are a turn's first decision."""
    first = (states[:, eng.ROLLS] == 1) & (states[:, eng.FROZEN] == 0)
    return position_index(states[first, eng.OWNER : eng.OWNER + eng.NUM_PRIZES], seats[first])


def _with_successors(index: np.ndarray, depth: int) -> np.ndarray:
    """``index`` and every position up to ``depth`` turns away (a prize collected or not, the other seat to move):
    a backup reads the next ones, so backing them up too keeps the values it reads learned rather than initial."""
    _, swapped, take = position_moves()
    for _ in range(depth):
        after = np.concatenate([index[:, None], take[index]], axis=1)
        index = np.unique(np.concatenate([index, swapped[after].ravel()]))
    return index


def train_position_values(
    rounds: int = 60, games: int = 1024, seed: int = 0, minutes: float | None = None, depth: int = 2,
    progress: bool = False,
) -> tuple[np.ndarray, list[dict[str, float]]]:  # fmt: skip
    """Self-play training (module docstring): ``rounds`` rounds of ``games`` parallel games on the current table
    (16 steps of each, ended games restarting), then the backups of the turn-start positions they reached and of
    those up to ``depth`` turns from them. Stops early after ``minutes``. Returns the table and one record per
    round."""
    from tqdm import tqdm


    if rounds < 1 or games < 1 or depth < 0:
        raise ValueError(f"need rounds >= 1, games >= 1 and depth >= 0, got {rounds}, {games}, {depth}")
    table = initial_table()
    agent = PositionValueAgent(table)
    engine = BatchedGame("easy_come_easy_go", games, seed=seed, copy=False, num_players=2)
    _, masks, info = engine.reset(seed=seed)
    history, started, visited = [], time.perf_counter(), np.zeros(NUM_POSITIONS, dtype=bool)
    for r in tqdm(range(rounds), desc="eceg_td self-play", disable=not progress):
        agent.table, agent._cache = table, {}
        reached = []
        for _ in range(16):  # about four turns of every game
            seats = info["to_act"]
            states = engine.states
            reached.append(_turn_starts(states, seats))
            actions = agent.act_states(states, masks, seats)
            _, masks, _, _, _, info = engine.step(actions)
        reached = _with_successors(np.unique(np.concatenate(reached)), depth)
        new = backup(table, reached)
        change = float(np.abs(new - table[reached]).max()) if reached.size else 0.0
        table = table.copy()
        table[reached] = new
        visited[reached] = True
        history.append({"round": r + 1, "positions": int(reached.size), "visited": int(visited.sum()),
                        "max_change": change, "seconds": time.perf_counter() - started})  # fmt: skip
        if minutes is not None and time.perf_counter() - started > 60 * minutes:
            break
    return table, history


def main(argv: list[str] | None = None) -> int:
    """``python -m dicearena.agents.easy_come_easy_go.position_values``: train a table by self-play and score it."""
    parser = trainer_parser(__doc__.splitlines()[0], "eceg_td", 20_000)
    parser.add_argument("--rounds", type=int, default=60, help="self-play rounds (default 60)")
    parser.add_argument("--games", type=int, default=1024, help="games played in parallel per round (default 1024)")
    parser.add_argument("--depth", type=int, default=2, help="also back up positions this many turns on (default 2)")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this many minutes")
    args = parser.parse_args(argv)
    try:
        table, history = train_position_values(args.rounds, args.games, args.seed, args.minutes, args.depth,
                                               progress=True)  # fmt: skip
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    last = history[-1]
    print(f"{last['round']} rounds, {last['visited']} positions backed up, {last['seconds']:.1f} s, "
          f"last change {last['max_change']:.2e}")  # fmt: skip
    exact = solve_positions()
    print(f"the first mover's chance: learned {table[0]:.4f}, exact {exact[0]:.4f} (value iteration)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    command = command_line("dicearena.agents.easy_come_easy_go.position_values", argv)
    recipe = {"command": command, "rounds": last["round"], "games": args.games, "depth": args.depth, "seed": args.seed}
    save_table(args.out, table, {**recipe, "four_of_a_kind_is_two_pairs": False})
    print(f"wrote {args.out}")
    card = {"loader": "dicearena.agents.easy_come_easy_go.position_agent:PositionValueAgent", "recipe": recipe,
            "measured": {"rounds": last["round"], "minutes": round(last["seconds"] / 60, 2),
                         "positions": last["visited"]}}  # fmt: skip
    score_and_card("easy_come_easy_go", PositionValueAgent(args.out), AGAINST, args.score_games, args.out, card,
                   command, extra={"the exact table": PositionValueAgent(exact)})  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
