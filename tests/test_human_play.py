"""Playing a game yourself (``dicearena play``, ``play()`` in a notebook) and replays (``dicearena replay``): whole
games driven through the input, bad answers that get a message and the question again, a pseudo-terminal session
of the command, GIF and MP4 replays, and arguments refused with an ``error:`` line (exit code 2)."""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from dicearena.agents.evaluation import human_play, replay
from dicearena.agents.evaluation.human_play import main, play, play_in_terminal, read_move
from dicearena.envs.common.contract import GAMES
from dicearena.envs.common.game_aec import GameAEC

ROOT = Path(__file__).resolve().parents[1]
OPPONENT = {"easy_come_easy_go": "eceg_heuristic", "extra": "extra_greedy", "yay": "yay_greedy",
            "easy_money": "em_heuristic"}  # fmt: skip
BAD_ANSWERS = ["", "banana", "0", "999", "#99999", "?"]


class Person:
    """Answers from a script first, then as a player reading the screen would: the first move listed, or every
    third turn the last one by its action id (``#ID``, read from the listing)."""

    def __init__(self, out: io.StringIO, script: list[str] | None = None) -> None:
        self.out, self.script, self.turns, self.prompts = out, list(script or []), 0, []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.script:
            return self.script.pop(0)
        self.turns += 1
        if self.turns % 3:
            return "1"
        listing = self.out.getvalue().rpartition("Your moves, ")[2]
        return "#" + re.findall(r"\[#(\d+)\]", listing)[-1]


@pytest.mark.parametrize("game", sorted(OPPONENT))
def test_a_whole_game_through_the_input_with_bad_answers_first(game: str) -> None:
    out = io.StringIO()
    person = Person(out, BAD_ANSWERS)
    result = play_in_terminal(game, [OPPONENT[game]], seed=7, input_fn=person, out=out)
    text = out.getvalue()
    assert result["finished"] and not result["quit"] and result["seed"] == 7
    assert set(result["rewards"]) == {"player_0", "player_1"} and max(result["rewards"].values()) > 0
    for message in ("no move typed", "'banana' is not a move", "there is no move 0: the moves are numbered 1-",
                    "there is no move 999", "there is no action #99999: the ids are 0..",
                    "Type a number 1-"):  # fmt: skip
        assert message in text, message
    assert text.count("Your moves, player_0:") == person.turns + 1  # once a turn, and again for "?"
    assert f"Game over after {result['moves']} moves (seed 7). Rewards:" in text
    assert re.search(r"You (win!|lose\.|share first place\.)", text)
    assert f"player_1 ({OPPONENT[game]}):" in text and "player_0 (you):" in text
    assert "Traceback" not in text


@pytest.mark.parametrize("game", sorted(OPPONENT))
def test_the_same_seed_and_answers_play_the_same_game(game: str) -> None:
    runs = []
    for _ in range(2):
        out = io.StringIO()
        runs.append((play_in_terminal(game, OPPONENT[game], seed=11, input_fn=Person(out), out=out), out.getvalue()))
    assert runs[0] == runs[1]


def test_an_illegal_action_id_is_explained_in_the_rules_words() -> None:
    spec = GAMES["easy_come_easy_go"]
    env = GameAEC("easy_come_easy_go")
    env.reset(seed=0)
    state, seat = env.state(), env.possible_agents.index(env.agent_selection)
    mask = env.observe(env.agent_selection)["action_mask"]
    legal = np.flatnonzero(mask).tolist()
    illegal = next(a for a in range(len(mask)) if not mask[a])
    action, problem = read_move(spec, env.config, state, seat, legal, f"#{illegal}")
    assert action is None
    assert problem.startswith(f"action #{illegal} ({spec.describe_action(env.config, state, illegal)}) is not legal")
    assert spec.explain_illegal(env.config, state, seat, illegal) in problem
    assert read_move(spec, env.config, state, seat, legal, f"#{legal[-1]}") == (legal[-1], "")
    assert read_move(spec, env.config, state, seat, legal, f"id {legal[0]}") == (legal[0], "")
    assert read_move(spec, env.config, state, seat, legal, " 2 ") == (legal[1], "")
    assert read_move(spec, env.config, state, seat, legal, "١")[0] is None  # a non-ASCII digit is no move number


def test_quitting_and_the_end_of_input_abandon_the_game_cleanly() -> None:
    out = io.StringIO()
    result = play_in_terminal("yay", "yay_greedy", seed=1, input_fn=Person(out, ["banana", "q"]), out=out)
    assert result["quit"] and not result["finished"]
    assert "you quit: the game is abandoned" in out.getvalue() and "Abandoned after" in out.getvalue()

    def ended(prompt: str) -> str:
        raise EOFError

    out = io.StringIO()
    result = play_in_terminal("extra", "extra_greedy", seed=1, input_fn=ended, out=out)
    assert result["quit"] and "end of input: the game is abandoned" in out.getvalue()


