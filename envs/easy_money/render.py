"""Text and picture renderings of an Ea$y Money state (read-only views of the engine state).

Everything is read from the state: its header holds the board, the decks and every knob (``engine.header``), so
``config`` is not needed and may be None. Both views share the wording below (status, phase, Greed, the Stock Tip,
the last event, each player's money and bets).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from dicearena.envs.common.render import (
    PLAYER_COLOURS,
    TITLE_HEIGHT,
    Title,
    draw_die,
    draw_title,
    fit_text,
    font,
    new_canvas,
    text_centered,
    to_array,
    wrap_text,
)

from . import engine as E

__all__ = ["SPACE_CODES", "render_ansi", "render_rgb", "space_box", "title", "title_box"]

# Per space type (data.SPACE_TYPES order): a 2-letter code (text), a board label and a colour (picture).
SPACE_CODES = ("EM", "DB", "NO", "LO", "PL", "JP", "GR", "WS", "LD")
_SPACE_WORDS = ("easy money", "double", "nothing", "lottery", "purple lottery", "jackpot", "greed", "wall street",
                "lucky dice")  # fmt: skip
_SPACE_LABELS = ("EASY $", "DOUBLE", "NOTHING", "LOTTERY", "PURPLE", "JACKPOT", "GREED", "WALL ST", "LUCKY")
_SPACE_COLOURS = (
    (246, 208, 72),  # easy money: gold
    (132, 200, 120),  # double: green
    (178, 178, 178),  # nothing: grey
    (140, 186, 240),  # lottery: light blue
    (172, 124, 214),  # purple lottery
    (244, 158, 82),  # jackpot: orange
    (226, 96, 96),  # greed: red
    (88, 188, 176),  # wall street: teal
    (240, 160, 204),  # lucky dice: pink
)
assert len(SPACE_CODES) == len(_SPACE_LABELS) == len(_SPACE_COLOURS) == E.NUM_SPACE_TYPES

_INK = (30, 30, 30)
_POT = (196, 168, 228)
_PILE = (204, 226, 192)
_PAWN = (25, 25, 25)
_LOTTERY_DICE = ((236, 112, 108), (255, 255, 255), (132, 166, 236))  # red, white, blue
_SIDES = ("UP", "DOWN")
_GREED = (E.PHASE_GREED_NAME, E.PHASE_GREED_ROLL, E.PHASE_GREED_DECIDE)
_SETUP = {
    E.PHASE_SHUFFLE_TICKETS: "shuffling the Lottery tickets",
    E.PHASE_SHUFFLE_JACKPOT: "shuffling the Mystery Jackpot deck",
    E.PHASE_SHUFFLE_WALL: "shuffling the Wall Street deck",
}


def _p(seat: int) -> str:
    return f"player_{seat}"


# --- what both views say (``s`` is the state as a list: plain ints, fast to index)


def _winners(s: list[int]) -> list[int]:
    return [seat for seat in range(s[E.NUM_PLAYERS]) if (s[E.WINNERS] >> seat) & 1]


def _money(s: list[int], seat: int) -> int:
    return s[E.CASH + seat] + s[E.STAKE + seat]


def _headline(s: list[int]) -> str:
    """Whose turn (turn t of max), the setup step, or how the game ended."""
    phase, turn = s[E.PHASE], s[E.TURN]
    if phase == E.PHASE_OVER:
        if s[E.TRUNCATED]:
            return f"truncated after {s[E.MAX_TURNS]} turns: no winner"
        winners = _winners(s)
        best = _money(s, winners[0])
        if len(winners) == 1:
            return f"game over after {turn} turns: {_p(winners[0])} wins with {best}"
        return f"game over after {turn} turns: {', '.join(map(_p, winners))} share the win with {best}"
    if turn == 0:
        if phase == E.PHASE_ROLLOFF:
            contenders = [_p(seat) for seat in range(s[E.NUM_PLAYERS]) if (s[E.ROLLOFF] >> seat) & 1]
            return f"setup: roll-off for the first turn among {', '.join(contenders)}"
        return f"setup: {_SETUP.get(phase, E.PHASE_NAMES[phase])}"
    return f"turn {turn} of {s[E.MAX_TURNS]}: {_p(s[E.CURRENT])} moves"


def title(state: np.ndarray | list[int]) -> Title:
    """The picture's title lines: game, turn, mover, phase (``dicearena.envs.common.render.Title``); the band takes
    the colour of the seat deciding now."""
    s = state.tolist() if isinstance(state, np.ndarray) else state
    phase, turn = s[E.PHASE], s[E.TURN]
    game = "Ea$y Money"
    if phase == E.PHASE_OVER:
        if s[E.TRUNCATED]:
            return Title(game, f"stopped after {s[E.MAX_TURNS]} turns", "no winner", "phase: over")
        winners = _winners(s)
        verb = "wins" if len(winners) == 1 else "share the win"
        mover = f"{', '.join(map(_p, winners))} {verb} with {_money(s, winners[0])}"
        return Title(game, f"game over after {turn} turns", mover, "phase: over",
                     winners[0] if len(winners) == 1 else None)  # fmt: skip
    seat = s[E.ACTOR] if E.PHASE_DECIDES[phase] else None
    if turn == 0:
        contenders = [_p(k) for k in range(s[E.NUM_PLAYERS]) if (s[E.ROLLOFF] >> k) & 1]
        mover = f"roll-off among {', '.join(contenders)}" if phase == E.PHASE_ROLLOFF else "nobody yet"
        return Title(game, "setup, before the first turn", mover, _phase_text(s), seat)
    return Title(game, f"turn {turn} of {s[E.MAX_TURNS]}", f"{_p(s[E.CURRENT])} moves", _phase_text(s), seat)


def _phase_text(s: list[int]) -> str:
    """The phase and who acts: a seat deciding, the dice (chance), or nobody."""
    phase = s[E.PHASE]
    name = E.PHASE_NAMES[phase]
    if phase == E.PHASE_OVER:
        return "phase: over"
    if E.PHASE_DECIDES[phase]:
        return f"phase: {name}, {_p(s[E.ACTOR])} to decide"
    if phase <= E.PHASE_SHUFFLE_WALL:
        return f"phase: {name} (chance: a deck's order)"
    return f"phase: {name} (chance: the dice)"


def _greed_text(s: list[int]) -> str:
    """While Greed runs: the named player, their cash and the running total."""
    if s[E.PHASE] not in _GREED:
        return ""
    mover, target = s[E.CURRENT], s[E.GREED_TARGET]
    if target < 0:
        return f"Greed: {_p(mover)} names a player to swipe from"
    cash, total, rolls = s[E.CASH + target], s[E.GREED_TOTAL], s[E.GREED_ROLLS]
    text = f"Greed: {_p(mover)} names {_p(target)} (cash {cash}), total {total} after {rolls} roll{'s' * (rolls != 1)}"
    if rolls > 0:
        text += ", stopping pays" if total <= cash else ", over the cash: stopping pays nothing"
    return text


def _wall_tip(s: list[int]) -> str:
    """While Wall Street bets are placed: the Stock Tip (the news and odds are on the back)."""
    if s[E.PHASE] != E.PHASE_WALL_BET:
        return ""
    return f"Wall Street: the Stock Tip says {_SIDES[s[E.WS_TIP + s[E.WS_CARD]]]}"


def _card_words(s: list[int], card: int) -> str:
    kind, amount = s[E.JP_KIND + card], s[E.JP_AMOUNT + card]
    return {
        E.CARD_COLLECT: f"collect {amount}",
        E.CARD_PAY: f"pay {amount} to the pot",
        E.CARD_COLLECT_FROM_EACH: f"collect {amount} from each player",
        E.CARD_TICKET: f"take a ticket (none left: collect {amount})",
        E.CARD_KEEP_NO_PENALTY: "keep: no DOUBLE penalty",
        E.CARD_KEEP_DOUBLE_BONUS: f"keep: Double pays +{amount}",
    }[kind]


def _event_text(s: list[int]) -> str:
    """The last event in words (what happened, to whom, how much moved)."""
    code, seat, amount = s[E.LAST_EVENT], s[E.LAST_SEAT], s[E.LAST_AMOUNT]
    who = _p(seat) if seat >= 0 else "nobody"
    number = s[E.LAST_LOTTERY]
    if code == E.EV_NONE:
        return "none yet"
    if code == E.EV_DOUBLE:
        return f"Double: the stakes were paid {amount} in all; no stake paid the penalty"
    if code == E.EV_NOTHING:
        return f"Nothing: {amount} went to the pot (stakes and penalties)"
    if code == E.EV_EASY_MONEY:
        return f"{who} landed on Easy Money: collected {amount}"
    if code == E.EV_JACKPOT:
        card = s[E.LAST_CARD]
        if card < 0:
            return f"{who} landed on Mystery Jackpot: every card is kept, nothing drawn"
        return f"{who} drew Mystery Jackpot card {card} ({_card_words(s, card)}): {amount} moved"
    if code == E.EV_LOTTERY_WIN:
        return f"{who} won the Lottery with {number}: the pot of {amount}"
    if code == E.EV_LOTTERY_NO_WIN:
        return f"Lottery rolled {number}: nobody holds it"
    if code == E.EV_GREED_BUST:
        return f"{who} rolled a 1 at Greed: bust, nothing"
    target = _p(s[E.GREED_TARGET]) if s[E.GREED_TARGET] >= 0 else "the named player"
    if code == E.EV_GREED_PAID:
        return f"{who} stopped at Greed: {target} paid {amount}"
    if code == E.EV_GREED_TOO_MUCH:
        return f"{who} stopped at Greed over {target}'s cash: nothing"
    if code == E.EV_WALL_STREET:
        card = s[E.WS_CARD]
        news, odds = _SIDES[s[E.WS_NEWS + card]], s[E.WS_ODDS + card]
        return f"Wall Street card turned: the news was {news} at {odds} to 1; {amount} paid to the winners"
    if code == E.EV_LUCKY_SEVEN:
        return f"Lucky Dice 7: {who} swept {amount} off the numbers"
    if code == E.EV_LUCKY_CLEARED:
        return "Lucky Dice: no money left on the numbers, the rolling is over"
    if code == E.EV_LUCKY_NO_BETS:
        return "Lucky Dice: nobody could bet, nothing rolled"
    if code == E.EV_CASH_ROLL:
        return f"{who}'s cash roll (out of money) collected {amount}"
    if code == E.EV_FINAL_WIN:
        rounds = s[E.FINAL_ROUNDS]
        return f"{who} won the Final Lottery with {number} after {rounds} round{'s' * (rounds != 1)} with no " \
               f"winner: the pot of {amount}"  # fmt: skip
    if code == E.EV_PILE_EMPTY:
        if s[E.FINAL_LOTTERY] == 0:
            return "the play pile is empty: the game ends, cash plus stake counts (the pot counts for nobody)"
        return "the play pile is empty: the Final Lottery decides"
    if code == E.EV_LUCKY_ROLL:
        total = s[E.ROLL_TOTAL]
        if seat >= 0:
            return f"Lucky Dice rolled {total}: {who} collected {amount}"
        return f"Lucky Dice rolled {total}: {amount} paid on the number"
    return E.EVENT_NAMES[code]


def _dice(s: list[int]) -> list[int]:
    """The last roll's faces (1..6), none before any roll."""
    return [f for f in s[E.DICE : E.DICE + 3] if f > 0]


