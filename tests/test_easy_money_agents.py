"""The Ea$y Money baseline agents (agents/easy_money): legal play everywhere, each phase's rule, and strength.

Decision rules are checked on hand-built engine states (a real game's state after setup, with the slots a rule
reads set by hand: the agents read only the state); legality over many positions by driving the batched engine
with the agent in every seat. Strength (fixed seeds, 4-player tables, the agent in a rotating seat against 3
random agents, 20,000 games each), measured when this file was written:

- default config: the heuristic's win share is 0.249 (the exact Greed agent 0.257, a random agent 0.250): no
  better than a random seat, and no policy can do much better. The Final Lottery decides the game: its pot (the
  pot at the end of play plus 5 from every player in each round without a winner, about 520 units on average)
  makes its winner the game's winner in 99% of games, and who holds the winning ticket depends on the tickets
  held, which only the dice hand out (Lottery spaces, a Jackpot card; a Lottery win deals one to each again).
- ``final_ante=0`` (the same game up to the Final Lottery, whose pot is then only the pot at the end of play; its
  winner still wins 91% of games): win share 0.291 (a random agent: 0.250), the richest player going into the
  Final Lottery in 0.470 of games (0.247), money then 145.8 vs 117.7 per random seat. This is the strength check
  asserted below.
- head to head, the exact Greed agent vs the heuristic (they differ only at Greed's stop), seats alternated,
  20,000 games: 0.499 of the wins at 2-player tables, 0.499 at 4 (2 + 2): no measurable difference. On the Greed
  stop task (M uniform in 1..40) the heuristic's threshold scores 98.7% of the exact solver's 6.420 units.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dicearena.envs.easy_money.game  # noqa: F401  (registers the game until dicearena.envs.games lists it)
from dicearena.agents.easy_money import (
    EasyMoneyHeuristicAgent,
    GreedExactAgent,
    GreedTaskExactAgent,
    GreedTaskThresholdAgent,
)
from dicearena.agents.easy_money.greed_solver import sequence_value, should_stop
from dicearena.agents.easy_money.heuristics import TWO_DICE, lucky_dice_gains, move_odds, wall_street_gains
from dicearena.agents.evaluation.play import play_games
from dicearena.agents.random_agent import RandomAgent
from dicearena.envs.common.config import validate_config
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.seating import choose
from dicearena.envs.easy_money import engine as E
from dicearena.envs.easy_money import greed as G
from dicearena.envs.easy_money.config import EasyMoneyConfig

HEURISTIC = EasyMoneyHeuristicAgent()
EXACT = GreedExactAgent()
UP, DOWN = 0, 1
BLUE_BLUE = E.NUM_BETS - 1  # bet 13: 20 units, the largest


def table(**overrides: object) -> np.ndarray:
    """A game after setup (identity deck orders, seat 0 first): seat 0's stake round."""
    config = validate_config(EasyMoneyConfig, {"first_player": 0, **overrides})
    sizes = E.sizes(config)
    s = np.zeros(sizes.state, dtype=np.int32)
    E.init_state(s, E.header(config))
    identity = np.arange(sizes.outcome, dtype=np.int32)
    for _ in range(3):  # the ticket, Jackpot and Wall Street shuffles
        E.apply_outcome(s, identity)
    assert s[E.PHASE] == E.PHASE_STAKE and s[E.ACTOR] == 0
    return s


def at(s: np.ndarray, phase: int, seat: int, mover: int | None = None) -> np.ndarray:
    s = s.copy()
    s[E.PHASE], s[E.ACTOR], s[E.CURRENT] = phase, seat, seat if mover is None else mover
    return s


def decide(agent, s: np.ndarray) -> int:
    seat = int(s[E.ACTOR])
    mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    E.legal_mask(s, seat, mask)
    action = int(agent.act_states(s[None], mask[None], np.array([seat]))[0])
    assert mask[action] == 1, E.describe_action(None, s, action)
    return action


