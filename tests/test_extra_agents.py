"""Extra! agents: planning on engine states (the choices the observation-decoding agents made, kept), legality,
greedy against brute force on engine afterstates, the seat's own sheet read from any seat of any table, the
PettingZoo and batched faces alike, the registry, the solitaire adapter for observation policies, and the ranking
random < greedy < planner, expectimax in solitaire mean score (non-overlapping 95% CIs)."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents import make_agent
from dicearena.agents.base import Agent
from dicearena.agents.evaluation.stats import mean_ci
from dicearena.agents.extra import ExpectimaxAgent, GreedyAgent, PlannerAgent
from dicearena.agents.extra.evaluation import play_extra
from dicearena.agents.random_agent import RandomAgent, sample_masked
from dicearena.envs import extra_v0
from dicearena.envs.common.game_batch import BatchedGame
from dicearena.envs.common.seating import choose
from dicearena.envs.extra import engine as E
from dicearena.envs.extra.config import ExtraConfig

AGENTS = [GreedyAgent(), PlannerAgent(), ExpectimaxAgent()]
ODD_SHEET = {"penalty": 150, "minus_boxes": [2, 4, 3, 6, 8, 0, 12, 4, 5, 1, 3],
             "points": [90, 80, 55, 45, 35, 25, 45, 50, 65, 75, 120], "extra_columns": [6, 11, 5]}  # fmt: skip
GOLDEN_CONFIGS = {  # name: (config, random games played; seed = position in this dict)
    "solo": ({"num_players": 1}, 8),
    "three": ({"num_players": 3}, 3),
    "odd": ({"num_players": 2, "children": True, "sheet": ODD_SHEET}, 4),
}
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHI"  # action a is ALPHABET[a]
# The actions the agents chose when they decoded the observation floats into a one-player sheet (before they
# read engine states), on every decision of the GOLDEN_CONFIGS games (``_decisions``).
GOLDEN = {
    ("solo", "greedy"): (
        "338x0100ba1mv2ba0Dr10421Av1silkCplba2045Bt2bu0d5sH0230yD3gadf1j9c2aG02Bt72bIc91358e5A0ja05jj620w"
        "3g020ic2Akbd2y00d9ai3k05aAcjia0ksh0Ak22h0a1hk3ar11vl"
    ),
    ("solo", "planner"): (
        "338xr100ea4mD2ba0Ar1oiI1Av7silkCpebaAo4vBtaru0gvsHrc002e3z5df1j9tcaG05Bt72bIcc9lr8eoA0ja0EpD62cw"
        "ug0B0icaAkbdAy99dkai3k05aAnmCa0nshfAt92h0k1ok3ar1rvl"
    ),
    ("solo", "expectimax"): (
        "338xd100ea4mD8ha0Ar1iic1Av7silkCjebaAo4vBt8ru0gvsHrc002e3z5df1j9t8aG05Bt72bIcltF58eoA0ja0EpD62cw"
        "ug0B0icaAkbdAy99dkai3k05aAnmCa0nshfAt92h0k1ok3ar1rvl"
    ),
    ("three", "greedy"): (
        "iii107E0EeBea61110j9aaa90053afII20f2110hh72cdlpiplj10srrr11Dbb6kb2st900k99012jab0b1199006a99l42k"
        "e1b33a9w0e20gab666100hbb100a99A52nbb400jCi952srrAkkj2lsafj"
    ),
    ("three", "planner"): (
        "GGGji7EDEeBea69tw3Cjdnn93053AfIIy0f2170Gh72cdlpipljA0irrrEEDbb6kb2st900kEjjcjjde0ekb9c3q6g99l45B"
        "e1b3gt9w01m6gab666100hbb106akqA52AbhcssjCi9BBsrrAkkFowsafj"
    ),
    ("three", "expectimax"): (
        "iiiji7EDEeBGa69tw3Cjdnn9305gDf6Iy0f2170Gh72cdlpipljA0irrrEEDDD6kbist900kEjjcjjae0ekb9c3q6g99l4BB"
        "e1b3gt9904m6gab666130hCb106akqA52vbxcssjCi9BBsrrAkkjowsxfj"
    ),
    ("odd", "greedy"): (
        "331usegqp92ckjAAi1qrFEaih3310101005ba38rA244381hgs9DAwmv39910s6Aeac10G8mb3tr9cu21srbiiggt30sdej0"
        "b6gu12cr129s0j0dif12120hr"
    ),
    ("odd", "planner"): (
        "334u4yzvpf2ckjAAieqrFEgihAA10d91sj5ba68rAj44vA1hgs9Dywmv3oo10s6Aeac10G8mb3tr9vu27srbiig4t30saej6"
        "b6gh12cr189s3m3dif1212ayr"
    ),
    ("odd", "expectimax"): (
        "441v4ezqpf2ckjAAi1qrFEgihBB11d91sj5ba68rAj44vA7hgskaywmv3pp11s6Aeac10G8mb3tr9vu87srbjjg4t30saej6"
        "b6gh12cr189s3m3dif1212ayr"
    ),
}


def _decisions(config: dict, games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(states, masks, seats) of every decision in ``games`` random games played on the engine itself, the seats
    asked one after another (a later seat's state holds the earlier seats' recorded choices, as in the AEC env)."""
    head = E.header(ExtraConfig(**config))
    rng = np.random.default_rng(seed)
    states, masks, seats = [], [], []
    for _ in range(games):
        state = np.zeros(E.STATE_SIZE, dtype=np.int32)
        E.init_state(state, head)
        while state[E.PHASE] != E.PHASE_OVER:
            E.apply_chance(state, rng.integers(0, E.NUM_FACES, E.NUM_DICE))
            for seat in range(state[E.NUM_PLAYERS]):
                mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
                E.legal_mask(state, seat, mask)
                if mask.any():
                    states.append(state.copy())
                    masks.append(mask)
                    seats.append(seat)
                    E.apply_action(state, seat, int(rng.choice(np.flatnonzero(mask))))
    return np.array(states), np.array(masks), np.array(seats, dtype=np.int64)


