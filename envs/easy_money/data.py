"""Ea$y Money's board and card decks as data files: loading and validating them.

Why data: the rulebook prints no board and no card texts, so the defaults in ``data/`` are this project's
reconstruction (``../shared/rules/easy_money.md``); a user who owns the game types in the real board and cards
and points the config at those files (``EasyMoneyConfig(board="my_board.yaml", ...)``). The engine never names a
space or a card: it reads the codes below from the state header.

Why this format: the files are a small, strict subset of YAML, parsed here with the standard library only. YAML
reads best for a hand-typed list of spaces and cards (one per line, comments allowed), but PyYAML is only in the
``train`` extra and the engine is a runtime dependency of every face; a line-based parser also gives every error
its line number. Any YAML tool reads these files the same way (the tests check it against PyYAML). A file whose
name ends in ``.json`` is read as JSON instead (same keys).

The subset: ``# comments``; top-level ``key: value`` lines; a block list under a key (``  - item`` lines); an item
is a scalar (an integer or a bare or quoted word) or a flow mapping ``{key: value, ...}`` of scalars; a top-level
value may also be a flow list ``[a, b, c]``. Every file may give ``count: N``, a guard that the list has exactly N
entries (a forgotten or doubled line is an error, not a different game). A file is read only if it is a regular
file of at most ``MAX_FILE_BYTES`` (1 MiB): a device, a pipe, a directory or a larger file is a ``DataError``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "JACKPOT_KINDS", "MAX_FILE_BYTES", "MAX_JACKPOT", "MAX_SPACES", "MAX_TICKETS", "MAX_WALL", "SPACE_TYPES",
    "DataError", "GameData", "JackpotCard", "WallStreetCard", "default_path", "load_board", "load_game_data",
    "load_jackpot", "load_tickets", "load_wall_street", "parse_file",
]  # fmt: skip

# Space type codes (the index in SPACE_TYPES is the code the engine reads).
SPACE_TYPES = (
    "easy_money", "double", "nothing", "lottery", "purple_lottery", "jackpot", "greed", "wall_street", "lucky_dice",
)  # fmt: skip
# Mystery Jackpot card kinds (the index is the code); which need an amount.
JACKPOT_KINDS = ("collect", "pay", "collect_from_each", "ticket", "keep_no_penalty", "keep_double_bonus")
_NEEDS_AMOUNT = {"collect", "pay", "collect_from_each", "ticket", "keep_double_bonus"}
TIPS = ("up", "down")  # Wall Street tip / news codes: 0 up, 1 down
ODDS = (1, 2, 3)  # the rulebook's Odds Payout Chart

# Limits (the engine's state has room for this much; the real game has 40 spaces and 12 + 12 + 6 cards).
MAX_SPACES = 64
MIN_SPACES = 2
MAX_TICKETS = 32
MAX_WALL = 32
MAX_JACKPOT = 32
MAX_AMOUNT = 1000  # a card's amount, in units
MAX_FILE_BYTES = 1 << 20  # 1 MiB: a data file is read only up to this size (the shipped ones are under 2 KB)

FILES = {
    "board": "board.yaml",
    "lottery_tickets": "lottery_tickets.yaml",
    "wall_street": "wall_street.yaml",
    "mystery_jackpot": "mystery_jackpot.yaml",
}


class DataError(ValueError):
    """A board or deck file is missing, malformed or breaks a rule; the message names the file, line and entry."""


@dataclass(frozen=True)
class WallStreetCard:
    tip: int  # 0 up, 1 down (the Stock Tip, shown before betting)
    news: int  # 0 up, 1 down (the Daily News on the back: bets on it win)
    odds: int  # 1, 2 or 3: a matching bet wins odds x bet


@dataclass(frozen=True)
class JackpotCard:
    kind: int  # index in JACKPOT_KINDS
    amount: int  # units (0 for keep_no_penalty)

    @property
    def kept(self) -> bool:
        return JACKPOT_KINDS[self.kind].startswith("keep_")


@dataclass(frozen=True)
class GameData:
    """One config's board and decks, validated."""

    spaces: tuple[int, ...]  # space type codes, index 0 = START
    tickets: tuple[int, ...]  # three-digit numbers, digits 1..6
    wall_street: tuple[WallStreetCard, ...]
    jackpot: tuple[JackpotCard, ...]


# --- the YAML subset


