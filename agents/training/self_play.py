"""Self-play for every contract game: the opponent pool, the ``<game>_selfplay`` training task and its scoring.

Why one mechanism: "learn one seat against a mix of your own past selves and named agents" is the same for every
game once the seat env takes a seating (``dicearena.envs.common.seating.Seating``). The pool holds the live learner
(``latest``), the newest ``keep`` snapshots of it (one every ``snapshot_every`` steps) and any named agents; each
opponent seat of each new episode draws one of them by the configured ``mix``, and the learner's seat rotates
(or is drawn). Opponents act batched: one call per pool member per step, for all the games and seats it holds.

Snapshots are model files (``<output_dir>/pool/snapshot_<steps>.zip``, saved atomically and read back as data),
listed in ``pool.json``; each checkpoint records its pool, a resumed run restores the pool of the checkpoint it
resumes (``dicearena.agents.training.pool_files``), and a tournament can seat the snapshots as ``sb3`` agents.
"""

from __future__ import annotations

import copy
import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from dicearena.agents import check_agent, make_agent, table_player
from dicearena.agents.advice import AdvisedAgent, AdvisedVecEnv, check_advisor
from dicearena.agents.base import Agent
from dicearena.agents.evaluation.play import head_to_head
from dicearena.agents.model_files import ModelFile, ModelFileError, read_model_file, save_model
from dicearena.agents.random_agent import RandomAgent
from dicearena.agents.sb3_agent import SB3Agent
from dicearena.agents.snapshots import MANIFEST, with_advice
from dicearena.agents.training.pool_files import (
    POOL_KEY,
    cut_curve,
    listed_by_checkpoints,
    pool_at_checkpoint,
    remove_unlisted,
    write_manifest,
)
from dicearena.agents.training.task import Task
from dicearena.envs.common.config import ConfigError, GameConfig, validate_config
from dicearena.envs.common.contract import game_spec
from dicearena.envs.common.game_seat import SeatGames, SeatVecEnv

__all__ = ["EvaluationSection", "OpponentPool", "PoolSection", "SelfPlayTaskConfig", "advised", "head_to_head",
           "self_play_task"]  # fmt: skip

LATEST, SNAPSHOTS = "latest", "snapshots"
CURVE = "curve.csv"
CURVE_FIELDS = ("steps", "minutes", "against", "win_rate", "ci_low", "ci_high", "games")


class PoolSection(GameConfig):
    snapshot_every: int = Field(500_000, ge=1, le=10**12, description="learner steps between snapshots")
    keep: int = Field(5, ge=1, le=1000, description="newest snapshots kept (the oldest is evicted)")
    mix: dict[str, float] = Field(
        default_factory=lambda: {LATEST: 0.5, SNAPSHOTS: 0.5},
        description="opponent draw weights: 'latest' (the live learner), 'snapshots' (one of the kept ones, "
        "uniformly) and agent names; weights of members not there yet (no snapshot) go to 'latest'",
    )
    deterministic: bool = Field(False, description="the learner's copies play their likeliest move (else sample)")

    @field_validator("mix")
    @classmethod
    def _weights(cls, mix: dict[str, float]) -> dict[str, float]:
        bad = {k: w for k, w in mix.items() if not (isinstance(w, int | float) and w >= 0)}
        if bad:
            raise ValueError(f"mix weights must be numbers >= 0, got {bad}")
        if not sum(mix.values()) > 0:
            raise ValueError(f"mix weights must not all be 0, got {mix}")
        return mix


class EvaluationSection(GameConfig):
    against: list[str] = Field(min_length=1, description="agent names; the first is the learning curve's opponent")
    every: int = Field(1_000_000, ge=1, le=10**12, description="steps between learning-curve points")
    games: int = Field(1000, ge=2, le=10**7, description="games per learning-curve point, seats rotated")


class ImitationSection(GameConfig):
    steps: int = Field(0, ge=0, le=10**9, description="advised decisions imitated before self-play starts (0: "
                       "none; needs an advisor)")  # fmt: skip
    epochs: int = Field(4, ge=1, le=1000, description="passes over them")
    batch_size: int = Field(1024, ge=1, le=10**7, description="decisions per gradient step")


