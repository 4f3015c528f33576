"""Play a game yourself against agents: ``dicearena play GAME --vs AGENT ...`` in a terminal, :func:`play` in a
notebook.

Why here: a person is one more seat at the table, so this is the evaluation layer's loop with a seat that asks instead
of computing. The game runs through its PettingZoo AEC env (``dicearena.envs.common.game_aec.make_env``), so every
rule, chance event and reward comes from the engine; the words are the game spec's (``describe_action(config, state,
action)``, ``explain_illegal``) and the pictures its renderers (``render_ansi`` in a terminal, ``render_rgb`` in a
notebook), so a game registered from outside the package is playable with no code here. Agents act as in the README's
first snippet: ``agent.act(obs, mask, state=env.state(), seat=seat)``.

Every answer is checked: a move is its number in the list or ``#ID`` (an action id); anything else gets a message
naming what is allowed, and the question again. ``q`` or the end of input abandons the game cleanly. Input and output
are injectable (``input_fn``, ``out``, ``show``), so tests drive whole games.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

import dicearena.envs  # noqa: F401  (registers the suite's games, which the command line names)
from dicearena.agents import agent_names, check_agent, observation_misfit, table_player
from dicearena.agents.base import Agent
from dicearena.envs.common.config import validate_config
from dicearena.envs.common.contract import GAMES, SIMULTANEOUS, GameSpec, game_spec
from dicearena.envs.common.game_aec import make_env
from dicearena.envs.common.table import check_seed

__all__ = ["Quit", "Result", "Table", "ask_move", "main", "opponents_table", "play", "play_in_terminal", "play_match",
           "seat_table"]  # fmt: skip

InputFn = Callable[[str], str]
QUIT_WORDS = ("q", "quit", "exit")
LIST_WORDS = ("?", "h", "help", "l", "list")
SEED_RANGE = 2**31  # an unseeded game draws its seed here and prints it, so it can be played again


class Quit(Exception):
    """The person left the game (``q``, or the end of input)."""


@dataclass
class Table:
    """Who sits where: ``agents[s]`` plays seat ``s`` (None: the person at seat ``human``); ``names[s]`` shows it."""

    spec: GameSpec
    config: Any
    agents: list[Agent | None]
    names: list[str]
    seed: int
    human: int | None = None

    @property
    def players(self) -> int:
        return len(self.agents)

    def label(self, seat: int) -> str:
        return f"player_{seat} ({'you' if seat == self.human else self.names[seat]})"

    def heading(self) -> str:
        seats = ", ".join(self.label(s) for s in range(self.players))
        return f"{self.spec.title}, {self.players} players, seed {self.seed}: {seats}"


@dataclass
class Result:
    """How a game ended: each seat's summed rewards, the moves made, whether it was played out or the person quit,
    the last engine state."""

    rewards: dict[str, float]
    moves: int
    finished: bool
    quit: bool
    seed: int
    final_state: np.ndarray

    def as_dict(self) -> dict[str, Any]:
        return {"rewards": self.rewards, "moves": self.moves, "finished": self.finished, "quit": self.quit,
                "seed": self.seed}  # fmt: skip


# --- the table


def game_for_play(game: str | GameSpec) -> GameSpec:
    """A registered game's spec, or a ValueError naming the games (a one-player task is not a table game)."""
    spec = game_spec(game)  # an unknown name: a ValueError with the likeliest ids
    if spec.id not in GAMES:
        raise ValueError(f"{spec.id!r} is a one-player training task, not a game for a table; "
                         f"games: {', '.join(sorted(GAMES))}")  # fmt: skip
    return spec


def playable_agents(game: str) -> list[str]:
    """The agents of ``game`` that ``make_agent`` builds from a name alone (``sb3`` and ``rllib`` need a model)."""
    return [n for n in agent_names(game) if n not in ("sb3", "rllib")]


