"""Every game's ``rgb_array`` picture: the shared title lines (game, turn, mover, phase), equal frames within a game,
and Yay!'s legend and standings (what its text view already showed)."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from dicearena.envs import easy_come_easy_go_v0, easy_money_v0, extra_v0, yay_v0
from dicearena.envs.common.contract import SIMULTANEOUS, game_spec
from dicearena.envs.common.render import PLAYER_COLOURS, TITLE_HEIGHT, Title
from dicearena.envs.easy_come_easy_go import render as eceg_render
from dicearena.envs.easy_money import render as em_render
from dicearena.envs.extra import engine as extra_engine
from dicearena.envs.extra import render as extra_render
from dicearena.envs.yay import engine as Y
from dicearena.envs.yay import render as yay_render

GAMES = {  # game id: (classic module, its render module, config)
    "easy_come_easy_go": (easy_come_easy_go_v0, eceg_render, {"num_players": 3}),
    "extra": (extra_v0, extra_render, {"num_players": 3}),
    "yay": (yay_v0, yay_render, {"num_players": 3, "rows": 5, "cols": 5}),
    "easy_money": (easy_money_v0, em_render, {"num_players": 3}),
}


def title_region(game: str, state: np.ndarray, image: np.ndarray) -> np.ndarray:
    """The pixels of the title lines: the top band, or in Ea$y Money the band inside the board ring."""
    if game == "easy_money":
        x0, y0, x1, y1 = em_render.title_box(int(state[em_render.E.NUM_SPACES]))
        return image[y0:y1, x0:x1]
    return image[:TITLE_HEIGHT]


def random_frames(module: ModuleType, config: dict, seed: int, steps: int,
                  every: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:  # fmt: skip
    """(engine state, picture) after the reset and each of ``steps`` random legal moves of a seeded game (only the
    first and the last unless ``every``)."""
    env = module.raw_env(render_mode="rgb_array", **config)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = [(env.state(), env.render())]
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
        if every:
            frames.append((env.state(), env.render()))
    return frames if every else [*frames, (env.state(), env.render())]


@pytest.mark.parametrize("game", list(GAMES))
def test_every_picture_starts_with_the_title_lines(game: str) -> None:
    module, render, config = GAMES[game]
    frames = random_frames(module, config, seed=3, steps=60)
    assert len({image.shape for _, image in frames}) == 1  # equal frames: a video of the game needs them
    titles = [render.title(state) for state, _ in frames]
    spec = game_spec(game)
    engine = spec.engine
    for (state, _), title in zip(frames, titles, strict=True):
        assert isinstance(title, Title) and title.game.startswith(spec.title)
        seat = int(engine.to_act(state))
        deciding = [s for s in range(3) if extra_engine.must_act(state, s)] if seat == SIMULTANEOUS else [seat]
        for s in (s for s in deciding if s >= 0):  # the mover (or the seat deciding) is named
            assert f"player_{s}" in f"{title.mover} {title.phase}", (title, s)
    changed = 0
    for (s0, i0), (s1, i1), t0, t1 in zip(frames, frames[1:], titles, titles[1:], strict=False):
        a, b = title_region(game, s0, i0), title_region(game, s1, i1)
        assert a.shape == b.shape
        if (t0.turn, t0.mover) != (t1.turn, t1.mover):  # another turn or another mover: another title
            changed += 1
            assert not np.array_equal(a, b), (t0, t1)
        elif t0 == t1:  # the same title: the same pixels (the region shows the title and nothing else)
            assert np.array_equal(a, b), t0
    assert changed >= 2


@pytest.mark.parametrize("game", list(GAMES))
def test_a_title_names_the_winner_at_the_end(game: str) -> None:
    module, render, config = GAMES[game]
    if game == "easy_money":
        config = {**config, "max_turns": 8}  # a short game; it may also stop without a winner
    (_, first), (state, image) = random_frames(module, config, seed=5, steps=100_000, every=False)
    title = render.title(state)
    assert "over" in title.phase and image.shape == first.shape
    rewards = np.zeros(8)
    game_spec(game).engine.rewards(state, rewards)
    winners = [s for s in range(3) if rewards[s] > 0]
    if winners:
        assert all(f"player_{s}" in title.mover for s in winners) and "win" in title.mover
    else:
        assert "no winner" in title.mover


def yay_state(seed: int = 2, steps: int = 24) -> np.ndarray:
    """A Yay! game of three players in progress, several numbers on the sheet."""
    state, _ = random_frames(yay_v0, {"num_players": 3, "rows": 6, "cols": 6}, seed, steps)[-1]
    assert state[Y.PHASE] != Y.PHASE_OVER
    return state


def region(image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = box
    return image[y0:y1, x0:x1]


def count(pixels: np.ndarray, colour: tuple[int, int, int]) -> int:
    return int((pixels == np.array(colour, dtype=np.uint8)).all(axis=-1).sum())


def test_yay_legend_has_one_swatch_per_player_in_the_colours_of_their_numbers() -> None:
    state = yay_state()
    n, rows, cols = int(state[Y.NUM_PLAYERS]), int(state[Y.ROWS]), int(state[Y.COLS])
    box = yay_render.layout(rows, cols, n)
    image = yay_render.render_rgb(state)
    legend, sheet = region(image, box["legend"]), region(image, box["sheet"])
    owners = {Y.owner(int(c)) for c in state[Y.BOARD : Y.BOARD + rows * cols] if c > Y.BLOCKED and not Y.is_crossed(c)}
    assert len(owners) >= 2  # numbers of several players are on the sheet
    for seat in range(n):
        assert count(legend, PLAYER_COLOURS[seat]) >= 13 * 13  # the swatch, filled with the seat's colour
        assert (count(sheet, PLAYER_COLOURS[seat]) > 0) == (seat in owners)  # its numbers are drawn in that colour
    for seat in range(n, len(PLAYER_COLOURS)):
        assert count(legend, PLAYER_COLOURS[seat]) == 0  # no swatch for a seat that is not playing
    text = yay_render.render_ansi(state)
    for line, (numbers, total) in zip(yay_render._legend_rows(state), yay_render.standings(state), strict=True):
        assert f"{numbers} number" in line and f"sum {total}" in line  # the standings the text view shows
        assert f"{line.split(':')[0]} {numbers} ({total})" in text
    assert "<- to move" in yay_render._legend_rows(state)[int(state[Y.CURRENT])]


def test_yay_standings_change_in_the_picture_when_the_scores_change() -> None:
    state = yay_state()
    n, rows, cols = int(state[Y.NUM_PLAYERS]), int(state[Y.ROWS]), int(state[Y.COLS])
    box = yay_render.layout(rows, cols, n)
    before = yay_render.render_rgb(state)
    empty = next(s for s in range(rows * cols) if state[Y.BOARD + s] == Y.EMPTY)
    scored = state.copy()
    scored[Y.BOARD + empty] = Y.number_code(1, 17)  # player_1 writes a 17
    after = yay_render.render_rgb(scored)
    assert before.shape == after.shape
    assert yay_render.standings(scored)[1] == (yay_render.standings(state)[1][0] + 1,
                                               yay_render.standings(state)[1][1] + 17)  # fmt: skip
    assert not np.array_equal(region(before, box["legend"]), region(after, box["legend"]))
    np.testing.assert_array_equal(region(before, box["title"]), region(after, box["title"]))  # same turn, same mover


def test_yay_frames_keep_their_size_for_every_sheet() -> None:
    for config in ({"rows": 3, "cols": 3, "die_size": 1.0}, {"num_players": 4, "rows": 12, "cols": 12}):
        frames = random_frames(yay_v0, config, seed=1, steps=40)
        width, height = yay_render.layout(config["rows"], config["cols"], config.get("num_players", 2))["picture"][2:]
        assert {image.shape for _, image in frames} == {(height, width, 3)}