class SelfPlayTaskConfig(GameConfig):
    game: dict[str, Any] = Field(default_factory=dict, description="the game's config keys")
    learner_seat: Literal["rotate", "random"] = Field("rotate", description="each game's next episode's seat")
    pool: PoolSection = Field(default_factory=PoolSection)
    evaluation: EvaluationSection
    advisor: str | None = Field(None, description="an agent whose advice (its move and its value of every action, "
                                "dicearena.agents.advice) extends the learner's observation")  # fmt: skip
    imitation: ImitationSection = Field(default_factory=ImitationSection, description="behaviour cloning of the "
                                        "advisor's moves before self-play, so it starts where the advisor plays")

    @model_validator(mode="after")
    def _imitation_needs_an_advisor(self) -> SelfPlayTaskConfig:
        if self.imitation.steps and self.advisor is None:
            raise ValueError("imitation.steps > 0 imitates the advisor's moves: set 'advisor' too")
        return self


class _Slot(Agent):
    """A pool member that is a copy of the learner's network (or the live one); empty until filled. With an
    ``advisor`` it reads the advised observation, as the learner does (``dicearena.agents.advice``)."""

    reads_state = False

    def __init__(self, name: str, advisor: Any = None) -> None:
        self.name, self.agent, self.advisor, self.network = name, None, advisor, None
        self.reads_both = advisor is not None

    def fill(self, policy: Any, deterministic: bool) -> None:
        agent = SB3Agent(policy, deterministic=deterministic, name=self.name)
        self.network = agent.policy  # the torch policy a snapshot loads its weights into
        self.agent = agent if self.advisor is None else AdvisedAgent(agent, self.advisor, self.name)

    def _filled(self) -> Agent:
        if self.agent is None:
            raise RuntimeError(f"pool member {self.name!r} has no policy yet: attach the learner's model first")
        return self.agent

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self._filled().act_batch(observations, action_masks)

    def act_observed(self, observations: np.ndarray, action_masks: np.ndarray, states: np.ndarray,
                     seats: np.ndarray) -> np.ndarray:  # fmt: skip
        return self._filled().act_observed(observations, action_masks, states, seats)

    def reset(self, seed: int | None = None) -> None:
        if self.agent is not None:
            self.agent.reset(seed)


