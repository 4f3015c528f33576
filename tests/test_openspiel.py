"""Every game and task inside OpenSpiel (issue 23.2, the ``openspiel`` extra): registered as pyspiel Python games with
their ``GameType`` declared truthfully, then OpenSpiel's own tools, unchanged: its random-simulation test on every
game, ``MCTSBot`` with random rollouts on every sequential one, ``evaluate_bots``, and alpha-rank over a payoff table
from our tournament. CI installs the extra, so a missing ``pyspiel`` fails here instead of skipping."""

from __future__ import annotations

import numpy as np
import pytest

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - the message says how to get it
    raise ImportError("tests/test_openspiel.py needs the openspiel extra: pip install -e '.[openspiel]'") from exc
from open_spiel.python.algorithms import evaluate_bots, mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot
from open_spiel.python.egt import alpharank
from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation

from dicearena.agents import make_agent
from dicearena.agents.evaluation.tournament import tournament
from dicearena.envs.common.config import ConfigError
from dicearena.envs.common.contract import GAMES
from dicearena.envs.common.game_state import import_tasks, load_game
from dicearena.envs.openspiel import AgentBot, register_openspiel_games, short_name

SUITE = ["easy_come_easy_go", "easy_money", "extra", "yay"]  # (another test module may have registered Pig)
IDS = SUITE + ["easy_come_easy_go_turn", "easy_money_greed", "extra_solitaire"]
NAMES = register_openspiel_games()
Type = pyspiel.GameType

# What the rules say (envs/<game>/README.md), written out here rather than read back from the adapter's table.
PERFECT = {"easy_come_easy_go", "yay", "easy_come_easy_go_turn", "easy_money_greed", "extra_solitaire"}
ZERO_SUM = {"easy_come_easy_go"}  # 2 players: +1 / -1 for a win, 0 / 0 after truncation; no shared wins
UTILITY_BOUNDS = {"easy_come_easy_go": (-1, 1), "easy_money": (-1, 1), "extra": (-1, 1), "yay": (-1, 1),
                  "easy_come_easy_go_turn": (0, 1), "easy_money_greed": (0, 40),
                  "extra_solitaire": (-11 * 200 / 100, 5 * 670 / 100)}  # fmt: skip  (11 rows, each with minus boxes)


def load(game_id: str, **params: object) -> pyspiel.Game:
    """The pyspiel game, seeded where its chance is sampled."""
    game = pyspiel.load_game(short_name(game_id))
    if "rng_seed" in game.get_parameters():
        params = {"rng_seed": 0, **params}
    return pyspiel.load_game(short_name(game_id), params) if params else game


def test_every_game_and_task_is_registered() -> None:
    assert set(SUITE) <= set(GAMES) and import_tasks() == IDS[len(SUITE):]
    assert NAMES == [short_name(g) for g in sorted(GAMES) + import_tasks()]
    assert set(NAMES) <= set(pyspiel.registered_names())
    assert register_openspiel_games() == NAMES  # idempotent