def test_a_simultaneous_games_choices_stay_hidden_until_the_round_resolves() -> None:
    """Extra!, the person in seat 1: player_0 (earlier in seat order) chooses first, but its choice is told only
    after the person's, as the round resolves."""
    out = io.StringIO()
    result = play_in_terminal("extra", ["extra_greedy"], seat=1, seed=3, input_fn=Person(out), out=out)
    text = out.getvalue()
    assert result["finished"]
    mine = [m.start() for m in re.finditer(r"^player_1 \(you\): ", text, re.M)]
    theirs = [m.start() for m in re.finditer(r"^player_0 \(extra_greedy\): ", text, re.M)]
    assert mine and len(theirs) >= len(mine) - 1
    for i, at in enumerate(theirs[: len(mine)]):
        assert at > mine[i], "an agent's choice was shown before the person chose on the same throw"


def test_three_players_one_opponent_name_fills_every_other_seat() -> None:
    out = io.StringIO()
    result = play_in_terminal("easy_come_easy_go", ["eceg_heuristic"], players=3, seat=2, seed=5,
                              input_fn=Person(out), out=out)  # fmt: skip
    assert result["finished"] and list(result["rewards"]) == ["player_0", "player_1", "player_2"]
    assert "player_0 (eceg_heuristic), player_1 (eceg_heuristic), player_2 (you)" in out.getvalue()


def test_the_notebook_play_shows_the_rgb_picture_at_every_turn() -> None:
    out, pictures = io.StringIO(), []
    person = Person(out, ["zzz"])
    result = play("yay", "yay_greedy", seed=4, input_fn=person, out=out, show=pictures.append)
    text = out.getvalue()
    assert result["finished"] and "'zzz' is not a move" in text
    turns = text.count("Your moves, player_0:")
    assert len(pictures) == turns + 1  # one per turn, and the final table
    height, width, channels = pictures[0].shape
    assert channels == 3 and pictures[0].dtype == np.uint8 and height > 100 and width > 100
    assert "player_1 (yay_greedy): " in text and "Game over after" in text


def test_the_notebook_play_prints_the_text_picture_outside_a_notebook() -> None:
    out = io.StringIO()
    result = play("easy_come_easy_go", ["eceg_heuristic"], seed=2, input_fn=Person(out), out=out)
    assert result["finished"] and "Easy Come, Easy Go (2 players) |" in out.getvalue()