@dataclass(frozen=True)
class _Item:
    line: int  # 1-based line in the file (0 for JSON)
    value: Any


_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")
_INT = re.compile(r"^[+-]?\d+$")
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_ .-]*$")


def _strip_comment(line: str) -> str:
    """The line without a ``#`` comment (a ``#`` inside quotes stays)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def _scalar(text: str, where: str) -> Any:
    text = text.strip()
    if not text:
        raise DataError(f"{where}: an empty value")
    if _INT.match(text):
        return int(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.lower() in ("true", "false", "null", "yes", "no", "on", "off", "~"):
        raise DataError(f"{where}: {text!r} is not a value these files use (YAML reads it as a boolean or null)")
    if not _WORD.match(text):
        raise DataError(f"{where}: cannot read {text!r} (a value is an integer or a word)")
    return text


def _split_flow(body: str, where: str) -> list[str]:
    parts = [p.strip() for p in body.split(",")]
    if parts == [""]:
        return []
    if any(not p for p in parts):
        raise DataError(f"{where}: an empty entry between commas")
    return parts


def _flow_value(text: str, where: str) -> Any:
    """A scalar, a flow mapping ``{k: v, ...}`` or a flow list ``[a, b]`` of scalars."""
    text = text.strip()
    if text.startswith("{"):
        if not text.endswith("}"):
            raise DataError(f"{where}: a mapping opened with '{{' must close with '}}' on the same line")
        out: dict[str, Any] = {}
        for part in _split_flow(text[1:-1], where):
            m = _KEY.match(part)
            if not m:
                raise DataError(f"{where}: {part!r} is not 'key: value'")
            key, value = m.group(1), m.group(2)
            if key in out:
                raise DataError(f"{where}: key {key!r} given twice")
            out[key] = _scalar(value, where)
        return out
    if text.startswith("["):
        if not text.endswith("]"):
            raise DataError(f"{where}: a list opened with '[' must close with ']' on the same line")
        return [_scalar(p, where) for p in _split_flow(text[1:-1], where)]
    return _scalar(text, where)


def _parse_yaml_subset(text: str, name: str) -> dict[str, _Item]:
    """Top-level keys to items; a block or flow list becomes a list of items (each with its line)."""
    out: dict[str, _Item] = {}
    open_list: list[_Item] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{name} line {number}"
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise DataError(f"{where}: indent with spaces, not tabs")
        line = _strip_comment(raw).rstrip()
        if not line.strip():
            continue
        if line[0] != " ":
            m = _KEY.match(line)
            if not m:
                raise DataError(f"{where}: expected 'key: value' or 'key:' at the start of a line, got {line!r}")
            key, value = m.group(1), m.group(2).strip()
            if key in out:
                raise DataError(f"{where}: key {key!r} given twice")
            if value:
                parsed = _flow_value(value, where)
                items = [_Item(number, v) for v in parsed] if isinstance(parsed, list) else None
                out[key] = _Item(number, items if items is not None else parsed)
                open_list = None
            else:
                open_list = []
                out[key] = _Item(number, open_list)
            continue
        body = line.strip()
        if not body.startswith("-") or (len(body) > 1 and body[1] != " "):
            raise DataError(f"{where}: expected a list item '- value' under a key, got {body!r}")
        if open_list is None:
            raise DataError(f"{where}: a list item with no 'key:' line above it")
        value = body[1:].strip()
        if value.startswith("-"):
            raise DataError(f"{where}: nested lists are not used in these files")
        open_list.append(_Item(number, _flow_value(value, where)))
    return out


def _from_json(text: str, name: str) -> dict[str, _Item]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{name}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise DataError(f"{name}: the top level must be an object with keys, got {type(data).__name__}")
    return {k: _Item(0, [_Item(0, v) for v in val] if isinstance(val, list) else val) for k, val in data.items()}


def parse_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A data file's top-level keys to plain values (lists of scalars / dicts), as any YAML (or JSON) reader gives."""
    return {k: [i.value for i in v.value] if isinstance(v.value, list) else v.value for k, v in _read(path).items()}


