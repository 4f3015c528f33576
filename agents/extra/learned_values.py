"""Extra! planning values learned by self-play (``extra_td``): the planner's tables, fitted to final scores.

Why: the planner and expectimax (``heuristics``) score an afterstate with a planning value ``V`` that is a sum of
table entries, one per row (by its checks), one per EXTRA column (by its checks) and one per EXTRA number, and the
tables are drawn from three hand-set weights. The same tables can be *learned*: ``V(afterstate)`` should be the
final score a seat goes on to make from there, and a sum of table entries is a linear model over one-hot
features, so least squares fits it to the final scores of games played. The agent that plays learned tables, and
reading them, are the policy layer's (``learned_planner``: ``LearnedPlannerAgent``, ``load_tables``); this module
learns them and writes them (``save_tables``) with their card.

Training is approximate policy iteration in 2-player self-play: each generation plays a batch of games with
every seat on the current tables (a share ``epsilon`` of moves random, so the fit sees moves the policy would
not make), fits new tables to each seat's final score from each of its non-final afterstates (ridge least
squares), and keeps the generation whose tables score best on a fixed set of evaluation games (policy iteration
with a fitted value chatters; the evaluation picks the best of it). Every seat's sheet is its own, so both seats
of a game give samples.
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
from dicearena.envs.extra import engine as E

from .heuristics import MAX_CHECKS, PlannerAgent
from .learned_planner import SHAPES, LearnedPlannerAgent, check_tables, default_sheet

__all__ = ["features", "fit_tables", "save_tables", "train_planning_values"]

AGAINST = ("extra_expectimax", "extra_planner", "extra_greedy", "random")  # the baselines a table is scored on
_ROW0, _COL0 = 0, E.NUM_ROWS * MAX_CHECKS
_NUM0 = _COL0 + E.NUM_COLUMNS * MAX_CHECKS
NUM_FEATURES = _NUM0 + 7  # EXTRA numbers 0 (none yet) .. 6


def features(seat_blocks: np.ndarray) -> np.ndarray:
    """(N, 17) the table entries (feature ids) ``V`` sums for N seat blocks (N, ``engine.PLAYER_SIZE``)."""
    blocks = np.atleast_2d(seat_blocks).astype(np.int64)
    rows = _ROW0 + np.arange(E.NUM_ROWS) * MAX_CHECKS + blocks[:, E.P_ROWS : E.P_ROWS + E.NUM_ROWS]
    cols = _COL0 + np.arange(E.NUM_COLUMNS) * MAX_CHECKS + blocks[:, E.P_CHECKS : E.P_CHECKS + E.NUM_COLUMNS]
    return np.concatenate([rows, cols, _NUM0 + blocks[:, E.P_NUMBER : E.P_NUMBER + E.NUM_COLUMNS]], axis=1)


def fit_tables(ids: np.ndarray, targets: np.ndarray, ridge: float = 10.0) -> dict[str, np.ndarray]:
    """Ridge least squares of ``targets`` (N,) on the one-hot features ``ids`` (N, 17), as the three tables."""
    gram, moment = np.zeros((NUM_FEATURES, NUM_FEATURES)), np.zeros(NUM_FEATURES)
    for start in range(0, len(ids), 20_000):  # the Gram matrix by counting feature pairs, in chunks
        x, y = ids[start : start + 20_000], targets[start : start + 20_000]
        moment += np.bincount(x.ravel(), weights=np.repeat(y, x.shape[1]), minlength=NUM_FEATURES)
        pairs = (x[:, :, None] * NUM_FEATURES + x[:, None, :]).ravel()
        gram += np.bincount(pairs, minlength=NUM_FEATURES**2).reshape(NUM_FEATURES, NUM_FEATURES)
    weights = np.linalg.solve(gram + ridge * np.eye(NUM_FEATURES), moment)
    return {"rows": weights[:_COL0].reshape(SHAPES["rows"]), "columns": weights[_COL0:_NUM0].reshape(SHAPES["columns"]),
            "numbers": weights[_NUM0:]}  # fmt: skip


def save_tables(path: str | Path, tables: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """``tables`` (as float32) and ``meta`` (with the ``sheet`` they fit) in an .npz of plain arrays
    (``dicearena.agents.table_files``), what ``learned_planner.load_tables`` reads."""
    save_arrays(path, {k: v.astype(np.float32) for k, v in check_tables(tables).items()}, meta)


def play_self_play(
    agent: PlannerAgent, games: int, seed: int, epsilon: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``games`` 2-player games, both seats ``agent`` (a share ``epsilon`` of moves uniformly random among the
    legal ones). Returns every non-final afterstate's features (N, 17), the final score of the seat it belongs
    to (N,), and every seat's final score (games, 2)."""

    engine = BatchedGame("extra", games, seed=seed, copy=False, num_players=2)
    _, masks, info = engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    playing = np.ones(games, dtype=bool)
    finals = np.zeros((games, 2))
    ids, owner = [], []  # each sample's features and its (game, seat)
    while playing.any():
        rows, seats = np.nonzero(info["acting"] & playing[:, None])
        chosen = agent.act_states(engine.states[rows], masks[rows, seats], seats)
        explore = rng.random(len(rows)) < epsilon
        if explore.any():
            legal = masks[rows[explore], seats[explore]].astype(np.float64)
            pick = rng.random((int(explore.sum()), 1)) * legal.sum(axis=1, keepdims=True)
            chosen[explore] = (legal.cumsum(axis=1) > pick).argmax(axis=1)
        actions = np.zeros((games, 2), dtype=np.int64)
        actions[rows, seats] = chosen
        _, masks, _, _, _, info = engine.step(actions, playing)
        ended = info["ended"]
        for k, g in enumerate(ended.tolist()):
            finals[g] = [E.score(info["final_state"][k], s) for s in range(2)]
        playing[ended] = False
        blocks = engine.states[rows[:, None], E.PLAYERS + seats[:, None] * E.PLAYER_SIZE + np.arange(E.PLAYER_SIZE)]
        going_on = ~np.isin(rows, ended) & (blocks[:, E.P_DONE] == 0)  # a final sheet's value is its score
        ids.append(features(blocks[going_on]))
        owner.append(rows[going_on] * 2 + seats[going_on])
    owner = np.concatenate(owner)
    return np.concatenate(ids), finals.ravel()[owner], finals


