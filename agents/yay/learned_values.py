"""Yay! board values learned by self-play (``yay_td``): a network over the board's features, fitted to who won.

Why: the lookahead agent (``lookahead``) plans on a hand-set value of four board terms. Fitting those four terms'
weights to who won played worse than the hand-set ones (0.462 against them over 4,000 games: the fit is a good
predictor, not a better guide to the moves). What it missed was in the board, not in the weights: which numbers are
exposed, where each side can still write, how many lines are near their end, and how often a throw reaches each
square. So the learned value reads 45 features (``board_features``) through one tanh hidden layer, and outputs the
log-odds that the seat wins.

Training is approximate policy iteration in 2-player self-play. Generation 0 plays the hand-set lookahead against
itself; every later generation plays the newest network's lookahead against itself. Each records every unfinished
board a seat's settling move (a write, a block or a cross-off) left behind, the afterstate the search values, with
that seat's result (1 won, 0 lost, 1/2 shared or truncated). The network is fitted to all boards so far (logistic
loss, Adam, one thread, seeded), and each generation's network is scored against the hand-set lookahead on fixed
evaluation games; the best one is kept. One generation is the default: it is one step of policy improvement over
the hand-set lookahead, and a second step measured no gain (on the first 40 features: 0.510 and 0.511 against the
lookahead over 4,000 games, fitted to the new games or to all, against 0.521 for the first generation).

Measured (2026-12-06, on the boards of 57,344 games of the hand-set lookahead, 1.9M boards): 0.532 and 0.536
against the lookahead over two sets of 4,000 games (0.524 twice when fitted to twice the games, a spread of fits
rather than a loss); the 40 features without the touch chances 0.521-0.528. The card beside the shipped network has
its own scores. The agent that plays a network, and reading one, are the policy layer's
(``learned_lookahead``: ``LearnedLookaheadAgent``, ``load_net``); this module learns the network and writes it
(``save_net``) with its card.
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

from .board_features import NUM_FEATURES, features_of
from .learned_lookahead import NET_ARRAYS, LearnedLookaheadAgent, check_net
from .lookahead import YayLookaheadAgent

__all__ = ["fit_net", "play_self_play", "save_net", "train_board_values"]

AGAINST = ("yay_lookahead", "yay_greedy", "random")  # the baselines a network is scored on


def save_net(path: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """A network's ``arrays`` and ``meta`` in an .npz of plain arrays (``dicearena.agents.table_files``), what
    ``learned_lookahead.load_net`` reads."""
    save_arrays(path, check_net(arrays), meta)


@njit(cache=True)
def _afterstates(states, seats, actions, out, kept):
    """Each (state, seat, action)'s afterstate (``apply_action`` on a copy, no turn limit as the search plans),
    ``kept`` 1 where it is a settled, unfinished board (not a throw again, which a chance event follows, nor an
    end, whose value is its result)."""
    for i in range(states.shape[0]):
        out[i, :] = states[i]
        out[i, E.MAX_TURNS] = 0
        if actions[i] == 3 * states[i, E.ROWS] * states[i, E.COLS]:
            kept[i] = 0
            continue
        E.apply_action(out[i], seats[i], actions[i])
        kept[i] = out[i, E.PHASE] != E.PHASE_OVER


def play_self_play(agent: YayLookaheadAgent, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``games`` 2-player games, both seats ``agent``. Returns the features (N, NUM_FEATURES) of every unfinished
    board a seat's settling move left, for that seat, and the seat's result (N,: 1 won, 0 lost, 1/2 shared or
    truncated)."""
    engine = BatchedGame("yay", games, seed=seed, copy=False, num_players=2)
    _, masks, info = engine.reset(seed=seed)
    agent.reset(seed)
    playing = np.ones(games, dtype=bool)
    results = np.zeros((games, 2))
    features, owner = [], []  # each sample's features and its (game, seat)
    while playing.any():
        rows, seats = np.nonzero(info["acting"] & playing[:, None])
        states = np.ascontiguousarray(engine.states[rows])
        chosen = agent.act_states(states, masks[rows], seats)
        after, kept = np.empty_like(states), np.zeros(len(rows), dtype=np.int64)
        _afterstates(states, seats.astype(np.int64), chosen.astype(np.int64), after, kept)
        kept = kept == 1
        features.append(features_of(after[kept], seats[kept]))
        owner.append(rows[kept] * 2 + seats[kept])
        actions = np.zeros(games, dtype=np.int64)
        actions[rows] = chosen
        _, masks, _, _, _, info = engine.step(actions, playing)
        ended = info["ended"]
        results[ended] = win_shares(info["final_rewards"])[0]  # a truncated game: every seat tied at 0, 1/2 each
        playing[ended] = False
    owner = np.concatenate(owner)
    return np.concatenate(features), results.ravel()[owner].astype(np.float32)


