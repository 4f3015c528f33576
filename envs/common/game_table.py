"""What the PettingZoo faces of every contract game (AEC and Parallel) share, written once.

Why: config and constructor checks, spaces, chance resolution, observing, rendering, copying and the error
words are the same for every game and both faces; a game supplies only its engine and its words (``GameSpec``).
Chance never reaches the agents: it is resolved on a copy of the state inside ``reset`` and ``step``, so a source
that fails or returns a bad outcome changes nothing.
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .chance import ChanceSource, SeededChance, given_outcome
from .config import validate_config
from .contract import CHANCE, NOBODY, TRUNCATED, GameSpec, game_spec, resolve_spec, spec_reference
from .table import check_seed, coerce_action

__all__ = ["MAX_SKIPPED", "GameTable"]

MAX_SKIPPED = 1000  # games in a row that may end before anybody's first decision (a reset deals again)


class GameTable:
    """The engine state of one game of a registered spec, and everything both PettingZoo faces do around it."""

    _face = "AEC"

    def __init__(
        self, game: str | GameSpec, config: Any = None, chance: ChanceSource | None = None,
        render_mode: str | None = None, dice: Any = None, **config_overrides: Any,
    ) -> None:  # fmt: skip
        self.spec = spec = game_spec(game)
        self.config = validate_config(spec.config, config, **config_overrides)
        self.dice = dice  # the game's own dice interface (a rulebook example's exact dice), as the spec reads it
        if dice is not None:
            if chance is not None:
                raise ValueError("give dice= (the game's dice interface) or chance= (a contract source), not both")
            if spec.dice is None:
                raise TypeError(f"{spec.title} takes no dice=; inject outcomes with chance= "
                    "(dicearena.envs.common.chance)")
            chance = spec.dice(self.config, dice)
        modes = [m for m, f in (("ansi", spec.render_ansi), ("human", spec.render_ansi), ("rgb_array", spec.render_rgb))
                 if f is not None]  # fmt: skip
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode {render_mode!r} is not one of None, {modes}")
        if chance is not None and not callable(getattr(chance, "outcome", None)):
            raise TypeError(f"chance must have outcome(engine, state, out, words) "
                f"(dicearena.envs.common.chance), got {chance!r}")
        parallel = spec.dynamics == "simultaneous"
        self.metadata = {"name": f"{spec.id}_v{spec.version}", "render_modes": modes, "is_parallelizable": parallel,
                         "render_fps": spec.render_fps}  # fmt: skip
        self.render_mode = render_mode
        self.chance = chance if chance is not None else SeededChance()
        self.sizes = sizes = spec.sizes(self.config)
        self._header = np.asarray(spec.engine.header(self.config), dtype=np.int32)
        self.possible_agents = [f"player_{i}" for i in range(sizes.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spec.observation_box(self.config),
            "action_mask": spaces.Box(0, 1, (sizes.actions,), np.int8),
        })  # fmt: skip
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(sizes.actions))
        self.state_space = spaces.Box(np.iinfo(np.int32).min, np.iinfo(np.int32).max, (sizes.state,), np.int32)
        self.engine_state = np.zeros(sizes.state, dtype=np.int32)
        self._outcome = np.zeros(max(1, sizes.outcome), dtype=np.int32)
        self._words = max(1, sizes.words)
        self._kernels = spec.kernel_module()
        self._help = spec.action_help(self.config) if spec.action_help else f"actions are 0..{sizes.actions - 1}"
        self._final = np.zeros(sizes.num_players)
        self._acting = np.zeros(sizes.num_players, dtype=np.int8)
        self._has_reset = False
        self.agents: list[str] = []

    # --- the PettingZoo API both faces share

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self._require_reset("observe()")
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        obs = np.empty(self.sizes.observation, dtype=np.float32)
        mask = np.empty(self.sizes.actions, dtype=np.int8)
        self._kernels.aec_observe(self.engine_state, self._seat[agent], obs, mask)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The full engine state (every hidden and public slot): a global state for centralised critics."""
        self._require_reset("state()")
        return self.engine_state.copy()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the constructor")
            return None
        self._require_reset("render()")
        if self.render_mode == "rgb_array":
            return self.spec.render_rgb(self.config, self.engine_state)
        text = self.spec.render_ansi(self.config, self.engine_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: rendering draws off-screen."""

    # --- copies, for planners and workers

    def clone(self) -> GameTable:
        """An independent copy continuing the same game (its chance source copied too)."""
        return copy.deepcopy(self)

    _SAVED = ("engine_state", "agents", "_has_reset")

    def save_state(self) -> dict[str, Any]:
        """Everything ``restore_state`` needs to put this env back where it is now (not the chance source)."""
        return copy.deepcopy({k: getattr(self, k) for k in self._SAVED if hasattr(self, k)})

    def restore_state(self, saved: dict[str, Any]) -> None:
        for key, value in copy.deepcopy(saved).items():
            setattr(self, key, value)

    def __getstate__(self) -> dict[str, Any]:
        out = self.__dict__.copy()  # functions in a spec do not pickle; the game's id and module do
        out["spec"] = spec_reference(self.spec)
        out["_kernels"] = None
        return out

    def __setstate__(self, saved: dict[str, Any]) -> None:
        self.__dict__.update(saved)
        self.spec = resolve_spec(*saved["spec"])
        self._kernels = self.spec.kernel_module()

    # --- internals

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: {what} before reset(): call reset() first")

    def _new_state(self, seed: Any) -> tuple[np.ndarray, int]:
        """A new game's state after its first chance events (``seed`` reseeds the chance source) and its to_act.

        A game that ends in those chance events, before anybody's first decision (Pig's turn limit reached by a
        1), is no game to play: a reset cannot hand over an ended game. It is skipped, as the batched engine's reset
        skips it: the next game is dealt from the same chance stream (so a 1-game batch still plays the same game),
        and the skipped one is recorded for the reset's infos (``skipped_games``, each agent's with its ``reward``).
        """
        seed = check_seed(seed)
        if seed is not None:
            reseed = getattr(self.chance, "seed", None)
            if callable(reseed):
                reseed(seed)
        E, state = self.spec.engine, self.engine_state.copy()
        skipped: list[dict[str, Any]] = []
        while True:
            E.init_state(state, self._header)
            seat = self._resolve_chance(state)
            if seat != NOBODY:
                break
            if len(skipped) >= MAX_SKIPPED:
                raise RuntimeError(f"{self.spec.title}: over {MAX_SKIPPED} games in a row ended before anybody's "
                                   "first decision: does this config give anybody one?")  # fmt: skip
            final = np.zeros(self.sizes.num_players)
            E.rewards(state, final)
            skipped.append({"final_rewards": final, "final_state": state.copy(),
                            "truncated": bool(E.status(state) == TRUNCATED)})  # fmt: skip
        if skipped:
            self._skipped = skipped  # taken by the reset's _infos
        return state, seat

    def _resolve_chance(self, state: np.ndarray, seat: int | None = None) -> int:
        """Chance events until a decision or the end, on ``state`` (a copy: a failing source changes nothing);
        return ``to_act`` after them."""
        seat = self.spec.engine.to_act(state) if seat is None else seat
        chance_step = self._kernels.aec_chance
        while seat == CHANCE:  # the batched and seat faces' check of an injected outcome (chance.given_outcome)
            outcome = given_outcome(self.chance, self.spec, self.config, state, self._outcome, self._words)
            seat = chance_step(state, outcome)
        return int(seat)

    def check_action(self, action: Any) -> int:
        """``action`` as an action id ``0..A-1``, or the TypeError / ValueError of every face (``table.coerce_action``,
        with the game's wording of its ids); what ``step`` and ``env()``'s wrapping check first."""
        n = self.sizes.actions
        return action if type(action) is int and 0 <= action < n else coerce_action(action, n, self._help)

    def _acting_seats(self, state: np.ndarray) -> list[int]:
        """The seats that decide now in a simultaneous game, in seat order."""
        self.spec.engine.acting(state, self._acting)
        return np.flatnonzero(self._acting).tolist()

    def _infos(self, agents: list[str], to_act: int) -> dict[str, dict[str, Any]]:
        """One info dict per agent (values built anew): ``to_act``, the game's table facts and its seat facts; after a
        reset that skipped games (``_new_state``), ``skipped_games`` too."""
        spec, state = self.spec, self.engine_state
        shared = {"to_act": to_act, **spec.info(self.config, state)} if spec.info is not None else {"to_act": to_act}
        if spec.seat_info is None:
            infos = {a: shared.copy() for a in agents}
        else:
            infos = {a: {**shared, **spec.seat_info(self.config, state, self._seat[a])} for a in agents}
        skipped = self.__dict__.pop("_skipped", None)
        for a in agents if skipped else ():
            seat = self._seat[a]
            infos[a]["skipped_games"] = [{**game, "reward": float(game["final_rewards"][seat])} for game in skipped]
        return infos

    def _illegal_message(self, agent: str, seat: int, action: int) -> str:
        mask = np.zeros(self.sizes.actions, dtype=np.int8)
        self.spec.engine.legal_mask(self.engine_state, seat, mask)
        words = self.spec.describe_action(self.config, self.engine_state, action)
        why = self.spec.explain_illegal(self.config, self.engine_state, seat, action)
        legal = np.flatnonzero(mask).tolist()
        return f"illegal action {action} ({words}) for {agent}: {why}. Legal action ids: {legal}"