def stake_amount(action: int, s: np.ndarray) -> int:
    return 0 if action == E.ACT_STAKE_NONE else int(s[E.BET_AMOUNTS + action - E.ACT_STAKE])


def set_ahead(s: np.ndarray, kinds: list[int]) -> None:
    """The spaces 1.. ahead of the pawn."""
    ns = int(s[E.NUM_SPACES])
    for i, kind in enumerate(kinds):
        s[E.SPACES + (s[E.PAWN] + 1 + i) % ns] = kind


# --- legal everywhere -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("agent", "players", "steps"), [(HEURISTIC, 4, 2500), (EXACT, 4, 1500),
                                                         (EasyMoneyHeuristicAgent(lucky="likeliest"), 3, 1000),
                                                         (EXACT, 2, 1000)])  # fmt: skip
def test_every_action_is_legal(agent, players: int, steps: int) -> None:
    """The agent in every seat of 256 batched games: each action legal, every decision phase met."""
    batch = BatchedGame("easy_money", 256, seed=0, num_players=players)
    obs, masks, info = batch.reset(seed=0)
    seen = np.zeros(E.NUM_PHASES, dtype=np.int64)
    ended = 0
    for _ in range(steps):
        np.add.at(seen, batch.states[:, E.PHASE], 1)
        actions = choose(agent, obs, masks, batch.states, info["to_act"])
        assert (masks[np.arange(len(actions)), actions] == 1).all()
        obs, masks, _, _, _, info = batch.step(actions)
        ended += len(info["ended"])
    decisions = [E.PHASE_STAKE, E.PHASE_BROKE, E.PHASE_GREED_DECIDE, E.PHASE_WALL_BET, E.PHASE_LUCKY_BET]
    decisions += [E.PHASE_GREED_NAME] if players > 2 else []
    assert (seen[decisions] > 0).all(), dict(zip(E.PHASE_NAMES, seen.tolist(), strict=True))
    assert ended > 100


def test_pettingzoo_game_with_state() -> None:
    """The PettingZoo face: ``act(obs, mask, state=env.state(), seat=)`` plays a whole game legally."""
    from dicearena.envs import easy_money_v0

    env = easy_money_v0.env(num_players=3)
    env.reset(seed=3)
    agents = [HEURISTIC, EXACT, HEURISTIC]
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.possible_agents.index(name)
        action = agents[seat].act(observation["observation"], observation["action_mask"], state=env.state(),
                                  seat=seat)  # fmt: skip
        assert observation["action_mask"][action] == 1
        env.step(action)


def test_registry_and_errors() -> None:
    from dicearena.agents import make_agent

    assert isinstance(make_agent("em_heuristic"), EasyMoneyHeuristicAgent)
    assert isinstance(make_agent("em_greed_exact"), GreedExactAgent)
    s = table()
    mask = np.zeros((1, E.NUM_ACTIONS), dtype=np.int8)
    with pytest.raises(TypeError, match="engine states"):
        HEURISTIC.act_batch(np.zeros((1, 207), np.float32), mask)
    with pytest.raises(ValueError, match="does not wait for a decision of seat 1"):
        HEURISTIC.act_states(s[None], mask, np.array([1]))
    with pytest.raises(ValueError, match="engine states"):
        HEURISTIC.act_states(s[None, :10], mask, np.array([0]))
    with pytest.raises(ValueError, match="lucky"):
        EasyMoneyHeuristicAgent(lucky="luckiest")


# --- the stake round -------------------------------------------------------------------------------------------


def test_move_odds_are_the_two_dice_chances() -> None:
    s = table()
    ns = int(s[E.NUM_SPACES])
    for pawn in range(ns):
        s[E.PAWN] = pawn
        rolls = [a + b for a, b in itertools.product(range(1, 7), repeat=2)]
        kinds = [int(s[E.SPACES + (pawn + t) % ns]) for t in rolls]
        expected = (kinds.count(E.SPACE_DOUBLE) / 36, kinds.count(E.SPACE_NOTHING) / 36)
        assert move_odds(s) == pytest.approx(expected)
    assert TWO_DICE.sum() == pytest.approx(1.0)


