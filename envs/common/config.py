"""Validated rule-variant configs: one pydantic model per game, one error type for all of them."""

from __future__ import annotations

import reprlib
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["MAX_REWARD", "ConfigError", "GameConfig", "validate_config"]

MAX_REWARD = 1e6  # a reward knob's bound (|value|): the faces' float32 rewards stay finite and exact to 1/16


class ConfigError(ValueError):
    """A config value is missing, unknown or out of range; the message names the key and what is allowed."""


class GameConfig(BaseModel):
    """Base for game configs: frozen, unknown keys rejected, no silent type coercion, no NaN or infinity."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


C = TypeVar("C", bound=GameConfig)


MAX_SHOWN = 80  # characters of an offending value quoted in an error
MAX_PROBLEMS = 5  # problems listed in one error


_REPR = reprlib.Repr()  # (keyword arguments only from Python 3.12)
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist, _REPR.maxtuple, _REPR.maxset = 3, 6, 6, 6, 6
_REPR.maxstring = _REPR.maxother = MAX_SHOWN


def _short(value: Any) -> str:
    """A bounded repr: an offending value may be an alias bomb or a megabyte string."""
    text = _REPR.repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def _describe(error: dict[str, Any]) -> str:
    key = ".".join(str(part) for part in error["loc"])
    if error["type"] == "extra_forbidden":
        return f"unknown key {key[:MAX_SHOWN]!r}"
    if not key:
        return error["msg"].removeprefix("Value error, ")[:500]
    return f"{key[:MAX_SHOWN]!r}: {error['msg'][:300]} (got {_short(error.get('input'))})"


def validate_config(model: type[C], config: C | dict[str, Any] | None = None, **overrides: Any) -> C:
    """Build a config from a model instance, a mapping and/or keyword overrides, or raise ConfigError."""
    if isinstance(config, model) and not overrides:
        return config
    if isinstance(config, BaseModel):
        values = config.model_dump()
    elif config is None:
        values = {}
    elif isinstance(config, dict):
        values = dict(config)
    else:
        raise ConfigError(f"config must be a {model.__name__} or a dict, got {type(config).__name__}")
    values.update(overrides)
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        allowed = ", ".join(model.model_fields)
        errors = exc.errors()
        problems = "; ".join(_describe(e) for e in errors[:MAX_PROBLEMS])
        if len(errors) > MAX_PROBLEMS:
            problems += f"; and {len(errors) - MAX_PROBLEMS} more"
        raise ConfigError(f"bad {model.__name__}: {problems}. Allowed keys: {allowed}") from None