def test_a_game_from_outside_the_suite_claims_the_least() -> None:
    """A game registered by the user's own module (examples/pig) is added by the next call, declared with what its
    spec says (dynamics, chance) and the least it can claim otherwise (adapter's FACTS: no entry)."""
    import examples.pig.pig_game  # noqa: F401  (registers "pig")

    assert short_name("pig") in register_openspiel_games()
    pig = pyspiel.load_game(short_name("pig"), {"target": 12})
    kind = pig.get_type()
    assert kind.chance_mode == Type.ChanceMode.EXPLICIT_STOCHASTIC and kind.dynamics == Type.Dynamics.SEQUENTIAL
    assert kind.information == Type.Information.IMPERFECT_INFORMATION and kind.utility == Type.Utility.GENERAL_SUM
    assert (pig.min_utility(), pig.max_utility()) == (-1e6, 1e6)
    pyspiel.random_sim_test(pig, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", IDS)
def test_the_game_type_is_declared_from_the_spec(game_id: str) -> None:
    ours, game = load_game(game_id), load(game_id)
    kind = game.get_type()
    assert kind.dynamics == (Type.Dynamics.SIMULTANEOUS if ours.spec.dynamics == "simultaneous"
                             else Type.Dynamics.SEQUENTIAL)  # fmt: skip
    explicit = ours.spec.every_chance_enumerable and ours.max_chance_outcomes() > 0
    assert kind.chance_mode == (Type.ChanceMode.EXPLICIT_STOCHASTIC if explicit else Type.ChanceMode.SAMPLED_STOCHASTIC)
    assert kind.information == (Type.Information.PERFECT_INFORMATION if game_id in PERFECT
                                else Type.Information.IMPERFECT_INFORMATION)  # fmt: skip
    assert kind.utility == (Type.Utility.ZERO_SUM if game_id in ZERO_SUM else Type.Utility.GENERAL_SUM)
    assert kind.reward_model == Type.RewardModel.TERMINAL and kind.provides_observation_tensor
    assert kind.provides_observation_string == (game_id in PERFECT)
    assert (game.min_utility(), game.max_utility()) == UTILITY_BOUNDS[game_id]
    assert game.num_players() == ours.num_players() and game.num_distinct_actions() == ours.num_distinct_actions()
    assert game.observation_tensor_shape() == [ours.observation_tensor_size()]
    assert ("rng_seed" in kind.parameter_specification) == (not explicit)


@pytest.mark.parametrize("game_id", IDS)
def test_openspiel_random_simulation_test(game_id: str) -> None:
    """OpenSpiel's own checks over random games: legal actions, chance outcomes that sum to 1, returns inside the
    declared utility bounds (and summing to 0 in a zero-sum game), lengths within max_game_length, observations of
    the declared shape, clones that play on independently; and states that serialize and load back, where pyspiel
    can serialize the game (it asks a sampled-chance game for an RNG state, which a Python game cannot give)."""
    game = load(game_id)
    explicit = game.get_type().chance_mode == Type.ChanceMode.EXPLICIT_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=4, serialize=explicit, verbose=False)


VARIANTS = {  # other configs: other bounds, sums and lengths to declare truthfully
    "eceg-4p-zero-sum": ("easy_come_easy_go", {"num_players": 4, "zero_sum": True}),
    "eceg-3p-2-vs-1": ("easy_come_easy_go", {"num_players": 3, "win_reward": 2.0, "loss_reward": -1.0}),
    "easy-money-2p-money": ("easy_money", {"num_players": 2, "reward": "money", "max_turns": 60}),
    "extra-3p-score": ("extra", {"num_players": 3, "config": '{"reward": "score"}'}),
    "extra-4p-zero-sum": ("extra", {"num_players": 4, "zero_sum": True}),
    "yay-3p-zero-sum-5x5": ("yay", {"num_players": 3, "zero_sum": True, "rows": 5, "cols": 5}),
    "turn-drawn-values": ("easy_come_easy_go_turn", {"config": '{"value_distribution": {"low": 2, "high": 5}}'}),
    "greed-cash-12": ("easy_money_greed", {"config": '{"named_cash": 12}'}),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_openspiel_random_simulation_test_under_other_configs(variant: str) -> None:
    game_id, params = VARIANTS[variant]
    game = load(game_id, **params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    if variant == "eceg-3p-2-vs-1":  # a win pays 2 - 1 - 1: zero-sum, though zero_sum is off
        assert game.get_type().utility == Type.Utility.ZERO_SUM and (game.min_utility(), game.max_utility()) == (-1, 2)


@pytest.mark.parametrize("game_id", [g for g in IDS if load_game(g).spec.dynamics == "sequential"])
def test_mcts_bot_plays_a_full_game(game_id: str) -> None:
    """OpenSpiel's MCTSBot (random-rollout evaluator, a small budget) in seat 0, uniform random bots in the others,
    to the end; the same seeds give the same game."""
    game = load(game_id)

    def play() -> list[float]:
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
        bots = [mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=np.random.RandomState(2))]
        bots += [UniformRandomBot(p, np.random.RandomState(3 + p)) for p in range(1, game.num_players())]
        return evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))

    returns = play()
    assert len(returns) == game.num_players()
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    assert play() == returns