def _solitaire_scores(agent, games: int, seed: int, batch: int = 512) -> np.ndarray:
    result = play_extra(np.zeros((games, 1), dtype=np.int64), [agent], seed=seed, batch_size=batch)
    return result["scores"][:, 0]


@pytest.mark.parametrize("game", list(GOLDEN_CONFIGS))
def test_the_agents_choose_from_engine_states_as_they_did_from_observations(game: str) -> None:
    config, games = GOLDEN_CONFIGS[game]
    states, masks, seats = _decisions(config, games, seed=list(GOLDEN_CONFIGS).index(game))
    assert len(states) > 100 and (seats > 0).any() == (config["num_players"] > 1)
    for agent in AGENTS:
        expected = [ALPHABET.index(c) for c in GOLDEN[game, agent.name.removeprefix("extra_")]]
        chosen = agent.act_states(states, masks, seats)
        np.testing.assert_array_equal(chosen, expected, err_msg=f"{agent.name} on {game}")
        assert masks[np.arange(len(states)), chosen].all()
        for k in range(0, len(states), 37):  # one position at a time, as a PettingZoo loop asks
            assert agent.act(None, masks[k], state=states[k], seat=int(seats[k])) == expected[k]
    mixed = {}  # every table and sheet layout in one batch: the same choices
    for name, (config, games) in GOLDEN_CONFIGS.items():
        mixed[name] = _decisions(config, games, seed=list(GOLDEN_CONFIGS).index(name))
    states, masks, seats = (np.concatenate(parts) for parts in zip(*mixed.values(), strict=True))
    chosen = PlannerAgent().act_states(states, masks, seats)
    expected = [ALPHABET.index(c) for name in GOLDEN_CONFIGS for c in GOLDEN[name, "planner"]]
    np.testing.assert_array_equal(chosen, expected)


