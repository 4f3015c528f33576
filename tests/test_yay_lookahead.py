"""Yay! lookahead agent: its choices pinned on recorded positions (the same as when it decoded observations), the
engine states it reads left untouched, legality over many random games, its decisions on crafted positions,
strength against the greedy agent, and the registry, seeding and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents import make_agent
from dicearena.agents.evaluation.play import play_games
from dicearena.agents.yay import YayGreedyAgent, YayLookaheadAgent
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.yay import engine as E
from dicearena.envs.yay.engine import final_standings
from dicearena.envs.yay_v0 import raw_env
from tests.yay_scripts import POSITION_CASES, after_first_turns, block, decide, game, put, random_positions, sq, throw

AGAIN = 192  # throw again on the default 8x8 sheet
AGENT = YayLookaheadAgent(seed=0)
GREEDY = YayGreedyAgent()


def choice(env: raw_env, agent: YayLookaheadAgent = AGENT) -> int:
    """The agent's action for the player to move (planned on the engine state); it must be legal."""
    action = decide(agent, env)
    assert env.observe(env.agent_selection)["action_mask"][action] == 1
    return action


def over(env: raw_env) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


# --- (a) it plans on the engine state: the old choices, the state untouched

# Choices of the agent as it was when it rebuilt a state from observation floats (die size and end rule given to
# it), seed 0, each game's decisions as one batch (tests/yay_scripts.py's POSITION_CASES): reading the engine state
# changed no decision, and the die size and end rule now come from the state.
OLD_CHOICES = [
    "7 61 5 22 63 12 149 17 5 162 8 8 17 12 192 33 3 192 192 192 192 181 192 52 28 10 10 43 39 17 192 32 46 192 52 20 "
    "36 43 192 43 192 18 42 18 192 5 55 192 1 192 192 82 49 39 192 42 192 79 192",
    "23 57 39 22 23 16 30 59 23 159 192 29 44 35 51 42 2 19 37 26 22 23 164 61 59 33 188 33 164 26 192 47 192 21 42 "
    "35 154 47 186 37 192 61 192 21 192 164 59 59 186 192 10 132 192 192 192 40 30 192 50 192 50 129 12 192",
    "1 7 4 21 28 105 9 27 9 73 10 105 105 9 24 10 12 15 28 105 0 4 86 105 99 9 9 105 26 17 25 28 105 15 27 105 0 80 26",
    "35 0 10 17 22 22 22 34 108 108 16 16 108 13 108 108 108 29 108 78 34 16 78 11 16 11",
]


@pytest.mark.parametrize(("case", "expected"), list(zip(POSITION_CASES, OLD_CHOICES, strict=True)))
def test_choices_on_recorded_positions_are_the_observation_agents(case: tuple, expected: str) -> None:
    """2 and 4 players on 8x8, 3 players on 5x7 ending at a full row and column, a 4x9 sheet with small dice and a
    turn limit (which the plan ignores, as the observation agent did)."""
    states, masks, seats = random_positions(*case)
    assert YayLookaheadAgent(seed=0).act_states(states, masks, seats).tolist() == [int(a) for a in expected.split()]


def test_plans_on_read_only_engine_states_and_leaves_them_as_they_were() -> None:
    """The batched engine's ``states`` are a read-only view: the agent plans on copies, so they do not change."""
    engine = BatchedGame("yay", 64, {"num_players": 3}, seed=5, copy=False)
    _, masks, info = engine.reset(seed=5)
    for _ in range(20):
        before = engine.states.copy()
        assert not engine.states.flags.writeable
        actions = AGENT.act_states(engine.states, masks, info["to_act"])
        np.testing.assert_array_equal(engine.states, before)
        assert (masks[np.arange(64), actions] == 1).all()
        _, masks, _, _, _, info = engine.step(actions)


# --- (b) legality


