"""Replays: a game between named agents as a GIF (or an MP4), for papers and talks: ``dicearena replay GAME --agents A
B -o game.gif``.

Why this way: the frames are the game's own ``rgb_array`` pictures (``GameSpec.render_rgb``) of the engine states of
one game played through its AEC env (``human_play.play_match``, the loop ``dicearena play`` uses), so a replay shows
exactly the rules the envs run, for any registered game. A GIF needs only pillow, a runtime dependency; an MP4 needs
imageio with its ffmpeg plugin (``pip install imageio imageio-ffmpeg``, in the ``train`` extra), imported only then.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dicearena.agents.base import Agent
from dicearena.agents.evaluation.human_play import Table, games_and_agents, outcome_lines, play_match, seat_table

__all__ = ["FORMATS", "check_output", "main", "prepare", "record", "replay", "write_video"]

FORMATS = (".gif", ".mp4")


def record(table: Table, max_steps: int | None = None) -> tuple[list[np.ndarray], dict[str, Any]]:
    """The frames of one game of ``table`` (agents in every seat): the picture after the reset and after every move
    that changed it (a simultaneous game's hidden choices change nothing until their round resolves), and
    ``{"rewards", "moves", "quit", "seed", "lines"}`` (every move in words, then the outcome)."""
    if table.spec.render_rgb is None:
        raise ValueError(f"{table.spec.title} has no rgb_array picture to replay")
    frames: list[np.ndarray] = []

    def frame(state: np.ndarray) -> None:
        image = table.spec.render_rgb(table.config, state)
        if not frames or not np.array_equal(frames[-1], image):
            frames.append(image)

    lines: list[str] = []
    result = play_match(table, None, lines.append, max_moves=max_steps, on_step=frame)
    lines += outcome_lines(table, result)
    return frames, {**result.as_dict(), "lines": lines}


def _padded(frames: Sequence[np.ndarray], multiple: int = 1) -> list[np.ndarray]:
    """Every frame on one canvas (the largest, rounded up to ``multiple``), white around: a video has one size."""
    height = max(f.shape[0] for f in frames)
    width = max(f.shape[1] for f in frames)
    height, width = -(-height // multiple) * multiple, -(-width // multiple) * multiple
    out = []
    for f in frames:
        canvas = np.full((height, width, 3), 255, dtype=np.uint8)
        canvas[: f.shape[0], : f.shape[1]] = f[..., :3]
        out.append(canvas)
    return out


def check_output(path: str | Path) -> Path:
    """``path`` as a Path if its extension is one we write and its folder exists, else a ValueError saying which."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"the output {str(path)!r} must end in {' or '.join(FORMATS)} (the format follows it)")
    if not path.parent.is_dir():
        raise ValueError(f"the output's folder {str(path.parent)!r} does not exist")
    if path.suffix.lower() == ".mp4":
        _mp4_writer()
    return path


def _mp4_writer() -> Any:
    """imageio's v2 API with a working ffmpeg, or a ValueError saying what to install."""
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg

        imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError) as exc:
        raise ValueError(f"writing an MP4 needs imageio and imageio-ffmpeg ({exc}): pip install imageio "
                         "imageio-ffmpeg (the train extra has both), or write a .gif") from None  # fmt: skip
    return imageio


def write_video(frames: Sequence[np.ndarray], path: str | Path, fps: float) -> Path:
    """Write ``frames`` (uint8 RGB) to ``path``: a looping GIF with pillow, or an MP4 (H.264) with imageio."""
    path = check_output(path)
    if not frames:
        raise ValueError("no frames to write")
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    if path.suffix.lower() == ".gif":
        from PIL import Image

        images = [Image.fromarray(f) for f in _padded(frames)]
        images[0].save(path, save_all=True, append_images=images[1:], duration=round(1000 / fps), loop=0,
                       optimize=False)  # fmt: skip
    else:
        imageio = _mp4_writer()
        # sizes a multiple of 16: H.264's blocks, so ffmpeg neither rescales nor warns
        imageio.mimwrite(path, _padded(frames, 16), fps=fps, codec="libx264", macro_block_size=16)
    return path