def test_stakes_rise_before_doubles_and_fall_before_nothings() -> None:
    s = table()
    set_ahead(s, [E.SPACE_DOUBLE] * 12)
    assert decide(HEURISTIC, s) == E.ACT_STAKE + BLUE_BLUE  # the largest bet: 20
    poor = s.copy()
    poor[E.CASH], poor[E.STAKE] = 5, 2  # 7 to stake: red + green
    assert stake_amount(decide(HEURISTIC, poor), poor) == 7
    set_ahead(s, [E.SPACE_NOTHING] * 12)
    assert decide(HEURISTIC, s) == E.ACT_STAKE  # the smallest (1): it still avoids the penalty of 5
    s[E.NO_PENALTY] = 1
    assert decide(HEURISTIC, s) == E.ACT_STAKE_NONE  # no penalty to avoid: no stake
    set_ahead(s, [E.SPACE_EASY_MONEY] * 12)
    s[E.NO_PENALTY] = 0
    assert decide(HEURISTIC, s) == E.ACT_STAKE_NONE  # nothing at stake on the coming move


def test_stakes_on_the_default_board_follow_the_rule() -> None:
    """At every pawn position: largest when P(Double) > P(Nothing), else the smallest if the penalty it avoids
    outweighs the expected loss, else none; the Double-richest stretch stakes more than the Nothing-richest."""
    s = table()
    stakes = {}
    for pawn in range(int(s[E.NUM_SPACES])):
        s[E.PAWN] = pawn
        p_double, p_nothing = move_odds(s)
        amount = stake_amount(decide(HEURISTIC, s), s)
        if p_double > p_nothing:
            assert amount == 20
        else:
            gain = (p_double - p_nothing) * 1 + (p_double + p_nothing) * 5
            assert amount == (1 if gain > 0 else 0)
        stakes[pawn] = (p_double - p_nothing, amount)
    richest = max(stakes, key=lambda p: stakes[p][0])
    poorest = min(stakes, key=lambda p: stakes[p][0])
    assert stakes[richest][1] > stakes[poorest][1]
    assert {a for _, a in stakes.values()} >= {1, 20}


# --- Greed -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("agent", [HEURISTIC, EXACT])
def test_greed_names_the_richest(agent) -> None:
    s = at(table(), E.PHASE_GREED_NAME, 1)
    s[E.CASH : E.CASH + 4] = (36, 0, 10, 50)  # seat 1 moves: seat 3 (2 seats on) is the richest
    assert decide(agent, s) == E.ACT_NAME + 1
    s[E.CASH : E.CASH + 4] = (60, 0, 10, 50)  # sequence_value(60) == sequence_value(50): the richest, seat 0
    assert sequence_value(60) == sequence_value(50)
    assert decide(agent, s) == E.ACT_NAME + 2
    s[E.CASH : E.CASH + 4] = (50, 0, 10, 50)  # a tie: the nearest to the left
    assert decide(agent, s) == E.ACT_NAME + 1


def greed_decision(agent, cash: int, total: int) -> bool:
    s = at(table(), E.PHASE_GREED_DECIDE, 0)
    s[E.GREED_TARGET], s[E.CASH + 2], s[E.GREED_TOTAL] = 2, cash, total
    return decide(agent, s) == E.ACT_GREED_STOP


def test_greed_stop_threshold_and_exact() -> None:
    """The heuristic stops once the total reaches min(20, M - 4); the exact agent exactly when should_stop."""
    differ = 0
    for cash in range(0, 41):
        for total in range(2, cash + 7):
            heuristic, exact = greed_decision(HEURISTIC, cash, total), greed_decision(EXACT, cash, total)
            assert heuristic == (total >= min(20, cash - 4)), (cash, total)
            assert exact == should_stop(total, cash), (cash, total)
            differ += heuristic != exact
    assert differ > 0  # they are not the same rule
    assert greed_decision(EXACT, 100, 19) is False and greed_decision(EXACT, 100, 20) is True
    assert greed_decision(EasyMoneyHeuristicAgent(greed_cap=15, greed_margin=0), 100, 15) is True


