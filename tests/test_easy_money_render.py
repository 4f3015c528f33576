"""Ea$y Money's renderers (envs/easy_money/render.py) on states the engine reaches.

States come from seeded random legal games and from short scripted positions, both driven straight through the
engine (init_state / apply_outcome / apply_action). The text view must show the state's own numbers; the picture
must have the right shape, be deterministic, change when the pawn moves or money moves, and be fast.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pytest

from dicearena.envs.common.config import validate_config
from dicearena.envs.common.contract import CHANCE, PLAYING
from dicearena.envs.easy_money import engine as E
from dicearena.envs.easy_money.config import EasyMoneyConfig
from dicearena.envs.easy_money.render import SIZE, SPACE_CODES, render_ansi, render_rgb, space_box

PAWN_INK = (25, 25, 25)  # the pawn token's colour


def config(**overrides: object) -> EasyMoneyConfig:
    return validate_config(EasyMoneyConfig, overrides)


def random_states(cfg: EasyMoneyConfig, seed: int) -> Iterator[np.ndarray]:
    """Every state of one seeded random legal game, the first and the last included (copies)."""
    sizes = E.sizes(cfg)
    state = np.zeros(sizes.state, dtype=np.int32)
    E.init_state(state, E.header(cfg))
    rng = np.random.default_rng(seed)
    outcome = np.zeros(sizes.outcome, dtype=np.int32)
    mask = np.zeros(E.NUM_ACTIONS, dtype=np.int8)
    yield state.copy()
    while E.status(state) == PLAYING:
        seat = E.to_act(state)
        if seat == CHANCE:
            E.draw_outcome(state, rng.integers(0, 2**63, size=sizes.words, dtype=np.int64), outcome)
            E.apply_outcome(state, outcome)
        else:
            E.legal_mask(state, seat, mask)
            E.apply_action(state, seat, int(rng.choice(np.flatnonzero(mask))))
        yield state.copy()


class Table:
    """A scripted game: seat 0 starts, every deck in file order (tickets dealt 123, 156, 231, 264 from seat 0)."""

    def __init__(self, n: int = 4, **overrides: object) -> None:
        self.cfg = config(num_players=n, first_player=0, **overrides)
        self.sizes = E.sizes(self.cfg)
        self.s = np.zeros(self.sizes.state, dtype=np.int32)
        E.init_state(self.s, E.header(self.cfg))
        data = self.cfg.data()
        for size in (len(data.tickets), len(data.jackpot), len(data.wall_street)):
            self.outcome(*range(size))
        assert self.s[E.PHASE] == E.PHASE_STAKE

    def outcome(self, *values: int) -> None:
        assert E.to_act(self.s) == CHANCE
        out = np.zeros(self.sizes.outcome, dtype=np.int32)
        out[: len(values)] = values
        assert E.check_outcome(self.s, out) == E.OUTCOME_OK
        E.apply_outcome(self.s, out)

    def roll(self, *pips: int) -> None:
        self.outcome(*(p - 1 for p in pips))

    def act(self, action: int) -> None:
        seat = E.to_act(self.s)
        assert E.is_legal(self.s, seat, action), E.describe_action(self.cfg, self.s, action)
        E.apply_action(self.s, seat, action)

    def move(self, frm: int, *pips: int) -> None:
        """Every stake left as it is, the pawn put on ``frm``, the mover rolls ``pips``."""
        while self.s[E.PHASE] == E.PHASE_STAKE:
            self.act(E.ACT_STAKE_NONE)
        self.s[E.PAWN] = frm
        self.roll(*pips)

    @property
    def ansi(self) -> str:
        return render_ansi(self.cfg, self.s)

    def line(self, seat: int) -> str:
        return seat_line(self.ansi, seat)


def seat_line(text: str, seat: int) -> str:
    (line,) = [row for row in text.splitlines() if row.startswith(f"player_{seat}")]
    return line


def lucky(number: int, wad: int) -> int:
    return E.ACT_LUCKY + E.NUM_WADS * E.LUCKY_NUMBERS.index(number) + wad


PURPLE, RED, GREEN, BLUE = range(4)
PLAYER_LINE = re.compile(r"^player_(\d)(?: \(([^)]*)\))?: cash (\d+), stake (\d+)")


def check_numbers(cfg: EasyMoneyConfig | None, state: np.ndarray) -> str:
    """The text view shows this state's phase, pot, pile, pawn, the 12 spaces ahead and every seat's cash and
    stake and tickets."""
    text = render_ansi(cfg, state)
    lines = text.splitlines()
    s = state.tolist()
    n, ns, pawn = s[E.NUM_PLAYERS], s[E.NUM_SPACES], s[E.PAWN]
    assert lines[0].startswith(f"Ea$y Money ({n} players) | ")
    assert f"phase: {E.PHASE_NAMES[s[E.PHASE]]}" in lines[0]
    assert re.search(rf"^pot {s[E.POT]}  pile {s[E.PILE]}  ", text, re.M)
    assert f"the pawn on space {pawn} (" in text
    assert f"[{pawn:>2} {SPACE_CODES[s[E.SPACES + pawn]]}]" in text
    assert len(re.findall(r"\[[ \d]\d [A-Z]{2}\]", text)) == 1  # one marked space
    ahead = [f"+{d} {(pawn + d) % ns} {SPACE_CODES[s[E.SPACES + (pawn + d) % ns]]}" for d in range(1, 13)]
    assert f"ahead: {', '.join(ahead)}" in text
    seats = [PLAYER_LINE.match(line) for line in lines]
    seats = [m for m in seats if m]
    assert [int(m[1]) for m in seats] == list(range(n))
    for m in seats:
        seat = int(m[1])
        assert (int(m[3]), int(m[4])) == (s[E.CASH + seat], s[E.STAKE + seat])
        numbers = sorted(s[E.TICKET_NUMBER + t] for t in range(s[E.NUM_TICKETS]) if s[E.TICKET_OWNER + t] == seat)
        assert (f"tickets {' '.join(map(str, numbers))}" if numbers else "no ticket") in m.string
    return text


# --- text


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ansi_shows_each_states_numbers_through_a_random_game(n: int) -> None:
    cfg = config(num_players=n)
    states = list(random_states(cfg, seed=10 + n))
    assert states[-1][E.PHASE] == E.PHASE_OVER
    for state in states[::3] + [states[-1]]:
        check_numbers(cfg, state)
        assert render_ansi(None, state) == render_ansi(cfg, state)  # everything comes from the header


def test_ansi_stakes_the_move_and_greed() -> None:
    t = Table(4)
    assert "turn 1 of 2000: player_0 moves | phase: stake round, player_0 to decide" in t.ansi
    assert t.line(0) == "player_0 (mover, to decide): cash 36, stake 0, tickets 123"
    assert "last event: none yet" in t.ansi
    t.act(E.ACT_STAKE + 3)  # blue (10)
    t.act(E.ACT_STAKE_NONE)
    assert t.line(0) == "player_0 (mover): cash 26, stake 10, tickets 123"
    assert t.line(2) == "player_2 (to decide): cash 36, stake 0, tickets 231"
    t.act(E.ACT_STAKE + 0)  # purple (1)
    t.act(E.ACT_STAKE_NONE)
    assert "[ 0 EM]" in t.ansi and "the pawn on space 0 (START, easy money)" in t.ansi
    t.roll(4, 5)  # to space 9, Greed, passing the Easy Money space 7 (+10)
    text = t.ansi
    assert "phase: greed: name, player_0 to decide" in text and "[ 9 GR]" in text
    assert "Greed: player_0 names a player to swipe from" in text and "last roll: 4 + 5 = 9" in text
    assert t.line(0) == "player_0 (mover, to decide): cash 36, stake 10, tickets 123"
    assert t.line(2) == "player_2: cash 35, stake 1, tickets 231"
    t.act(E.ACT_NAME + 1)  # player_2
    assert "phase: greed roll (chance: the dice)" in t.ansi
    assert "Greed: player_0 names player_2 (cash 35), total 0 after 0 rolls" in t.ansi
    t.roll(5)
    assert "Greed: player_0 names player_2 (cash 35), total 5 after 1 roll, stopping pays" in t.ansi
    assert t.line(2).startswith("player_2 (named by Greed): cash 35")
    t.act(E.ACT_GREED_STOP)
    text = t.ansi
    assert "last event: player_0 stopped at Greed: player_2 paid 5" in text
    assert "names player_2" not in text  # Greed is over
    assert "turn 2 of 2000: player_1 moves | phase: stake round, player_1 to decide" in text
    assert t.line(0) == "player_0: cash 41, stake 10, tickets 123"
    assert t.line(2) == "player_2: cash 30, stake 1, tickets 231"
    check_numbers(t.cfg, t.s)


def test_ansi_wall_street_tip_and_bets_in_flight() -> None:
    t = Table(2)
    t.move(0, 4, 6)  # space 10, Wall Street; the first card: tip UP, news UP, 1 to 1
    assert "Wall Street: the Stock Tip says UP" in t.ansi
    assert "phase: wall street bet, player_0 to decide" in t.ansi
    t.act(E.ACT_WALL + 3)  # UP, blue (10)
    assert t.line(0) == "player_0 (mover): cash 36, stake 0, tickets 123, Wall Street UP 10"  # 46 - 10
    t.act(E.ACT_WALL + E.NUM_BETS + 1)  # DOWN, red (2): the card is turned
    text = t.ansi
    assert "last event: Wall Street card turned: the news was UP at 1 to 1; 10 paid to the winners" in text
    assert "Stock Tip" not in text
    assert t.line(0) == "player_0: cash 56, stake 0, tickets 123"
    assert t.line(1).startswith("player_1 (mover, to decide): cash 34, stake 0")
    check_numbers(t.cfg, t.s)


def test_ansi_lucky_dice_money_per_number() -> None:
    t = Table(3)
    t.move(3, 4, 6)  # space 13, Lucky Dice (Easy Money 7 passed: +10)
    assert "phase: lucky dice bet, player_1 to decide" in t.ansi
    t.act(lucky(5, RED))
    t.act(E.ACT_LUCKY_STOP)
    t.act(lucky(10, BLUE))
    t.act(lucky(4, PURPLE))
    assert "phase: lucky dice roll (chance: the dice)" in t.ansi
    assert t.line(1) == "player_1: cash 34, stake 0, tickets 156, Lucky Dice 2 on 5"
    assert t.line(2) == "player_2: cash 25, stake 0, tickets 231, Lucky Dice 1 on 4, 10 on 10"
    t.roll(2, 3)  # 5 pays 2 to 1
    assert "last event: Lucky Dice rolled 5: 4 paid on the number" in t.ansi
    assert t.line(1) == "player_1: cash 40, stake 0, tickets 156"
    t.roll(3, 4)
    assert "last event: Lucky Dice 7: player_0 swept 11 off the numbers" in t.ansi
    assert t.line(0).startswith("player_0: cash 57, stake 0")
    check_numbers(t.cfg, t.s)


def test_ansi_kept_jackpot_cards_and_the_lottery() -> None:
    t = Table(4)
    for _ in range(6):  # the six cards in file order: collect, pay, from each, ticket, no penalty, Double bonus
        t.move(0, 2, 3)  # space 5, Mystery Jackpot
    assert "last event: player_1 drew Mystery Jackpot card 5 (keep: Double pays +1): 0 moved" in t.ansi
    assert "kept no penalty" in t.line(0) and "kept Double +1" in t.line(1)
    assert t.line(3) == "player_3: cash 35, stake 0, tickets 264 312"  # the ticket card (and 1 to player_2)
    check_numbers(t.cfg, t.s)

    t.move(0, 1, 2)  # player_2 on space 3, Lottery: takes the next ticket (345)
    assert "tickets 231 345" in t.line(2) and "phase: lottery (chance: the dice)" in t.ansi
    pot = int(t.s[E.POT])
    t.roll(3, 4, 5)
    assert f"last event: player_2 won the Lottery with 345: the pot of {pot}" in t.ansi
    assert "last roll: red 3, white 4, blue 5 (345)" in t.ansi
    assert "phase: shuffle tickets (chance: a deck's order)" in t.ansi
    assert all("no ticket" in t.line(seat) for seat in range(4))  # every ticket back in the deck
    check_numbers(t.cfg, t.s)


def test_ansi_out_of_money_and_the_cash_roll() -> None:
    t = Table(3)
    t.s[E.PILE] += t.s[E.CASH + 0]
    t.s[E.CASH + 0] = 0
    assert "phase: stake round, player_0 to decide" in t.ansi  # the round began while player_0 had cash
    t.act(E.ACT_STAKE_NONE)
    t.act(E.ACT_STAKE_NONE)
    t.act(E.ACT_STAKE_NONE)
    assert "phase: out of money, player_0 to decide" in t.ansi
    assert t.line(0) == "player_0 (mover, to decide): cash 0, stake 0, tickets 123"
    t.act(E.ACT_CASH_ROLL)
    assert "phase: cash roll (chance: the dice)" in t.ansi
    t.roll(3, 4)
    assert "last event: player_0's cash roll (out of money) collected 7" in t.ansi
    assert t.line(0) == "player_0: cash 7, stake 0, tickets 123" and "[ 0 EM]" in t.ansi  # the pawn stays
    check_numbers(t.cfg, t.s)


def test_every_event_has_words() -> None:
    t = Table(4)
    t.move(0, 2, 3)  # a Jackpot card drawn (card 0)
    for code, name in enumerate(E.EVENT_NAMES):
        state = t.s.copy()
        state[E.LAST_EVENT], state[E.LAST_SEAT], state[E.LAST_AMOUNT] = code, 1, 7
        state[E.WS_CARD], state[E.LAST_LOTTERY], state[E.GREED_TARGET] = 0, 123, 2
        (line,) = [row for row in render_ansi(t.cfg, state).splitlines() if row.startswith("last event: ")]
        words = line.removeprefix("last event: ")
        assert (words == "none yet") if code == E.EV_NONE else (words != name and len(words) > 20), (code, words)
        render_rgb(t.cfg, state)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ansi_and_rgb_at_the_end_of_a_game(n: int) -> None:
    cfg = config(num_players=n)
    *_, last = random_states(cfg, seed=100 + n)
    assert last[E.PHASE] == E.PHASE_OVER and not last[E.TRUNCATED]
    text = check_numbers(cfg, last)
    winners = [seat for seat in range(n) if (last[E.WINNERS] >> seat) & 1]
    best = int(last[E.CASH + winners[0]] + last[E.STAKE + winners[0]])
    verb = "wins" if len(winners) == 1 else "share the win"
    head = f"game over after {int(last[E.TURN])} turns: {', '.join(f'player_{w}' for w in winners)} {verb} with {best}"
    assert head in text.splitlines()[0]
    for seat in range(n):
        assert ("WINNER" in seat_line(text, seat)) == (seat in winners)
    assert "last event: " in text and "Final Lottery" in text
    image = render_rgb(cfg, last)
    assert image.shape == (SIZE, SIZE, 3) and image.dtype == np.uint8


def test_the_end_without_the_final_lottery_says_the_money_counts() -> None:
    cfg = config(num_players=2, final_lottery=False)
    *_, last = random_states(cfg, seed=7)
    assert last[E.PHASE] == E.PHASE_OVER and last[E.LAST_EVENT] == E.EV_PILE_EMPTY and last[E.POT] > 0
    text = check_numbers(cfg, last)
    assert "last event: the play pile is empty: the game ends, cash plus stake counts" in text
    assert "Final Lottery" not in text


def test_truncated_game() -> None:
    cfg = config(num_players=2, max_turns=3)
    *_, last = random_states(cfg, seed=5)
    assert last[E.TRUNCATED]
    assert "truncated after 3 turns: no winner | phase: over" in render_ansi(cfg, last)
    assert "WINNER" not in render_ansi(cfg, last)
    assert render_rgb(None, last).shape == (SIZE, SIZE, 3)


# --- picture


def cell(image: np.ndarray, num_spaces: int, space: int) -> np.ndarray:
    x0, y0, x1, y1 = space_box(num_spaces, space)
    return image[y0 + 3 : y1 - 3, x0 + 3 : x1 - 3]


def has_pawn(image: np.ndarray, num_spaces: int, space: int) -> bool:
    return bool((cell(image, num_spaces, space) == PAWN_INK).all(axis=-1).sum() > 50)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rgb_shape_determinism_and_every_phase_of_random_games(n: int) -> None:
    cfg = config(num_players=n)
    phases = set()
    for seed in range(4):
        for i, state in enumerate(random_states(cfg, seed=seed)):
            phases.add(int(state[E.PHASE]))
            render_ansi(cfg, state)
            if i % 15 == 0:
                image = render_rgb(cfg, state)
                assert image.shape == (SIZE, SIZE, 3) and image.dtype == np.uint8
                assert has_pawn(image, int(state[E.NUM_SPACES]), int(state[E.PAWN]))
    assert {E.PHASE_STAKE, E.PHASE_MOVE, E.PHASE_LOTTERY, E.PHASE_GREED_ROLL, E.PHASE_GREED_DECIDE, E.PHASE_WALL_BET,
            E.PHASE_LUCKY_BET, E.PHASE_LUCKY_ROLL, E.PHASE_FINAL, E.PHASE_OVER} <= phases  # fmt: skip
    np.testing.assert_array_equal(render_rgb(cfg, state), render_rgb(None, state.copy()))


def test_rgb_pawn_moves_and_money_changes() -> None:
    t = Table(4)
    while t.s[E.PHASE] == E.PHASE_STAKE:
        t.act(E.ACT_STAKE_NONE)
    before = render_rgb(t.cfg, t.s)
    assert has_pawn(before, 40, 0) and not has_pawn(before, 40, 9)
    t.roll(4, 5)  # to Greed (space 9)
    after = render_rgb(t.cfg, t.s)
    assert has_pawn(after, 40, 9) and not has_pawn(after, 40, 0)
    assert not np.array_equal(cell(before, 40, 9), cell(after, 40, 9))  # the pawn's space changed colour
    assert not np.array_equal(cell(before, 40, 0), cell(after, 40, 0))
    assert np.array_equal(cell(before, 40, 25), cell(after, 40, 25))  # a space far away did not

    moved = t.s.copy()  # the same pawn: only 5 units move from the pile to player_3
    moved[E.PILE] -= 5
    moved[E.CASH + 3] += 5
    changed = render_rgb(t.cfg, moved)
    diff = (changed != after).any(axis=-1)
    assert diff.any()
    ys, xs = np.nonzero(diff)
    c = space_box(40, 0)[2] - space_box(40, 0)[0]  # the 40-space ring fills the picture
    assert ys.min() > c and xs.min() > c and ys.max() < SIZE - c and xs.max() < SIZE - c  # inside the ring only
    assert not np.array_equal(render_ansi(t.cfg, moved), render_ansi(t.cfg, t.s))


def test_space_boxes_make_a_ring_and_small_and_large_boards_render(tmp_path) -> None:
    for ns in (2, 6, 40, 41, 64):
        boxes = [space_box(ns, i) for i in range(ns)]
        assert len(set(boxes)) == ns
        assert all(0 <= x0 < x1 <= SIZE and 0 <= y0 < y1 <= SIZE for x0, y0, x1, y1 in boxes)
        assert all(min(x0, y0) < 10 or max(x1, y1) > SIZE - 10 for x0, y0, x1, y1 in boxes)  # along the edge
        assert min(boxes[0][2:]) > SIZE - 10  # START in the bottom-right corner
        if ns in (40, 64):  # the ring's own size: neighbours share an edge
            for a, b in zip(boxes, boxes[1:], strict=False):
                assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == a[2] - a[0]
    assert space_box(6, 3)[:2] == (0, 0)  # a small board spread around the ring: space 3 in the top-left corner
    assert space_box(40, 10) == (0, 600, 60, 660) and space_box(40, 20) == (0, 0, 60, 60)  # the corners
    board = tmp_path / "board.yaml"
    for spaces in (["easy_money", "greed", "double", "lucky_dice", "nothing", "lottery"],
                   ["easy_money"] + ["double", "nothing", "jackpot", "wall_street"] * 15 + ["greed"] * 3):  # fmt: skip
        board.write_text("spaces:\n" + "".join(f"  - {kind}\n" for kind in spaces))
        cfg = config(num_players=3, board=str(board))
        for i, state in enumerate(random_states(cfg, seed=3)):
            if i % 25 == 0 or state[E.PHASE] == E.PHASE_OVER:
                check_numbers(cfg, state)
                image = render_rgb(cfg, state)
                assert image.shape == (SIZE, SIZE, 3)
                assert has_pawn(image, len(spaces), int(state[E.PAWN]))


def test_the_game_spec_uses_these_renderers() -> None:
    from dicearena.envs.easy_money.game import EASY_MONEY

    assert EASY_MONEY.render_ansi is render_ansi and EASY_MONEY.render_rgb is render_rgb