def play(agents: list, seed: int, **config: object) -> dict[str, float]:
    """One raw AEC game (an illegal action would raise); every action checked against the mask."""
    env = raw_env(**config)
    env.reset(seed=seed)
    while not over(env):
        agent = agents[env.possible_agents.index(env.agent_selection)]
        action = decide(agent, env)
        assert env.observe(env.agent_selection)["action_mask"][action] == 1, (type(agent).__name__, action)
        env.step(action)
    return env.rewards


@pytest.mark.parametrize(
    ("config", "games"),
    [({}, 12), ({"num_players": 4}, 6), ({"rows": 5, "cols": 7}, 12), ({"num_players": 3, "rows": 5, "cols": 7}, 8)],
)
def test_only_legal_actions_in_random_games(config: dict, games: int) -> None:
    """Lookahead in every seat, or one lookahead among random and greedy players; shared agents across seats."""
    n = config.get("num_players", 2)
    lookahead = YayLookaheadAgent(samples=8, seed=3)
    others = [make_agent("random", seed=4), YayGreedyAgent()]
    for seed in range(games):
        seats = [lookahead] * n if seed % 3 == 0 else [others[seed % 2]] * n
        seats[seed % n] = lookahead
        play(seats, seed, **config)


def test_a_batch_of_positions_gets_legal_actions() -> None:
    """act_states over positions of different games and table sizes, both kinds of decision among them."""
    states, masks, seats = (np.concatenate(x) for x in zip(*(random_positions({"num_players": 2 + seed % 3}, seed)
                                                              for seed in range(6)), strict=True))  # fmt: skip
    assert len(set(seats.tolist())) == 4 and {E.PHASE_DECIDE, E.PHASE_CROSS} <= set(states[:, E.PHASE].tolist())
    actions = AGENT.act_states(states, masks, seats)
    assert (masks[np.arange(len(masks)), actions] == 1).all()


# --- (c) decisions on crafted positions


@pytest.mark.parametrize(("num_players", "mover", "opponent"), [(2, 0, 1), (2, 1, 0), (4, 0, 3), (4, 2, 1), (4, 3, 0)])
def test_crosses_an_opponent_number_when_it_can(num_players: int, mover: int, opponent: int) -> None:
    """Total 12: the square beside an opponent's 9 (any relative seat) beats every other touched square; an own 9
    beside another touched square must not be mistaken for an opponent's. First turn, and later with own numbers
    to lose on a re-throw."""
    for later in (False, True):
        env = game(throw([4, 4, 4], (3, 4)), throw([1, 1, 1], (0, 3)), num_players=num_players, starter=mover)
        if later:
            after_first_turns(env)
            put(env, mover, 10, (0, 0), (7, 7))
        put(env, mover, 9, (3, 6))  # beside (3, 5), a touched square
        put(env, opponent, 9, (4, 6))  # beside (4, 5), a touched square
        action = choice(env, YayLookaheadAgent(seed=0))
        assert action == sq(4, 5), (later, action)
        env.step(action)
        assert E.is_crossed(env.engine_state[E.BOARD + sq(4, 6)])


@pytest.mark.parametrize("seed", range(4))
def test_throws_again_on_a_low_total_like_the_greedy_agent(seed: int) -> None:
    """A 5 later in the game (the next throw beats it 95% of the time): both agents throw again, with or without
    own numbers at stake; in the first turn the first throw counts."""
    agent = YayLookaheadAgent(seed=seed)
    first = game(throw([1, 2, 2], (3, 3)))
    assert choice(first, agent) < 64
    for own in (False, True):
        env = game(throw([1, 2, 2], (3, 3)))
        after_first_turns(env)
        if own:
            put(env, 0, 11, (0, 4), (6, 0), (7, 3))
        assert choice(env, GREEDY) == AGAIN
        assert choice(env, agent) == AGAIN, own