def seat_table(
    game: str | GameSpec, agents: Sequence[str | Agent | None], *, seed: int | None = None, config: Any = None,
    human: int | None = None,
) -> Table:  # fmt: skip
    """A checked table of ``game``: ``agents`` in seat order (names for ``make_agent``, built agents, or None for the
    person at seat ``human``); ``num_players`` follows the seats. Every mistake is a ValueError naming the value and
    what is allowed, raised before any play: an unknown game or agent, an agent of another game or one that cannot
    read this table's observations, a bad seed, a config the game refuses (e.g. too many players)."""
    spec = game_for_play(game)
    seed = random.randrange(SEED_RANGE) if seed is None else check_seed(seed)
    values = _config_values(config)
    if values.get("num_players", len(agents)) != len(agents):
        raise ValueError(f"the config says num_players={values['num_players']!r} but {len(agents)} seats are filled")
    checked = validate_config(spec.config, {**values, "num_players": len(agents)})  # ConfigError names the key
    plain = checked.model_dump()
    built: list[Agent | None] = []
    names: list[str] = []
    for seat, agent in enumerate(agents):
        if agent is None or isinstance(agent, Agent):
            built.append(agent)
            names.append("you" if agent is None else str(getattr(agent, "name", type(agent).__name__)))
            continue
        if not isinstance(agent, str):
            raise ValueError(f"seat {seat}: an agent is a name or an Agent, got {type(agent).__name__}")
        try:
            check_agent(agent, None, spec.id)  # unknown, or of another game: a ValueError listing this game's agents
            player = table_player(spec.id, agent, plain)
        except (TypeError, ImportError) as exc:  # one that needs arguments (a model path) or an extra
            raise ValueError(f"agent {agent!r} cannot be built from its name alone ({exc}); agents for "
                             f"{spec.id}: {', '.join(playable_agents(spec.id))}") from None  # fmt: skip
        misfit = observation_misfit(player, spec.id, plain)
        if misfit is not None:
            raise ValueError(f"agent {agent!r} cannot play seat {seat} of {len(agents)} players: {misfit}")
        built.append(player)
        names.append(agent)
    for i, player in enumerate(built):
        if player is not None:
            player.reset(seed=seed + 1000 * (i + 1))  # each agent's own stream, seeded as the evaluation loop does
    return Table(spec, checked, built, names, seed, human)


def _config_values(config: Any) -> dict[str, Any]:
    """A config (None, a mapping or a config object) as plain values."""
    if config is None:
        return {}
    return dict(config) if isinstance(config, dict) else dict(config.model_dump())


def opponents_table(
    game: str | GameSpec, opponents: Sequence[str | Agent], *, seat: int = 0, players: int | None = None,
    seed: int | None = None, config: Any = None,
) -> Table:  # fmt: skip
    """The person at ``seat`` and ``opponents`` in the other seats, in order. ``players`` defaults to the config's
    ``num_players``, else one more than the opponents; a single opponent fills every other seat (a name builds one
    agent per seat; an Agent object sits in each)."""
    spec = game_for_play(game)
    opponents = [opponents] if isinstance(opponents, str | Agent) else list(opponents)
    if not opponents:
        raise ValueError(f"name at least one opponent; agents for {spec.id}: {', '.join(playable_agents(spec.id))}")
    if players is None:
        players = _config_values(config).get("num_players", len(opponents) + 1)
    if isinstance(players, bool) or not isinstance(players, int) or players < 2:
        raise ValueError(f"players must be an int of at least 2 (you and an opponent), got {players!r}")
    if len(opponents) == 1:
        opponents = opponents * (players - 1)  # a name builds one agent per seat (seat_table)
    elif len(opponents) != players - 1:
        raise ValueError(f"{len(opponents)} opponents for {players} players: name {players - 1} agents (one per "
                         "other seat), or one to fill every other seat")  # fmt: skip
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ValueError(f"seat {seat!r} is out of range: the seats of {players} players are 0..{players - 1}")
    seats: list[str | Agent | None] = list(opponents)
    seats.insert(seat, None)
    return seat_table(spec, seats, seed=seed, config=config, human=seat)


