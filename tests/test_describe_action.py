"""``describe_action(config, state, action)``: one signature in every registered game and task, from its spec, so
a tool that words moves (``dicearena play``, replays, error messages) needs no per-game code; the classic modules
export the same function."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

import dicearena.envs  # noqa: F401  (registers the suite's games)
import examples.pig.pig_game  # noqa: F401  (registers "pig", a game from outside the package)
from dicearena.envs.common.contract import GAMES, NOBODY, SIMULTANEOUS, TASK_GAMES, GameSpec
from dicearena.envs.common.game_aec import GameAEC

for _spec in list(GAMES.values()):  # a game's task envs register its tasks
    for _entry in _spec.gym_envs.values():
        importlib.import_module(_entry.split(":")[0])

SPECS = {**GAMES, **TASK_GAMES}
CLASSIC = ("easy_come_easy_go", "extra", "yay", "easy_money")


def deciding_seats(spec: GameSpec, state: np.ndarray, players: int) -> list[int]:
    seat = int(spec.engine.to_act(state))
    if seat == SIMULTANEOUS:
        out = np.zeros(players, dtype=np.int8)
        spec.engine.acting(state, out)
        return np.flatnonzero(out).tolist()
    return [] if seat == NOBODY else [seat]


def check_words(spec: GameSpec, config, state: np.ndarray | None, actions: list[int]) -> list[str]:
    words = [spec.describe_action(config, state, a) for a in actions]
    assert all(isinstance(w, str) and w.strip() for w in words), words
    assert len(set(words)) == len(words), f"{spec.id}: two actions worded alike: {words}"
    return words


@pytest.mark.parametrize("game", sorted(SPECS))
def test_one_signature_from_the_spec(game: str) -> None:
    assert list(inspect.signature(SPECS[game].describe_action).parameters) == ["config", "state", "action"]


@pytest.mark.parametrize("game", CLASSIC)
def test_the_classic_module_exports_the_specs_function(game: str) -> None:
    module = importlib.import_module(f"dicearena.envs.{game}_v{GAMES[game].version}")
    assert module.describe_action is GAMES[game].describe_action
    assert "describe_action" in module.__all__


@pytest.mark.parametrize("game", sorted(SPECS))
def test_every_legal_action_has_its_own_words_with_and_without_a_state(game: str) -> None:
    """Along a seeded game with random legal moves: at every decision, each deciding seat's legal actions get
    distinct non-empty words from the state; every action id gets distinct words without one (``state=None``)."""
    spec = SPECS[game]
    env = GameAEC(spec.id)
    env.reset(seed=0)
    config, sizes = env.config, env.sizes
    check_words(spec, config, None, list(range(sizes.actions)))
    check_words(spec, None, None, list(range(sizes.actions)))  # no config either: the game's defaults
    rng = np.random.default_rng(0)
    mask = np.zeros(sizes.actions, dtype=np.int8)
    decisions = 0
    for _agent in env.agent_iter(max_iter=60):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        state = env.state()
        for seat in deciding_seats(spec, state, sizes.num_players):
            spec.engine.legal_mask(state, seat, mask)
            check_words(spec, config, state, np.flatnonzero(mask).tolist())
            decisions += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert decisions > 0
    words = spec.describe_action(config, None, sizes.actions)
    assert isinstance(words, str) and words  # an out-of-range id is worded too (errors quote it), not an exception


def test_the_state_adds_what_only_it_knows() -> None:
    """Extra!'s words name the dice thrown, Yay!'s the total written, Easy Come's the pips frozen; without a state
    they cannot."""
    from dicearena.envs.extra import engine as X

    extra = GameAEC("extra")
    extra.reset(seed=3)
    state = extra.state()
    dice = state[X.DICE : X.DICE + X.NUM_DICE].tolist()
    words = GAMES["extra"].describe_action(extra.config, state, 0)
    assert words.startswith(f"pairs {dice[1]}+{dice[2]}={dice[1] + dice[2]}") and f"(a {dice[0]})" in words
    assert GAMES["extra"].describe_action(extra.config, None, 0) == "pairs dice 1+2, 3+4; fifth die 0 -> EXTRA column 0"

    from dicearena.envs.yay import engine as Y

    yay = GameAEC("yay")
    yay.reset(seed=1)
    state = yay.state()
    legal = np.flatnonzero(yay.observe(yay.agent_selection)["action_mask"])
    square = int(legal[0])
    where = f"row {square // 8}, col {square % 8}"
    assert GAMES["yay"].describe_action(yay.config, state, square) == f"write {int(state[Y.TOTAL])} at {where}"
    assert GAMES["yay"].describe_action(yay.config, None, square) == f"write at {where}"

    from dicearena.envs.easy_come_easy_go import engine as E

    eceg = GameAEC("easy_come_easy_go")
    eceg.reset(seed=0)
    state = eceg.state()
    pips = state[E.DICE : E.DICE + 2].tolist()
    freeze = E.FREEZE_OFFSET + 0b0011
    words = GAMES["easy_come_easy_go"].describe_action(None, state, freeze)
    assert words == f"freeze dice 0, 1 (showing {pips[0]}, {pips[1]})"
    assert GAMES["easy_come_easy_go"].describe_action(None, None, freeze) == "freeze dice 0, 1"