def fit_net(features: np.ndarray, won: np.ndarray, hidden: int = 32, epochs: int = 8, seed: int = 0,
            batch: int = 4096, learning_rate: float = 3e-3) -> dict[str, np.ndarray]:  # fmt: skip
    """The network (``NET_ARRAYS``) whose log-odds of winning best fit ``won`` (1, 0 or 1/2) from ``features``:
    logistic loss, Adam with a cosine step decay over ``epochs`` passes, on one thread with ``seed``, so a fit is
    reproducible."""
    import torch

    if hidden < 1 or epochs < 1 or len(features) != len(won) or features.shape[1:] != (NUM_FEATURES,):
        raise ValueError(f"fit_net: need hidden, epochs >= 1 and (N, {NUM_FEATURES}) features with N results; got "
                         f"hidden {hidden}, epochs {epochs}, {features.shape} and {np.shape(won)}")  # fmt: skip
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        generator = torch.Generator().manual_seed(seed)
        x, y = torch.from_numpy(np.ascontiguousarray(features, np.float32)), torch.from_numpy(won.astype(np.float32))
        first = torch.nn.Linear(NUM_FEATURES, hidden)
        last = torch.nn.Linear(hidden, 1)
        with torch.no_grad():  # seeded initial weights (torch's default init draws from the global generator)
            for layer in (first, last):
                bound = 1.0 / np.sqrt(layer.in_features)
                layer.weight.uniform_(-bound, bound, generator=generator)
                layer.bias.uniform_(-bound, bound, generator=generator)
        net = torch.nn.Sequential(first, torch.nn.Tanh(), last)
        steps = epochs * -(-len(x) // batch)
        optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
        loss = torch.nn.BCEWithLogitsLoss()
        for _ in range(epochs):
            order = torch.randperm(len(x), generator=generator)
            for start in range(0, len(x), batch):
                rows = order[start : start + batch]
                optimizer.zero_grad()
                loss(net(x[rows])[:, 0], y[rows]).backward()
                optimizer.step()
                schedule.step()
    finally:
        torch.set_num_threads(threads)
    w = [p.detach().numpy().astype(np.float64) for p in net.parameters()]
    return check_net(dict(zip(NET_ARRAYS, (w[0].T, w[1], w[2][0], w[3]), strict=True)))


def train_board_values(
    generations: int = 1, games: int = 57344, seed: int = 0, hidden: int = 32, epochs: int = 8,
    eval_games: int = 2048, progress: bool = False,
) -> tuple[dict[str, np.ndarray], list[dict[str, float]]]:  # fmt: skip
    """Approximate policy iteration in self-play (module docstring), from the hand-set lookahead. Returns the
    network of the generation that won most against the hand-set lookahead on the evaluation games (their own
    seed), and one record per generation."""
    from tqdm import tqdm

    if generations < 1 or games < 1 or eval_games < 2:
        raise ValueError(f"need generations, games >= 1 and eval_games >= 2; got {generations}, {games}, "
                         f"{eval_games}")  # fmt: skip
    agent: YayLookaheadAgent = YayLookaheadAgent(seed=seed)
    best: dict[str, np.ndarray] | None = None
    best_rate, history, started = -1.0, [], time.perf_counter()
    features, won = [], []
    bar = tqdm(range(generations), desc="yay_td self-play", disable=not progress)
    for g in bar:
        x, y = play_self_play(agent, games, seed + 1 + g)
        features.append(x)
        won.append(y)
        net = fit_net(np.concatenate(features), np.concatenate(won), hidden, epochs, seed + g)
        agent = LearnedLookaheadAgent(net, seed=seed)
        result = head_to_head("yay", agent, YayLookaheadAgent(seed=seed + 1), {"num_players": 2}, eval_games, seed)
        history.append({"generation": g + 1, "samples": int(sum(len(f) for f in features)),
                        "eval_win_rate": result["win_rate"], "seconds": time.perf_counter() - started})  # fmt: skip
        if result["win_rate"] > best_rate:
            best, best_rate = net, result["win_rate"]
        bar.set_postfix(against_lookahead=f"{result['win_rate']:.3f}", best=f"{best_rate:.3f}")
    assert best is not None
    return best, history


def main(argv: list[str] | None = None) -> int:
    """``python -m dicearena.agents.yay.learned_values``: learn a board value by self-play, then score it."""
    parser = trainer_parser(__doc__.splitlines()[0], "yay_td", 4000)
    parser.add_argument("--generations", type=int, default=1, help="policy-iteration generations (default 1)")
    parser.add_argument("--games", type=int, default=57344, help="self-play games per generation (default 57344)")
    parser.add_argument("--hidden", type=int, default=32, help="the network's hidden units (default 32)")
    parser.add_argument("--epochs", type=int, default=8, help="passes over the boards per fit (default 8)")
    parser.add_argument("--eval-games", type=int, default=2048,
                        help="games per generation against the lookahead (default 2048)")  # fmt: skip
    args = parser.parse_args(argv)
    try:
        net, history = train_board_values(args.generations, args.games, args.seed, args.hidden, args.epochs,
                                          args.eval_games, progress=True)  # fmt: skip
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
    recipe = {"command": command, "generations": args.generations, "games": args.games, "hidden": args.hidden,
              "epochs": args.epochs, "eval_games": args.eval_games, "seed": args.seed}  # fmt: skip
    save_net(args.out, net, {**recipe, "kept": best["generation"]})
    print(f"wrote {args.out}")
    card = {"loader": "dicearena.agents.yay.learned_lookahead:LearnedLookaheadAgent", "recipe": recipe,
            "measured": {"generations": len(history), "kept": best["generation"],
                         "minutes": round(history[-1]["seconds"] / 60, 2),
                         "eval_win_rate": round(best["eval_win_rate"], 4)}}  # fmt: skip
    score_and_card("yay", LearnedLookaheadAgent(args.out), AGAINST, args.score_games, args.out, card, command)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