# --- one game


def play_match(
    table: Table, choose: Callable[[np.ndarray, int, np.ndarray], int] | None, say: Callable[[str], None],
    max_moves: int | None = None, on_step: Callable[[np.ndarray], None] | None = None,
) -> Result:  # fmt: skip
    """Play one game of ``table`` through the game's AEC env. ``choose(state, seat, mask)`` makes the person's moves
    (it may raise :class:`Quit`); every move is told through ``say`` in the spec's words; ``on_step(state)`` sees
    the engine state after the reset and after every move (a replay's frames). In a simultaneous game (Extra!) the
    agents' choices are told once their round resolves, so a person deciding later in a round never sees them early.
    ``max_moves`` stops the game after that many moves (the rewards so far)."""
    spec, config = table.spec, table.config
    env = make_env(spec, config=config)
    env.reset(seed=table.seed)
    seat_of = {a: s for s, a in enumerate(env.possible_agents)}
    totals = dict.fromkeys(env.possible_agents, 0.0)
    simultaneous = spec.dynamics == "simultaneous"
    acting = np.zeros(table.players, dtype=np.int8)
    pending: list[str] = []
    moves, quit_ = 0, False
    if on_step is not None:
        on_step(env.state())
    try:
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            totals[agent] += float(reward)
            if terminated or truncated:
                env.step(None)
                continue
            if max_moves is not None and moves >= max_moves:
                break
            seat, state, mask = seat_of[agent], env.state(), obs["action_mask"]
            player = table.agents[seat]
            if player is None:
                if choose is None:
                    raise ValueError(f"seat {seat} has no agent and nobody to ask")
                action = int(choose(state, seat, mask))
            else:
                action = int(player.act(obs["observation"], mask, state=state, seat=seat))
            line = f"{table.label(seat)}: {spec.describe_action(config, state, action)}"
            if simultaneous and player is not None:  # an agent's choice waits for the end of its round
                pending.append(line)
            else:
                say(line)
            last_in_round = simultaneous and _acting(spec, state, acting) == [seat]
            env.step(action)
            moves += 1
            if last_in_round or not env.agents:
                for line in pending:
                    say(line)
                pending.clear()
            if on_step is not None:
                on_step(env.state())
    except Quit:
        quit_ = True
    for line in pending:  # a game stopped inside a round
        say(line)
    return Result(totals, moves, not env.agents, quit_, table.seed, env.state())


def _acting(spec: GameSpec, state: np.ndarray, out: np.ndarray) -> list[int]:
    """The seats still to decide on this throw of a simultaneous game."""
    if spec.engine.to_act(state) != SIMULTANEOUS:
        return []
    spec.engine.acting(state, out)
    return np.flatnonzero(out).tolist()


def outcome_lines(table: Table, result: Result) -> list[str]:
    """Each seat's summed rewards, and how the person did."""
    if result.quit:
        return [f"Abandoned after {result.moves} moves (seed {result.seed})."]
    values = list(result.rewards.values())
    if not result.finished:
        return [f"Stopped after {result.moves} moves (seed {result.seed}). Rewards so far:",
                *(f"  {table.label(seat)}: {value:+g}" for seat, value in enumerate(values))]  # fmt: skip
    lines = [f"Game over after {result.moves} moves (seed {result.seed}). Rewards:"]
    lines += [f"  {table.label(seat)}: {value:+g}" for seat, value in enumerate(values)]
    if table.human is not None:
        mine, best = values[table.human], max(values)
        shared = sum(v == best for v in values) > 1
        lines.append("You lose." if mine < best else "You share first place." if shared else "You win!")
    return lines


# --- the person's move


