"""The search agent (issue 23.3): chance-aware MCTS over any game's engine, with no per-game code."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import dicearena.envs  # noqa: F401  (registers the suite's games)
import examples.pig.pig_game  # noqa: F401  (registers "pig", a game kept outside the package)
from dicearena.agents import make_agent
from dicearena.agents.easy_come_easy_go.evaluation import score_turn_policy
from dicearena.agents.easy_money.greed_solver import greed_table
from dicearena.agents.search import SearchAgent
from dicearena.bench.bench_search import sample_decisions
from dicearena.envs.common.batching import ThreadChoice
from dicearena.envs.common.contract import GAMES
from dicearena.envs.common.game_state import import_tasks
from dicearena.envs.easy_money.greed import CASH, GREED_ROLL, GREED_STOP, HIGH, LOW, P_DECIDE, PHASE, STATE_SIZE, TOTAL

IDS = sorted(GAMES) + import_tasks()


def decision_states(game: str, count: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``count`` decisions of random play in ``game``'s default config (states, masks, seats)."""
    return sample_decisions(game, count, seed)


@pytest.mark.parametrize("game", IDS)
def test_search_plays_legal_moves_in_every_game_and_the_seed_fixes_them(game: str) -> None:
    states, masks, seats = decision_states(game, 12, seed=1)
    agent = make_agent("search", game=game, simulations=24, seed=7)
    actions = agent.act_states(states, masks, seats)
    assert all(masks[i, a] == 1 for i, a in enumerate(actions)), (actions, masks)
    again = make_agent("search", game=game, simulations=24, seed=7).act_states(states, masks, seats)
    assert np.array_equal(actions, again)
    agent.reset(seed=7)
    assert np.array_equal(agent.act_states(states, masks, seats), actions)
    agent.reset(seed=7)
    copy = pickle.loads(pickle.dumps(agent))  # to a worker process: the same moves
    assert np.array_equal(copy.act_states(states, masks, seats), actions)


@pytest.mark.parametrize("game", ["easy_come_easy_go", "extra"])
def test_the_moves_are_the_same_on_one_thread_or_several(game: str) -> None:
    states, masks, seats = decision_states(game, 16, seed=2)
    serial = SearchAgent(game, simulations=32, seed=3).act_states(states, masks, seats)
    threaded = SearchAgent(game, simulations=32, seed=3, threads=2)
    threaded.thread_choice = ThreadChoice("parallel")
    assert np.array_equal(threaded.act_states(states, masks, seats), serial)


def greed_state(cash: int, total: int) -> np.ndarray:
    state = np.zeros(STATE_SIZE, dtype=np.int32)
    state[LOW], state[HIGH] = 1, 40
    state[PHASE], state[CASH], state[TOTAL] = P_DECIDE, cash, total
    return state


def clear_greed_decisions(gap: float) -> list[tuple[int, int, int]]:
    """(cash, total, best action) wherever the exact values of stopping and rolling differ by more than ``gap``."""
    from dicearena.envs.easy_money.greed import BUST, NUM_FACES, greed_payout, greed_roll

    cases = []
    for cash in (3, 10, 25, 40):
        values, _ = greed_table(cash)
        for total in range(2, cash + 7):
            rolls = [greed_roll(total, f) for f in range(NUM_FACES)]
            roll = sum(0.0 if t == BUST or t >= len(values) else values[t] for t in rolls) / NUM_FACES
            stop = greed_payout(total, cash)
            if abs(roll - stop) > gap:
                cases.append((cash, total, GREED_STOP if stop > roll else GREED_ROLL))
    return cases


def test_on_greed_the_search_finds_every_clear_optimal_decision() -> None:
    """Greed's exact solution (a dynamic programme) is the reference: wherever stopping and rolling differ by more
    than half a unit, a 3,000-simulation search decides as the optimum does."""
    cases = clear_greed_decisions(0.5)
    assert len(cases) > 20
    states = np.array([greed_state(c, t) for c, t, _ in cases])
    masks = np.ones((len(cases), 2), dtype=np.int8)
    agent = make_agent("search", game="easy_money_greed", simulations=3000, seed=0)
    chosen = agent.act_states(states, masks, np.zeros(len(cases), dtype=np.int64))
    wrong = [(c, t) for (c, t, best), a in zip(cases, chosen, strict=True) if a != best]
    assert not wrong, f"decisions that differ from the exact optimum (cash, total): {wrong}"