def test_a_seat_plays_its_own_sheet_whatever_the_table() -> None:
    """The same sheet and throw at seat 0 of a solitaire game and at seat 2 of a 4-player game, next to other
    sheets and recorded choices: the same action."""
    states, masks, seats = _decisions({"num_players": 4}, 2, seed=5)
    late = seats == 2
    solo = np.zeros((int(late.sum()), E.STATE_SIZE), dtype=np.int32)
    block = E.PLAYERS + 2 * E.PLAYER_SIZE
    solo[:, : E.PLAYERS] = states[late, : E.PLAYERS]
    solo[:, E.NUM_PLAYERS] = 1
    solo[:, E.PLAYERS : E.PLAYERS + E.PLAYER_SIZE] = states[late, block : block + E.PLAYER_SIZE]
    playing = states[late][:, E.PLAYERS + E.P_DONE] == 0
    assert playing.any() and (states[late][playing, E.PLAYERS + E.P_PENDING] >= 0).all()  # seat 0 chose already
    for agent in AGENTS:
        np.testing.assert_array_equal(agent.act_states(states[late], masks[late], seats[late]),
                                      agent.act_states(solo, masks[late], 0))  # fmt: skip


@pytest.mark.parametrize("players", [1, 3])
def test_agents_only_play_legal_actions_in_solitaire_and_the_full_game(players: int) -> None:
    for agent in AGENTS:
        batch = BatchedGame("extra", 16, num_players=players, seed=players)
        obs, masks, _ = batch.reset()
        for _ in range(25):
            acting = masks.any(axis=2)
            actions = np.full((16, players), -1, dtype=np.int64)
            for seat in range(players):
                rows = np.flatnonzero(acting[:, seat])
                if rows.size:
                    chosen = choose(agent, obs[rows, seat], masks[rows, seat], batch.states[rows], seat)
                    assert masks[rows, seat, chosen].all(), agent.name
                    actions[rows, seat] = chosen
            obs, masks, *_ = batch.step(actions)  # raises on an illegal action


@pytest.mark.parametrize("config", [{}, {"children": True, "sheet": ODD_SHEET}])
def test_greedy_matches_brute_force_over_engine_afterstates(config: dict) -> None:
    """Independent check of the chooser: best afterstate score by the engine, under the sheet in the state."""
    agent = GreedyAgent()
    batch = BatchedGame("extra", 32, num_players=2, seed=9, **config)
    _, masks, _ = batch.reset()
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(15):
        for b in range(32):
            for seat in range(2):
                legal = np.flatnonzero(masks[b, seat])
                if legal.size == 0:
                    continue
                values = []
                for action in legal:
                    state = batch.states[b].copy()
                    E.apply_action(state, seat, int(action))
                    if state[E.PHASE] == E.PHASE_DECIDE:  # the other seat still decides: resolve with its choice
                        other = 1 - seat
                        E.apply_action(state, other, int(np.flatnonzero(masks[b, other])[0]))
                    values.append(E.score(state, seat))
                chosen = agent.act(None, masks[b, seat], state=batch.states[b], seat=seat)
                assert values[list(legal).index(chosen)] == max(values)
                checked += 1
        actions = sample_masked(masks.reshape(-1, E.NUM_ACTIONS), rng).reshape(32, 2)
        _, masks, *_ = batch.step(actions)
    assert checked > 500