@pytest.mark.parametrize("seed", range(4))
def test_writes_an_18_and_never_throws_it_again(seed: int) -> None:
    """An 18 can never be beaten: throwing again only risks a cross-off (or gives the turn away)."""
    agent = YayLookaheadAgent(seed=seed)
    for own in (False, True):
        env = game(throw([6, 6, 6], (3, 3)))
        after_first_turns(env)
        if own:
            put(env, 0, 7, (0, 4), (6, 0))
        assert choice(env, agent) < 64


def test_a_forced_cross_off_gives_up_the_cheapest_number() -> None:
    """Rule 9 (10 then 10): of own 12, 7 and 5 the open 5 goes (lowest, and the easiest for opponents to cross)."""
    env = game(throw([3, 3, 4], (3, 3)), throw([4, 4, 2], (3, 3)), throw([1, 1, 1], (3, 0)))
    after_first_turns(env)
    put(env, 0, 12, (2, 6))
    put(env, 0, 7, (0, 7))
    put(env, 0, 5, (5, 5))
    env.step(AGAIN)
    assert env.engine_state[E.PHASE] == E.PHASE_CROSS
    assert choice(env) == 128 + sq(5, 5)


def closing(ahead: bool) -> raw_env:
    """First turn, total 12: row 7 is full but for (7, 3), which a die touches. Writing there ends the game."""
    env = game(throw([4, 4, 4], (6, 3), parked=((0, 0), (0, 5))), throw([1, 1, 1], (0, 0), parked=((3, 3), (6, 6))))
    block(env, *[(7, c) for c in range(8) if c != 3])
    put(env, 1, 18, (3, 0), (3, 2), (3, 4), (3, 6))
    if ahead:
        put(env, 0, 18, (5, 0), (5, 2), (5, 4), (5, 6), (4, 7))
    return env


def test_ends_the_game_when_ahead_and_not_when_behind() -> None:
    """The greedy agent writes into the least exposed square, (7, 3), either way; the lookahead only when the
    write wins the game."""
    for ahead in (True, False):
        env = closing(ahead)
        assert choice(env, GREEDY) == sq(7, 3)
        action = choice(env)
        assert (action == sq(7, 3)) == ahead, (ahead, action)
        env.step(action)
        assert over(env) == ahead


# --- (d) strength


