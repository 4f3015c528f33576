"""The clock decides serial or parallel steps (issue 22.3): a busy core must not make threads slower than one."""

from __future__ import annotations

import numpy as np
import pytest

from dicearena.agents.random_agent import sample_masked
from dicearena.envs.common.batching import ThreadChoice
from dicearena.envs.common.game_batch import BatchedGame


def feed(choice: ThreadChoice, seconds: dict[bool, float], calls: int, items: int = 100) -> list[bool]:
    """``calls`` choices, each build taking ``seconds[build]``; the builds chosen, in order."""
    chosen = []
    for _ in range(calls):
        build = choice.parallel()
        choice.record(build, seconds[build], items)
        chosen.append(build)
    return chosen


def test_both_builds_are_timed_thrice_before_a_choice_the_first_call_left_out_the_faster_other_counting() -> None:
    choice = ThreadChoice()
    chosen = []
    for seconds in (9.0, 3.0, 1.0, 9.0, 2.0, 2.5):  # compiling, a slow start, then the builds' real times
        chosen.append(choice.parallel())
        choice.record(chosen[-1], seconds, 100)
    assert chosen == [True, True, True, False, False, False]
    assert choice.cost == {True: pytest.approx(0.01), False: pytest.approx(0.02)}
    assert choice.parallel() is True


def test_the_faster_build_runs_and_a_losing_retry_comes_twice_as_seldom_each_time() -> None:
    choice = ThreadChoice(first_retry=4, longest_retry=32, overhead=1.0)
    chosen = feed(choice, {True: 5.0, False: 1.0}, 6 + 200)[6:]  # parallel 5x slower: a busy core
    retries = [i for i, build in enumerate(chosen) if build]
    gaps = np.diff(retries).tolist()
    assert gaps[:3] == [9, 17, 33] and set(gaps[3:]) == {33}  # 8, 16, 32 serial calls between, then capped
    assert chosen[:4] == [False] * 4 and chosen.count(True) <= 8


@pytest.mark.parametrize("slowdown", [1.5, 5.0, 50.0])
def test_retrying_a_slow_build_costs_at_most_the_overhead_share(slowdown: float) -> None:
    """However slow the threads get, re-timing them costs at most ``overhead`` (2%) of the time run."""
    choice = ThreadChoice()
    seconds = {True: slowdown, False: 1.0}
    chosen = feed(choice, seconds, 6 + 5000)[6:]
    spent = sum(seconds[build] for build in chosen)
    assert 2 <= chosen.count(True) and (spent - len(chosen)) / len(chosen) <= 0.02 + 1e-9


def test_a_retry_that_wins_switches_builds_at_once() -> None:
    choice = ThreadChoice(first_retry=4, overhead=1.0)
    feed(choice, {True: 5.0, False: 1.0}, 14)  # serial chosen
    chosen = feed(choice, {True: 0.5, False: 1.0}, 12)  # the other process stopped: parallel is faster now
    first = chosen.index(True)  # the next retry of the threads
    assert first <= 8 and chosen[first + 1 : first + 5] == [True] * 4  # it won: the threads run from now on
    assert chosen[first + 1 :].count(False) <= 1  # one thread is retried in turn, soon (the load changed)


@pytest.mark.parametrize("mode", ["parallel", "serial"])
def test_a_fixed_mode_always_runs_its_build(mode: str) -> None:
    chosen = feed(ThreadChoice(mode), {True: 5.0, False: 1.0}, 50)
    assert set(chosen) == {mode == "parallel"}


def test_a_bad_mode_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="mode must be 'auto', 'parallel' or 'serial', got 'fast'"):
        ThreadChoice("fast")  # type: ignore[arg-type]


def test_an_engine_whose_threads_are_slow_steps_on_one_thread_and_plays_the_same_games(monkeypatch) -> None:
    """A parallel step made 20 ms slower (a core held by another process): after the first timings the engine
    steps on one thread, rarely retrying the threads, and the games are those of ``threads=1``."""
    import time

    slow = BatchedGame("yay", 64, seed=3, threads=2)
    calls = {"parallel": 0}
    parallel = slow._parallel

    def held_up(name, args):  # noqa: ANN001, ANN202
        calls["parallel"] += 1
        time.sleep(0.02)
        return parallel(name, args)

    monkeypatch.setattr(slow, "_parallel", held_up)
    one = BatchedGame("yay", 64, seed=3, threads=1)
    rng_slow, rng_one = np.random.default_rng(0), np.random.default_rng(0)
    _, masks_slow, _ = slow.reset()
    _, masks_one, _ = one.reset()
    for _ in range(150):
        _, masks_slow, *_ = slow.step(sample_masked(masks_slow, rng_slow))
        _, masks_one, *_ = one.step(sample_masked(masks_one, rng_one))
    assert np.array_equal(slow.states, one.states)
    assert calls["parallel"] <= 3 + 6  # the three first timings, then retries at 16, 32, 64, ... calls apart


TORCH_AFTER_A_PARALLEL_STEP = """
import sys
import torch
{before}
import dicearena.envs
from dicearena.envs.common.batching import ThreadChoice
from dicearena.envs.common.game_batch import BatchedGame
{after}
torch.tanh(torch.ones(100_000))  # torch's OpenMP starts (as a model's first batch does)
games = BatchedGame("easy_come_easy_go", 64, seed=0, threads=2)
games.thread_choice = ThreadChoice("parallel")  # numba's pool runs a step for sure
games.reset()
print(torch.get_num_threads())
"""


@pytest.mark.parametrize("where", ["before", "after"])
def test_torch_keeps_its_thread_count_when_numbas_pool_starts(where: str) -> None:
    """numba's pool shares torch's OpenMP runtime here: starting it (now at import) must not undo
    ``torch.set_num_threads(1)``, set before importing dicearena or after (before the fix: 2 threads, and torch
    ran 20x slower on a busy machine)."""
    import subprocess
    import sys

    code = {"before": "", "after": ""}
    code[where] = "torch.set_num_threads(1)"
    out = subprocess.run([sys.executable, "-c", TORCH_AFTER_A_PARALLEL_STEP.format(**code)], capture_output=True,
                         text=True, timeout=600, check=True)  # fmt: skip
    assert out.stdout.split() == ["1"]
