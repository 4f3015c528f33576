"""Model files that run no code: saving checkpoints atomically, and loading weights without unpickling.

Why: Stable-Baselines3's ``load`` unpickles the ``:serialized:`` entries of a zip's ``data``, so opening a
model file someone sent you can run any code stored in it. Here a model file is read as data only: the policy
is rebuilt from its layout (read off the weight shapes, and the activation from a readable name), and the
weights and optimizer state come from ``torch.load(weights_only=True)``. Nothing serialized is ever decoded.

Saves go to a temporary file in the same folder, are fsynced and then renamed, so a kill or a full disk
mid-save leaves the previous checkpoint intact and never a partial file under a checkpoint's name.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "ACTIVATIONS",
    "METADATA_ENTRY",
    "ModelFile",
    "ModelFileError",
    "build_policy",
    "read_metadata",
    "read_model_file",
    "replace_atomically",
    "save_model",
]

METADATA_ENTRY = "dicearena.json"  # our own readable entry: activation name, training time, ...
ACTIVATIONS = ("Tanh", "ReLU", "ELU", "LeakyReLU", "GELU", "SiLU", "Sigmoid")  # torch.nn classes a file may name
_LAYER_PREFIXES = ("mlp_extractor.policy_net.", "mlp_extractor.value_net.")
_SLOTS = "mlp_extractor.slots"  # an ActionFeaturePolicy's skip slots (dicearena.agents.action_features)


class ModelFileError(ValueError):
    """A model file is missing, damaged or of a layout this loader does not rebuild; the message says which."""


@dataclass
class ModelFile:
    """What a model zip holds, read as data: plain ``data`` fields, weights, optimizer state, our metadata."""

    path: Path
    data: dict[str, Any]
    state_dict: dict[str, Any]
    optimizer_state: dict[str, Any] | None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def maskable(self) -> bool:
        """Whether it was saved by sb3-contrib's MaskablePPO (the policy class's module, stored in plain text)."""
        policy = self.data.get("policy_class")
        return isinstance(policy, dict) and "maskable" in str(policy.get("__module__", "")).lower()

    @property
    def num_timesteps(self) -> int:
        value = self.data.get("num_timesteps", 0)
        return int(value) if isinstance(value, int) else 0

    @property
    def activation(self) -> str:
        """The activation's torch.nn class name: from our metadata, else SB3's readable copy of policy_kwargs."""
        name = self.metadata.get("activation_fn")
        if name is None:
            kwargs = self.data.get("policy_kwargs")
            text = str(kwargs.get("activation_fn", "")) if isinstance(kwargs, dict) else ""
            name = text.rsplit(".", 1)[-1].rstrip("'>") if text else "Tanh"
        if name not in ACTIVATIONS:
            raise ModelFileError(f"{self.path}: activation {name!r} is not one this loader rebuilds: {ACTIVATIONS}")
        return name

    @property
    def action_features(self) -> list[int] | None:
        """The observation slots an ``ActionFeaturePolicy`` feeds past its hidden layers, or None (a plain MLP)."""
        slots = self.state_dict.get(_SLOTS)
        return None if slots is None else [int(slot) for slot in slots.tolist()]

    def layers(self) -> tuple[int, int, list[int], list[int]]:
        """``(observation size, actions, policy hidden sizes, value hidden sizes)`` read off the weight shapes."""
        skip = self.action_features
        prefixes = [p.replace("mlp_extractor.", "mlp_extractor.base.") if skip else p for p in _LAYER_PREFIXES]
        try:
            hidden = [_hidden_sizes(self.state_dict, prefix) for prefix in prefixes]
            obs_dim = int(self.state_dict[f"{prefixes[0]}0.weight"].shape[1]) if hidden[0] else int(
                self.state_dict["action_net.weight"].shape[1]
            )
            if skip and not hidden[0]:
                raise ModelFileError(f"{self.path}: an action-feature policy without hidden layers is not rebuilt")
            actions = int(self.state_dict["action_net.weight"].shape[0])
        except (KeyError, AttributeError, IndexError) as exc:
            raise ModelFileError(
                f"{self.path}: not an MlpPolicy actor-critic with a Discrete action (missing weight {exc})"
            ) from None
        return obs_dim, actions, hidden[0], hidden[1]


def _hidden_sizes(state_dict: dict[str, Any], prefix: str) -> list[int]:
    sizes, k = [], 0
    while f"{prefix}{k}.weight" in state_dict:
        sizes.append(int(state_dict[f"{prefix}{k}.weight"].shape[0]))
        k += 2  # Linear, activation, Linear, ...
    return sizes


def _plain(value: Any) -> Any:
    """A ``data`` value with every serialized payload dropped: only what JSON itself says is kept."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != ":serialized:"}
    return value


