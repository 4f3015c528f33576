"""Validated rule-variant configs: one pydantic model per game, one error type for all of them."""

from __future__ import annotations

import difflib
import reprlib
import types
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

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


def _unwrap(annotation: Any) -> Any:
    """``annotation`` without ``Annotated[...]`` and ``| None``."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return Union[tuple(members)]  # noqa: UP007  (a union of the rest, built at run time)
            annotation = members[0]
        else:
            return annotation


def _is_tag(member: Any, part: Any) -> bool:
    """Whether ``part`` is pydantic's name of the union member ``member`` in a location: ``NetArch``,
    ``list[constrained-int]``, ``literal['a','b']``."""
    member = _unwrap(member)
    names = {getattr(member, "__name__", None), getattr(get_origin(member), "__name__", None)}
    names |= {getattr(get_origin(member), "_name", None)}  # typing.Literal
    return isinstance(part, str) and part.partition("[")[0].lower() in {n.lower() for n in names if n}


def _step(annotation: Any, part: Any) -> tuple[Any, bool] | None:
    """The type at ``part`` (one element of an error's location) inside a value of type ``annotation``, and whether
    ``part`` is a key the user wrote rather than pydantic's tag of a union member; None: the walk cannot follow."""
    annotation = _unwrap(annotation)
    origin, args = get_origin(annotation), get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, field in annotation.model_fields.items():
            if part in (name, field.alias):
                return field.annotation, True
        return None
    if origin in (Union, types.UnionType):
        for member in args:
            if _is_tag(member, part):
                return member, False
        return next((found for member in args if (found := _step(member, part)) is not None), None)
    if origin in (list, tuple, set, frozenset) and isinstance(part, int) and args:
        return args[0], True
    if origin is dict and len(args) == 2:
        return args[1], True
    return None


def _walk(model: type[BaseModel], loc: tuple[Any, ...]) -> tuple[list[str], list[str], type[BaseModel] | None]:
    """Along an error's ``loc``: the keys the user wrote (pydantic's union tags dropped), those of the section holding
    the last key, and that section's model (None: not a model, or the walk could not follow the types)."""
    annotation: Any = model
    path: list[str] = []
    section_path: list[str] = []
    section: type[BaseModel] | None = None
    following = True
    for i, part in enumerate(loc):
        if i == len(loc) - 1 and following:
            section_path, holder = list(path), _unwrap(annotation)
            section = holder if isinstance(holder, type) and issubclass(holder, BaseModel) else None
        found = _step(annotation, part) if following else None
        if found is None:
            following = False
            path.append(str(part))
            continue
        annotation, written = found
        if written:
            path.append(str(part))
    return path, section_path, section


def _keys(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def _describe(model: type[BaseModel], error: dict[str, Any], sections: dict[str, list[str]]) -> str:
    """One problem, its key dotted from the top; an unknown key adds the keys allowed in its section to
    ``sections`` (dotted path -> keys) and names the nearest one."""
    loc = tuple(error["loc"])
    path, section_path, section = _walk(model, loc)
    key = ".".join(path)
    if error["type"] == "extra_forbidden":
        text = f"unknown key {key[:MAX_SHOWN]!r}"
        if section is not None:
            allowed = _keys(section)
            near = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
            if near:
                text += f" (did you mean {near[0]!r}?)"
            sections.setdefault(".".join(section_path), allowed)
        return text
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
        errors = exc.errors()
        sections: dict[str, list[str]] = {}  # where an unknown key is: the keys allowed there
        problems = "; ".join(_describe(model, e, sections) for e in errors[:MAX_PROBLEMS])
        if len(errors) > MAX_PROBLEMS:
            problems += f"; and {len(errors) - MAX_PROBLEMS} more"
        allowed = ". ".join(f"Allowed keys{f' in {path!r}' if path else ''}: {', '.join(keys)}"
                            for path, keys in (sections or {"": _keys(model)}).items())  # fmt: skip
        raise ConfigError(f"bad {model.__name__}: {problems}. {allowed}") from None