def test_greed_task_agents() -> None:
    """On the task engine's states and observations: exact = should_stop (100% of the optimum), the threshold
    below it."""
    config = G.GreedTaskConfig()
    exact, threshold = GreedTaskExactAgent(config), GreedTaskThresholdAgent(config)
    head = G.header(config)
    rows = [(t, m) for m in range(0, 41) for t in range(0, m + 7)]
    states = np.zeros((len(rows), G.STATE_SIZE), dtype=np.int32)
    obs = np.zeros((len(rows), G.OBSERVATION_SIZE), dtype=np.float32)
    for i, (total, cash) in enumerate(rows):
        G.init_state(states[i], head)
        states[i, G.PHASE], states[i, G.TOTAL], states[i, G.CASH] = G.P_DECIDE, total, cash
        G.observe(states[i], 0, obs[i])
    masks = np.ones((len(rows), 2), dtype=np.int8)
    want = np.array([G.GREED_STOP if should_stop(t, m) else G.GREED_ROLL for t, m in rows])
    np.testing.assert_array_equal(choose(exact, obs, masks, states, 0), want)
    np.testing.assert_array_equal(exact.act_batch(obs, masks), want)  # decoded from the observations
    cut = np.array([G.GREED_STOP if t >= min(20, m - 4) else G.GREED_ROLL for t, m in rows])
    np.testing.assert_array_equal(threshold.act_states(states, masks, np.zeros(len(rows))), cut)
    import dicearena.agents.training.tasks  # noqa: F401  (the task registry first: dicearena.agents.easy_money.tasks imports it)
    from dicearena.agents.easy_money.tasks import score_greed_policy

    assert score_greed_policy(exact, config)["percent_of_optimum"] == pytest.approx(100.0)
    assert 98.0 < score_greed_policy(threshold, config)["percent_of_optimum"] < 100.0
    with pytest.raises(ValueError, match="not at a decision"):
        exact.act_states(np.zeros((1, G.STATE_SIZE), np.int32), masks[:1], np.zeros(1))


# --- Wall Street, Lucky Dice, out of money, the ticket steal -----------------------------------------------------


def test_wall_street_follows_the_tip() -> None:
    s = table()
    assert wall_street_gains(s, UP) == pytest.approx([1 / 3, 1 / 6])  # the default deck: +1/3 per unit
    assert wall_street_gains(s, DOWN) == pytest.approx([1 / 6, 1 / 3])
    s = at(s, E.PHASE_WALL_BET, 2, mover=0)
    ups = [c for c in range(int(s[E.NUM_WALL])) if s[E.WS_TIP + c] == UP]
    downs = [c for c in range(int(s[E.NUM_WALL])) if s[E.WS_TIP + c] == DOWN]
    s[E.WS_CARD] = ups[-1]  # the card's news (hidden) is DOWN: the agent reads only the tip
    assert decide(HEURISTIC, s) == E.ACT_WALL + BLUE_BLUE  # UP with 20
    s[E.WS_CARD] = downs[0]
    assert decide(HEURISTIC, s) == E.ACT_WALL + E.NUM_BETS + BLUE_BLUE  # DOWN with 20
    s[E.CASH + 2] = 3
    assert decide(HEURISTIC, s) == E.ACT_WALL + E.NUM_BETS + 5  # DOWN with purple + red: the most it can
    s[E.CASH + 2] = 36
    for c in downs:  # a deck whose DOWN tips are always wrong at 1 to 1: bet UP
        s[E.WS_NEWS + c], s[E.WS_ODDS + c] = UP, 1
    assert decide(HEURISTIC, s) == E.ACT_WALL + BLUE_BLUE
    for c in downs:  # right half the time at 1 to 1: no gain either way: the smallest bet, on the tip
        s[E.WS_NEWS + c] = c % 2
    assert wall_street_gains(s, DOWN) == pytest.approx([0, 0])
    assert decide(HEURISTIC, s) == E.ACT_WALL + E.NUM_BETS + 0