class OpponentPool:
    """Who sits where in self-play (a ``Seating``): ``policies`` = [latest, named agents..., snapshot slots...].

    ``counts`` tallies the members drawn, by name ('latest', 'snapshots', agent names), for the tests and logs.
    """

    def __init__(
        self, num_players: int, mix: dict[str, float], named: dict[str, Agent] | None = None, keep: int = 5,
        learner_seat: str = "rotate", seed: int = 0, deterministic: bool = False, advisor: Any = None,
    ) -> None:  # fmt: skip
        named = dict(named or {})
        unknown = set(mix) - {LATEST, SNAPSHOTS} - set(named)
        if unknown:
            raise ValueError(f"mix names {sorted(unknown)}, which are neither 'latest', 'snapshots' nor a named agent "
                             f"({sorted(named)})")  # fmt: skip
        if learner_seat not in ("rotate", "random"):
            raise ValueError(f"learner_seat must be 'rotate' or 'random', got {learner_seat!r}")
        self.num_players, self.keep, self.deterministic = int(num_players), int(keep), bool(deterministic)
        self.learner_seat_rule = learner_seat
        self.latest = _Slot(LATEST, advisor)
        self.named = named
        self.slots = [_Slot(f"snapshot_{k}", advisor) for k in range(self.keep)]
        self.policies: list[Agent] = [self.latest, *named.values(), *self.slots]
        self.snapshots: list[tuple[int, int, str | None]] = []  # (slot, steps, file name), oldest first
        self.names = [LATEST, *named, SNAPSHOTS]
        self.weights = np.array([float(mix.get(n, 0.0)) for n in self.names])
        self.counts = dict.fromkeys(self.names, 0)
        self.rng = np.random.default_rng(seed)
        self._episodes: np.ndarray | None = None
        self._template: Any = None

    def attach(self, policy: Any) -> None:
        """Play ``latest`` with the learner's live ``policy``; snapshots will be copies of it."""
        self.latest.fill(policy, self.deterministic)
        self._template = policy

    def add_snapshot(self, state_dict: dict[str, Any], steps: int, file: str | None = None) -> str | None:
        """Keep ``state_dict`` as the newest snapshot (taken at ``steps``); returns the evicted one's file name."""
        if self._template is None:
            raise RuntimeError("attach(policy) before adding snapshots: they are copies of the learner's network")
        evicted = None
        if len(self.snapshots) < self.keep:
            slot = len(self.snapshots)
            self.slots[slot].fill(copy.deepcopy(self._template), self.deterministic)
        else:
            slot, _, evicted = self.snapshots.pop(0)
        self.slots[slot].network.load_state_dict(state_dict)
        self.slots[slot].network.set_training_mode(False)
        self.snapshots.append((slot, int(steps), file))
        return evicted

    def seat(self, games: np.ndarray, seats: np.ndarray, assignment: np.ndarray) -> None:
        games = np.asarray(games, dtype=np.int64)
        if self._episodes is None or self._episodes.size < len(seats):
            self._episodes = np.zeros(len(seats), dtype=np.int64)
        if self.learner_seat_rule == "rotate":
            seats[games] = (games + self._episodes[games]) % self.num_players
        else:
            seats[games] = self.rng.integers(0, self.num_players, games.size)
        self._episodes[games] += 1
        weights = self.weights.copy()
        if not self.snapshots:
            weights[0] += weights[-1]
            weights[-1] = 0.0
        if self.latest.agent is None:
            raise RuntimeError("the pool's 'latest' member has no policy: attach(model.policy) before reset")
        drawn = self.rng.choice(len(self.names), size=(games.size, self.num_players), p=weights / weights.sum())
        slots = np.array([s for s, _, _ in self.snapshots] or [0], dtype=np.int64)
        index = np.where(drawn == len(self.names) - 1,
                         1 + len(self.named) + slots[self.rng.integers(0, slots.size, drawn.shape)], drawn)  # fmt: skip
        index[np.arange(games.size), seats[games]] = -1
        assignment[games] = index
        learner = np.zeros_like(drawn, dtype=bool)
        learner[np.arange(games.size), seats[games]] = True
        for k, name in enumerate(self.names):
            self.counts[name] += int(((drawn == k) & ~learner).sum())

    # persistence: the snapshot files and pool.json in a run's pool folder (dicearena.agents.training.pool_files)
    @property
    def entries(self) -> list[dict[str, Any]]:
        """The kept snapshots as a pool listing, oldest first: what a checkpoint records."""
        return [{"file": f, "steps": n} for _, n, f in self.snapshots]

    def save_snapshot(self, model: Any, folder: Path, steps: int, protected: Callable[[], set[str]]) -> Path:
        """Snapshot ``model`` now: its file in ``folder``, the pool, the manifest; then delete the files that
        neither the pool nor ``protected()`` (the kept checkpoints' pools) lists."""

        path = save_model(model, folder / f"snapshot_{steps:012d}.zip", {"snapshot_steps": int(steps)})
        self.add_snapshot(model.policy.state_dict(), steps, path.name)
        write_manifest(folder, self.entries)
        remove_unlisted(folder, {e["file"] for e in self.entries} | protected())
        return path

    def restore(self, folder: Path, entries: list[dict[str, Any]], say: Callable[[str], None] = print) -> int:
        """Refill the snapshots ``entries`` list (oldest first); one that does not load is skipped and named.
        Returns how many loaded."""

        for entry in entries[-self.keep :]:
            try:
                weights = read_model_file(folder / entry["file"]).state_dict
                self.add_snapshot(weights, entry["steps"], entry["file"])
            except ModelFileError as exc:
                say(f"self-play: skipping snapshot {entry['file']}: {exc}")
            except RuntimeError as exc:  # load_state_dict: another network's weights
                say(f"self-play: skipping snapshot {entry['file']}: its weights do not fit the learner's network "
                    f"({str(exc).splitlines()[0]})")  # fmt: skip
        return len(self.snapshots)