# --- the command


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["yy", "--vs", "yay_td"], "error: unknown game 'yy' (did you mean 'yay'?)"),
        (["easy_money_greed", "--vs", "random"], "games: easy_come_easy_go, easy_money, extra"),  # a task
        (["yay", "--vs", "yay_tdd"], "error: unknown agent 'yay_tdd'; did you mean 'yay_td'?"),
        (["yay", "--vs", "extra_greedy"], "error: agent 'extra_greedy' plays extra, not yay; agents for yay:"),
        (["yay", "--vs", "sb3"], "error: agent 'sb3' cannot be built from its name alone"),
        (["yay", "--vs", "yay_greedy", "--seat", "2"], "error: seat 2 is out of range: the seats of 2 players"),
        (["yay", "--vs", "yay_greedy", "--seat", "-1"], "error: seat -1 is out of range"),
        (["yay", "--vs", "yay_greedy", "--players", "9"], "num_players"),
        (["yay", "--vs", "yay_greedy", "--players", "1"], "error: players must be an int of at least 2"),
        (["yay", "--vs", "yay_greedy", "random", "--players", "4"], "error: 2 opponents for 4 players: name 3 agents"),
        (["yay", "--vs", "yay_greedy", "--seed", "-3"], "error: seed must be a non-negative int"),
    ],
)
def test_bad_arguments_are_one_error_line_with_exit_code_2(argv: list[str], message: str, capsys) -> None:
    assert main(argv, input_fn=lambda prompt: pytest.fail("asked for a move")) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_a_missing_vs_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["yay"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "usage: " in err and "--vs" in err and "error: the following arguments are required: --vs" in err


def test_the_command_plays_a_game_from_stdin_to_the_end() -> None:
    """``dicearena play`` as an installed user runs it, the moves piped in: a bad answer, then move 1 each turn."""
    moves = "banana\n" + "1\n" * 400
    done = subprocess.run([sys.executable, "-m", "dicearena", "play", "yay", "--vs", "yay_greedy", "--seed", "2"],
                          input=moves, capture_output=True, text=True, timeout=600, cwd=ROOT / "tests")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "'banana' is not a move" in done.stdout and "Game over after" in done.stdout
    assert done.stderr == "" or "Traceback" not in done.stderr


def test_the_module_runs_from_a_checkout_and_stops_cleanly_at_the_end_of_input() -> None:
    done = subprocess.run([sys.executable, "-m", "dicearena.agents.evaluation.human_play", "easy_come_easy_go",
                           "--vs", "eceg_heuristic", "--seed", "1"], input="", capture_output=True, text=True,
                          timeout=600, cwd=ROOT / "tests")  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "end of input: the game is abandoned" in done.stdout and "Traceback" not in done.stderr


def test_the_command_in_a_pseudo_terminal_to_the_end_of_a_game() -> None:
    """A person at a terminal: ``dicearena play`` in a pty, answering each prompt as it appears (one bad answer)."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "dicearena", "play", "easy_come_easy_go", "--vs", "eceg_heuristic",
                             "--seed", "3"], stdin=slave, stdout=slave, stderr=slave, cwd=ROOT / "tests",
                            close_fds=True)  # fmt: skip
    os.close(slave)
    screen, answered, answers = b"", 0, [b"oops\n"]
    deadline = time.monotonic() + 600
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the program ended and closed the terminal
                    break
                if not chunk:
                    break
                screen += chunk
            prompts = screen.count(b"Your move (")
            if prompts > answered:
                os.write(master, answers.pop(0) if answers else b"1\n")
                answered += 1
            elif proc.poll() is not None and not ready:
                break
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = screen.decode(errors="replace")
    assert proc.returncode == 0, text[-2000:]
    assert "'oops' is not a move" in text and "Game over after" in text and "Traceback" not in text
    assert answered >= 3


# --- replays


def test_a_replay_gif_has_every_changed_picture_at_the_pictures_size(tmp_path: Path) -> None:
    path = tmp_path / "game.gif"
    written = replay.replay("easy_come_easy_go", ["eceg_heuristic", "random"], path, seed=0, fps=4, max_steps=12)
    env = GameAEC("easy_come_easy_go")
    env.reset(seed=0)
    picture = GAMES["easy_come_easy_go"].render_rgb(env.config, env.state())
    with Image.open(path) as gif:
        assert gif.n_frames == written["frames"] > 1
        assert gif.size == written["size"] == (picture.shape[1], picture.shape[0])
        assert gif.info["duration"] == 250 and gif.info["loop"] == 0
    again = tmp_path / "again.gif"
    replay.replay("easy_come_easy_go", ["eceg_heuristic", "random"], again, seed=0, fps=4, max_steps=12)
    assert again.read_bytes() == path.read_bytes()  # seeded: the same game, the same file


def test_the_replay_command_writes_a_whole_game(tmp_path: Path, capsys) -> None:
    path = tmp_path / "yay.gif"
    assert replay.main(["yay", "--agents", "yay_greedy", "random", "-o", str(path), "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Game over after" in out and f"wrote {path}:" in out
    with Image.open(path) as gif:
        assert gif.n_frames > 10


def test_a_replay_mp4(tmp_path: Path) -> None:
    pytest.importorskip("imageio_ffmpeg")
    import imageio.v2 as imageio

    path = tmp_path / "extra.mp4"
    written = replay.replay("extra", ["extra_greedy", "random"], path, seed=0, max_steps=8)
    reader = imageio.get_reader(path)
    try:
        first = reader.get_data(0)
        assert reader.count_frames() == written["frames"] > 1
    finally:
        reader.close()
    width, height = written["size"]
    assert first.shape == (-(-height // 16) * 16, -(-width // 16) * 16, 3)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["yay", "--agents", "yay_greedy", "random", "-o", "game.png"], "must end in .gif or .mp4"),
        (["yay", "--agents", "yay_greedy", "random", "-o", "no_such_folder/g.gif"], "does not exist"),
        (["yay", "--agents", "yay_greedy", "random", "-o", "g.gif", "--fps", "0"], "--fps must be positive"),
        (["yay", "--agents", "yay_greedy", "random", "-o", "g.gif", "--max-steps", "0"], "--max-steps must be"),
        (["yay", "--agents", "yay_greedy", "nobody", "-o", "g.gif"], "unknown agent 'nobody'"),
        (["yay", "--agents", "yay_greedy", "-o", "g.gif"], "num_players"),
        (["yahtzee", "--agents", "random", "random", "-o", "g.gif"], "unknown game 'yahtzee'"),
    ],
)
def test_bad_replay_arguments_are_one_error_line(argv: list[str], message: str, tmp_path: Path, monkeypatch,
                                                 capsys) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert replay.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # nothing written


def test_the_modules_name_their_public_functions() -> None:
    assert {"play", "play_in_terminal", "main"} <= set(human_play.__all__)
    assert {"replay", "main"} <= set(replay.__all__)