def test_evaluate_bots_with_our_agents_and_on_a_simultaneous_game() -> None:
    """``evaluate_bots`` with our Easy Come heuristic (an AgentBot) against a uniform random bot, seats alternated: the
    heuristic wins nearly every game; and uniform random bots through Extra!'s simultaneous rounds (a seat that no
    longer decides gets INVALID_ACTION)."""
    game, rng = load("easy_come_easy_go"), np.random.RandomState(0)
    heuristic = make_agent("eceg_heuristic")
    wins = 0
    for k in range(6):
        seat = k % 2
        bots = {seat: AgentBot(heuristic, seat), 1 - seat: UniformRandomBot(1 - seat, np.random.RandomState(k))}
        wins += evaluate_bots.evaluate_bots(game.new_initial_state(), [bots[0], bots[1]], rng)[seat] == 1.0
    assert wins >= 5
    extra = load("extra", num_players=3)
    for k in range(2):
        bots = [UniformRandomBot(p, np.random.RandomState(10 * k + p)) for p in range(3)]
        returns = evaluate_bots.evaluate_bots(extra.new_initial_state(), bots, rng)
        assert len(returns) == 3 and max(returns) == 1.0 and set(returns) <= {-1.0, 1.0}


def test_alpharank_over_a_payoff_table_from_our_tournament() -> None:
    """A small 2-player Easy Come tournament (random, myopic, heuristic) gives the pairwise win rates: the payoff
    table of the symmetric game between the three policies, which alpha-rank ranks (heuristic first)."""
    agents = {"random": make_agent("random", seed=0), "myopic": make_agent("eceg_myopic"),
              "heuristic": make_agent("eceg_heuristic")}  # fmt: skip
    result = tournament("easy_come_easy_go", agents, games_per_seating=100, seed=0, progress=False)
    names = list(agents)
    payoffs = np.full((3, 3), 0.5)  # a policy against itself wins half
    for row in result.pairwise:
        payoffs[names.index(row["agent"]), names.index(row["opponent"])] = row["win_rate"]
    assert np.allclose(payoffs + payoffs.T, 1.0)  # ties count half to each side
    _, _, pi, num_profiles, _ = alpharank.compute([payoffs], alpha=10)
    assert num_profiles == 3 and pi.sum() == pytest.approx(1.0)
    assert names[int(np.argmax(pi))] == "heuristic" and pi[names.index("random")] < 0.05


def test_parameters_pass_through_to_the_config() -> None:
    game = pyspiel.load_game(short_name("easy_come_easy_go"), {"num_players": 3})
    assert game.num_players() == 3 and game.get_type().utility == Type.Utility.GENERAL_SUM  # +1 / -1 / -1
    assert game.observation_tensor_shape() == [load_game("easy_come_easy_go", num_players=3).observation_tensor_size()]
    zero = pyspiel.load_game(short_name("easy_come_easy_go"), {"num_players": 3, "zero_sum": True})
    assert zero.get_type().utility == Type.Utility.ZERO_SUM and zero.min_utility() == -0.5
    spec = game.get_type().parameter_specification
    assert spec["num_players"] == 2 and spec["win_reward"] == 1.0 and spec["config"] == "{}"
    assert "first_player" not in spec  # None by default: only through the JSON "config"
    first = pyspiel.load_game(short_name("easy_come_easy_go"), {"config": '{"first_player": 1}'}).new_initial_state()
    first.apply_action(0)  # no roll-off: the first roll is player_1's
    assert first.current_player() == 1
    score = pyspiel.load_game(short_name("extra"), {"config": '{"reward": "score", "sheet": {"penalty": 100}}'})
    assert (score.min_utility(), score.max_utility()) == (-11.0, 33.5)  # 11 rows x -100, 5 x the points / 100
    alone = pyspiel.load_game(short_name("extra"), {"num_players": 1})
    assert alone.get_type().information == Type.Information.PERFECT_INFORMATION
    money = pyspiel.load_game(short_name("easy_money"), {"reward": "money", "rng_seed": 0})
    assert (money.min_utility(), money.max_utility()) == (-0.36, 6.84)  # -start, supply - start, / 100
    greed = pyspiel.load_game(short_name("easy_money_greed"), {"config": '{"named_cash": 20}'})
    assert greed.max_utility() == 20.0