def lucky(number: int, wad: int) -> int:
    return E.ACT_LUCKY + E.NUM_WADS * E.LUCKY_NUMBERS.index(number) + wad


def test_lucky_dice() -> None:
    s = at(table(), E.PHASE_LUCKY_BET, 1, mover=0)
    assert lucky_dice_gains(s) == pytest.approx([1 / 3, 1 / 5, -1 / 11, -1 / 11, 1 / 5, 1 / 3])
    # the expected gain: the largest wad (blue, 10) on 4, then on 10
    assert decide(HEURISTIC, s) == lucky(4, 3)
    E.apply_action(s, 1, lucky(4, 3))
    assert s[E.LUCKY_WADS] == 1 and s[E.ACTOR] == 1
    assert decide(HEURISTIC, s) == lucky(10, 3)
    # the "likeliest numbers": the smallest wad on 6, then stop
    likeliest = EasyMoneyHeuristicAgent(lucky="likeliest")
    fresh = at(table(), E.PHASE_LUCKY_BET, 1, mover=0)
    assert decide(likeliest, fresh) == lucky(6, 0)
    E.apply_action(fresh, 1, lucky(6, 0))
    assert decide(likeliest, fresh) == E.ACT_LUCKY_STOP
    # even odds everywhere: every number loses, 6 and 8 least: the expected-gain rule plays the likeliest too
    even = at(table(lucky_dice_odds=(1, 1, 1, 1, 1, 1)), E.PHASE_LUCKY_BET, 1, mover=0)
    assert decide(HEURISTIC, even) == lucky(6, 0)
    E.apply_action(even, 1, lucky(6, 0))
    assert decide(HEURISTIC, even) == E.ACT_LUCKY_STOP
    # a poor player: the largest wad it can afford
    poor = at(table(), E.PHASE_LUCKY_BET, 1, mover=0)
    poor[E.CASH + 1] = 7
    assert decide(HEURISTIC, poor) == lucky(4, 2)  # green, 5


def test_out_of_money_and_steal() -> None:
    s = at(table(), E.PHASE_BROKE, 0)
    s[E.CASH], s[E.STAKE] = 0, 0
    s[E.PAWN] = 5  # the default board's space 7 (2 ahead) is an Easy Money space: passed or landed on
    assert s[E.SPACES + 7] == E.SPACE_EASY_MONEY
    assert decide(HEURISTIC, s) == E.ACT_MOVE  # 35/36 x 10 + 1/36 x 20 = 10.3 > 7
    set_ahead(s, [E.SPACE_NOTHING] * 12)  # nothing to collect by moving: the cash roll (7 on average)
    assert decide(HEURISTIC, s) == E.ACT_CASH_ROLL
    set_ahead(s, [E.SPACE_NOTHING] * 6 + [E.SPACE_EASY_MONEY] + [E.SPACE_NOTHING] * 5)  # 7 ahead
    assert decide(HEURISTIC, s) == E.ACT_MOVE  # land 6/36 x 20 + pass 15/36 x 10 = 7.5 > 7
    set_ahead(s, [E.SPACE_NOTHING] * 7 + [E.SPACE_EASY_MONEY] + [E.SPACE_NOTHING] * 4)  # 8 ahead
    assert decide(HEURISTIC, s) == E.ACT_CASH_ROLL  # 5/36 x 20 + 10/36 x 10 = 5.6 < 7
    set_ahead(s, [E.SPACE_NOTHING] * 7 + [E.SPACE_GREED] + [E.SPACE_NOTHING] * 4)  # Greed 8 ahead: 5/36 x 8.14
    assert decide(HEURISTIC, s) == E.ACT_CASH_ROLL
    steal = at(table(), E.PHASE_STEAL, 1)
    steal[E.TICKETS_HELD : E.TICKETS_HELD + 4] = (2, 0, 1, 3)  # seat 1 steals: seat 3 (2 on) holds the most
    assert decide(HEURISTIC, steal) == E.ACT_STEAL + 1  # seat 3, 2 seats on
    steal[E.TICKETS_HELD : E.TICKETS_HELD + 4] = (3, 0, 1, 3)  # a tie: the nearest to the left
    assert decide(HEURISTIC, steal) == E.ACT_STEAL + 1