def test_the_parallel_env_and_the_batched_engine_play_the_same_game() -> None:
    """A PettingZoo loop hands the agent the engine state and its seat; a 1-game batch seeded alike replays it."""
    players = [PlannerAgent(), GreedyAgent(), ExpectimaxAgent()]
    env = extra_v0.parallel_env(num_players=3)
    observations, _ = env.reset(seed=7)
    batch = BatchedGame("extra", 1, num_players=3, seed=7)
    obs, masks, _ = batch.reset()
    rounds = 0
    while env.agents:
        actions = {a: players[int(a[-1])].act(observations[a]["observation"], observations[a]["action_mask"],
                                              state=env.state(), seat=int(a[-1])) for a in env.agents}  # fmt: skip
        batched = np.full((1, 3), -1, dtype=np.int64)
        for seat, agent in enumerate(players):
            if masks[0, seat].any():
                batched[0, seat] = choose(agent, obs[0, seat][None], masks[0, seat][None], batch.states, seat)[0]
        assert {a: int(batched[0, int(a[-1])]) for a in env.agents} == actions
        observations, *_ = env.step(actions)
        obs, masks, _, _, _, info = batch.step(batched)
        rounds += 1
    assert rounds > 5 and len(info["ended"]) == 1


def test_bad_input_and_registry() -> None:
    agent = PlannerAgent()
    assert agent.reads_state and all(a.reads_state for a in AGENTS)
    states, masks, seats = _decisions({"num_players": 2}, 1, seed=0)
    with pytest.raises(TypeError, match="plans on Extra! engine states, not observations: call act_states"):
        agent.act_batch(np.zeros((2, E.observation_size(2))), masks[:2])
    with pytest.raises(ValueError, match="pass state=env.state"):
        agent.act(np.zeros(E.observation_size(2)), masks[0])
    with pytest.raises(ValueError, match="mask is empty"):
        agent.act(None, np.zeros(45), state=states[0], seat=0)
    with pytest.raises(ValueError, match=r"engine states \(k, \d+\) and masks \(k, 45\)"):
        agent.act_states(states[:2, :-1], masks[:2], seats[:2])
    with pytest.raises(ValueError, match=r"masks \(k, 45\)"):
        agent.act_states(states[:2], masks[:2, :44], seats[:2])
    with pytest.raises(ValueError, match="not all seats of their games"):
        agent.act_states(states[:2], masks[:2], np.array([0, 2]))
    assert agent.act_states(states[:0], masks[:0], seats[:0]).shape == (0,)
    with pytest.raises(ValueError, match="params must be 3"):
        PlannerAgent(params=(1.0, 2.0))
    with pytest.raises(TypeError, match="bad arguments"):  # the sheet is read from each state
        make_agent("extra_planner", sheet={"penalty": 100})
    assert isinstance(make_agent("extra_greedy"), GreedyAgent)
    assert isinstance(make_agent("extra_planner", params=(1.0, 0.0, 0.0)), PlannerAgent)
    assert isinstance(make_agent("extra_expectimax"), ExpectimaxAgent)


def test_ranking_random_greedy_planner_expectimax_in_solitaire() -> None:
    """Means with 95% CIs; each comparison needs the intervals apart (true gaps are 5-60x the half-widths)."""
    random_ = mean_ci(_solitaire_scores(RandomAgent(seed=0), 1000, seed=1))
    greedy = mean_ci(_solitaire_scores(GreedyAgent(), 2000, seed=2))
    planner = mean_ci(_solitaire_scores(PlannerAgent(), 2000, seed=3))
    expectimax = mean_ci(_solitaire_scores(ExpectimaxAgent(), 150, seed=4, batch=150))
    assert random_[0] + random_[1] < greedy[0] - greedy[1], (random_, greedy)
    assert greedy[0] + greedy[1] < planner[0] - planner[1], (greedy, planner)
    assert greedy[0] + greedy[1] < expectimax[0] - expectimax[1], (greedy, expectimax)


class _Recording(Agent):
    """An observation policy that keeps what it was shown and plays the best shown score change."""

    name = "recording"

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        self.seen = np.array(observations)
        gains = observations[:, E.OBS_GAINS : E.OBS_GAINS + E.NUM_ACTIONS]
        return np.where(action_masks > 0, gains, -np.inf).argmax(axis=1)


