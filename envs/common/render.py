"""Drawing helpers any dice game's ``rgb_array`` renderer can reuse (Pillow, off-screen, no window)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

__all__ = ["PLAYER_COLOURS", "TITLE_HEIGHT", "Title", "draw_banner", "draw_die", "draw_legend", "draw_title",
           "fit_text", "font", "new_canvas", "to_array", "text_centered", "wrap_text"]

RGB = tuple[int, int, int]

# One colour per seat (up to 6 players), distinct and readable under dark text.
PLAYER_COLOURS: tuple[RGB, ...] = (
    (230, 97, 92),  # red
    (86, 156, 230),  # blue
    (111, 196, 106),  # green
    (240, 181, 63),  # amber
    (171, 122, 214),  # purple
    (78, 196, 190),  # teal
)

# Pip centres on a unit face for 1..6 pips (0 = blank face, as on a 0-5 die).
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    0: (),
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)),
}


@lru_cache(maxsize=16)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` px (no system fonts needed)."""
    return ImageFont.load_default(size=size)


def new_canvas(width: int, height: int, background: RGB = (245, 241, 232)) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), background)
    return image, ImageDraw.Draw(image)


def to_array(image: Image.Image) -> np.ndarray:
    """(H, W, 3) uint8, the PettingZoo/Gymnasium ``rgb_array`` convention."""
    return np.asarray(image, dtype=np.uint8).copy()


def text_centered(draw: ImageDraw.ImageDraw, centre: tuple[float, float], text: str, size: int, fill: RGB) -> None:
    draw.text(centre, text, fill=fill, font=font(size), anchor="mm")


def draw_banner(draw: ImageDraw.ImageDraw, width: int, text: str, fill: RGB, height: int = 40, size: int = 17,
                ink: RGB = (30, 30, 30)) -> None:  # fmt: skip
    """A full-width status bar across the top of a picture, ``text`` centred (cut short to fit)."""
    draw.rectangle((0, 0, width, height), fill=fill)
    text_centered(draw, (width / 2, height / 2), fit_text(text, size, width - 16), size, ink)


TITLE_HEIGHT = 44  # px of the two title lines every game's picture starts with (:func:`draw_title`)
TITLE_FILL: RGB = (226, 221, 206)  # the title band when no single seat moves (chance, the end, several deciding)


@dataclass(frozen=True)
class Title:
    """What a game's picture says first, in the same four parts in every game, so a viewer (or a video of a game)
    always finds them in the same place: which game, which turn, who moves, in which phase. ``seat``: the seat the
    band is coloured for (the mover, the winner), or None."""

    game: str
    turn: str
    mover: str
    phase: str
    seat: int | None = None

    def lines(self) -> tuple[str, str]:
        """The two title lines: ``game | turn`` over ``mover | phase``."""
        return f"{self.game}  |  {self.turn}", f"{self.mover}  |  {self.phase}"


def draw_title(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], title: Title, size: int = 15,
               ink: RGB = (30, 30, 30)) -> None:  # fmt: skip
    """``title``'s two lines centred in ``box`` (x0, y0, x1, y1), each cut short to fit, on a band in the colour of
    ``title.seat`` (the neutral band when None). Every game's renderer calls this, so titles look alike."""
    x0, y0, x1, y1 = box
    fill = TITLE_FILL if title.seat is None else PLAYER_COLOURS[title.seat % len(PLAYER_COLOURS)]
    draw.rectangle(box, fill=fill)
    first, second = title.lines()
    middle, height = (x0 + x1) / 2, y1 - y0
    draw.text((middle, y0 + height * 0.28), fit_text(first, size + 1, x1 - x0 - 12), fill=ink, font=font(size + 1),
              anchor="mm")  # fmt: skip
    draw.text((middle, y0 + height * 0.74), fit_text(second, size, x1 - x0 - 12), fill=ink, font=font(size),
              anchor="mm")  # fmt: skip


def draw_legend(draw: ImageDraw.ImageDraw, x: int, y: int, rows: list[str], width: int, size: int = 14,
                step: int = 20, ink: RGB = (30, 30, 30)) -> None:  # fmt: skip
    """One line per seat from (x, y) down, ``step`` px apart: a swatch of the seat's colour (``PLAYER_COLOURS``,
    the colour its pieces are drawn in) and ``rows[seat]`` beside it, cut short to fit ``width`` px."""
    swatch = size
    for seat, text in enumerate(rows):
        top = y + seat * step
        draw.rectangle((x, top, x + swatch, top + swatch), fill=PLAYER_COLOURS[seat], outline=ink)
        draw.text((x + swatch + 8, top), fit_text(text, size, width - swatch - 8), fill=ink, font=font(size))


def fit_text(text: str, size: int, width: float) -> str:
    """``text`` as it fits in ``width`` px at ``size`` px: whole, or cut short with a trailing ``..``."""
    face = font(size)
    if face.getlength(text) <= width:
        return text
    while text and face.getlength(text + "..") > width:
        text = text[:-1]
    return text.rstrip() + ".."


def wrap_text(text: str, size: int, width: float, max_lines: int = 2) -> list[str]:
    """``text`` broken at spaces into lines that fit ``width`` px at ``size`` px; at most ``max_lines`` (the last
    cut short by :func:`fit_text` if the text does not fit)."""
    face = font(size)
    lines: list[str] = []
    words = text.split()
    while words and len(lines) < max_lines:
        line = words.pop(0)
        while words and face.getlength(f"{line} {words[0]}") <= width:
            line = f"{line} {words.pop(0)}"
        lines.append(line)
    if words:
        lines[-1] = fit_text(f"{lines[-1]} {' '.join(words)}", size, width)
    return [fit_text(line, size, width) for line in lines]


def draw_die(
    draw: ImageDraw.ImageDraw,
    x: int,
    y: int,
    size: int,
    pips: int,
    *,
    face: RGB = (255, 255, 255),
    pip: RGB = (30, 30, 30),
    outline: RGB = (60, 60, 60),
    outline_width: int = 2,
) -> None:
    """A die face with ``pips`` (0..6) dots, top-left corner at (x, y); 0 draws a blank face."""
    if pips not in _PIPS:
        raise ValueError(f"a die face has 0..6 pips, got {pips}")
    radius = max(2, size // 7)
    draw.rounded_rectangle((x, y, x + size, y + size), radius=radius, fill=face, outline=outline, width=outline_width)
    r = max(2, size // 11)
    for u, v in _PIPS[pips]:
        cx, cy = x + u * size, y + v * size
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=pip)