# --- strength ----------------------------------------------------------------------------------------------------


def rotating(games: int, players: int) -> np.ndarray:
    """Agent 1 everywhere but one seat per game (seat g mod P), agent 0."""
    seats = np.ones((games, players), dtype=np.int64)
    seats[np.arange(games), np.arange(games) % players] = 0
    return seats


def pre_final_money(result: dict, players: int) -> np.ndarray:
    """(G, P) cash + stake before the Final Lottery (with final_ante=0 it moves only the pot to its winner)."""
    fs = result["final_states"]
    money = (fs[:, E.CASH : E.CASH + players] + fs[:, E.STAKE : E.STAKE + players]).astype(np.int64)
    money[np.arange(len(fs)), fs[:, E.LAST_SEAT]] -= fs[:, E.LAST_AMOUNT]
    return money


def test_heuristic_beats_random_players() -> None:
    """4-player tables, the heuristic in a rotating seat against 3 random agents (20,000 games each).

    Default rules: the win share is measured only loosely (about 0.25: the Final Lottery decides, see the module
    docstring). With final_ante=0 (the same game until the Final Lottery) the heuristic is the richest player going
    into the Final Lottery in far more than its 1/4 of games and wins more often than a random seat."""
    games, players = 20_000, 4
    seats = rotating(games, players)
    pool = [EasyMoneyHeuristicAgent(), RandomAgent()]
    default = play_games("easy_money", seats, pool, seed=1)
    hero = seats == 0
    win = default["final_rewards"] > 0
    assert not default["truncated"].any()
    assert 0.23 < win[hero].mean() < 0.27  # measured 0.249
    no_ante = play_games("easy_money", seats, pool, config={"final_ante": 0}, seed=1)
    win = no_ante["final_rewards"] > 0
    money = pre_final_money(no_ante, players)
    richest = (money[hero][:, None] > money[~hero].reshape(games, players - 1)).all(axis=1)
    print(f"\nvs 3 random: default win share {(default['final_rewards'] > 0)[hero].mean():.3f}; final_ante=0: win "
          f"share {win[hero].mean():.3f}, richest before the Final Lottery {richest.mean():.3f}, money "
          f"{money[hero].mean():.1f} vs {money[~hero].mean():.1f}")  # fmt: skip
    assert win[hero].mean() > 0.27  # measured 0.291 (a random seat: 0.25; standard error 0.003)
    assert richest.mean() > 0.40  # measured 0.470 (random: 0.247)
    assert money[hero].mean() > money[~hero].mean() + 15  # measured 145.8 vs 117.7


def test_exact_greed_against_heuristic() -> None:
    """Head to head, 2-player tables, seats alternated: measured, asserted only loosely (they differ only at
    Greed's stop, by at most 0.41 units a sequence)."""
    games = 20_000
    seats = np.array([[0, 1], [1, 0]] * (games // 2))
    result = play_games("easy_money", seats, [GreedExactAgent(), EasyMoneyHeuristicAgent()], seed=2)
    win = result["final_rewards"] > 0
    share = win[seats == 0].sum() / win.sum()
    print(f"\nexact Greed vs heuristic, 2 players: {share:.3f} of the wins")
    assert 0.47 < share < 0.53  # measured 0.499