def read_model_file(path: str | Path) -> ModelFile:
    """Read a Stable-Baselines3 model zip as data (never unpickling), or raise ModelFileError saying why not."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"no saved model at '{path}'")
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
            if bad is not None:
                raise ModelFileError(f"{path}: entry {bad!r} is damaged (CRC mismatch)")
            names = set(archive.namelist())
            if "data" not in names or "policy.pth" not in names:
                raise ModelFileError(f"{path}: not a Stable-Baselines3 model zip (no 'data' or 'policy.pth' entry)")
            data = json.loads(archive.read("data"))
            state_dict = torch.load(io.BytesIO(archive.read("policy.pth")), map_location="cpu", weights_only=True)
            optimizer = None
            if "policy.optimizer.pth" in names:
                optimizer = torch.load(
                    io.BytesIO(archive.read("policy.optimizer.pth")), map_location="cpu", weights_only=True
                )
            metadata = json.loads(archive.read(METADATA_ENTRY)) if METADATA_ENTRY in names else {}
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ModelFileError(f"{path}: not a readable zip file ({exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{path}: its 'data' or '{METADATA_ENTRY}' entry is not JSON ({exc})") from None
    except Exception as exc:  # torch's weights-only unpickler refuses anything but tensors and plain containers
        raise ModelFileError(f"{path}: weights refused by torch.load(weights_only=True): {exc}") from None
    if not isinstance(data, dict) or not isinstance(state_dict, dict):
        raise ModelFileError(f"{path}: not a Stable-Baselines3 model zip (unexpected 'data' or weights layout)")
    return ModelFile(path, _plain(data), state_dict, optimizer, metadata if isinstance(metadata, dict) else {})


def read_metadata(path: str | Path) -> dict[str, Any] | None:
    """Only the readable ``METADATA_ENTRY`` of a model zip (no weights read), or None when it cannot be read."""
    try:
        with zipfile.ZipFile(path) as archive:
            metadata = json.loads(archive.read(METADATA_ENTRY))
    except (KeyError, zipfile.BadZipFile, EOFError, OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return metadata if isinstance(metadata, dict) else None


def build_policy(model_file: ModelFile, observation_space: Any = None, action_space: Any = None) -> Any:
    """A maskable actor-critic policy of the file's layout with its weights loaded (spaces default to the file's
    sizes; a plain PPO file gets the same layer layout, so its masked argmax is unchanged; a file whose weights hold
    action-feature slots gets ``ActionFeaturePolicy``)."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    obs_dim, actions, pi, vf = model_file.layers()
    if observation_space is None:
        observation_space = spaces.Box(-np.inf, np.inf, (obs_dim,), np.float32)
    if action_space is None:
        action_space = spaces.Discrete(actions)
    if observation_space.shape != (obs_dim,) or getattr(action_space, "n", None) != actions:
        raise ModelFileError(
            f"{model_file.path}: the model reads {obs_dim} observation floats and chooses among {actions} actions; "
            f"this env has {observation_space.shape} and {action_space}"
        )
    layout = {"net_arch": {"pi": pi, "vf": vf}, "activation_fn": getattr(torch.nn, model_file.activation)}
    if model_file.action_features is None:
        policy = MaskableActorCriticPolicy(observation_space, action_space, lambda _: 0.0, **layout)
    else:  # the skip slots are a buffer among the weights; the head's weights come with them
        from dicearena.agents.action_features import ActionFeaturePolicy

        try:
            policy = ActionFeaturePolicy(observation_space, action_space, lambda _: 0.0,
                                         action_features=model_file.action_features, **layout)  # fmt: skip
        except ValueError as exc:
            raise ModelFileError(f"{model_file.path}: its action-feature slots do not fit its layout ({exc})") from None
    try:
        policy.load_state_dict(model_file.state_dict, strict=True)
    except RuntimeError as exc:
        raise ModelFileError(f"{model_file.path}: weights do not fit an MlpPolicy of that layout ({exc})") from None
    policy.set_training_mode(False)
    return policy


def save_model(model: Any, path: str | Path, metadata: dict[str, Any] | None = None) -> Path:
    """``model.save`` to ``path`` atomically (temp file in the same folder, fsync, rename), with ``metadata`` and
    the policy's activation name in the readable ``METADATA_ENTRY``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"activation_fn": model.policy.activation_fn.__name__, **(metadata or {})}
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w+b") as handle:
            model.save(handle)
            handle.flush()
            with zipfile.ZipFile(handle, "a") as archive:
                archive.writestr(METADATA_ENTRY, json.dumps(entry))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return path


def replace_atomically(target: Path, write: Callable[[Path], Any]) -> Path:
    """``write(tmp)`` to a temp file beside ``target``, then rename it over ``target``: a reader, a kill or a full
    disk leaves the old file or the new one, never half of one (a failed write removes its temp file)."""
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        write(tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