def train_planning_values(
    generations: int = 30, games: int = 16384, seed: int = 0, epsilon: float = 0.05, ridge: float = 10.0,
    eval_games: int = 4096, progress: bool = False,
) -> tuple[dict[str, np.ndarray], list[dict[str, float]]]:  # fmt: skip
    """Approximate policy iteration in self-play (module docstring), from the hand-set planner's tables. Returns
    the tables of the generation that scored best on the evaluation games (its own seed), and one record per
    generation (its mean score there)."""
    from tqdm import tqdm

    if generations < 1 or games < 1 or eval_games < 1 or not 0 <= epsilon <= 1 or ridge <= 0:
        raise ValueError(f"need generations, games, eval_games >= 1, epsilon in [0, 1] and ridge > 0; got "
                         f"{generations}, {games}, {eval_games}, {epsilon}, {ridge}")  # fmt: skip
    agent: PlannerAgent = PlannerAgent()
    best, best_score, history, started = None, -np.inf, [], time.perf_counter()
    for g in tqdm(range(generations), desc="extra_td self-play", disable=not progress):
        ids, targets, finals = play_self_play(agent, games, seed + 1 + g, epsilon)
        tables = fit_tables(ids, targets, ridge)
        agent = LearnedPlannerAgent(tables)
        score = float(play_self_play(agent, eval_games, seed, 0.0)[2].mean())  # every generation: the same games
        history.append({"generation": g + 1, "samples": len(ids), "played_mean_score": float(finals.mean()),
                        "eval_mean_score": score, "seconds": time.perf_counter() - started})  # fmt: skip
        if score > best_score:
            best, best_score = tables, score
    return best, history


def main(argv: list[str] | None = None) -> int:
    """``python -m dicearena.agents.extra.learned_values``: learn planning tables by self-play, then score them."""
    parser = trainer_parser(__doc__.splitlines()[0], "extra_td", 4000)
    parser.add_argument("--generations", type=int, default=30, help="policy-iteration generations (default 30)")
    parser.add_argument("--games", type=int, default=16384, help="self-play games per generation (default 16384)")
    parser.add_argument("--epsilon", type=float, default=0.05, help="share of random moves in training games")
    args = parser.parse_args(argv)
    try:
        tables, history = train_planning_values(args.generations, args.games, args.seed, args.epsilon,
                                                progress=True)  # fmt: skip
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    best = max(history, key=lambda h: h["eval_mean_score"])
    for h in history:
        print(f"generation {h['generation']:>3}: mean score {h['played_mean_score']:7.1f} while training, "
              f"{h['eval_mean_score']:7.1f} on the evaluation games")  # fmt: skip
    print(f"kept generation {best['generation']} ({best['eval_mean_score']:.1f}); {history[-1]['seconds']:.1f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    command = command_line("dicearena.agents.extra.learned_values", argv)
    recipe = {"command": command, "generations": args.generations, "games": args.games, "epsilon": args.epsilon,
              "seed": args.seed}  # fmt: skip
    save_tables(args.out, tables, {**recipe, "sheet": list(default_sheet()), "kept": best["generation"]})
    print(f"wrote {args.out}")
    card = {"loader": "dicearena.agents.extra.learned_planner:LearnedPlannerAgent", "recipe": recipe,
            "measured": {"generations": len(history), "kept": best["generation"],
                         "minutes": round(history[-1]["seconds"] / 60, 2),
                         "eval_mean_score": round(best["eval_mean_score"], 1)}}  # fmt: skip
    score_and_card("extra", LearnedPlannerAgent(args.out), AGAINST, args.score_games, args.out, card, command)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
