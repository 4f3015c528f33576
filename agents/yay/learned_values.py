"""Yay! board values learned by self-play (``yay_td``): the lookahead's value, fitted to who won.

Why: the lookahead agent (``lookahead``) plans on a value ``V = tanh(lead / scale)`` of four board terms (the lead
in uncrossed numbers and in their sum, and the two sides' exposure), with five hand-set weights and a scale that
shrinks as a line nears completion (``m``, the fewest empty squares left in any line). ``V`` stands for the chance
of winning, ``P(win) = (1 + V) / 2``, so the same form can be *learned*: one weight per term and per ``m``
(``VALUE_ROWS`` x 4), ``V = tanh(sum_k w[m, k] * term_k)``, is a logistic regression of the game's result on the
terms (``P(win) = sigmoid(2 * sum_k w[m, k] * term_k)``), fitted per ``m``.

Training is approximate policy iteration in 2-player self-play: each generation plays a batch of games with both
seats on the current table, fits a new table to each seat's result from every board it left behind (Newton steps
on the log-loss, with a ridge pulling each weight toward the previous table's, so a value of ``m`` seen rarely
keeps its old weights), and keeps the generation that wins most against the hand-set lookahead on fixed
evaluation games. The search is the lookahead's own (the same Monte Carlo throw-again plan and the same samples),
so the table is the only difference. The agent that plays a learned table, and reading one, are the policy layer's
(``learned_lookahead``: ``LearnedLookaheadAgent``, ``load_table``); this module learns the table and writes it
(``save_table``) with its card.

Measured (2026-12-03, the shipped ``yay_td``, 4,000 games head to head, seats alternated): 0.585 [0.570, 0.600]
against greedy, 0.462 [0.447, 0.477] against the hand-set lookahead. The fit leans on the sum lead rather than the
count lead (they move together, and the sum predicts the result about as well), which plays worse; the hand-set
weights are a local optimum against themselves (each of the six at half or twice its value won 0.46-0.51 of 2,048
games). A better learned Yay! value needs terms this one does not have.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from dicearena.agents.evaluation.play import head_to_head
from dicearena.agents.evaluation.stats import win_shares
from dicearena.agents.table_files import save_arrays
from dicearena.agents.training.value_tables import command_line, score_and_card, trainer_parser
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.yay import engine as E

from .heuristics import BEAT
from .learned_lookahead import LearnedLookaheadAgent, check_table
from .lookahead import NUM_TERMS, VALUE_ROWS, YayLookaheadAgent, closest_end, lead_terms

__all__ = ["fit_table", "save_table", "train_board_values"]

AGAINST = ("yay_lookahead", "yay_greedy", "random")  # the baselines a table is scored on


def hand_weights(agent: YayLookaheadAgent) -> np.ndarray:
    """The hand-set lookahead's value as learned-form weights (its terms' weights over its scale, per ``m``)."""
    return agent.table[:, :NUM_TERMS] / agent.table[:, NUM_TERMS:]


def save_table(path: str | Path, weights: np.ndarray, meta: dict[str, Any]) -> None:
    """``weights`` and ``meta`` in an .npz of plain arrays (``dicearena.agents.table_files``), what
    ``learned_lookahead.load_table`` reads."""
    save_arrays(path, {"weights": check_table(weights)}, meta)


@njit(cache=True)
def _board_terms(states, seats, beat, terms, ends):
    """Each (state, seat)'s four value terms and its ``m``."""
    tally = np.zeros((4, E.MAX_PLAYERS))
    for i in range(states.shape[0]):
        lead_terms(states[i], seats[i], beat, tally, terms[i])
        ends[i] = closest_end(states[i])