def test_a_bad_parameter_says_what_is_wrong() -> None:
    name = short_name("easy_come_easy_go")
    with pytest.raises(ConfigError, match="num_players"):
        pyspiel.load_game(name, {"num_players": 9})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'players'"):
        pyspiel.load_game(name, {"players": 3})
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter num_players"):
        pyspiel.load_game(name, {"num_players": "3"})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'rng_seed'"):  # its chance is all explicit
        pyspiel.load_game(name, {"rng_seed": 1})
    with pytest.raises(ValueError, match="'config' is a JSON object of config keys"):
        pyspiel.load_game(name, {"config": "[1]"})
    with pytest.raises(ValueError, match=r"\['num_players'\] given both as parameters and in 'config'"):
        pyspiel.load_game(name, {"num_players": 3, "config": '{"num_players": 3}'})
    with pytest.raises(ConfigError, match="first_player"):
        pyspiel.load_game(name, {"config": '{"first_player": 5}'})
    with pytest.raises(ValueError, match="'chance_samples' is at least 1"):
        pyspiel.load_game(short_name("yay"), {"chance_samples": 0})


def test_sampled_chance_offers_seeded_draws() -> None:
    """At a chance node the engine cannot list (Yay!'s throws), ``chance_samples`` ids of equal probability; an id
    is the same outcome at the same state (a clone, a second load with the same rng_seed), another rng_seed draws
    others. Where the engine lists the outcomes they are offered exactly (Easy Come's 6^4 rolls)."""
    yay = load("yay", chance_samples=16)
    state = yay.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(k, 1 / 16) for k in range(16)]
    assert state.legal_actions() == list(range(16))

    def after(game: pyspiel.Game, outcome: int) -> str:
        child = game.new_initial_state()
        child.apply_action(outcome)
        return child.inner.serialize()

    assert after(yay, 3) == after(load("yay", chance_samples=16), 3) != after(yay, 4)
    draws = {after(load("yay", rng_seed=seed), 3) for seed in range(6)}
    assert len(draws) > 1
    clone = state.clone()
    clone.apply_action(5)
    assert state.is_chance_node() and clone.inner.serialize() == after(yay, 5)
    eceg = load("easy_come_easy_go").new_initial_state()
    assert eceg.chance_outcomes() == eceg.inner.chance_outcomes() and len(eceg.chance_outcomes()) == 6**4


def test_the_observer_is_the_envs_observation() -> None:
    game = load("yay")
    state = game.new_initial_state()
    rng = np.random.RandomState(0)
    while state.current_player() != 1:
        assert not state.is_terminal()
        state.apply_action(int(rng.choice(state.legal_actions())))
    for player in (0, 1):
        assert np.array_equal(state.observation_tensor(player), state.inner.observation_tensor(player))
        assert state.observation_string(player) == str(state.inner)
    observation = make_observation(game)
    observation.set_from(state, 1)
    assert np.array_equal(observation.tensor, state.inner.observation_tensor(1))
    history = make_observation(game, INFO_STATE_OBS_TYPE)  # perfect information: the history is the info state
    assert history.string_from(state, 0) == state.history_str()
    money = load("easy_money")
    with pytest.raises(ValueError, match="observations only"):
        make_observation(money, INFO_STATE_OBS_TYPE)
    assert money.get_type().provides_observation_tensor and not money.get_type().provides_observation_string
    with pytest.raises(ValueError, match="no observation string"):  # its picture shows every player's tickets
        money.new_initial_state().observation_string(0)