def score_self_play(game: str, agent: Agent, config: dict[str, Any], games: int, seed: int) -> dict[str, Any]:
    """The trained agent head to head against each ``evaluation.against`` agent (the first is the champion)."""

    task = validate_config(SelfPlayTaskConfig, config)
    agent = advised(game, agent, config) if not getattr(agent, "reads_both", False) else agent
    rows = []
    for k, name in enumerate(task.evaluation.against):
        reference = table_player(game, name, task.game)
        rows.append({"against": name, **head_to_head(game, agent, reference, task.game, games, seed + k)})
    best = rows[0]
    return {"agent": getattr(agent, "name", "trained"), "champion": best["against"], "win_rate": best["win_rate"],
            "ci95": best["ci95"], "beats_every_agent": all(r["win_rate"] > 0.5 for r in rows),
            "head_to_head": rows}  # fmt: skip


def _check(game: str, config: dict[str, Any]) -> None:
    task = validate_config(SelfPlayTaskConfig, config)
    named = [n for n in task.pool.mix if n not in (LATEST, SNAPSHOTS)]
    for where, names in (("pool.mix", named), ("evaluation.against", task.evaluation.against),
                         ("advisor", [task.advisor] if task.advisor else [])):  # fmt: skip
        for name in names:
            try:
                check_agent(name, {}, game)
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"[task.config.{where}] {exc}") from None
    try:
        players = SeatGames(game, 1, RandomAgent(0), task.game, seed=0).core.batch.num_players
    except (TypeError, ValueError, FileNotFoundError) as exc:
        raise ConfigError(f"[task.config.game] {exc}") from None
    if players < 2:
        raise ConfigError(f"[task.config.game] self-play needs 2 or more players; this game config has {players}")
    if task.advisor is not None:
        try:
            check_advisor(make_agent(task.advisor))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"[task.config.advisor] {exc}") from None


def make_self_play_env(game: str, config: dict[str, Any], num_envs: int, seed: int | None) -> Any:
    """The seat vec env over an ``OpponentPool`` (its ``latest`` member attached by ``prepare``)."""

    task = validate_config(SelfPlayTaskConfig, config)
    players = int(validate_config(game_spec(game).config, task.game).num_players)
    named = {n: table_player(game, n, task.game) for n in task.pool.mix if n not in (LATEST, SNAPSHOTS)}
    advisor = None if task.advisor is None else table_player(game, task.advisor, task.game)
    pool = OpponentPool(players, task.pool.mix, named, task.pool.keep, task.learner_seat, seed=seed or 0,
                        deterministic=task.pool.deterministic, advisor=advisor)  # fmt: skip
    env = SeatVecEnv(game, num_envs, None, task.game, seed=seed, seating=pool)
    if advisor is not None:
        env = AdvisedVecEnv(env, advisor)
    env.pool = pool
    return env


def advised(game: str, agent: Agent, config: dict[str, Any]) -> Agent:
    """``agent`` as the self-play task ``config`` trained it to play: with its advisor's advice, if it has one."""
    task = validate_config(SelfPlayTaskConfig, config)
    return with_advice(game, agent, task.advisor, task.game)