def board_terms(states: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """((N, 4) value terms, (N,) ``m``) of N engine states, each for its seat."""
    states = np.ascontiguousarray(states, dtype=np.int32)
    terms, ends = np.zeros((len(states), NUM_TERMS)), np.zeros(len(states), dtype=np.int64)
    _board_terms(states, np.ascontiguousarray(seats, dtype=np.int64), BEAT, terms, ends)
    return terms, ends


def fit_table(terms: np.ndarray, ends: np.ndarray, won: np.ndarray, prior: np.ndarray, ridge: float = 10.0,
              steps: int = 20) -> np.ndarray:  # fmt: skip
    """Per ``m``: the weights ``w`` maximising ``sum log P(result)`` with ``P(win) = sigmoid(2 w . terms)``, less
    ``ridge * |w - prior[m]|^2`` (Newton's method). ``won``: 1, 0, or 1/2 for a shared win or a truncated game."""
    table = check_table(prior).copy()
    for m in range(VALUE_ROWS):
        rows = ends == m
        if not rows.any():
            continue
        x, y, w = 2.0 * terms[rows], won[rows], table[m].copy()
        for _ in range(steps):
            p = 1.0 / (1.0 + np.exp(-(x @ w)))
            gradient = x.T @ (p - y) + 2 * ridge * (w - prior[m])
            hessian = (x * (p * (1 - p))[:, None]).T @ x + 2 * ridge * np.eye(NUM_TERMS)
            step = np.linalg.solve(hessian, gradient)
            w -= step
            if np.abs(step).max() < 1e-9:
                break
        table[m] = w
    return table


def play_self_play(agent: YayLookaheadAgent, games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``games`` 2-player games, both seats ``agent``. Returns the value terms and ``m`` of every unfinished board
    a seat's move left (N, 4) and (N,), and that seat's result (N,: 1 won, 0 lost, 1/2 shared or truncated)."""

    engine = BatchedGame("yay", games, seed=seed, copy=False, num_players=2)
    _, masks, info = engine.reset(seed=seed)
    agent.reset(seed)
    playing = np.ones(games, dtype=bool)
    results = np.zeros((games, 2))
    states, owner = [], []  # each sample's board and its (game, seat)
    while playing.any():
        rows, seats = np.nonzero(info["acting"] & playing[:, None])
        chosen = agent.act_states(engine.states[rows], masks[rows], seats)  # turn-based: one mask per game
        actions = np.zeros(games, dtype=np.int64)
        actions[rows] = chosen
        _, masks, _, _, _, info = engine.step(actions, playing)
        ended = info["ended"]
        results[ended] = win_shares(info["final_rewards"])[0]  # a truncated game: every seat tied at 0, 1/2 each
        playing[ended] = False
        going_on = ~np.isin(rows, ended)
        states.append(engine.states[rows[going_on]])
        owner.append(rows[going_on] * 2 + seats[going_on])
    owner = np.concatenate(owner)
    terms, ends = board_terms(np.concatenate(states), owner % 2)
    return terms, ends, results.ravel()[owner]


def train_board_values(
    generations: int = 10, games: int = 8192, seed: int = 0, ridge: float = 10.0, eval_games: int = 2048,
    progress: bool = False,
) -> tuple[np.ndarray, list[dict[str, float]]]:  # fmt: skip
    """Approximate policy iteration in self-play (module docstring), from the hand-set lookahead's value. Returns
    the weights of the generation that won most against the hand-set lookahead on the evaluation games (their own
    seed), and one record per generation."""
    from tqdm import tqdm


    if generations < 1 or games < 1 or eval_games < 2 or ridge <= 0:
        raise ValueError(f"need generations, games >= 1, eval_games >= 2 and ridge > 0; got {generations}, {games}, "
                         f"{eval_games}, {ridge}")  # fmt: skip
    hand = YayLookaheadAgent(seed=seed)
    weights = hand_weights(hand)
    agent: YayLookaheadAgent = LearnedLookaheadAgent(weights, seed=seed)
    best, best_rate, history, started = weights, -1.0, [], time.perf_counter()
    bar = tqdm(range(generations), desc="yay_td self-play", disable=not progress)
    for g in bar:
        terms, ends, won = play_self_play(agent, games, seed + 1 + g)
        weights = fit_table(terms, ends, won, weights, ridge)
        agent = LearnedLookaheadAgent(weights, seed=seed)
        result = head_to_head("yay", agent, YayLookaheadAgent(seed=seed + 1), {"num_players": 2}, eval_games, seed)
        history.append({"generation": g + 1, "samples": len(terms), "eval_win_rate": result["win_rate"],
                        "seconds": time.perf_counter() - started})  # fmt: skip
        if result["win_rate"] > best_rate:
            best, best_rate = weights, result["win_rate"]
        bar.set_postfix(against_lookahead=f"{result['win_rate']:.3f}", best=f"{best_rate:.3f}")
    return best, history


def main(argv: list[str] | None = None) -> int:
    """``python -m dicearena.agents.yay.learned_values``: learn the lookahead's board values by self-play, then score
    them."""
    parser = trainer_parser(__doc__.splitlines()[0], "yay_td", 4000)
    parser.add_argument("--generations", type=int, default=10, help="policy-iteration generations (default 10)")
    parser.add_argument("--games", type=int, default=8192, help="self-play games per generation (default 8192)")
    parser.add_argument("--eval-games", type=int, default=2048,
                        help="games per generation against the lookahead (default 2048)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        weights, history = train_board_values(args.generations, args.games, args.seed, eval_games=args.eval_games,
                                              progress=True)  # fmt: skip
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    best = max(history, key=lambda h: h["eval_win_rate"])
    for h in history:
        print(f"generation {h['generation']:>3}: {h['samples']:,} boards, {h['eval_win_rate']:.3f} against the "
              f"lookahead on the evaluation games")  # fmt: skip
    print(f"kept generation {best['generation']} ({best['eval_win_rate']:.3f}); {history[-1]['seconds']:.1f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    command = command_line("dicearena.agents.yay.learned_values", argv)
    recipe = {"command": command, "generations": args.generations, "games": args.games,
              "eval_games": args.eval_games, "seed": args.seed}  # fmt: skip
    save_table(args.out, weights, {**recipe, "kept": best["generation"]})
    print(f"wrote {args.out}")
    card = {"loader": "dicearena.agents.yay.learned_lookahead:LearnedLookaheadAgent", "recipe": recipe,
            "measured": {"generations": len(history), "kept": best["generation"],
                         "minutes": round(history[-1]["seconds"] / 60, 2),
                         "eval_win_rate": round(best["eval_win_rate"], 4)}}  # fmt: skip
    score_and_card("yay", LearnedLookaheadAgent(args.out), AGAINST, args.score_games, args.out, card, command)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
