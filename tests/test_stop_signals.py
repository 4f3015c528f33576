"""``StopSignals``: Ctrl-C and SIGTERM stop a training run, but never inside a checkpoint's write."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from dicearena.agents.training.stop_signals import StopSignals


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_outside_a_write_stops_at_once(signum: int) -> None:
    with StopSignals(), pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signum)  # Python runs the handler here, before the next line
        raise AssertionError("not stopped")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_a_write_waits_for_it_then_stops_once(signum: int) -> None:
    written = []
    with StopSignals() as stops:
        with stops.held():
            os.kill(os.getpid(), signum)
            written.append("whole")  # the write goes on to its end
        assert written == ["whole"] and stops.asked
        with pytest.raises(KeyboardInterrupt):
            stops.stop_if_asked()
        stops.stop_if_asked()  # asked once, stopped once


def test_the_handlers_found_are_put_back() -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with StopSignals():
        assert all(signal.getsignal(s) != handler for s, handler in before.items())
    assert {s: signal.getsignal(s) for s in before} == before


def test_outside_the_main_thread_nothing_changes() -> None:
    before = signal.getsignal(signal.SIGTERM)
    seen = []

    def run() -> None:
        with StopSignals() as stops, stops.held():
            seen.append(signal.getsignal(signal.SIGTERM))

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert seen == [before]