def prepare(
    game: str, agents: Sequence[str | Agent], path: str | Path, *, seed: int = 0, fps: float | None = None,
    max_steps: int | None = None, config: Any = None,
) -> tuple[Table, Path, float]:  # fmt: skip
    """Every argument checked before a game is played: the table, the output path, the frame rate (default: the
    game's ``render_fps``). A mistake is a ValueError naming it."""
    path = check_output(path)
    if fps is not None and (isinstance(fps, bool) or not isinstance(fps, int | float) or not fps > 0):
        raise ValueError(f"fps must be a positive number, got {fps!r}")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise ValueError(f"max_steps must be a positive int or None, got {max_steps!r}")
    agents = [agents] if isinstance(agents, str | Agent) else list(agents)
    if not agents:
        raise ValueError("name one agent per seat")
    table = seat_table(game, agents, seed=seed, config=config)
    if table.spec.render_rgb is None:
        raise ValueError(f"{table.spec.title} has no rgb_array picture to replay")
    return table, path, float(table.spec.render_fps if fps is None else fps)


def replay(
    game: str, agents: Sequence[str | Agent], path: str | Path, *, seed: int = 0, fps: float | None = None,
    max_steps: int | None = None, config: Any = None,
) -> dict[str, Any]:  # fmt: skip
    """Play ``game`` between ``agents`` (one per seat, in seat order) and write its replay to ``path`` (``.gif`` or
    ``.mp4``) at ``fps`` frames per second (default: the game's ``render_fps``); ``max_steps`` stops after that many
    moves. Returns ``{"path", "frames", "size", "rewards", "moves", "seed", "lines"}``."""
    table, path, fps = prepare(game, agents, path, seed=seed, fps=fps, max_steps=max_steps, config=config)
    return _write(table, path, fps, max_steps)


def _write(table: Table, path: Path, fps: float, max_steps: int | None) -> dict[str, Any]:
    frames, result = record(table, max_steps)
    write_video(frames, path, fps)
    height, width = max(f.shape[0] for f in frames), max(f.shape[1] for f in frames)  # (a GIF's; an MP4 pads to 16)
    return {"path": str(path), "frames": len(frames), "size": (width, height), **result}


def main(argv: list[str] | None = None) -> int:
    """``dicearena replay``: 0 after writing, 2 for a mistake in the arguments."""
    parser = argparse.ArgumentParser(
        description="Write a replay of a game between named agents: the game's rgb_array pictures as a GIF, or an "
        "MP4 (needs imageio and imageio-ffmpeg).",
        epilog=games_and_agents(),
    )
    parser.add_argument("game", help="the game's id, e.g. yay")
    parser.add_argument("--agents", nargs="+", required=True, metavar="AGENT",
                        help="one agent per seat, in seat order (the number of players follows)")  # fmt: skip
    parser.add_argument("-o", "--output", required=True, help="the file to write: .gif, or .mp4")
    parser.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    parser.add_argument("--fps", type=float, help="frames per second (default: the game's render_fps)")
    parser.add_argument("--max-steps", type=int, help="stop after this many moves (default: the whole game)")
    args = parser.parse_args(argv)
    try:
        if args.fps is not None and not args.fps > 0:
            raise ValueError(f"--fps must be positive, got {args.fps}")
        if args.max_steps is not None and args.max_steps < 1:
            raise ValueError(f"--max-steps must be at least 1, got {args.max_steps}")
        table, path, fps = prepare(args.game, args.agents, args.output, seed=args.seed, fps=args.fps)
    except (ValueError, TypeError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table.heading())
    written = _write(table, path, fps, args.max_steps)
    print("\n".join(written["lines"][-(table.players + 1) :]))  # the outcome: a line, then one per seat
    width, height = written["size"]
    print(f"wrote {written['path']}: {written['frames']} frames of {width}x{height} at {fps:g} fps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