def test_solitaire_policy_at_table_sees_its_own_sheet_as_a_solitaire_game() -> None:
    """The table observation's prefix is the seat's solitaire view: the observation of a one-player game holding
    the seat's sheet and the throw."""
    from dicearena.agents.extra.at_table import SolitairePolicyAtTable

    seated = SolitairePolicyAtTable(inner := _Recording())
    batch = BatchedGame("extra", 32, num_players=3, seed=11)
    obs, masks, _ = batch.reset()
    rng = np.random.default_rng(0)
    for _ in range(15):
        rows, seats = np.nonzero(masks.any(axis=-1))
        chosen = seated.act_batch(obs[rows, seats], masks[rows, seats])
        assert inner.seen.shape == (len(rows), E.observation_size(1)) and obs.shape[-1] > E.observation_size(1)
        for k, (b, seat) in enumerate(zip(rows, seats, strict=True)):
            solo = np.zeros(E.STATE_SIZE, dtype=np.int32)
            block = E.PLAYERS + seat * E.PLAYER_SIZE
            solo[: E.PLAYERS] = batch.states[b, : E.PLAYERS]
            solo[E.NUM_PLAYERS] = 1
            solo[E.PLAYERS : E.PLAYERS + E.PLAYER_SIZE] = batch.states[b, block : block + E.PLAYER_SIZE]
            view = np.zeros(E.observation_size(1), dtype=np.float32)
            E.encode_observation(solo, 0, view)
            np.testing.assert_array_equal(inner.seen[k], view)
        assert masks[rows, seats, chosen].all()
        actions = np.full(masks.shape[:2], -1, dtype=np.int64)
        actions[rows, seats] = sample_masked(masks[rows, seats], rng)
        obs, masks, *_ = batch.step(actions)


def test_board_value_is_each_seats_own_planning_value_and_a_finished_seat_its_score() -> None:
    from dicearena.agents.extra.learned_planner import TABLES, LearnedPlannerAgent, load_tables
    from dicearena.agents.search import SearchAgent

    states, masks, seats = _decisions({"num_players": 2}, 6, seed=4)
    tables, _ = load_tables(TABLES)
    want = np.zeros((len(states), 2))
    for i, state in enumerate(states):
        for seat in range(2):
            base = E.PLAYERS + seat * E.PLAYER_SIZE
            if state[base + E.P_DONE]:
                points = E.score(state, seat)
            else:  # the learned tables summed by hand: one entry per row, per EXTRA column and per EXTRA number
                points = sum(tables["rows"][r, state[base + E.P_ROWS + r]] for r in range(E.NUM_ROWS))
                for j in range(E.NUM_COLUMNS):
                    points += tables["columns"][j, state[base + E.P_CHECKS + j]]
                    points += tables["numbers"][state[base + E.P_NUMBER + j]]
            want[i, seat] = np.tanh((points + 500.0) / 1000.0)
    finished = states[:, E.PLAYERS + E.P_DONE] + states[:, E.PLAYERS + E.PLAYER_SIZE + E.P_DONE]
    assert 0 < np.count_nonzero(finished) < len(states)  # both branches are checked
    agent = LearnedPlannerAgent()
    np.testing.assert_allclose(agent.board_value(states), want, rtol=0, atol=1e-12)
    scores = np.array([[E.score(state, seat) for seat in range(2)] for state in states])
    np.testing.assert_allclose(GreedyAgent().board_value(states, centre=0.0, scale=100.0), np.tanh(scores / 100.0))
    with pytest.raises(ValueError, match=r"board_value takes \(k, 171\) Extra! engine states"):
        agent.board_value(states[:, :5])
    with pytest.raises(ValueError, match="positive scale"):
        agent.board_value(states, scale=0.0)
    # the search agent's leaf evaluator: legal moves, the same again from the same seed
    picks = [SearchAgent("extra", simulations=60, depth=3, evaluator=agent.board_value, seed=7)
             .act_states(states[:12], masks[:12], seats[:12]) for _ in range(2)]  # fmt: skip
    assert masks[np.arange(12), picks[0]].all()
    assert picks[0].tolist() == picks[1].tolist()