def ask_move(
    spec: GameSpec, config: Any, state: np.ndarray, seat: int, mask: np.ndarray, input_fn: InputFn, out: TextIO,
) -> int:  # fmt: skip
    """List the legal moves by name, read one, and return its action id; raise :class:`Quit` on ``q`` or at the end
    of input. A wrong answer gets a message naming what was wrong and what is allowed, and the question again."""
    legal = np.flatnonzero(mask).tolist()
    words = [spec.describe_action(config, state, a) for a in legal]
    hint = f"a number 1-{len(legal)}, #ID for an action id, ? to list the moves again, q to quit"

    def listing() -> None:
        print(f"Your moves, player_{seat}:", file=out)
        width = len(str(len(legal)))
        for i, (action, said) in enumerate(zip(legal, words, strict=True), start=1):
            print(f"  {i:>{width}}. {said}  [#{action}]", file=out)

    listing()
    while True:
        out.flush()
        try:
            text = input_fn(f"Your move ({hint}): ")
        except EOFError:
            print("\nend of input: the game is abandoned", file=out)
            raise Quit from None
        text = str(text).strip()
        if text.lower() in QUIT_WORDS:
            print("you quit: the game is abandoned", file=out)
            raise Quit
        if text.lower() in LIST_WORDS:
            listing()
            continue
        chosen, problem = read_move(spec, config, state, seat, legal, text)
        if chosen is not None:
            return chosen
        print(f"{problem}. Type {hint}.", file=out)


def read_move(spec: GameSpec, config: Any, state: np.ndarray, seat: int, legal: list[int],
              text: str) -> tuple[int | None, str]:  # fmt: skip
    """``(action id, "")`` for a valid answer (a list number, or ``#ID`` / ``id ID``), else ``(None, what was
    wrong)``; an illegal action id is explained in the rules' words (``explain_illegal``)."""
    if not text:
        return None, "no move typed"
    by_id = text.startswith("#") or text.lower().startswith("id ")
    digits = (text[1:] if text.startswith("#") else text[3:] if by_id else text).strip()
    if not (digits.isascii() and digits.isdigit()):
        return None, f"{text[:40]!r}{'...' if len(text) > 40 else ''} is not a move"
    value = int(digits)
    if not by_id:
        if 1 <= value <= len(legal):
            return legal[value - 1], ""
        return None, f"there is no move {value}: the moves are numbered 1-{len(legal)}"
    if value in legal:
        return value, ""
    actions = spec.sizes(config).actions
    if value >= actions:
        return None, f"there is no action #{value}: the ids are 0..{actions - 1}"
    why = spec.explain_illegal(config, state, seat, value)
    return None, f"action #{value} ({spec.describe_action(config, state, value)}) is not legal now: {why}"


# --- the faces: a terminal and a notebook


def play_table(table: Table, input_fn: InputFn = input, out: TextIO | None = None) -> Result:
    """Play ``table`` in a terminal: the ANSI picture at each of the person's turns, every move as it happens, the
    final picture and the rewards at the end."""
    out = sys.stdout if out is None else out
    spec = table.spec

    def choose(state: np.ndarray, seat: int, mask: np.ndarray) -> int:
        print(f"\n{_ansi(spec, table.config, state)}", file=out)
        return ask_move(spec, table.config, state, seat, mask, input_fn, out)

    print(table.heading(), file=out)
    result = play_match(table, choose, lambda line: print(line, file=out))
    if not result.quit:
        print(f"\n{_ansi(spec, table.config, result.final_state)}", file=out)
    print("\n".join(outcome_lines(table, result)), file=out)
    out.flush()
    return result