def _tickets(s: list[int], seat: int) -> list[int]:
    return sorted(s[E.TICKET_NUMBER + t] for t in range(s[E.NUM_TICKETS]) if s[E.TICKET_OWNER + t] == seat)


def _kept(s: list[int], seat: int) -> list[str]:
    """The Mystery Jackpot cards ``seat`` keeps, briefly."""
    kept = []
    for c in range(s[E.NUM_JACKPOT]):
        if s[E.JP_OWNER + c] == seat:
            no_penalty = s[E.JP_KIND + c] == E.CARD_KEEP_NO_PENALTY
            kept.append("no penalty" if no_penalty else f"Double +{s[E.JP_AMOUNT + c]}")
    return kept


def _wall_bet(s: list[int], seat: int) -> str:
    side = s[E.WS_SIDE + seat]
    return f"{_SIDES[side - 1]} {s[E.WS_BET + seat]}" if side > 0 else ""


def _lucky(s: list[int], seat: int) -> str:
    base = E.LUCKY + seat * E.NUM_LUCKY
    return ", ".join(f"{s[base + k]} on {n}" for k, n in enumerate(E.LUCKY_NUMBERS) if s[base + k] > 0)


def _marks(s: list[int], seat: int) -> list[str]:
    """What is special about ``seat`` now: mover, deciding, named by Greed, winner."""
    phase = s[E.PHASE]
    marks = []
    if phase == E.PHASE_OVER:
        if not s[E.TRUNCATED] and (s[E.WINNERS] >> seat) & 1:
            marks.append("WINNER")
        return marks
    if s[E.TURN] > 0 and seat == s[E.CURRENT]:
        marks.append("mover")
    if E.PHASE_DECIDES[phase] and seat == s[E.ACTOR]:
        marks.append("to decide")
    if phase in _GREED and seat == s[E.GREED_TARGET]:
        marks.append("named by Greed")
    if phase == E.PHASE_ROLLOFF and s[E.ROLLOFF_FACES + seat]:
        marks.append(f"roll-off {s[E.ROLLOFF_FACES + seat]}")
    return marks