def test_beats_the_greedy_agent_clearly() -> None:
    """600 seeded two-player games (dicearena.agents.evaluation.play, the contract's batched engine), seats alternated:
    measured 0.59
    (shared wins count; 0.62 and 0.63 over 3000 games of seeds 7 and 8); asserted > 0.55, 3 standard errors below
    the 3000-game rate."""
    games = 600
    seats = np.array([[0, 1], [1, 0]] * (games // 2))
    result = play_games("yay", seats, [YayLookaheadAgent(), YayGreedyAgent()], seed=7, batch_size=200)
    standings = final_standings(result["final_states"], 2)
    keys = standings[..., 0] * 2048 + standings[..., 1]
    mine = keys[np.arange(games), (seats == 0).argmax(1)]
    theirs = keys[np.arange(games), (seats == 1).argmax(1)]
    assert not result["truncated"].any()
    rate = float((mine >= theirs).mean())
    assert rate > 0.55, rate


# --- (e) registry, seeding, bad input


def test_registry_seeding_and_bad_input() -> None:
    agent = make_agent("yay_lookahead", samples=16, seed=5)
    assert isinstance(agent, YayLookaheadAgent) and agent.name == "yay_lookahead" and agent.samples == 16
    assert agent.reads_state
    five = raw_env(rows=5, cols=7, num_players=3, end_when="row_and_column")  # any game: read off the state
    five.reset(seed=0)
    assert five.observe(five.agent_selection)["action_mask"][decide(agent, five)] == 1

    def actions(agent: YayLookaheadAgent, seed: int) -> list[int]:
        record: list[int] = []
        env = raw_env()
        env.reset(seed=seed)
        while not over(env):
            record.append(decide(agent, env))
            env.step(record[-1])
        return record

    agent = YayLookaheadAgent(samples=4)
    agent.reset(seed=11)
    once = actions(agent, 3)
    actions(agent, 4)
    agent.reset(seed=11)
    assert actions(agent, 3) == once  # reset(seed) replays the game exactly
    assert once == actions(YayLookaheadAgent(samples=4, seed=11), 3)  # so does the constructor's seed

    env = game(throw([4, 4, 4], (3, 3)))
    eight, state = env.observe("player_0"), env.state()
    with pytest.raises(ValueError, match=r"plans on the engine state: pass state=env.state\(\) and seat="):
        AGENT.act(eight["observation"], eight["action_mask"])
    with pytest.raises(TypeError, match=r"plans on Yay! engine states, not observations: call act_states"):
        AGENT.act_batch(eight["observation"][None], eight["action_mask"][None])
    with pytest.raises(ValueError, match=r"state 0 is a 8x8 sheet, whose masks have 193 entries, got 106"):
        AGENT.act_states(state[None], np.ones((1, 106), dtype=np.int8), np.array([0]))
    with pytest.raises(ValueError, match="state 0 does not wait for a decision of seat 1"):
        AGENT.act_states(state[None], eight["action_mask"][None], np.array([1]))
    with pytest.raises(ValueError, match="mask is empty"):
        AGENT.act(eight["observation"], np.zeros(193, dtype=np.int8), state=state, seat=0)
    bad = [
        ({"samples": 0}, "'samples' must be an integer 1..10000"),
        ({"samples": 2.5}, "'samples' must be an integer"),
        ({"own_risk": float("nan")}, "'own_risk' must be a finite number"),
        ({"end_weight": "big"}, "'end_weight' must be a finite number"),
        ({"lead_scale": 0.0}, "'lead_scale' must be positive"),
    ]
    for kwargs, message in bad:
        with pytest.raises(ValueError, match=message):
            make_agent("yay_lookahead", **kwargs)
    for kwargs in ({"sheet": 3}, {"rows": 5, "cols": 7}, {"die_size": 1.27}, {"end_when": "row_and_column"}):
        with pytest.raises(TypeError, match="bad arguments"):  # the game is the state's, not the agent's
            make_agent("yay_lookahead", **kwargs)


def test_board_value_is_every_seats_value_in_reward_units() -> None:
    """The lookahead's value as the search agent's leaf evaluator: one value per seat in (-1, 1) on an unfinished
    board (a lead for one seat of two is about as large a deficit for the other), the final reward on a finished
    one; a batch of the wrong shape is refused by name."""
    from dicearena.agents.search import SearchAgent
    from dicearena.agents.yay.learned_lookahead import LearnedLookaheadAgent
    from dicearena.bench.bench_search import sample_decisions

    states, masks, seats = sample_decisions("yay", 60, seed=1)
    for agent in (YayLookaheadAgent(), LearnedLookaheadAgent()):
        values = agent.board_value(states)
        assert values.shape == (60, 2) and np.all(np.abs(values) < 1)
        assert np.corrcoef(values[:, 0], values[:, 1])[0, 1] < -0.7 and np.abs(values).max() > 0.05
    ended = states[:1].copy()
    ended[0, E.PHASE] = E.PHASE_OVER
    final = np.array([[E.final_reward(ended[0], seat) for seat in range(2)]])
    assert np.array_equal(YayLookaheadAgent().board_value(ended), final)
    with pytest.raises(ValueError, match="board_value takes"):
        YayLookaheadAgent().board_value(states[:, :10])
    search = SearchAgent("yay", simulations=40, depth=4, evaluator=YayLookaheadAgent().board_value, seed=0)
    actions = search.act_states(states[:8], masks[:8], seats[:8])
    assert all(masks[i, a] == 1 for i, a in enumerate(actions))