def test_a_value_function_or_an_agent_can_value_the_leaves() -> None:
    """Greed with its exact values as the value function and a tree one move deep decides every clear case as the
    optimum does; an agent's rollouts (the random agent here) play through the same waves and stay legal."""
    from dicearena.envs.easy_money.greed import BUST, NUM_FACES, P_OVER, P_ROLL, greed_roll

    def exact(states: np.ndarray) -> np.ndarray:
        out = np.zeros((len(states), 1))
        for i, s in enumerate(states):
            values, _ = greed_table(int(s[CASH]))
            if s[PHASE] == P_ROLL:
                after = [greed_roll(int(s[TOTAL]), f) for f in range(NUM_FACES)]
                out[i, 0] = sum(0.0 if t == BUST or t >= len(values) else values[t] for t in after) / NUM_FACES
            elif s[PHASE] != P_OVER:
                out[i, 0] = values[min(int(s[TOTAL]), len(values) - 1)]
        return out

    cases = clear_greed_decisions(0.5)
    states = np.array([greed_state(c, t) for c, t, _ in cases])
    masks = np.ones((len(cases), 2), dtype=np.int8)
    seats = np.zeros(len(cases), dtype=np.int64)
    valued = SearchAgent("easy_money_greed", simulations=8, depth=1, exploration=0.0, evaluator=exact, seed=0)
    assert [int(a) for a in valued.act_states(states, masks, seats)] == [best for _, _, best in cases]
    states, masks, seats = decision_states("easy_come_easy_go", 6, seed=4)
    rollouts = SearchAgent("easy_come_easy_go", simulations=8, evaluator=make_agent("random", seed=1), seed=0)
    actions = rollouts.act_states(states, masks, seats)
    assert all(masks[i, a] == 1 for i, a in enumerate(actions))


def test_search_beats_random_at_pig() -> None:
    """A game kept outside the package gets the search too (no per-game code): 200 games of Pig, seats alternated."""
    from dicearena.agents.evaluation.play import head_to_head

    result = head_to_head("pig", SearchAgent("pig", simulations=1000, seed=0), make_agent("random", seed=1), {},
                          games=200, seed=5)  # fmt: skip
    assert result["ci95"][0] > 0.7, result  # measured 0.86 [0.81, 0.90]; random against random is 0.5


def test_decisive_rollouts_value_the_turn_task_closer_to_its_optimum() -> None:
    """A collected prize ends the turn task; a random rollout often freezes past it, and the tree then undervalues
    every state with a prize in reach. Decisive rollouts take it: exactly scored, the same budget plays closer to the
    optimum."""
    shares = {}
    for rollout in ("random", "decisive"):
        agent = SearchAgent("easy_come_easy_go_turn", simulations=300, seed=0, rollout=rollout)
        shares[rollout] = score_turn_policy(agent, {}, 1, 12345)["percent_of_optimum"]
    assert shares["decisive"] > shares["random"] + 1.0, shares


def test_the_search_does_not_see_what_the_game_hides_unless_told_to() -> None:
    """Ea$y Money's decks are face down: states that differ only in their order get the same search, at one world
    or several, with random rollouts or an agent's; ``see_hidden`` searches the true state."""
    from dicearena.envs.easy_money import engine as E

    states, masks, seats = sample_decisions("easy_money", 40, seed=3, final_lottery=False)
    other = states.copy()
    for row, key in zip(other, range(len(other)), strict=True):
        E.resample_hidden(row, key + 1000)
    assert (other != states).any(axis=1).all()  # every state's decks in another order
    agents = {
        "random rollouts": lambda **k: SearchAgent("easy_money", simulations=60, seed=4, **k),
        "4 worlds": lambda **k: SearchAgent("easy_money", simulations=60, worlds=4, seed=4, **k),
        "an agent's rollouts": lambda **k: SearchAgent("easy_money", simulations=6, seed=4,
                                                      evaluator=make_agent("random", seed=0), **k),
    }  # fmt: skip
    for label, make in agents.items():
        here = make(config={"final_lottery": False}).act_states(states, masks, seats)
        there = make(config={"final_lottery": False}).act_states(other, masks, seats)
        assert np.array_equal(here, there), label
    peeking = lambda: SearchAgent("easy_money", simulations=60, seed=4, see_hidden=True,  # noqa: E731
                                  config={"final_lottery": False})  # fmt: skip
    assert not np.array_equal(peeking().act_states(states, masks, seats), peeking().act_states(other, masks, seats))