def _context(s: list[int]) -> list[str]:
    """The lines of the moment: Greed, the Stock Tip, the last roll."""
    lines = [text for text in (_greed_text(s), _wall_tip(s)) if text]
    dice = _dice(s)
    if dice and s[E.TURN] > 0:
        if len(dice) == 3:
            lines.append(f"last roll: red {dice[0]}, white {dice[1]}, blue {dice[2]} ({''.join(map(str, dice))})")
        else:
            roll = " + ".join(map(str, dice))
            lines.append(f"last roll: {roll} = {sum(dice)}" if len(dice) > 1 else f"last roll: {roll}")
    return lines


# --- text


def render_ansi(config: Any, state: np.ndarray) -> str:
    """The table as text: status and phase, pot and pile, the board ring ([..] = the pawn) and the 12 spaces ahead,
    each player's money, tickets, kept cards and bets in flight, Greed or the Stock Tip, the last event."""
    s = state.tolist()
    n, ns, pawn = s[E.NUM_PLAYERS], s[E.NUM_SPACES], s[E.PAWN]
    lines = [f"Ea$y Money ({n} players) | {_headline(s)} | {_phase_text(s)}"]
    lines.append(f"pot {s[E.POT]}  pile {s[E.PILE]}  (supply {s[E.SUPPLY]})  tickets in the deck "
                 f"{s[E.NUM_TICKETS] - s[E.TICKET_TOP]}")  # fmt: skip
    here = s[E.SPACES + pawn]
    where = "START, " if pawn == 0 else ""
    lines.append(f"board: {ns} spaces, the pawn on space {pawn} ({where}{_SPACE_WORDS[here]}); [..] marks it")
    cells = []
    for i in range(ns):
        cell = f"{i:>2} {SPACE_CODES[s[E.SPACES + i]]}"
        cells.append(f"[{cell}]" if i == pawn else f" {cell} ")
    for row in range(0, ns, 10):
        lines.append(("  " + "".join(cells[row : row + 10])).rstrip())
    lines.append("  " + ", ".join(f"{c} {w}" for c, w in zip(SPACE_CODES, _SPACE_WORDS, strict=True)))
    ahead = [f"+{d} {(pawn + d) % ns} {SPACE_CODES[s[E.SPACES + (pawn + d) % ns]]}" for d in range(1, E.AHEAD + 1)]
    lines.append("ahead: " + ", ".join(ahead))
    for seat in range(n):
        parts = [f"cash {s[E.CASH + seat]}", f"stake {s[E.STAKE + seat]}"]
        tickets = _tickets(s, seat)
        parts.append(f"tickets {' '.join(map(str, tickets))}" if tickets else "no ticket")
        kept = _kept(s, seat)
        if kept:
            parts.append(f"kept {', '.join(kept)}")
        if _wall_bet(s, seat):
            parts.append(f"Wall Street {_wall_bet(s, seat)}")
        if _lucky(s, seat):
            parts.append(f"Lucky Dice {_lucky(s, seat)}")
        marks = _marks(s, seat)
        flag = f" ({', '.join(marks)})" if marks else ""
        lines.append(f"{_p(seat)}{flag}: {', '.join(parts)}")
    lines.extend(_context(s))
    lines.append(f"last event: {_event_text(s)}")
    return "\n".join(lines)


