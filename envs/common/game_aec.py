"""The PettingZoo AEC face of every contract game, written once.

Why: the AEC bookkeeping, input coercion, illegal-action errors, chance resolution, copying and the checks
around them are the same for every game; a game supplies only its engine and its words (``GameSpec``).

What users can rely on, in every game: chance never reaches the agents (it is resolved inside ``step`` and
``reset``); a bad or illegal action is an error naming the action, the rule and the legal ids, and changes
nothing; so does a chance source that fails or returns a bad outcome; each agent gets its own info dict;
``copy.deepcopy`` and pickling continue the same game, and ``clone()`` / ``save_state()`` / ``restore_state()``
serve planners; ``state()`` is the full engine state, for centralised critics.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .batch_loops import ILLEGAL
from .chance import ChanceSource, SeededChance
from .config import validate_config
from .contract import CHANCE, NOBODY, TRUNCATED, GameSpec, game_spec
from .table import check_seed, coerce_action, wrap_classic

__all__ = ["GameAEC", "make_env"]


def make_env(game: str | GameSpec, **kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo classic style): an illegal move ends the game with -1 for the mover."""
    return wrap_classic(GameAEC(game, **kwargs))


class GameAEC(AECEnv):
    """One game of a registered spec; agents ``player_0..``; observations ``{"observation", "action_mask"}``."""

    def __init__(
        self, game: str | GameSpec, config: Any = None, chance: ChanceSource | None = None,
        render_mode: str | None = None, **config_overrides: Any,
    ) -> None:  # fmt: skip
        super().__init__()
        self.spec = spec = game_spec(game)
        if spec.dynamics != "sequential":
            raise NotImplementedError(f"{spec.title} decides simultaneously: use its Parallel env")
        self.config = validate_config(spec.config, config, **config_overrides)
        modes = [m for m, f in (("ansi", spec.render_ansi), ("human", spec.render_ansi), ("rgb_array", spec.render_rgb))
                 if f is not None]  # fmt: skip
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode {render_mode!r} is not one of None, {modes}")
        if chance is not None and not callable(getattr(chance, "outcome", None)):
            raise TypeError(f"chance must have outcome(engine, state, out, words) (envs.common.chance), got {chance!r}")
        self.metadata = {"name": f"{spec.id}_v{spec.version}", "render_modes": modes, "is_parallelizable": False,
                         "render_fps": spec.render_fps}  # fmt: skip
        self.render_mode = render_mode
        self.chance = chance if chance is not None else SeededChance()
        self.sizes = sizes = spec.sizes(self.config)
        self._header = np.asarray(spec.engine.header(self.config), dtype=np.int32)
        self.possible_agents = [f"player_{i}" for i in range(sizes.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (sizes.observation,), np.float32),
            "action_mask": spaces.Box(0, 1, (sizes.actions,), np.int8),
        })  # fmt: skip
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(sizes.actions))
        self.state_space = spaces.Box(np.iinfo(np.int32).min, np.iinfo(np.int32).max, (sizes.state,), np.int32)
        self.engine_state = np.zeros(sizes.state, dtype=np.int32)
        self._outcome = np.zeros(max(1, sizes.outcome), dtype=np.int32)
        self._words = max(1, sizes.words)
        self._kernels = spec.kernel_module()
        self._current_seat = getattr(spec.engine, "current_seat", None)  # optional: whose turn, even at the end
        self._help = spec.action_help(self.config) if spec.action_help else f"actions are 0..{sizes.actions - 1}"
        self._final = np.zeros(sizes.num_players)
        self._has_reset = False
        self.agents: list[str] = []
        self.agent_selection: str | None = None  # type: ignore[assignment]

    # --- the PettingZoo API

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; ``seed`` reseeds the chance source, so it and every later unseeded reset are reproducible."""
        seed = check_seed(seed)
        if seed is not None:
            reseed = getattr(self.chance, "seed", None)
            if callable(reseed):
                reseed(seed)
        state = self.engine_state.copy()
        self.spec.engine.init_state(state, self._header)
        seat = self._resolve_chance(state)
        self.engine_state = state
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._has_reset = True
        self._select_and_inform(int(seat))

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: step() before reset(): call reset() to start a game")
        if not self.agents:
            raise RuntimeError(f"{self.spec.title}: the game is over and every agent has stepped out: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        E, seat, n = self.spec.engine, self._seat[agent], self.sizes.actions
        if type(action) is not int or not 0 <= action < n:
            action = coerce_action(action, n, self._help)
        state = self.engine_state.copy()  # the move and its chance events land here; kept only if all goes well
        after = self._kernels.aec_act(state, seat, action)
        if after == ILLEGAL:
            raise ValueError(self._illegal_message(agent, seat, action))
        if after == CHANCE:
            after = self._resolve_chance(state, after)
        self.engine_state = state
        self._cumulative_rewards[agent] = 0.0
        if after == NOBODY:  # rewards are paid at the end only: mid-game they stay the zeros of reset()
            E.rewards(state, self._final)
            for s, a in enumerate(self.possible_agents):
                self.rewards[a] = float(self._final[s])
            flags = self.truncations if E.status(state) == TRUNCATED else self.terminations
            for a in self.agents:
                flags[a] = True
            self._accumulate_rewards()
        self._select_and_inform(after)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: observe() before reset(): call reset() first")
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        obs = np.empty(self.sizes.observation, dtype=np.float32)
        mask = np.empty(self.sizes.actions, dtype=np.int8)
        self._kernels.aec_observe(self.engine_state, self._seat[agent], obs, mask)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: last() before reset(): call reset() first")
        return super().last(observe)

    def state(self) -> np.ndarray:
        """The full engine state (every hidden and public slot): a global state for centralised critics."""
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: state() before reset(): call reset() first")
        return self.engine_state.copy()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to the constructor")
            return None
        if not self._has_reset:
            raise RuntimeError(f"{self.spec.title}: render() before reset(): call reset() first")
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

    def clone(self) -> GameAEC:
        """An independent copy continuing the same game (its chance source copied too)."""
        return copy.deepcopy(self)

    def save_state(self) -> dict[str, Any]:
        """Everything ``restore_state`` needs to put this env back where it is now (not the chance source)."""
        keys = ("engine_state", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations",
                "infos", "agent_selection", "_has_reset")  # fmt: skip
        return copy.deepcopy({k: getattr(self, k) for k in keys if hasattr(self, k)})

    def restore_state(self, saved: dict[str, Any]) -> None:
        for key, value in copy.deepcopy(saved).items():
            setattr(self, key, value)

    def __getstate__(self) -> dict[str, Any]:
        out = self.__dict__.copy()  # functions in a spec do not pickle; the game's id and module do
        out["spec"] = (self.spec.id, self.spec.kernels or self.spec.engine.__name__)
        out["_kernels"] = out["_current_seat"] = None
        return out

    def __setstate__(self, saved: dict[str, Any]) -> None:
        game, module = saved["spec"]
        importlib.import_module(module)  # importing a game's module registers it (spawned workers too)
        self.__dict__.update(saved)
        self.spec = game_spec(game)
        self._kernels = self.spec.kernel_module()
        self._current_seat = getattr(self.spec.engine, "current_seat", None)

    # --- internals

    def _resolve_chance(self, state: np.ndarray, seat: int | None = None) -> int:
        """Chance events until a decision or the end, on ``state`` (a copy: a failing source changes nothing);
        return ``to_act`` after them."""
        E = self.spec.engine
        check = not getattr(self.chance, "trusted", False)
        seat = E.to_act(state) if seat is None else seat
        chance_step = self._kernels.aec_chance
        while seat == CHANCE:
            try:
                outcome = self.chance.outcome(E, state, self._outcome, self._words)
            except Exception as exc:  # a bad value stays a ValueError / TypeError; anything else a RuntimeError
                kind = type(exc) if isinstance(exc, ValueError | TypeError) else RuntimeError
                raise kind(f"{self.spec.title}: the chance source failed ({type(exc).__name__}: {exc}); the game is "
                           "unchanged") from exc  # fmt: skip
            if check:
                outcome = np.asarray(outcome, dtype=np.int32)
                if outcome.shape != self._outcome.shape:
                    raise ValueError(f"{self.spec.title}: a chance outcome has {self._outcome.shape[0]} values, got "
                                     f"{outcome.shape}; the game is unchanged")  # fmt: skip
                code = E.check_outcome(state, outcome)
                if code != 0:
                    why = self.spec.explain_outcome(self.config, int(code))
                    raise ValueError(f"{self.spec.title}: chance outcome {outcome.tolist()} refused: {why}; the game "
                                     "is unchanged")  # fmt: skip
            seat = chance_step(state, outcome)
        return int(seat)

    def _select_and_inform(self, seat: int) -> None:
        """The seat to move is selected (at the end the engine's ``current_seat`` if it has one, else the mover
        stays selected, then agents step out); every agent gets its own info dict."""
        if seat >= 0:
            self.agent_selection = self.possible_agents[seat]
        elif seat == NOBODY and self._current_seat is not None:
            self.agent_selection = self.possible_agents[int(self._current_seat(self.engine_state))]
        info = self.spec.info
        shared = {"to_act": seat, **info(self.config, self.engine_state)} if info is not None else {"to_act": seat}
        self.infos = {a: shared.copy() for a in self.agents}  # one dict per agent (values built anew each step)

    def _illegal_message(self, agent: str, seat: int, action: int) -> str:
        mask = np.zeros(self.sizes.actions, dtype=np.int8)
        self.spec.engine.legal_mask(self.engine_state, seat, mask)
        words = self.spec.describe_action(self.config, action)
        why = self.spec.explain_illegal(self.config, self.engine_state, seat, action)
        legal = np.flatnonzero(mask).tolist()
        return f"illegal action {action} ({words}) for {agent}: {why}. Legal action ids: {legal}"