def test_in_extra_a_seat_searching_after_another_chose_does_not_see_that_choice() -> None:
    """Extra!'s seats choose on one throw at once; a face that asks them in turn (the AEC env) hands the second a
    state holding the first's choice, which the search forgets (``resample_hidden``)."""
    from dicearena.envs.extra import engine as E

    states = sample_decisions("extra", 40, seed=2, num_players=2)[0]
    states = states[[E.must_act(row, 0) and E.must_act(row, 1) for row in states]]
    masks = np.zeros((len(states), E.NUM_ACTIONS), dtype=np.int8)
    later = states.copy()
    for row, after, mask in zip(states, later, masks, strict=True):
        E.legal_mask(row, 0, mask)
        assert E.apply_action(after, 0, int(np.flatnonzero(mask)[-1])) == 0  # seat 0 chose: the round waits
        E.legal_mask(row, 1, mask)
    keep = masks.sum(axis=1) > 1
    assert keep.sum() >= 10
    seat_1 = np.ones(len(states), dtype=np.int64)
    search = lambda: SearchAgent("extra", simulations=80, seed=6, config={"num_players": 2})  # noqa: E731
    before = search().act_states(states[keep], masks[keep], seat_1[keep])
    assert np.array_equal(search().act_states(later[keep], masks[keep], seat_1[keep]), before)


def test_bad_budgets_and_inputs_are_named() -> None:
    with pytest.raises(ValueError, match="simulations"):
        make_agent("search", game="pig", simulations=0)
    with pytest.raises(ValueError, match="depth"):
        make_agent("search", game="pig", depth=0)
    with pytest.raises(ValueError, match="exploration"):
        make_agent("search", game="pig", exploration=-1.0)
    with pytest.raises(ValueError, match="evaluator"):
        make_agent("search", game="pig", evaluator="greedy")
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("search", game="pigg")
    with pytest.raises(ValueError, match="rollout.*'random' or 'decisive'"):
        make_agent("search", game="pig", rollout="greedy")
    with pytest.raises(ValueError, match="rollout='decisive'.*evaluator='random'"):
        make_agent("search", game="pig", rollout="decisive", evaluator=make_agent("random", seed=0))
    with pytest.raises(ValueError, match=r"worlds \(5\) split the simulations \(4\)"):
        make_agent("search", game="easy_money", simulations=4, worlds=5)
    with pytest.raises(ValueError, match="worlds > 1.*evaluator='random'"):
        make_agent("search", game="easy_money", worlds=2, evaluator=make_agent("random", seed=0))
    agent = make_agent("search", game="easy_come_easy_go", simulations=4)
    with pytest.raises(ValueError, match="slots"):
        agent.act_states(np.zeros((1, 7), dtype=np.int32) + 2, np.ones((1, 24), dtype=np.int8), np.zeros(1))
    with pytest.raises(TypeError, match="engine states"):
        agent.act_batch(np.zeros((1, 73), dtype=np.float32), np.ones((1, 24), dtype=np.int8))

    def wrong_shape(states: np.ndarray) -> np.ndarray:
        return np.zeros(len(states))

    states, masks, seats = decision_states("easy_come_easy_go", 2, seed=0)
    with pytest.raises(ValueError, match="one value per seat"):
        SearchAgent("easy_come_easy_go", simulations=4, evaluator=wrong_shape).act_states(states, masks, seats)


def test_exact_turn_scoring_hands_planners_the_engine_states_play_would_give_them() -> None:
    """``score_turn_policy`` scores a state-reading planner (the search agent) exactly: the states it builds for each
    decision are the ones a played turn reaches."""
    from dicearena.agents.easy_come_easy_go.exact import turn_decision_states
    from dicearena.envs.common.game_state import load_game
    from dicearena.envs.easy_come_easy_go import engine as eng

    values = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0]
    game = load_game("easy_come_easy_go_turn", prize_values=values)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(60):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.sample_chance(rng)
                continue
            played = state.engine_state
            made = turn_decision_states(played[None, eng.DICE : eng.DICE + eng.NUM_DICE], played[None, eng.FROZEN],
                                        int(played[eng.ROLLS]), np.array(values), 0)  # fmt: skip
            assert np.array_equal(made[0], played)
            checked += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 100