# --- picture

SIZE = 660  # the picture is SIZE x SIZE: the board ring around its edge, the table inside


def _ring(num_spaces: int) -> tuple[int, int, int]:
    """Cells per side of the square ring, a cell's size and the ring's margin in px: 11 cells a side (the 40 cells
    of the real board) unless the board needs more, so the table inside always has room."""
    k = max(11, -(-num_spaces // 4) + 1)
    c = SIZE // k
    return k, c, (SIZE - k * c) // 2


def title_box(num_spaces: int) -> tuple[int, int, int, int]:
    """Where the title lines sit (x0, y0, x1, y1): across the top of the table, inside the board ring."""
    _, c, m = _ring(num_spaces)
    return m + c + 8, m + c + 6, SIZE - m - c - 8, m + c + 6 + TITLE_HEIGHT


def space_box(num_spaces: int, index: int) -> tuple[int, int, int, int]:
    """The board space ``index``'s cell (x0, y0, x1, y1): START in the bottom-right corner, then clockwise (along the
    bottom to the left, up the left side, along the top, down the right side). A board smaller than the ring is
    spread evenly around it (empty cells between its spaces)."""
    k, c, m = _ring(num_spaces)
    side, offset = divmod(index * 4 * (k - 1) // num_spaces, k - 1)
    col, row = ((k - 1 - offset, k - 1), (0, k - 1 - offset), (offset, 0), (k - 1, offset))[side]
    return m + col * c, m + row * c, m + (col + 1) * c, m + (row + 1) * c


@lru_cache(maxsize=8)
def _board(spaces: tuple[int, ...]) -> Image.Image:
    """The empty board ring (cached per board: only the pawn and the table change between frames)."""
    image, draw = new_canvas(SIZE, SIZE)
    _, c, _ = _ring(len(spaces))
    label, small = max(8, c // 6), max(7, c // 7)
    for i, kind in enumerate(spaces):
        x0, y0, x1, y1 = space_box(len(spaces), i)
        draw.rectangle((x0, y0, x1, y1), fill=_SPACE_COLOURS[kind], outline=(70, 70, 70))
        draw.text((x0 + 3, y0 + 2), str(i), fill=_INK, font=font(small))
        name = "START" if i == 0 else _SPACE_LABELS[kind]
        text_centered(draw, ((x0 + x1) / 2, y0 + c * 0.42), fit_text(name, label, c - 4), label, _INK)
    return image


def _draw_ring_marks(draw: ImageDraw.ImageDraw, s: list[int]) -> None:
    """The pawn on its space, and ``+d`` on each of the 12 spaces ahead."""
    ns, pawn = s[E.NUM_SPACES], s[E.PAWN]
    _, c, _ = _ring(ns)
    small = max(7, c // 7)
    tagged = set()
    for d in range(1, E.AHEAD + 1):  # on a board of at most 12 spaces a space shows its nearest distance
        space = (pawn + d) % ns
        if space not in tagged:
            tagged.add(space)
            x0, y0, x1, y1 = space_box(ns, space)
            draw.text((x1 - 3, y1 - 3), f"+{d}", fill=_INK, font=font(small), anchor="rd")
    x0, y0, x1, y1 = space_box(ns, pawn)
    draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=_PAWN, width=max(2, c // 16))
    r = c * 0.2
    cx, cy = (x0 + x1) / 2, y0 + c * 0.74
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_PAWN, outline=(255, 255, 255), width=2)
    text_centered(draw, (cx, cy), "$", max(9, int(r * 1.3)), (255, 255, 255))


def _draw_money_box(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], title: str, amount: int,
                    fill: tuple[int, int, int]) -> None:  # fmt: skip
    x0, y0, x1, y1 = box
    draw.rounded_rectangle(box, radius=8, fill=fill, outline=(90, 90, 90))
    text_centered(draw, ((x0 + x1) / 2, y0 + 14), title, 13, _INK)
    text_centered(draw, ((x0 + x1) / 2, y0 + 38), str(amount), 24, _INK)


def _draw_panel(draw: ImageDraw.ImageDraw, s: list[int], seat: int, box: tuple[int, int, int, int]) -> None:
    """One player's panel: colour bar with marks, money, stake, tickets, kept cards, bets in flight."""
    x0, y0, x1, y1 = box
    colour = PLAYER_COLOURS[seat]
    marks = _marks(s, seat)
    acting = "to decide" in marks or "WINNER" in marks
    draw.rectangle(box, fill=(252, 250, 244), outline=colour if not acting else _INK, width=4 if acting else 2)
    draw.rectangle((x0, y0, x1, y0 + 22), fill=colour)
    width = x1 - x0 - 12
    head = f"{_p(seat)}  {' | '.join(marks)}" if marks else _p(seat)
    draw.text((x0 + 6, y0 + 4), fit_text(head, 14, width), fill=_INK, font=font(14))
    tickets = " ".join(map(str, _tickets(s, seat))) or "-"
    rows = [
        f"cash {s[E.CASH + seat]}   stake {s[E.STAKE + seat]}   money {_money(s, seat)}",
        f"tickets: {tickets}",
        f"kept: {', '.join(_kept(s, seat)) or '-'}",
        f"Wall St bet: {_wall_bet(s, seat) or '-'}",
        f"Lucky Dice: {_lucky(s, seat) or '-'}",
    ]
    for i, row in enumerate(rows):
        draw.text((x0 + 8, y0 + 30 + 19 * i), fit_text(row, 13, width), fill=_INK, font=font(13))


def render_rgb(config: Any, state: np.ndarray) -> np.ndarray:
    """A (660, 660, 3) uint8 picture: the board ring (spaces coloured by type, the pawn on its space); inside it
    the title lines (game, turn, mover, phase: ``title_box``), the pot and the pile, the last roll, Greed or the
    Stock Tip, the last event, and a panel per player (cash, stake, tickets, kept cards, bets in flight)."""
    s = state.tolist()
    n, ns = s[E.NUM_PLAYERS], s[E.NUM_SPACES]
    image = _board(tuple(s[E.SPACES : E.SPACES + ns])).copy()
    draw = ImageDraw.Draw(image)
    _draw_ring_marks(draw, s)

    _, c, m = _ring(ns)
    left, top, right, bottom = m + c + 8, m + c + 6, SIZE - m - c - 8, SIZE - m - c - 6
    mid, inner = (left + right) / 2, right - left
    draw_title(draw, title_box(ns), title(s), size=14)

    y = top + TITLE_HEIGHT + 8
    box_w = min(130, inner // 3)
    _draw_money_box(draw, (left, y, left + box_w, y + 58), "POT", s[E.POT], _POT)
    _draw_money_box(draw, (right - box_w, y, right, y + 58), "PILE", s[E.PILE], _PILE)
    dice = _dice(s) if s[E.TURN] > 0 else []
    size, gap = 40, 8
    dx = mid - (len(dice) * size + (len(dice) - 1) * gap) / 2
    for i, face in enumerate(dice):
        colour = _LOTTERY_DICE[i] if len(dice) == 3 else (255, 255, 255)
        draw_die(draw, int(dx + i * (size + gap)), y + 9, size, face, face=colour)

    y += 66
    info = [fit_text(text, 13, inner) for text in (_greed_text(s), _wall_tip(s)) if text]
    info += wrap_text(f"last: {_event_text(s)}", 13, inner, max_lines=3 - len(info))
    for i, text in enumerate(info):
        draw.text((left, y + 16 * i), text, fill=_INK, font=font(13))

    y += 54
    cols = 2
    rows = -(-n // cols)
    gap = 8
    panel_w = (inner - gap) // cols
    panel_h = min(170, (bottom - y - (rows - 1) * gap) // rows)
    for seat in range(n):
        px = left + (seat % cols) * (panel_w + gap)
        py = y + (seat // cols) * (panel_h + gap)
        _draw_panel(draw, s, seat, (px, py, px + panel_w, py + panel_h))
    return to_array(image)