def _read_text(p: Path, name: str) -> str:
    """The text of ``p``, a regular file of at most ``MAX_FILE_BYTES``, else a DataError that says ``name``.

    Opened without blocking and checked on the open file: a device (``/dev/zero``), a pipe or a directory is
    refused before a byte is read (one would never end, one never start), and at most one byte past the limit is
    ever read, so a file that grows meanwhile cannot fill the memory either."""
    limit = f"a data file is a regular file of at most {MAX_FILE_BYTES} bytes (1 MiB)"
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise DataError(f"{name}: no such file") from None
    except OSError as exc:
        raise DataError(f"{name}: cannot read it ({exc})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DataError(f"{name}: not a regular file (a directory, device or pipe); {limit}")
        data = b""
        while len(data) <= MAX_FILE_BYTES:
            chunk = os.read(fd, MAX_FILE_BYTES + 1 - len(data))
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        raise DataError(f"{name}: cannot read it ({exc})") from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise DataError(f"{name}: larger than {MAX_FILE_BYTES} bytes; {limit}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{name}: cannot read it ({exc})") from None


def _read(path: str | os.PathLike[str], key: str | None = None) -> dict[str, _Item]:
    """The file's top-level items; ``key`` (the config key that named the file) is said in a refusal of the file."""
    p = Path(path)
    text = _read_text(p, str(p) if key is None else f"{p} (the {key!r} file)")
    return _from_json(text, str(p)) if p.suffix.lower() == ".json" else _parse_yaml_subset(text, str(p))


# --- validation


def default_path(kind: str) -> Path:
    """The shipped default file for ``kind`` (a key of ``FILES``)."""
    return Path(str(resources.files("dicearena.envs.easy_money") / "data" / FILES[kind]))


def _where(name: str, item: _Item, what: str, index: int) -> str:
    line = f" line {item.line}" if item.line else ""
    return f"{name}{line} ({what} {index})"


def _entries(items: dict[str, _Item], name: str, key: str, what: str, low: int, high: int) -> list[_Item]:
    """The list under ``key`` (the only other key allowed is ``count``), with its length checked."""
    unknown = sorted(set(items) - {key, "count"})
    if unknown:
        raise DataError(f"{name}: unknown key(s) {unknown}; this file has '{key}:' (and optionally 'count:')")
    if key not in items:
        raise DataError(f"{name}: no '{key}:' list")
    entries = items[key].value
    if not isinstance(entries, list):
        raise DataError(f"{name}: '{key}' must be a list, one {what} per line ('  - ...')")
    if "count" in items:
        count = items["count"].value
        if type(count) is not int:
            raise DataError(f"{name}: 'count' must be an integer, got {count!r}")
        if count != len(entries):
            raise DataError(f"{name}: wrong count: 'count: {count}' but the file lists {len(entries)} {what}s")
    if not low <= len(entries) <= high:
        raise DataError(f"{name}: wrong count: {len(entries)} {what}s; allowed {low}..{high}")
    return entries


def _board(items: dict[str, _Item], name: str) -> tuple[int, ...]:
    codes = []
    for i, item in enumerate(_entries(items, name, "spaces", "space", MIN_SPACES, MAX_SPACES)):
        value = item.value
        if not isinstance(value, str) or value not in SPACE_TYPES:
            raise DataError(f"{_where(name, item, 'space', i)}: unknown space type {value!r}; known: "
                            f"{', '.join(SPACE_TYPES)}")  # fmt: skip
        codes.append(SPACE_TYPES.index(value))
    if codes[0] != 0:
        raise DataError(f"{name} (space 0): space 0 is START, an easy_money space; got {SPACE_TYPES[codes[0]]!r}")
    return tuple(codes)


def _tickets(items: dict[str, _Item], name: str) -> tuple[int, ...]:
    numbers: list[int] = []
    for i, item in enumerate(_entries(items, name, "tickets", "ticket", 1, MAX_TICKETS)):
        value = item.value
        where = _where(name, item, "ticket", i)
        if type(value) is not int or not (100 <= value <= 999) or any(d not in "123456" for d in str(value)):
            raise DataError(f"{where}: a ticket is a three-digit number with digits 1-6 (red, white, blue die), "
                            f"got {value!r}")  # fmt: skip
        if value in numbers:
            raise DataError(f"{where}: duplicate ticket {value} (also ticket {numbers.index(value)})")
        numbers.append(value)
    return tuple(numbers)


def _mapping(item: _Item, where: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(item.value, dict):
        raise DataError(f"{where}: a card is a mapping like {{{', '.join(f'{k}: ...' for k in sorted(allowed))}}}, "
                        f"got {item.value!r}")  # fmt: skip
    unknown = sorted(set(item.value) - allowed)
    if unknown:
        raise DataError(f"{where}: unknown key(s) {unknown}; a card has {sorted(allowed)}")
    return item.value


def _wall_street(items: dict[str, _Item], name: str) -> tuple[WallStreetCard, ...]:
    cards = []
    for i, item in enumerate(_entries(items, name, "cards", "card", 1, MAX_WALL)):
        where = _where(name, item, "card", i)
        card = _mapping(item, where, {"tip", "news", "odds"})
        for key in ("tip", "news", "odds"):
            if key not in card:
                raise DataError(f"{where}: missing {key!r}")
        sides = []
        for key in ("tip", "news"):
            value = card[key]
            if not isinstance(value, str) or value.lower() not in TIPS:
                raise DataError(f"{where}: {key} is 'up' or 'down', got {value!r}")
            sides.append(TIPS.index(value.lower()))
        odds = card["odds"]
        if type(odds) is not int or odds not in ODDS:
            raise DataError(f"{where}: bad odds {odds!r}; the odds are 1, 2 or 3 (to 1)")
        cards.append(WallStreetCard(sides[0], sides[1], odds))
    return tuple(cards)


def _jackpot(items: dict[str, _Item], name: str) -> tuple[JackpotCard, ...]:
    cards = []
    for i, item in enumerate(_entries(items, name, "cards", "card", 1, MAX_JACKPOT)):
        where = _where(name, item, "card", i)
        card = _mapping(item, where, {"kind", "amount"})
        kind = card.get("kind")
        if not isinstance(kind, str) or kind not in JACKPOT_KINDS:
            raise DataError(f"{where}: bad card kind {kind!r}; known: {', '.join(JACKPOT_KINDS)}")
        if kind in _NEEDS_AMOUNT:
            amount = card.get("amount")
            if type(amount) is not int or not 1 <= amount <= MAX_AMOUNT:
                raise DataError(f"{where}: a {kind} card needs an amount 1..{MAX_AMOUNT} (units), got {amount!r}")
        elif "amount" in card:
            raise DataError(f"{where}: a {kind} card takes no amount")
        else:
            amount = 0
        cards.append(JackpotCard(JACKPOT_KINDS.index(kind), amount))
    return tuple(cards)


_LOADERS = {"board": _board, "lottery_tickets": _tickets, "wall_street": _wall_street, "mystery_jackpot": _jackpot}


@functools.lru_cache(maxsize=64)
def _load_cached(kind: str, path: str, mtime_ns: int, size: int) -> Any:
    return _LOADERS[kind](_read(path, kind), path)


def _load(kind: str, path: str | os.PathLike[str] | None) -> Any:
    p = default_path(kind) if path is None else Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise DataError(f"{p}: no such {kind.replace('_', ' ')} file") from None
    except OSError as exc:
        raise DataError(f"{p} (the {kind!r} file): cannot read it ({exc})") from None
    return _load_cached(kind, str(p), st.st_mtime_ns, st.st_size)


def load_board(path: str | os.PathLike[str] | None = None) -> tuple[int, ...]:
    """The board's space type codes (``SPACE_TYPES``), index 0 = START; ``None``: the shipped default."""
    return _load("board", path)


def load_tickets(path: str | os.PathLike[str] | None = None) -> tuple[int, ...]:
    """The Lottery ticket numbers; ``None``: the shipped default."""
    return _load("lottery_tickets", path)


def load_wall_street(path: str | os.PathLike[str] | None = None) -> tuple[WallStreetCard, ...]:
    """The Wall Street deck; ``None``: the shipped default."""
    return _load("wall_street", path)


def load_jackpot(path: str | os.PathLike[str] | None = None) -> tuple[JackpotCard, ...]:
    """The Mystery Jackpot deck; ``None``: the shipped default."""
    return _load("mystery_jackpot", path)


def load_game_data(board: Any = None, lottery_tickets: Any = None, wall_street: Any = None,
                   mystery_jackpot: Any = None) -> GameData:  # fmt: skip
    """Every file of one config (``None``: the shipped default), validated."""
    return GameData(load_board(board), load_tickets(lottery_tickets), load_wall_street(wall_street),
                    load_jackpot(mystery_jackpot))  # fmt: skip