def test_bench_search_prints_the_optimum_shares_and_refuses_unknown_parts(capsys) -> None:
    from dicearena.bench.bench_search import main

    assert main(["optimum", "--greed-sims", "300", "--turn-sims", "4", "--vectors", "1", "--no-pin"]) == 0
    out = capsys.readouterr().out
    greed = next(line for line in out.splitlines() if line.strip().startswith("300"))
    assert 90.0 < float(greed.split()[1]) <= 100.0, out  # % of the optimum, exact
    assert "Easy Come turn task" in out
    rows = [line.split() for line in out.splitlines()]
    turn_rows = {tuple(row[:2]) for row in rows if row and row[0] in ("random", "decisive")}
    assert turn_rows == {("random", "4"), ("decisive", "4")}, out
    with pytest.raises(SystemExit):
        main(["speed"])
    assert "parts are api, optimum and strength" in capsys.readouterr().err


def _searched_trees(best_child: bool) -> tuple:
    """Yay! trees after a search in waves with a fixed value function (one tree per decision state)."""
    from dicearena.agents.search import _sizes, search_kernels_for
    from dicearena.agents.search_loops import new_trees
    from dicearena.agents.yay.lookahead import YayLookaheadAgent

    agent = SearchAgent("yay", simulations=300, depth=6, exploration=0.1, widening=3.0, best_child=best_child, seed=0)
    game, value = agent.game, YayLookaheadAgent().board_value
    kernels, knobs, sizes = search_kernels_for(game.spec.engine), agent.budget.knobs(game), _sizes(game)
    roots, _, _ = decision_states("yay", 4, seed=2)
    trees = new_trees(len(roots), 302, game.sizes.state, 2)
    rngs = np.arange(1, len(roots) + 1, dtype=np.uint64)
    kernels.wave_start(trees, roots, rngs, knobs, sizes, False)
    leaves = np.zeros_like(roots)
    terminal = np.zeros(len(roots), dtype=np.bool_)
    values = np.zeros((len(roots), 2))
    for _ in range(300):
        kernels.wave_select(trees, rngs, leaves, terminal, values, 6, knobs, sizes, False)
        values[~terminal] = value(leaves[~terminal])
        kernels.wave_backup(trees, values, knobs)
    return trees


def _children(trees: tuple, b: int, n: int) -> list[int]:
    first, sib = trees[5][b], trees[6][b]
    out, c = [], first[n]
    while c >= 0:
        out.append(int(c))
        c = sib[c]
    return out


@pytest.mark.parametrize("best_child", [True, False])
def test_with_best_child_a_sampled_chance_node_carries_its_children_values(best_child: bool) -> None:
    """With ``best_child`` a one-seat decision is worth its most visited child, and a sampled chance node (Yay!'s
    throws) the visit-weighted mean of its children's values, so the best child's value reaches the nodes above;
    without it both keep the mean of the leaf values that passed through (which these equalities then miss)."""
    from dicearena.agents.search_loops import DECISION, SAMPLED

    trees = _searched_trees(best_child)
    kind, visits, q = trees[1], trees[2], trees[4]
    checked = {DECISION: 0, SAMPLED: 0}
    held = {DECISION: 0, SAMPLED: 0}
    for b in range(kind.shape[0]):
        for n in range(int(trees[12][b][0])):
            children = [c for c in _children(trees, b, n) if visits[b, c] > 0]
            if not children or kind[b, n] not in checked:
                continue
            if kind[b, n] == SAMPLED:
                weights = visits[b, children].astype(float)
                expected = weights @ q[b, children] / weights.sum()
            else:
                best = max(children, key=lambda c: (visits[b, c], q[b, c].max()))
                if sum(visits[b, c] == visits[b, best] for c in children) > 1:
                    continue  # a tie on visits: broken by the deciding seat's value, not checked here
                expected = q[b, best]
            checked[kind[b, n]] += 1
            held[kind[b, n]] += bool(np.allclose(q[b, n], expected))
    assert checked[DECISION] > 10 and checked[SAMPLED] > 10, checked
    if best_child:
        assert held == checked
    else:
        assert held[SAMPLED] < checked[SAMPLED] and held[DECISION] < checked[DECISION], (held, checked)
