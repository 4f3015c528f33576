"""Validated rule-variant configs: one pydantic model per game, one error type for all of them."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["ConfigError", "GameConfig", "validate_config"]


class ConfigError(ValueError):
    """A config value is missing, unknown or out of range; the message names the key and what is allowed."""


class GameConfig(BaseModel):
    """Base for game configs: frozen, unknown keys rejected, no silent type coercion."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


C = TypeVar("C", bound=GameConfig)


def _describe(error: dict[str, Any]) -> str:
    key = ".".join(str(part) for part in error["loc"])
    if error["type"] == "extra_forbidden":
        return f"unknown key {key!r}"
    if not key:
        return error["msg"].removeprefix("Value error, ")
    return f"{key!r}: {error['msg']} (got {error.get('input')!r})"


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
        problems = "; ".join(_describe(e) for e in exc.errors())
        raise ConfigError(f"bad {model.__name__}: {problems}. Allowed keys: {allowed}") from None