def prepare_self_play(
    game: str, config: dict[str, Any], env: Any, model: Any, out: Path, resume: ModelFile | None,
    seconds: Callable[[], float],
) -> list[Any]:  # fmt: skip
    """Attach the learner to the pool, restore the pool ``resume`` was saved with (or clear the pool's files),
    and the callbacks that snapshot it and draw the learning curve."""
    from stable_baselines3.common.callbacks import BaseCallback


    class _Learner(SB3Agent):
        def reset(self, seed: int | None = None) -> None:
            """Plays its likeliest moves: nothing to reseed (and the training's global streams stay untouched)."""

    task = validate_config(SelfPlayTaskConfig, config)
    pool: OpponentPool = env.pool
    pool.attach(model.policy)
    folder, checkpoints = out / "pool", out / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    curve = out / CURVE

    def protected() -> set[str]:
        return listed_by_checkpoints(checkpoints)

    if resume is not None:
        restored = pool.restore(folder, pool_at_checkpoint(resume, folder, print))
        write_manifest(folder, pool.entries)
        cleared = remove_unlisted(folder, {e["file"] for e in pool.entries} | protected())
        cut_curve(curve, resume.num_timesteps)
        print(f"self-play: restored {restored} snapshots from {folder} (the pool of {resume.path.name})"
              + (f"; cleared {len(cleared)} files of later steps" if cleared else ""))  # fmt: skip
    else:
        remove_unlisted(folder, set())
        for stale in (folder / MANIFEST, curve):
            stale.unlink(missing_ok=True)
    champion = table_player(game, task.evaluation.against[0], task.game)
    every, snap_every = task.evaluation.every, task.pool.snapshot_every
    if task.imitation.steps and resume is None:
        section = task.imitation
        accuracy = imitate(env, model.policy, section.steps, section.epochs, section.batch_size, seed=model.seed or 0)
        print(f"self-play: imitated {section.steps:,} of {task.advisor}'s moves ({section.epochs} epochs); the "
              f"policy's likeliest move is the advisor's in {accuracy:.1%} of them")  # fmt: skip

    class SelfPlay(BaseCallback):
        """A snapshot every ``snapshot_every`` steps; a learning-curve point at the start, every
        ``evaluation.every`` steps and at the end."""

        def _on_training_start(self) -> None:
            self.next_snapshot = (self.num_timesteps // snap_every + 1) * snap_every
            self.next_point = (self.num_timesteps // every + 1) * every
            self.last_point = -1
            if not curve.exists():
                self._point()

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_snapshot:
                pool.save_snapshot(self.model, folder, self.num_timesteps, protected)
                self.next_snapshot = (self.num_timesteps // snap_every + 1) * snap_every
            if self.num_timesteps >= self.next_point:
                self._point()
                self.next_point = (self.num_timesteps // every + 1) * every
            return True

        def _on_training_end(self) -> None:  # the curve ends where the model does
            if self.last_point != self.num_timesteps:
                self._point()

        def checkpoint_metadata(self) -> dict[str, Any]:
            """Saved in each checkpoint: the pool it resumes with."""
            return {POOL_KEY: pool.entries}

        def after_checkpoint(self) -> None:
            """Older checkpoints were pruned: the files only they listed can go."""
            remove_unlisted(folder, {e["file"] for e in pool.entries} | protected())

        def _point(self) -> None:
            self.last_point = self.num_timesteps
            agent = advised(game, _Learner(self.model.policy, deterministic=True, name="learner"), config)
            row = head_to_head(game, agent, champion, task.game, task.evaluation.games, seed=777)
            self.model.policy.set_training_mode(False)
            write_curve_point(curve, self.num_timesteps, seconds() / 60, task.evaluation.against[0], row)
            self.logger.record("selfplay/win_rate_vs_champion", row["win_rate"])

    return [SelfPlay()]


def imitate(env: Any, policy: Any, steps: int, epochs: int, batch_size: int, seed: int) -> float:
    """Behaviour cloning: play the advisor's moves (read from the advice slots) in the advised ``env`` for ``steps``
    decisions, then fit ``policy``'s masked action distribution to them; returns the share of those decisions
    where the policy's likeliest move is the advisor's."""
    import torch

    actions_n = int(env.action_space.n)
    obs = env.reset()
    seen_obs, seen_masks, seen_moves = [], [], []
    while sum(len(m) for m in seen_moves) < steps:
        masks = env.action_masks()
        moves = np.argmax(obs[:, -2 * actions_n : -actions_n], axis=1).astype(np.int64)
        deciding = masks.any(axis=1)
        seen_obs.append(obs[deciding].copy())
        seen_masks.append(masks[deciding].copy())
        seen_moves.append(moves[deciding])
        obs, *_ = env.step(moves)
    x, m, y = (np.concatenate(part)[:steps] for part in (seen_obs, seen_masks, seen_moves))
    rng = np.random.default_rng(seed)
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch_size):
            rows = order[start : start + batch_size]
            _, log_prob, _ = policy.evaluate_actions(torch.as_tensor(x[rows]), torch.as_tensor(y[rows]),
                                                     action_masks=m[rows])  # fmt: skip
            loss = -log_prob.mean()
            policy.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            policy.optimizer.step()
    policy.set_training_mode(False)
    sample = rng.permutation(len(y))[:20_000]
    with torch.no_grad():
        chosen, _ = policy.predict(x[sample], deterministic=True, action_masks=m[sample])
    return float((np.asarray(chosen) == y[sample]).mean())


def write_curve_point(curve: Path, steps: int, minutes: float, against: str, row: dict[str, Any]) -> None:
    new = not curve.exists()
    with curve.open("a", newline="") as handle:
        writer = csv.writer(handle)
        if new:
            writer.writerow(CURVE_FIELDS)
        writer.writerow([steps, round(minutes, 3), against, round(row["win_rate"], 5), round(row["ci95"][0], 5),
                         round(row["ci95"][1], 5), row["games"]])  # fmt: skip


def read_curve(curve: Path) -> list[dict[str, Any]]:
    with curve.open() as handle:
        return [{**r, **{k: float(r[k]) for k in ("steps", "minutes", "win_rate", "ci_low", "ci_high")}}
                for r in csv.DictReader(handle)]  # fmt: skip


def plot_curves(curves: dict[str, Path], path: Path, title: str = "Self-play: win share against the best heuristic",
                ) -> Path:  # fmt: skip
    """One line per run (label -> its curve.csv): win share with its 95% band against training minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, file in curves.items():
        rows = read_curve(file)
        x = [r["minutes"] for r in rows]
        ax.plot(x, [r["win_rate"] for r in rows], marker="o", ms=3, label=f"{label} (vs {rows[0]['against']})")
        ax.fill_between(x, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], alpha=0.2)
    ax.axhline(0.5, color="grey", lw=1, ls="--")
    ax.set(xlabel="training minutes (2-core machine)", ylabel="win share, head to head", title=title, ylim=(0, 1))
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def self_play_task(game: str) -> Any:
    """``game``'s ``<game>_selfplay`` training task (``dicearena.agents.training.tasks.Task``)."""

    return Task(
        id=f"{game}_selfplay",
        check=lambda config: _check(game, config),
        make_env=lambda config, num_envs, seed: make_self_play_env(game, config, num_envs, seed),
        score=lambda agent, config, samples, seed: score_self_play(game, agent, config, samples, seed),
        prepare=lambda config, env, model, out, resume, seconds: prepare_self_play(
            game, config, env, model, out, resume, seconds
        ),
    )



def main(argv: list[str] | None = None) -> int:
    """``python -m dicearena.agents.training.self_play RUN [RUN ...] -o curves.png``: the runs' learning curves in one
    plot."""
    import argparse

    parser = argparse.ArgumentParser(description="Plot self-play runs' learning curves (their curve.csv).")
    parser.add_argument("runs", nargs="+", type=Path, help="training output folders (training.output_dir)")
    parser.add_argument("-o", "--output", type=Path, default=Path("results/selfplay_curves.png"))
    args = parser.parse_args(argv)
    missing = [str(r) for r in args.runs if not (r / CURVE).is_file()]
    if missing:
        parser.error(f"no {CURVE} in {', '.join(missing)} (is it a self-play run's output_dir?)")
    print(plot_curves({r.name: r / CURVE for r in args.runs}, args.output))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