def play_in_terminal(
    game: str | GameSpec, opponents: Sequence[str | Agent], *, seat: int = 0, players: int | None = None,
    seed: int | None = None, config: Any = None, input_fn: InputFn = input, out: TextIO | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A game against ``opponents`` in a terminal (what ``dicearena play`` runs); returns ``{"rewards": {agent:
    summed reward}, "moves", "finished", "quit", "seed"}``. A mistake in the arguments is a ValueError, raised before
    play."""
    table = opponents_table(game, opponents, seat=seat, players=players, seed=seed, config=config)
    return play_table(table, input_fn, out).as_dict()


def _ansi(spec: GameSpec, config: Any, state: np.ndarray) -> str:
    return spec.render_ansi(config, state) if spec.render_ansi is not None else f"({spec.title} has no text picture)"


def _in_notebook() -> bool:
    """True inside a Jupyter kernel (IPython's ``display`` shows pictures there; elsewhere it prints a repr)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and hasattr(shell, "kernel")


def _display(image: np.ndarray) -> None:
    """Show ``image`` in the notebook in place of the last one (``clear_output(wait=True)``: no flicker)."""
    from IPython.display import clear_output, display
    from PIL import Image

    clear_output(wait=True)
    display(Image.fromarray(image))


def play(
    game: str | GameSpec, opponents: str | Agent | Sequence[str | Agent], *, seat: int = 0, players: int | None = None,
    seed: int | None = None, config: Any = None, input_fn: InputFn = input, out: TextIO | None = None,
    show: Callable[[np.ndarray], None] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A game against ``opponents`` in a notebook: at each of your turns the game's ``rgb_array`` picture, the moves
    since your last, your legal moves by name, then ``input()`` for yours (no widgets needed). ``show(image)``
    displays a picture (default: IPython's ``display`` in a notebook; elsewhere the game's text picture is printed
    instead). Returns ``{"rewards": {agent: summed reward}, "moves", "finished", "quit", "seed"}``."""
    out = sys.stdout if out is None else out
    table = opponents_table(game, opponents, seat=seat, players=players, seed=seed, config=config)
    spec = table.spec
    if show is None and _in_notebook() and spec.render_rgb is not None:
        show = _display
    news: list[str] = []  # the moves since the person's last turn, printed under the next picture

    def picture(state: np.ndarray) -> None:
        if show is not None and spec.render_rgb is not None:
            show(spec.render_rgb(table.config, state))
            print(table.heading(), file=out)  # (a notebook's picture replaces everything shown before it)
        else:
            print(f"\n{_ansi(spec, table.config, state)}", file=out)
        for line in news:
            print(line, file=out)
        news.clear()

    def choose(state: np.ndarray, seat_: int, mask: np.ndarray) -> int:
        picture(state)
        return ask_move(spec, table.config, state, seat_, mask, input_fn, out)

    print(table.heading(), file=out)
    result = play_match(table, choose, news.append)
    if result.quit:
        news.clear()
    else:
        picture(result.final_state)
    print("\n".join(outcome_lines(table, result)), file=out)
    return result.as_dict()


# --- the command


def games_and_agents() -> str:
    """The help's closing line for the commands that seat named agents at a game (play, replay)."""
    return (f"games: {', '.join(sorted(GAMES))}. Agents: any make_agent name of the game, e.g. yay_td, "
            "eceg_heuristic, extra_greedy, em_heuristic, random.")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Play a game yourself against agents, in the terminal: the game's picture at each of your "
        "turns, your legal moves by name; type a move's number (or #ID for an action id), q to quit.",
        epilog=games_and_agents(),
    )
    parser.add_argument("game", help="the game's id, e.g. yay")
    parser.add_argument("--vs", nargs="+", required=True, metavar="AGENT",
                        help="the opponents by name, one per other seat in seat order; one name fills every other "
                        "seat")  # fmt: skip
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    parser.add_argument("--players", type=int, help="players at the table (default: you and the --vs agents)")
    parser.add_argument("--seed", type=int, help="the game's seed (default: a new one, printed to play it again)")
    return parser


def main(argv: list[str] | None = None, input_fn: InputFn = input, out: TextIO | None = None) -> int:
    """``dicearena play``: 0 after a game (played out or abandoned), 2 for a mistake in the arguments, 130 on
    Ctrl-C."""
    args = build_parser().parse_args(argv)
    try:
        table = opponents_table(args.game, args.vs, seat=args.seat, players=args.players, seed=args.seed)
    except (ValueError, TypeError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout if out is None else out
    try:
        play_table(table, input_fn, out)
    except KeyboardInterrupt:
        print("\ninterrupted: the game is abandoned", file=out)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
